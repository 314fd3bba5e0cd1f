"""Golden transcripts: each stored record replays, and its narration matches line by line.

A failure means the engine's behaviour (or its narration) changed.  If that
was intended, run tests/golden/regenerate.py and review the diff.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from golden_cases import CASES, Case, narrate_record
from president_engine import MatchRecord, Rules

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_record_narration_matches(case: Case) -> None:
    record = (HERE / f"{case.name}.json").read_text()
    expected = (HERE / f"{case.name}.txt").read_text().splitlines()
    actual = narrate_record(record)
    for number, (want, got) in enumerate(zip(expected, actual, strict=False), 1):
        assert got == want, f"{case.name}.txt line {number}"
    assert len(actual) == len(expected)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_record_is_what_the_random_command_writes(case: Case, tmp_path: Path) -> None:
    out = tmp_path / "record.json"
    result = _cli("random", "--preset", case.preset, "--deals", str(case.deals), "--seed", str(case.seed),
                  "--out", str(out))
    assert result.returncode == 0, result.stderr
    data = json.loads((HERE / f"{case.name}.json").read_text())
    assert json.loads(out.read_text()) == data
    record = MatchRecord.from_json(data)
    assert record.rules == Rules.preset(case.preset, deals=case.deals)
    assert record.seed == case.seed and len(record.deals) == case.deals
    assert all(d.shuffled for d in record.deals)
    text = "\n".join(narrate_record(json.dumps(data)))
    assert ("pays tribute" in text and "gives back" in text) == record.rules.exchange
    assert (" asks " in text) == record.rules.exchange_requests
    if record.rules.seating.value == "by_rank":
        assert len({tuple(d.seats) for d in record.deals}) > 1  # reseated


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "president_engine", *args], capture_output=True, text=True,
                          timeout=60, check=False)


def test_replay_command_accepts_a_good_record() -> None:
    result = _cli("replay", str(HERE / f"{CASES[0].name}.json"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok: 3 deals, ")


def test_replay_command_rejects_a_tampered_record_with_the_reason(tmp_path: Path) -> None:
    data = json.loads((HERE / f"{CASES[0].name}.json").read_text())
    actions = data["deals"][0]["actions"]
    index = next(i for i, a in enumerate(actions) if i > 0 and a["action"] != "pass"
                 and actions[i - 1]["action"] == "pass")
    player = actions[index]["player"]
    actions[index] = {"player": (player + 1) % 4, "action": "pass"}  # the wrong player acts
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(data))
    result = _cli("replay", str(bad))
    assert result.returncode == 1
    assert result.stderr.startswith(f"illegal: deal 1, action {index + 1}: player {(player + 1) % 4} pass:")
    assert "turn" in result.stderr
