"""The schedule: duplicate rotations give every bot every hand from every seat; plain deals afresh."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ladder_support import builtin_config
from president_engine import CardSet
from president_engine.match import shuffled_deal
from president_service.ladder.config import Format
from president_service.ladder.schedule import match_count, schedule


def test_duplicate_every_bot_plays_every_hand_from_every_seat(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=12)
    specs = schedule(config)
    assert len(specs) == 12
    for board in range(3):
        group = [s for s in specs if s.board == board]
        assert [s.rotation for s in group] == [0, 1, 2, 3]
        assert len({s.hands for s in group}) == 1 and len({s.seed for s in group}) == 1
        hands = group[0].hands[0]
        assert len(set(hands)) == 4
        assert sum((CardSet(h) for h in hands), CardSet()) == sum(shuffled_deal(config.rules, group[0].seed, 1, 0),
                                                                 CardSet())
        seen = {(s.bots[seat], seat, hands[seat]) for s in group for seat in range(4)}
        assert seen == {(bot, seat, hands[seat]) for bot in group[0].bots for seat in range(4)}
    assert len({s.seed for s in specs}) == 3


def test_duplicate_rounds_up_to_whole_boards_and_gives_every_deal(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=5, rules={"deals": 3})
    specs = schedule(config)
    assert match_count(config) == len(specs) == 8
    assert all(len(s.hands) == 3 for s in specs)


def test_plain_deals_every_match_afresh_and_rotates_seats(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=8, format="plain")
    assert config.format is Format.PLAIN
    specs = schedule(config)
    assert len({s.seed for s in specs}) == 8 and all(s.hands == () for s in specs)
    seats = Counter((s.bots[seat], seat) for s in specs for seat in range(4))
    assert set(seats.values()) == {2}


def test_more_bots_than_seats_meet_equally_and_schedule_is_stable(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=40, levels=("random", "easy", "normal", "hard"), players=3)
    specs = schedule(config)
    tables = Counter(frozenset(s.bots) for s in specs if s.rotation == 0)
    assert len(specs) == 42 and len(tables) == 4 and max(tables.values()) - min(tables.values()) <= 1
    appearances = Counter(bot for s in specs for bot in s.bots)
    assert max(appearances.values()) - min(appearances.values()) <= 3
    assert schedule(config) == specs
