"""The president-bot command: loading bots, local play, clear errors."""

from __future__ import annotations

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
    ("builtin:expert", "no built-in bot 'expert'"),
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


def test_no_server_is_a_clear_error(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRESIDENT_TOKEN", raising=False)
    assert main(["builtin:easy", "--server", "127.0.0.1:1", "-q"]) == 1
    assert "no seat token" in capsys.readouterr().err


def test_seed_makes_local_play_with_random_bots_repeat(capsys: pytest.CaptureFixture[str]) -> None:
    def local(seed: str) -> str:
        assert main(["builtin:random", "--local", "--opponents", "random,random,random", "--seed", seed]) == 0
        return capsys.readouterr().out

    assert local("5") == local("5")
    assert local("5") != local("6")
