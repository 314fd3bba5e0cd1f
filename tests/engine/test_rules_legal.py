"""RULES 1.8 Legal actions (order, suits) and `check` with its reasons; refused actions change nothing."""

from __future__ import annotations

import pytest
from engine_support import deal, match, reason, run, same_play, state, texts
from president_engine import (
    PASS,
    CardSet,
    GiveBack,
    IllegalActionError,
    IllegalReason,
    Match,
    Play,
    Rank,
    Request,
    Rules,
    parse_action,
)


def test_lead_order_by_strength_then_count() -> None:
    m = match(None, deal("2C 3C 3D 3H KC KS AD", "4C", "5C"), players=3)
    assert texts(m.legal_actions()) == ["3C", "3C 3D", "3C 3D 3H", "KC", "KC KS", "AD", "2C"]


def test_lead_order_follows_the_current_order_after_a_revolution() -> None:
    m = match(None, deal("9C 9D 9H 9S 2C 3C KC KS", "4C", "5C"), players=3, revolution=True)
    run(m, "9C 9D 9H 9S", "pass", "pass")
    assert texts(m.legal_actions()) == ["2C", "KC", "KC KS", "3C"]


def test_order_with_wilds_by_strength_count_wilds_bits() -> None:
    m = match(None, deal("5C 5D 6H JK", "4C", "7C"), players=3, jokers=1, wild_ranks="6", joker_alone="declared")
    assert texts(m.legal_actions()) == [
        "5C", "5C 5D", "5C 6H", "5C JK", "5C 5D 6H", "5C 5D JK", "5C 6H JK", "5C 5D 6H JK",
        "6H", "JK", "6H JK"]


def test_follow_lists_then_pass_last() -> None:
    m = match(None, deal("5C 3C", "2C 6D 6S 9H", "7C"), players=3)
    run(m, "5C")
    assert m.legal_actions() == (Play(CardSet("6D"), rank=Rank.SIX), Play(CardSet("9H"), rank=Rank.NINE),
                                 Play(CardSet("2C"), rank=Rank.TWO), PASS)


def test_no_duplicates_differing_only_in_suit_lowest_suits_listed() -> None:
    m = match(None, deal("9S 9H 9D 3C", "4C", "5C"), players=3)
    assert texts(m.legal_actions()) == ["3C", "9D", "9D 9H", "9D 9H 9S"]
    # any equivalent cards may be submitted, and the exact cards are kept
    resolved = m.check(parse_action("9S"))
    assert same_play(resolved, Play(CardSet("9S"), rank=Rank.NINE))
    run(m, "9H 9S")
    assert m.hand(0) == CardSet("3C 9D")
    assert same_play(m.table, Play(CardSet("9H 9S"), rank=Rank.NINE))


def test_no_suit_duplicates_with_wild_cards_either() -> None:
    m = match(None, deal("9S 9H 6D 6S 3C", "4C", "5C"), players=3, wild_ranks="6", joker_alone="declared")
    acts = texts(m.legal_actions())
    assert len(acts) == len(set(acts))
    assert "9H 6D" not in acts and "6D 9H" in acts and "6S 9H" not in acts and "6D 9S" not in acts


def test_every_distinct_set_with_suit_order() -> None:
    m = match(None, deal("9S 9H 9D 3C", "4C", "5C"), players=3, suit_order="C D H S")
    assert texts(m.legal_actions()) == ["3C", "9D", "9H", "9S", "9D 9H", "9D 9S", "9H 9S", "9D 9H 9S"]


def test_legal_actions_are_cached_and_stable() -> None:
    m = Match(Rules.preset("cardverse"), seed=5)
    assert m.legal_actions() is m.legal_actions()
    assert m.legal_actions() == Match(Rules.preset("cardverse"), seed=5).legal_actions()


@pytest.mark.parametrize(("setup", "action", "player", "why"), [
    ((), "AS", None, IllegalReason.CARDS_NOT_HELD),
    ((), "3C 3C", None, IllegalReason.CARDS_NOT_HELD),
    ((), "3C", 1, IllegalReason.NOT_YOUR_TURN),
    ((), "pass", None, IllegalReason.LEADER_MUST_PLAY),
    ((), "3C 5C", None, IllegalReason.MIXED_RANKS),
    ((), "give 3C", None, IllegalReason.WRONG_PHASE),
    ((), "request 4C", None, IllegalReason.WRONG_PHASE),
    (("5C",), "6C 6D", None, IllegalReason.WRONG_COUNT),
    (("5C",), "4C", None, IllegalReason.DOES_NOT_BEAT),
    (("5C",), "3C", 0, IllegalReason.NOT_YOUR_TURN),
])
def test_check_reasons(setup: tuple[str, ...], action: str, player: int | None, why: IllegalReason) -> None:
    m = match(None, deal("3C 5C 7C", "4C 6C 6D", "8C 9C"), players=3)
    run(m, *setup)
    assert reason(m, action, player) is why


def test_check_empty_play_bad_declared_rank_match_over() -> None:
    m = match(None, deal("3C 5C 7C", "4C 6C 6D", "8C 9C"), players=3)
    with pytest.raises(IllegalActionError) as info:
        m.check(Play(CardSet()))
    assert info.value.reason is IllegalReason.EMPTY_PLAY
    m = match(None, deal("9C 3C", "6D 4D", "4H 7C"), players=3, wild_ranks="6", joker_alone="declared")
    run(m, "9C")
    assert reason(m, "6D as 6") is IllegalReason.BAD_DECLARED_RANK
    m = match(None, deal("3C", "4C", "5C 6C"), players=3)
    run(m, "3C", "4C")
    assert m.is_over
    assert reason(m, "5C") is IllegalReason.MATCH_OVER
    assert reason(m, "pass") is IllegalReason.MATCH_OVER


def test_check_returns_the_resolved_interned_action() -> None:
    m = match(None, deal("3C 3D 5C", "4C 6C 6D", "8C 9C"), players=3)
    listed = m.legal_actions()[1]
    assert m.check(Play(CardSet("3C 3D"))) is listed
    assert m.check(Play(CardSet("3C 3D"), rank=Rank.THREE)) is listed
    assert m.can_apply(Play(CardSet("3C 3D"))) and not m.can_apply(PASS)
    assert not m.can_apply(Play(CardSet("3C 3D")), player=2)


@pytest.mark.parametrize("action", [
    Play(CardSet("AS")), Play(CardSet("3C 5C")), PASS, GiveBack(CardSet("3C")), Request(CardSet("4C")),
    Play(CardSet()), Play(CardSet("3C"), Rank.KING),
])
def test_a_refused_action_changes_nothing(action: Play) -> None:
    m = match(None, deal("3C 5C 7C", "4C 6C 6D", "8C 9C"), players=3)
    before = state(m)
    with pytest.raises(IllegalActionError):
        m.apply(action)
    assert state(m) == before
    run(m, "5C")
    before = state(m)
    for bad in (Play(CardSet("4C")), Play(CardSet("6C 6D")), Play(CardSet("3C"))):
        with pytest.raises(IllegalActionError):
            m.apply(bad)
        assert state(m) == before
