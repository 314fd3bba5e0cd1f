"""Reports: the terminal table, JSON, Markdown and JUnit XML of a small in-process ladder."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from ladder_support import builtin_config, in_process
from president_engine.intervals import Interval
from president_harness.ladder.config import Format
from president_harness.ladder.driver import run_ladder
from president_harness.ladder.gate import parse_claim
from president_harness.ladder.ratings import Rating
from president_harness.ladder.report import json_text, junit, markdown, terminal
from president_harness.ladder.summary import HeadToHead, Standing, Summary


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
    assert head[:4] == ["#", "bot", "rating", "↓"] and "mu" not in head and "sigma" not in head  # one rating shown

    data = json.loads(json_text(summary))
    assert {s["name"] for s in data["standings"]} == set(names)
    assert data["gate"]["passed"] is False and "paired place difference per board" in data["gate"]["statistic"]
    assert all(1 <= s["place"]["low"] <= s["place"]["mean"] <= s["place"]["high"] <= 4 for s in data["standings"])
    ratings = [s.rating.ordinal for s in summary.standings]
    assert ratings == sorted(ratings, reverse=True)  # the table is ordered by the rating it shows
    assert "over 10 boards" in text and "10 boards," in text

    md = markdown(summary)
    assert md.startswith("# Ladder ladder") and "| # | bot | rating ↓ | mean place |" in md
    assert "❌" in md and "✅" in md

    suite = ET.fromstring(junit(summary))
    assert suite.get("tests") == "3" and suite.get("failures") == "1"
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["random > hard"]


def test_plain_units_are_matches_in_words(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=8, format="plain")
    summary = run_ladder(config, in_process(config))
    assert "8 matches," in terminal(summary) and "matchs" not in terminal(summary) + markdown(summary)


def _summary(rows: list[tuple[str, float, float, float]], difference: Interval) -> Summary:
    """A two-bot summary: (name, mu, sigma, mean place) best rating first; `difference`: the second bot's lead."""
    standings = tuple(Standing(rating=Rating(name=n, mu=mu, sigma=sigma, deals=40),
                               place=Interval(mean=place, low=place - 0.3, high=place + 0.3, n=10))
                      for n, mu, sigma, place in rows)
    (a, *_), (b, *_) = rows
    nothing = Interval(mean=0.0, low=-1.0, high=1.0, n=10)
    pairs = (HeadToHead(a=b, b=a, ahead=22, deals=40, difference=difference),
             HeadToHead(a=a, b=b, ahead=18, deals=40, difference=nothing))
    return Summary(name="t", format=Format.DUPLICATE, preset="cardverse", players=4, scheduled=10, counted=10,
                   units=10, standings=standings, head_to_head=pairs, verdicts=(), failed=(), taken_over=0)


def test_a_row_below_a_worse_mean_place_says_why() -> None:
    """The issue's table: `first` stood below `random` with the better mean place and nothing said why."""
    close = _summary([("random", 21.0, 3.0, 3.21), ("first", 19.8, 3.0, 3.06)],
                     Interval(mean=0.15, low=-0.2, high=0.5, n=10))
    text = terminal(close)
    assert "ordered by rating (↓)" in text
    assert "random and first: order not settled (first finishes 0.15 places ahead of random per board, 95% CI" \
           " [-0.20, 0.50], which includes 0)" in text
    assert "†" not in text.split("Head to head")[0]  # neither rating provisional
    assert "order not settled" in markdown(close)

    sure = _summary([("random", 21.0, 3.0, 3.4), ("first", 19.8, 3.0, 2.9)],
                    Interval(mean=0.5, low=0.2, high=0.8, n=10))
    assert "first stands below random but is better: first finishes 0.50 places ahead" in terminal(sure)

    agree = _summary([("first", 21.0, 3.0, 2.9), ("random", 19.8, 3.0, 3.4)],
                     Interval(mean=-0.5, low=-0.8, high=-0.2, n=10))
    assert "not settled" not in terminal(agree) and "but is better" not in terminal(agree)


def test_a_provisional_rating_is_marked() -> None:
    summary = _summary([("random", 24.0, 3.0, 3.0), ("hard", 25.0, 5.0, 2.0)],
                       Interval(mean=1.0, low=0.5, high=1.5, n=10))
    text = terminal(summary)
    rows = text.splitlines()[3:5]
    assert rows[0].split()[2] == "15.00" and rows[1].split()[2] == "10.00†"
    assert "† provisional: sigma above 4 (few deals)" in text
    data = json.loads(json_text(summary))
    assert data["ordered_by"] == "ordinal" and [s["provisional"] for s in data["standings"]] == [False, True]
