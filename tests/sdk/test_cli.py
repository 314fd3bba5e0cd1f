"""The president-bot command: loading bots, local play, clear errors."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from president_sdk.bot_cli import BotLoadError, load_bot, main
from president_sdk.bots import HardBot

FIRST_BOT = Path(__file__).resolve().parents[2] / "examples" / "python" / "first_bot.py"


def test_load_from_file_builtin_and_module() -> None:
    assert type(load_bot(str(FIRST_BOT))).__name__ == "FirstBot"
    assert type(load_bot(f"{FIRST_BOT}:FirstBot")).__name__ == "FirstBot"
    assert isinstance(load_bot("builtin:hard"), HardBot)
    assert isinstance(load_bot("president_sdk.bots.hard:HardBot"), HardBot)


@pytest.mark.parametrize(("spec", "words"), [
    ("builtin:grandmaster", "no built-in bot 'grandmaster'"),
    ("missing.py", "no file missing.py"),
    (f"{FIRST_BOT}:Nope", "has no Bot subclass named Nope"),
    ("president_sdk.bots", "defines 0 Bot subclasses"),
])
def test_bad_bot_specs(spec: str, words: str) -> None:
    with pytest.raises(BotLoadError, match=words):
        load_bot(spec)


def test_local_match_prints_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(FIRST_BOT), "--local", "--preset", "norwegian", "--deals", "2"]) == 0
    out = capsys.readouterr().out
    assert "== deal 2 over" in out
    assert out.strip().splitlines()[-1].startswith("FirstBot: ")


def test_no_token_names_the_flag(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRESIDENT_TOKEN", raising=False)
    monkeypatch.delenv("PRESIDENT_ACCOUNT_TOKEN", raising=False)
    assert main(["builtin:easy", "--server", "127.0.0.1:1", "-q"]) == 2
    err = capsys.readouterr().err
    assert "give --account-token TOKEN (or set PRESIDENT_ACCOUNT_TOKEN)" in err
    assert "or --token TOKEN (or set PRESIDENT_TOKEN) for one seat" in err and "token=" not in err


def test_again_with_an_account_token_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["builtin:easy", "--server", "127.0.0.1:1", "--account-token", "abc", "--again"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("president-bot: --again plays a dev seat's --token"), err


def test_an_unreachable_server_fails_fast_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    assert main(["builtin:easy", "--server", "127.0.0.1:1", "--token", "abc", "-q"]) == 1
    assert time.monotonic() - started < 5
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["president-bot: cannot reach 127.0.0.1:1: is the server running, and is the address right?"]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("president-bot 0.")


BROKEN = """
import time
from president_sdk import Bot


class Broken(Bot):
    def play(self, obs):
        if len(obs.hand) % 3 == 0:
            raise RuntimeError("oops")
        if len(obs.hand) % 3 == 1:
            time.sleep(30)
        return "pass"
"""


def test_local_play_counts_faults_keeps_deadlines_and_strict_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text(BROKEN)
    started = time.monotonic()
    assert main([str(bot), "--local", "--deals", "1", "--move-timeout", "0.2", "-q"]) == 0
    assert time.monotonic() - started < 25  # a hanging answer waits 0.2 s, not 30
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert "errors" in last or "error" in last
    assert "time-out" in last and "illegal answer" in last
    assert "returned a str ('pass'), not an action: return a Play or PASS" in caplog.text
    assert main([str(bot), "--local", "--deals", "1", "--move-timeout", "0.2", "-q", "--strict"]) == 1
    assert "--strict" in capsys.readouterr().err


def test_seed_makes_local_play_with_random_bots_repeat(capsys: pytest.CaptureFixture[str]) -> None:
    def local(seed: str) -> str:
        assert main(["builtin:random", "--local", "--opponents", "random,random,random", "--seed", seed]) == 0
        return capsys.readouterr().out

    assert local("5") == local("5")
    assert local("5") != local("6")
