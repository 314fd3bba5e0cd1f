"""End to end: `president ladder` starts its own server and plays built-in and command bots over gRPC."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from president_harness.cli.president_cli import main

BOT = Path(__file__).with_name("first_legal_bot.py")


def test_ladder_over_the_real_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crash = tmp_path / "crash-once"
    crash.touch()
    bot = tmp_path / "first_legal_bot.py"
    bot.write_text(BOT.read_text())
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
command = ["{sys.executable}", "first_legal_bot.py", "--server", "{{server}}", "--token", "{{token}}",
           "--seed", "{{seed}}", "--crash-file", "{crash}"]
""")
    ladder = str(tmp_path / "ladder.toml")
    # A claim the ladder is too small to judge is refused before anything is played.
    assert main(["ladder", ladder, "--expect", "hard > first"]) == 2
    assert "set matches to at least 30" in capsys.readouterr().err
    assert not (tmp_path / "out" / "ladder.json").exists()

    junit = tmp_path / "report.xml"
    status = main(["ladder", ladder, "--junit", str(junit), "--strict"])
    assert status == 4  # the first attempt crashed on purpose: with --strict that fails the run
    captured = capsys.readouterr()
    assert "Faults" in captured.out and "first misbehaved" in captured.err
    assert "[1.00, 3.00]" in captured.out or "[-" not in captured.out  # intervals stay within places 1..3
    data = json.loads((tmp_path / "out" / "ladder.json").read_text())
    assert data["counted"] == data["scheduled"] == 6 and data["complete"]  # one board: every seating of 3 bots
    assert all(s["deals"] == 12 for s in data["standings"])
    assert {f["name"]: f["crashes"] for f in data["faults"]} == {"easy": 0, "hard": 0, "first": 1}
    assert not crash.exists()  # the crashed attempt was retried, and counted once
    assert ET.parse(junit).getroot().get("failures") == "1"
    assert (tmp_path / "out" / "ladder.md").read_text().startswith("# Ladder e2e")
    runs = tmp_path / "out" / "ladder-matches"
    assert sorted(p.name for p in runs.iterdir()) == [f"match-{i:05d}" for i in range(6)]
    assert all((folder / "record.json").is_file() for folder in runs.iterdir())
    assert len(list(runs.glob("*/player*-first.stderr"))) == 6

    # Run again: nothing left to play, same counts, and no server needed; it says where its reports went.
    assert main(["ladder", ladder]) == 0
    out = tmp_path / "out"
    assert (f"Reports: {out / 'ladder.json'}, {out / 'ladder.md'}; each match's record and logs: {runs}/"
            in capsys.readouterr().out)
    again = json.loads((tmp_path / "out" / "ladder.json").read_text())
    assert again["counted"] == 6 and again["standings"] == data["standings"]

    # Edit the bot: it is a new entrant, and its matches (all six) are played again.
    bot.write_text(bot.read_text() + "\n# a second version\n")
    assert main(["ladder", ladder]) == 0
    assert "first changed since the last run" in capsys.readouterr().err
    third = json.loads((tmp_path / "out" / "ladder.json").read_text())
    assert third["counted"] == 6


def test_ladder_on_ray_without_ray_says_make_venv(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """After `make run` (no Ray): one line saying what installs it, not a ModuleNotFoundError traceback."""
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as it does where Ray is not installed
    (tmp_path / "ladder.toml").write_text('name = "r"\nplayers = 3\nmatches = 6\ndb = "out/r.db"\n'
                                          '[rules]\npreset = "cardverse"\ndeals = 1\n'
                                          '[[bots]]\nbuiltin = "easy"\n[[bots]]\nbuiltin = "hard"\n'
                                          '[[bots]]\nbuiltin = "random"\n')
    assert main(["ladder", str(tmp_path / "ladder.toml"), "--ray", "local"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run `make venv`" in err and "Traceback" not in err
    assert not (tmp_path / "out" / "r.json").exists()
