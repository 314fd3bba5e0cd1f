"""Lines printed for people: names rather than player numbers where a name is known, and counts in the right
number ("1 card", "1 point", never "1 card(s)" or "1 points")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from president_engine import Fault
from president_engine.events import CardsGiven, MatchEnded
from president_engine.narrate import describe
from president_harness.ladder.config import parse
from president_harness.ladder.report import terminal
from president_harness.ladder.summary import summarize
from president_sdk.bot_cli import main as president_bot
from president_sdk.faults import Faults
from president_sdk.session_client import FinishedMatch

NAMES = ["mybot", "house-hard", "house-normal", "house-easy"]


def test_an_exchange_seen_from_outside_counts_its_cards_in_the_right_number() -> None:
    one = CardsGiven(giver=0, receiver=3, count=1, tribute=False, cards=None)
    two = CardsGiven(giver=3, receiver=0, count=2, tribute=True, cards=None)
    assert describe(one, NAMES) == "   mybot gives back 1 card to house-easy"
    assert describe(two, NAMES) == "   house-easy pays tribute 2 cards to mybot"


def test_a_finished_session_match_names_its_winner() -> None:
    """It read "winner player 1"."""
    result = MatchEnded(winner=1, totals=(3, 7, 2, 0), last_places=(1, 0, 2, 3))
    finished = FinishedMatch(match_id="m1", player=0, bot="MyBot", result=result, faults=Faults({Fault.INVALID: 1}),
                             names=tuple(NAMES))
    assert finished.describe() == ("match m1: MyBot (player 0) place 2 of 4 in the last deal, 3 points;"
                                   " winner house-hard (player 1); 1 illegal answer")
    last = MatchEnded(winner=1, totals=(1, 7, 2, 0), last_places=(1, 2, 3, 0))
    unnamed = FinishedMatch(match_id="m1", player=0, bot="MyBot", result=last, faults=Faults())
    assert unnamed.describe().endswith(" in the last deal, 1 point; winner player 1; no faults")


def test_a_match_won_with_one_point_says_point() -> None:
    ended = MatchEnded(winner=2, totals=(0, 0, 1), last_places=(2, 0, 1))
    assert describe(ended, NAMES) == "== match over: house-normal wins with 1 point"


def test_local_play_counts_the_bots_points_in_the_right_number(capsys: pytest.CaptureFixture[str]) -> None:
    """It read "EasyBot: 1 points" for a last place: the seeds are tried until one ends there."""
    seen = set()
    for seed in range(40):
        assert president_bot(["builtin:easy", "--local", "-q", "--deals", "1", "--seed", str(seed),
                              "--opponents", "hard,hard,hard"]) == 0
        line = capsys.readouterr().out.splitlines()[-1]
        found = re.match(r"EasyBot: (\d+) points?; winner ", line)
        assert found is not None, line
        points = int(found[1])
        assert line.startswith(f"EasyBot: {points} point{'s' if points != 1 else ''};"), line
        seen.add(points)
        if 1 in seen:
            break
    assert 1 in seen


def test_an_incomplete_ladder_counts_the_matches_left_in_the_right_number(tmp_path: Path) -> None:
    config = parse({"players": 4, "matches": 1, "db": "ladder.db",
                    "bots": [{"builtin": level} for level in ("random", "easy", "normal", "hard")]}, base=tmp_path)
    assert "incomplete: 1 match not played yet (run again to resume)" in terminal(summarize(config, [], 1))
