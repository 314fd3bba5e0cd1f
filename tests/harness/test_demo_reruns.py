"""`president demo` run again on its database (what `make run` does): every match's replay is printed, the guest
seat shows the name of the bot that took it, and a guest match an earlier run left waiting is played out."""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

DEMO = [sys.executable, "-m", "president_harness", "demo", "--port", "0", "--http-port", "0", "--pace", "0",
        "--deals", "1"]


def test_a_second_run_keeps_the_matches_and_plays_out_the_guest_match_left_waiting(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    demo = subprocess.Popen([*DEMO, "--db", str(db), "--seed", "4"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    guests: list[str] = []
    lines: list[str] = []
    try:
        assert demo.stdout is not None
        for line in demo.stdout:
            lines.append(line)
            if found := re.match(r"The server keeps running on \S+\. Match ([0-9a-f]{16}) ", line):
                guests.append(found.group(1))
            if "--token" in line and "president-bot examples" in line:
                if len(guests) == 2:
                    break  # the second guest match waits: leave it so
                seat = re.search(r"--server (\S+) --token (\S+)", line)
                assert seat is not None
                subprocess.run([sys.executable, "-m", "president_sdk.bot_cli", "builtin:easy", "--server",
                                seat.group(1), "--token", seat.group(2), "-q"], check=True, timeout=120)
    finally:
        demo.send_signal(signal.SIGINT)
        demo.wait(30)
    text = "".join(lines)
    first = re.search(r"match ([0-9a-f]{16}): cardverse", text)
    assert first is not None and len(guests) == 2
    for match_id in (first.group(1), guests[0]):  # every match that ended says where its replay is
        assert re.search(rf"its replay: http://localhost:\d+/matches/{match_id}/replay", text), match_id
    # the guest seat was created without a name: the narration names it after the bot that took it
    assert re.search(r"^ +EasyBot: ", text[text.index(guests[0]):text.index(guests[1])], re.MULTILINE)

    again = subprocess.run([*DEMO, "--db", str(db), "--once"], capture_output=True, text=True, timeout=180,
                           check=False)
    assert again.returncode == 0, again.stderr
    assert re.search(rf"match {guests[1]}: left unfinished by an earlier run; played out now by the demo's bots;"
                     rf" its replay: http://localhost:\d+/matches/{guests[1]}/replay", again.stdout), again.stdout
    with sqlite3.connect(db) as kept:
        rows = kept.execute("SELECT id, record IS NOT NULL, names FROM matches ORDER BY created_at").fetchall()
    assert [row[0] for row in rows[:3]] == [first.group(1), *guests] and len(rows) == 4
    assert all(done for _, done, _ in rows)
    assert rows[1][2] == '["EasyBot", "hard", "normal", "easy"]'
    assert rows[2][2] == '["easy (stand-in)", "hard", "normal", "easy"]'
