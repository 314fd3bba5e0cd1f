"""RULES 1.6 Equal-rank skip."""

from __future__ import annotations

from engine_support import deal, match, of_type, run
from president_engine import Match, Rules
from president_engine.events import Passed, TrickWon

SKIP = {"equal_skip": True}


def skipped(m: Match) -> list[int]:
    return [e.player for e in of_type(m, Passed) if e.skipped]


def test_a_single_of_equal_rank_skips_one_player() -> None:
    m = match(None, deal("5C 3C", "5D 3D", "9C 3H", "9D 3S"), players=4, **SKIP)
    run(m, "5C", "5D")
    assert skipped(m) == [2] and m.to_act == 3


def test_a_pair_of_equal_rank_skips_two_players() -> None:
    m = match(None, deal("5C 5H 3C", "5D 5S 3D", "9C 9H 3H", "9D 9S 4S", "KC KD 4H"), players=5, **SKIP)
    run(m, "5C 5H", "5D 5S")
    assert skipped(m) == [2, 3] and m.to_act == 4


def test_no_skip_on_a_higher_rank_or_on_the_lead() -> None:
    m = match(None, deal("5C 3C", "6D 3D", "9C 3H", "9D 3S"), players=4, **SKIP)
    run(m, "5C")
    assert m.to_act == 1
    run(m, "6D")
    assert skipped(m) == [] and m.to_act == 2


def test_only_players_who_would_get_a_turn_count() -> None:
    m = match(None, deal("4C 4D 3C", "5C 5D 3D", "9C 3H", "9D 3S", "5H 5S 4S", "KC KD 4H"), players=6,
              pass_is_final=True, **SKIP)
    run(m, "4C 4D", "5C 5D", "pass", "pass")  # P2 and P3 pass finally
    run(m, "5H 5S")  # an equal pair skips the next two who would get a turn: P5 and P0
    assert skipped(m) == [5, 0]
    assert m.to_act == 1


def test_players_out_are_not_skipped() -> None:
    m = match(None, deal("5C", "9D 3D", "5D 3H", "8C 3S"), players=4, **SKIP)
    run(m, "5C", "pass", "5D")  # P0 went out: the skip passes over P3 only
    assert skipped(m) == [3] and m.to_act == 1


def test_skip_never_the_player_and_covering_everybody_ends_the_trick() -> None:
    m = match(None, deal("5C 5H 3C", "5D 5S 3D", "9C 9H 3H"), players=3, **SKIP)
    run(m, "5C 5H", "5D 5S")  # two skips but only P2 and P0 remain: both skipped, trick ends
    assert skipped(m) == [2, 0]
    assert m.events[-1] == TrickWon(1, 1)
    m = match(None, deal("5C 5H 5D 3C", "5S 5C 5H 3D", "9C 9H 3H 3S"), players=3, decks=2, **SKIP)
    run(m, "5C 5D 5H", "5C 5H 5S")  # three skips, only two other players: each skipped once
    assert skipped(m) == [2, 0]
    assert m.events[-1] == TrickWon(1, 1)


def test_a_skip_is_a_pass_not_final_without_pass_is_final() -> None:
    m = match(None, deal("5C 3C", "5D 8D 3D", "9C 3H", "7D 3S"), players=4, **SKIP)
    run(m, "5C", "5D")  # P2 skipped
    run(m, "7D", "pass", "8D")  # P3 plays, P0 passes, P1 plays
    assert m.to_act == 2  # the skipped P2 is asked again on a later turn
    m = match(None, deal("5C 3C", "5D 8D 3D", "9C 3H", "7D 3S"), players=4, **SKIP)
    run(m, "5C", "5D", "pass", "pass")  # skip P2, P3 and P0 pass: all others passed in a row
    assert m.events[-1] == TrickWon(1, 1)


def test_a_skip_is_final_with_pass_is_final() -> None:
    m = match(None, deal("5C 3C", "5D 8D 3D", "9C 3H", "7D 3S"), players=4, pass_is_final=True, **SKIP)
    run(m, "5C", "5D", "7D", "pass", "8D")
    assert m.to_act == 3  # P2 was skipped, which is a final pass; P0 passed
    run(m, "pass")
    assert m.events[-1] == TrickWon(1, 1)


def test_a_skip_in_one_orbit_uses_up_the_turn() -> None:
    m = match(None, deal("5C 3C", "5D 8D 3D", "9C 3H", "7D 3S"), players=4, trick_end="one_orbit", **SKIP)
    run(m, "5C", "5D")
    assert skipped(m) == [2] and m.to_act == 3
    run(m, "7D")
    assert m.events[-1] == TrickWon(3, 3)


def test_revolution_comes_first_then_the_skip_goes_the_new_way() -> None:
    rules = Rules(players=5, revolution=True, revolution_triggers=["four_singles"],
                  revolution_effect="ranks_and_direction", equal_skip=True)
    m = Match(rules, hands=[deal("5C 5S 3C", "5D 3D", "9C 3H", "5H 3S", "4S 4H")])
    run(m, "5C", "5D", "5H")  # P1 skips P2, P3 skips P4
    assert skipped(m) == [2, 4]
    run(m, "5S")  # the fourth single: revolution (direction -1) first, then the skip goes counter-clockwise
    assert m.direction == -1
    assert skipped(m) == [2, 4, 4]
    assert m.to_act == 3
