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


def test_demo_keeps_serving_a_seat_for_your_bot_and_says_when_it_moves_port(tmp_path: Path) -> None:
    """After the built-in match the demo opens a seat for the reader's bot; a bot that takes it plays it, and a new
    seat opens when that match ends. A taken port is said, not hidden."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        demo = subprocess.Popen(
            [sys.executable, "-m", "president_harness", "demo", "--db", str(tmp_path / "demo.db"),
             "--port", str(port), "--http-port", "0", "--pace", "0", "--deals", "1", "--seed", "4"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert demo.stdout is not None
            lines: list[str] = []
            commands: list[str] = []
            for line in demo.stdout:
                lines.append(line)
                if "--token" in line and "president-bot examples" in line:
                    commands.append(line.split()[-1])
                    if len(commands) == 1:  # play the first guest seat with a built-in bot
                        address = re.search(r"--server (\S+)", line)
                        assert address is not None
                        subprocess.run([sys.executable, "-m", "president_sdk.bot_cli", "builtin:easy", "--server",
                                        address.group(1), "--token", commands[0], "-q"], check=True, timeout=120)
                    else:
                        break
        finally:
            demo.send_signal(signal.SIGINT)
            demo.wait(30)
    text = "".join(lines)
    assert f"port {port} is taken" in text
    assert len(commands) == 2 and commands[0] != commands[1]  # a new seat once the first guest match ended
