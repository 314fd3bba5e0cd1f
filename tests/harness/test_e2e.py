"""End to end: `president ladder` starts its own server and plays built-in and command bots over gRPC."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from president_harness.president_cli import main

BOT = Path(__file__).with_name("first_legal_bot.py")


def test_ladder_over_the_real_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crash = tmp_path / "crash-once"
    crash.touch()
    (tmp_path / "ladder.toml").write_text(f"""
name = "e2e"
format = "duplicate"
players = 3
matches = 6
seed = 5
db = "out/ladder.db"
parallel = 2
match_timeout = 60

[rules]
preset = "cardverse"
deals = 2

[[bots]]
builtin = "easy"

[[bots]]
builtin = "hard"

[[bots]]
name = "first"
command = ["{sys.executable}", "{BOT}", "--server", "{{server}}", "--token", "{{token}}", "--seed", "{{seed}}",
           "--crash-file", "{crash}"]
""")
    junit = tmp_path / "report.xml"
    status = main(["ladder", str(tmp_path / "ladder.toml"), "--expect", "hard > first", "--junit", str(junit)])
    assert status == 1  # one board cannot support a claim at 95%
    assert "[-inf, inf]" in capsys.readouterr().out  # ... and its intervals are unbounded
    data = json.loads((tmp_path / "out" / "ladder.json").read_text())
    assert data["counted"] == data["scheduled"] == 6 and data["complete"]  # one board: every seating of 3 bots
    assert all(s["deals"] == 12 for s in data["standings"])
    assert data["gate"]["claims"][0]["holds"] is False
    assert not crash.exists()  # the crashed attempt was retried, and counted once
    assert ET.parse(junit).getroot().get("failures") == "1"
    assert (tmp_path / "out" / "ladder.md").read_text().startswith("# Ladder e2e")

    # Run again: nothing left to play, same counts, and no server needed.
    assert main(["ladder", str(tmp_path / "ladder.toml")]) == 0
    again = json.loads((tmp_path / "out" / "ladder.json").read_text())
    assert again["counted"] == 6 and again["standings"] == data["standings"]
