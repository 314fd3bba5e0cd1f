"""RULES 1.2 Revolution: both triggers, both effects, reversing back, jokers, the next deal."""

from __future__ import annotations

from engine_support import deal, match, of_type, reason, run, texts
from president_engine import IllegalReason, Match, Rank, Rules
from president_engine.events import RevolutionHappened, TrickWon
from president_engine.rules import STANDARD_ORDER

REV = {"revolution": True, "revolution_triggers": ["four_of_a_kind"], "revolution_effect": "ranks"}
SINGLES = {"revolution": True, "revolution_triggers": ["four_singles"], "revolution_effect": "ranks"}


def test_four_of_a_kind_reverses_the_order_without_ending_the_trick() -> None:
    m = match(None, deal("9C 9D 9H 9S 3C", "4C 4D 4H 4S 2C", "KC KD KH KS 8C"), players=3, **REV)
    run(m, "9C 9D 9H 9S")
    assert of_type(m, RevolutionHappened) == [RevolutionHappened(True, 1)]
    assert m.reversed and m.rank_order == tuple(reversed(STANDARD_ORDER))
    assert m.table is not None and not of_type(m, TrickWon)
    # the next play must beat the table under the new order: fours beat nines, kings do not
    assert texts(m.legal_actions()) == ["4C 4D 4H 4S", "pass"]
    run(m, "4C 4D 4H 4S")  # a second revolution in the same deal reverses back
    assert not m.reversed
    assert of_type(m, RevolutionHappened)[-1] == RevolutionHappened(False, 1)
    assert texts(m.legal_actions()) == ["KC KD KH KS", "pass"]


def test_more_than_four_cards_and_wild_cards_count() -> None:
    m = match(None, deal("9C 9D 9H 6S 3C", "4C 4D 4H 4S 2C", "KC KD 8C"), players=3, wild_ranks="6",
              joker_alone="declared", **REV)
    run(m, "9C 9D 9H 6S")
    assert m.reversed
    m = match(None, deal("9C 9C 9D 9H 9S 3C", "4C", "KC"), players=3, decks=2, **REV)
    run(m, "9C 9C 9D 9H 9S")
    assert m.reversed


def test_no_revolution_when_off_or_trigger_not_chosen() -> None:
    m = match(None, deal("9C 9D 9H 9S 3C", "4C", "KC"), players=3)
    run(m, "9C 9D 9H 9S")
    assert not m.reversed and not of_type(m, RevolutionHappened)
    m = match(None, deal("9C 9D 9H 9S 3C", "4C", "KC"), players=3, **SINGLES)
    run(m, "9C 9D 9H 9S")
    assert not m.reversed


def test_four_singles_in_consecutive_turns() -> None:
    m = match(None, deal("5C 3C", "5D 3D", "5H 3H", "5S 3S"), players=4, **SINGLES)
    run(m, "5C", "5D", "5H")
    assert not m.reversed
    run(m, "5S")
    assert m.reversed
    assert texts(m.legal_actions()) == ["3C", "pass"]  # the trick goes on under the new order


def test_four_singles_broken_by_a_pass() -> None:
    m = match(None, deal("5C 3C", "5D 3D", "9C 3H", "5H 3S", "5S 4S"), players=5, **SINGLES)
    run(m, "5C", "5D", "pass", "5H", "5S")
    assert not m.reversed


def test_four_singles_not_broken_by_an_equal_rank_skip() -> None:
    m = match(None, deal("5C 5S 3C", "5D 3D", "9C 3H", "5H 3S", "8S 4S"), players=5, equal_skip=True, **SINGLES)
    run(m, "5C", "5D")  # equal rank: P2 skipped
    assert m.to_act == 3
    run(m, "5H")  # P4 skipped
    assert m.to_act == 0
    run(m, "5S")
    assert m.reversed


def test_four_singles_of_different_ranks_do_not_count() -> None:
    m = match(None, deal("5C 3C", "5D 3D", "6H 3H", "6S 3S"), players=4, **SINGLES)
    run(m, "5C", "5D", "6H", "6S")
    assert not m.reversed


def test_four_singles_run_starts_again_after_a_trigger() -> None:
    m = match(None, deal("5C 5C 9C", "5D 5D 9D", "5H 5H 9H", "5S 5S 9S"), players=4, decks=2, **SINGLES)
    run(m, "5C", "5D", "5H", "5S")
    assert m.reversed
    run(m, "5C", "5D", "5H")
    assert m.reversed  # the fifth to seventh fives are a new run of three
    run(m, "5S")
    assert not m.reversed
    assert len(of_type(m, RevolutionHappened)) == 2


def test_effect_ranks_keeps_the_direction() -> None:
    m = match(None, deal("9C 9D 9H 9S 3C", "4C", "KC"), players=3, **REV)
    run(m, "9C 9D 9H 9S")
    assert m.direction == 1 and m.to_act == 1


def test_effect_ranks_and_direction_reverses_play_and_back() -> None:
    opts = {**REV, "revolution_effect": "ranks_and_direction"}
    m = match(None, deal("9C 9D 9H 9S 3C", "4C 4D 4H 4S 2C", "KC KD KH KS 8C"), players=3, **opts)
    run(m, "9C 9D 9H 9S")
    assert m.direction == -1 and m.to_act == 2
    assert of_type(m, RevolutionHappened) == [RevolutionHappened(True, -1)]
    assert reason(m, "KC KD KH KS") is IllegalReason.DOES_NOT_BEAT
    run(m, "pass")
    assert m.to_act == 1
    run(m, "4C 4D 4H 4S")
    assert m.direction == 1 and not m.reversed
    assert m.to_act == 2


def test_jokers_alone_keep_their_place_in_a_revolution() -> None:
    opts = {"players": 3, "jokers": 1, "joker_alone": "high", **REV}
    m = match(None, deal("9C 9D 9H 9S 3C", "JK 4C", "KC 8C"), **opts)
    run(m, "9C 9D 9H 9S", "pass", "pass")  # P0 leads again, reversed: 3 is the top rank
    run(m, "3C")
    assert texts(m.legal_actions()) == ["JK", "pass"]  # the high joker still beats it
    opts = {"players": 3, "jokers": 1, "joker_alone": "low", **REV}
    m = match(None, deal("9C 9D 9H 9S 2C 3C", "JK 4C", "KC 8C"), **opts)
    run(m, "9C 9D 9H 9S", "pass", "pass")
    run(m, "2C")  # 2 is now the lowest natural rank; the low joker is lower still
    assert texts(m.legal_actions()) == ["4C", "pass"]


def test_normal_order_and_direction_come_back_next_deal() -> None:
    rules = Rules(players=3, deals=2, **{**REV, "revolution_effect": "ranks_and_direction"})
    m = Match(rules, seed=2, hands=[deal("9C 9D 9H 9S", "4C 5C", "KC 8C")])
    run(m, "9C 9D 9H 9S")  # P0 out with a revolution
    assert m.reversed and m.direction == -1
    while m.deal == 1:
        m.apply(m.legal_actions()[0])
    assert not m.reversed and m.direction == 1
    assert m.rank_order == STANDARD_ORDER
    assert m.rank_order[-1] is Rank.TWO
