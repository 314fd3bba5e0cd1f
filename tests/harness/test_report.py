"""Reports: the terminal table, JSON, Markdown and JUnit XML of a small in-process ladder."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from ladder_support import builtin_config, in_process
from president_harness.ladder.driver import run_ladder
from president_harness.ladder.gate import parse_claim
from president_harness.ladder.report import json_text, junit, markdown, terminal


def test_reports(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=40, seatings="rotations")
    names = [b.name for b in config.bots]
    claims = [parse_claim("hard > random", names), parse_claim("random > hard", names)]
    summary = run_ladder(config, in_process(config), claims=claims)
    assert summary.complete and summary.counted == 40 and summary.units == 10
    assert [v.holds for v in summary.verdicts] == [True, False] and not summary.passed

    text = terminal(summary)
    assert "rating" in text and "PASS  hard > random" in text and "FAIL  random > hard" in text
    head = text.splitlines()[2].split()
    assert head[:3] == ["#", "bot", "rating"] and "mu" not in head and "sigma" not in head  # one rating shown

    data = json.loads(json_text(summary))
    assert {s["name"] for s in data["standings"]} == set(names)
    assert data["gate"]["passed"] is False and "paired place difference per board" in data["gate"]["statistic"]
    assert all(1 <= s["place"]["low"] <= s["place"]["mean"] <= s["place"]["high"] <= 4 for s in data["standings"])
    ratings = [s.rating.ordinal for s in summary.standings]
    assert ratings == sorted(ratings, reverse=True)  # the table is ordered by the rating it shows
    assert "over 10 boards" in text and "10 boards," in text

    md = markdown(summary)
    assert md.startswith("# Ladder ladder") and "| # | bot | rating | mean place |" in md and "❌" in md and "✅" in md

    suite = ET.fromstring(junit(summary))
    assert suite.get("tests") == "3" and suite.get("failures") == "1"
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["random > hard"]


def test_plain_units_are_matches_in_words(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=8, format="plain")
    summary = run_ladder(config, in_process(config))
    assert "8 matches," in terminal(summary) and "matchs" not in terminal(summary) + markdown(summary)
