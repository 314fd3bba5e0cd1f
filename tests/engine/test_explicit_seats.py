"""Explicit seats: an explicit deal sits as given (a game taken from another server's log), later deals as the rules
say."""

from __future__ import annotations

from typing import Any

import pytest
from engine_support import deal, of_type, run
from hypothesis import given, settings
from hypothesis import strategies as st
from president_engine import CardSet, DealError, Match, MatchRecord, RecordError, Rules
from president_engine.deal import shuffled_deal
from president_engine.events import DealStarted

FOUR = deal("3C 4C", "5C 6C", "7C 8C", "9C 10C")


def _play_to(m: Match, number: int) -> Match:
    """The first legal action until deal `number` has started (or the match is over)."""
    while not m.is_over and m.deal < number:
        m.apply(m.legal_actions()[0])
    return m


def _seats(m: Match) -> list[tuple[int, ...]]:
    return [started.seats for started in of_type(m, DealStarted)]


def test_the_given_seats_seat_the_deal_and_its_hands() -> None:
    m = Match(Rules(players=4), hands=[FOUR], seats=[(2, 0, 3, 1)])
    assert m.seats == (2, 0, 3, 1) and _seats(m) == [(2, 0, 3, 1)] and m.deal_seats == [(2, 0, 3, 1)]
    assert m.deal_hands[0] == tuple(FOUR), "the hands are by seat"
    assert [m.hand(player) for player in (2, 0, 3, 1)] == FOUR
    assert m.seat_of(3) == 2
    assert m.to_act == 2, "seat 0 leads (first_lead = seat0)"


def test_none_keeps_the_rules_seating() -> None:
    for rules in (Rules(players=4, deals=2, seating="by_rank"), Rules.preset("daifugo", deals=2)):
        hands = [shuffled_deal(rules, 1, 1, 0), shuffled_deal(rules, 1, 2, 0)]
        plain, unseated = Match(rules, seed=4, hands=hands), Match(rules, seed=4, hands=hands, seats=[None, None])
        assert _play_to(unseated, 2).events == _play_to(plain, 2).events
        assert unseated.deal == 2


def test_given_seats_win_over_drawn_seats_and_seats_by_rank() -> None:
    daifugo = Rules.preset("daifugo", deals=1)  # deal 1's seats are drawn from the seed
    drawn = Match(daifugo, seed=7).seats
    hands = shuffled_deal(daifugo, 7, 1, 0)
    given_seats = drawn[1:] + drawn[:1]
    assert Match(daifugo, seed=7, hands=[hands], seats=[given_seats]).seats == given_seats
    by_rank = Rules(players=4, deals=2, seating="by_rank")
    m = _play_to(Match(by_rank, hands=[FOUR, deal("3D", "4D", "5D", "6D")], seats=[None, (3, 1, 0, 2)]), 2)
    assert m.last_places != (3, 1, 0, 2) and m.seats == (3, 1, 0, 2)


@pytest.mark.parametrize(("seats", "message"), [
    ([(0, 1, 2)], "deal 1: 3 seats for 4 players"),
    ([(0, 1, 2, 3, 0)], "deal 1: 5 seats for 4 players"),
    ([(0, 1, 1, 3)], "deal 1: player 1 sits in two seats"),
    ([(0, 1, 2, 4)], "deal 1: seat 3 holds no player"),
    ([(0, -1, 2, 3)], "deal 1: seat 1 holds no player"),
    ([None, (1, 1, 2, 3)], "deal 2: player 1 sits in two seats"),
    ([None, None, None], "deal 3: seats given for a deal without explicit hands"),
])
def test_invalid_seats_are_refused_naming_the_deal(seats: list[Any], message: str) -> None:
    with pytest.raises(DealError, match=message):
        Match(Rules(players=4, deals=2), hands=[FOUR, FOUR], seats=seats)


def test_seats_without_hands_are_refused() -> None:
    with pytest.raises(DealError, match="deal 1: seats given for a deal without explicit hands"):
        Match(Rules(players=4), seats=[(0, 1, 2, 3)])


def test_later_deals_continue_as_the_rules_say() -> None:
    fixed = _play_to(Match(Rules(players=4, deals=2), seed=3, hands=[FOUR], seats=[(1, 2, 3, 0)]), 2)
    assert _seats(fixed) == [(1, 2, 3, 0), (1, 2, 3, 0)], "fixed seating keeps them"
    start = ((1, 2, 3, 0).index(fixed.last_places[-1]) + 1) % 4
    assert fixed.deal_hands[1] == tuple(shuffled_deal(fixed.rules, 3, 2, start)), "dealt from after the last place"
    by_rank = Match(Rules(players=4, deals=2, seating="by_rank"), seed=3, hands=[FOUR], seats=[(1, 2, 3, 0)])
    in_deal1 = by_rank.copy()
    _play_to(by_rank, 2)
    assert by_rank.seats == by_rank.last_places
    assert _play_to(in_deal1, 2).events == by_rank.events, "a copy keeps the given seats"
    daifugo = Rules.preset("daifugo", deals=4)  # seats drawn in deals 1 and 4
    drawn = _seats(_play_to(Match(daifugo, seed=5), 4))
    given_seats = (4, 3, 2, 1, 0) if drawn[0] != (4, 3, 2, 1, 0) else (0, 1, 2, 3, 4)
    seated = Match(daifugo, seed=5, hands=[shuffled_deal(daifugo, 5, 1, 0)], seats=[given_seats])
    assert _seats(_play_to(seated, 4)) == [given_seats] * 3 + drawn[3:], "kept until the next draw, then drawn"


def test_a_record_of_given_seats_replays() -> None:
    rules = Rules(players=4, deals=3, seating="by_rank", exchange=True)
    hands = [shuffled_deal(rules, 2, 1, 0), shuffled_deal(rules, 2, 2, 0)]
    m = _play_to(Match(rules, seed=2, hands=hands, seats=[(3, 2, 1, 0), (0, 2, 1, 3)]), 4)
    assert m.is_over
    record = MatchRecord.from_match(m)
    assert [d.seats for d in record.deals[:2]] == [(3, 2, 1, 0), (0, 2, 1, 3)]
    assert record.replay().events == m.events
    assert MatchRecord.loads(record.dumps()).replay().events == m.events


def test_a_record_whose_explicit_seats_cannot_seat_is_refused() -> None:
    data = MatchRecord.from_match(Match(Rules(players=4), hands=[FOUR], seats=[(2, 0, 3, 1)])).to_json()
    data["deals"][0]["seats"] = [2, 2, 3, 1]
    with pytest.raises(RecordError, match="player 2 sits in two seats"):
        MatchRecord.from_json(data).replay()


@settings(max_examples=40, deadline=None)
@given(st.permutations(range(5)), st.permutations(range(5)), st.integers(0, 2**32))
def test_any_seating_plays_and_replays(first: list[int], second: list[int], seed: int) -> None:
    rules = Rules.preset("daifugo", deals=3)
    hands = [shuffled_deal(rules, seed, 1, 0), shuffled_deal(rules, seed, 2, 0)]
    m = Match(rules, seed=seed, hands=hands, seats=[first, second])
    assert m.seats == tuple(first)
    for player, hand in zip(first, hands[0], strict=True):
        assert m.hand(player) == hand
    _play_to(m, 4)
    assert _seats(m)[:2] == [tuple(first), tuple(second)]
    assert MatchRecord.from_match(m).replay().events == m.events


def test_a_script_runs_in_the_given_seats() -> None:
    m = Match(Rules(players=3), hands=[deal("3C 5C", "4C", "6C")], seats=[(1, 2, 0)])
    run(m, "3C")  # player 1, in seat 0, leads
    assert m.to_act == 2 and m.hand(1) == CardSet("5C")
