"""The schedule: a duplicate board gives every bot every hand from every seat, in every seating; plain deals afresh."""

from __future__ import annotations

from collections import Counter
from itertools import permutations
from pathlib import Path

import pytest
from ladder_support import builtin_config, in_process
from president_engine import CardSet, shuffled_deal
from president_harness.ladder.config import Format
from president_harness.ladder.schedule import board_size, match_count, schedule


@pytest.mark.parametrize(("seatings", "size"), [("all", 24), ("rotations", 4)])
def test_duplicate_every_bot_plays_every_hand_from_every_seat(tmp_path: Path, seatings: str, size: int) -> None:
    config = builtin_config(tmp_path, matches=3 * size, seatings=seatings)
    specs = schedule(config)
    assert board_size(config) == size and len(specs) == 3 * size
    for board in range(3):
        group = [s for s in specs if s.board == board]
        assert [s.seating for s in group] == list(range(size))
        assert len({s.hands for s in group}) == 1 and len({s.seed for s in group}) == 1
        hands = group[0].hands[0]
        assert len(set(hands)) == 4
        assert sum((CardSet(h) for h in hands), CardSet()) == sum(shuffled_deal(config.rules, group[0].seed, 1, 0),
                                                                 CardSet())
        seen = Counter((s.bots[seat], seat, hands[seat]) for s in group for seat in range(4))
        assert set(seen) == {(bot, seat, hands[seat]) for bot in group[0].bots for seat in range(4)}
        assert set(seen.values()) == {size // 4}
        if seatings == "all":
            assert {s.bots for s in group} == set(permutations(group[0].bots))
    assert len({s.seed for s in specs}) == 3


def test_swapping_two_bots_changes_nothing_else_in_a_board(tmp_path: Path) -> None:
    """The reason for every seating: for any two bots, each seating has its twin with just those two swapped."""
    specs = schedule(builtin_config(tmp_path, matches=24))
    seatings = {s.bots: s for s in specs}
    for spec in specs:
        twin = list(spec.bots)
        a, b = twin.index("normal"), twin.index("hard")
        twin[a], twin[b] = twin[b], twin[a]
        other = seatings[tuple(twin)]
        assert (other.seed, other.hands) == (spec.seed, spec.hands)


def test_a_duplicate_board_replays_identically(tmp_path: Path) -> None:
    """Seeded random bots: a board played twice gives the same results (and swapped twins share their draws)."""
    config = builtin_config(tmp_path, matches=24)
    play = in_process(config)
    specs = schedule(config)
    assert [play(s).places for s in specs] == [play(s).places for s in specs]


def test_duplicate_rounds_up_to_whole_boards_and_gives_every_deal(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=5, rules={"deals": 3}, seatings="rotations")
    specs = schedule(config)
    assert match_count(config) == len(specs) == 8
    assert all(len(s.hands) == 3 for s in specs)
    assert match_count(builtin_config(tmp_path, matches=25)) == 48


def test_plain_deals_every_match_afresh_and_varies_seats(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=48, format="plain")
    assert config.format is Format.PLAIN
    specs = schedule(config)
    assert len({s.seed for s in specs}) == 48 and all(s.hands == () for s in specs)
    seats = Counter((s.bots[seat], seat) for s in specs for seat in range(4))
    assert set(seats.values()) == {12}


def test_more_bots_than_seats_meet_equally_and_schedule_is_stable(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=45, levels=("random", "easy", "normal", "hard"), players=3)
    specs = schedule(config)
    assert board_size(config) == 6
    tables = Counter(frozenset(s.bots) for s in specs if s.seating == 0)
    assert len(specs) == 48 and len(tables) == 4 and set(tables.values()) == {2}
    appearances = Counter(bot for s in specs for bot in s.bots)
    assert set(appearances.values()) == {36}
    assert schedule(config) == specs
