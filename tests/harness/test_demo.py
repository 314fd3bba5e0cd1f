"""`president demo` (what `make run` shows): a real server, four built-in bots over gRPC, narrated live."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path


def test_demo_plays_a_match_of_built_in_bots_and_shows_only_public_cards(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "president_harness", "demo", "--db", str(tmp_path / "demo.db"),
         "--port", "0", "--http-port", "0", "--pace", "0", "--deals", "2", "--seed", "3", "--once"],
        capture_output=True, text=True, timeout=180, check=False)
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert re.search(r"serving on localhost:\d+", out)
    assert re.search(r"watch it in a browser: http://localhost:\d+/matches/[0-9a-f]{16}\n", out)
    assert "== deal 1:" in out and "== deal 2:" in out
    assert re.search(r"== match over: \w+ wins with \d+ points", out)
    # the exchange is shown as a spectator sees it: how many cards moved, never which
    assert re.search(r"pays tribute 2 cards to", out)
    assert not re.search(r"(pays tribute|gives back) \d+[CDHS]", out)
    assert "refused" not in out and "Traceback" not in done.stderr
    assert re.search(r"match \w+: cardverse, 2 deals, seed 3;", out)  # the seed, to play it again
    assert "rank order, low to high: 3 4 5 6 7 8 9 10 J Q K A 2" in out
    assert re.search(r"cards left: (hard|normal|easy|random) \d+", out)


def test_demo_keeps_one_dev_seat_token_that_one_again_bot_plays_match_after_match(tmp_path: Path) -> None:
    """After the built-in match the demo opens the dev seat for the reader's bot; one `president-bot --again` process
    with the printed token plays two matches in a row, the demo prints the same token for each and each match's
    replay address, which serves the replay. The token is revoked when the demo stops. A taken port is said."""
    import socket
    import sqlite3
    import urllib.request

    db = tmp_path / "demo.db"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        demo = subprocess.Popen(
            [sys.executable, "-m", "president_harness", "demo", "--db", str(db),
             "--port", str(port), "--http-port", "0", "--pace", "0", "--deals", "1", "--seed", "4"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        bot: subprocess.Popen[str] | None = None
        lines: list[str] = []
        tokens: list[str] = []
        replays: list[str] = []
        try:
            assert demo.stdout is not None
            for line in demo.stdout:
                lines.append(line)
                if replay := re.search(r"its replay: (\S+)", line):
                    replays.append(replay.group(1))
                found = re.search(r"president-bot examples\S+ --server (\S+) --token (\S+) --again$", line.strip())
                if found is None:
                    continue
                tokens.append(found.group(2))
                if len(tokens) == 3:  # the third match opened: the bot has played two
                    break
                if bot is None:
                    bot = subprocess.Popen(
                        [sys.executable, "-m", "president_sdk.bot_cli", "builtin:easy", "--server", found.group(1),
                         "--token", found.group(2), "--again", "-q"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for replay in replays:
                with urllib.request.urlopen(replay, timeout=10) as page:
                    assert page.status == 200
        finally:
            if bot is not None:
                bot.send_signal(signal.SIGINT)
                out, err = bot.communicate(timeout=30)
            demo.send_signal(signal.SIGINT)
            demo.wait(30)
    text = "".join(lines)
    assert f"port {port} is taken" in text
    assert len(tokens) == 3 and len(set(tokens)) == 1 and re.fullmatch(r"[0-9a-f]{64}", tokens[0])
    assert len(replays) == 3  # the built-in match's and the two the bot played
    assert bot is not None and bot.returncode == 0, err
    played = out.count("match over:")  # two, or three when it finished the third before Ctrl-C
    assert played >= 2, out
    assert err.strip().splitlines()[-1] == f"president-bot: stopped after {played} matches", err
    assert "Traceback" not in err
    with sqlite3.connect(db) as stored:  # revoked as the demo stopped
        assert stored.execute("SELECT COUNT(*) FROM dev_seats").fetchone() == (0,)
