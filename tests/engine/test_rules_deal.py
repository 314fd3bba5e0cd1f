"""RULES 1 "Deck", "Deal", 1.5 "Who leads": dealing, explicit hands, dealer, first and next lead, seating."""

from __future__ import annotations

import pytest
from engine_support import deal, match, run
from president_engine import CardSet, DealError, Match, Rank, Role, Rules
from president_engine.cards import full_deck
from president_engine.deal import shuffled_deal
from president_engine.events import DealStarted, PlayStarted


@pytest.mark.parametrize(("players", "decks", "jokers"), [(3, 1, 0), (4, 1, 0), (5, 1, 2), (7, 2, 1), (4, 2, 0)])
def test_deal_gives_every_card_evenly_extra_cards_to_first_dealt(players: int, decks: int, jokers: int) -> None:
    rules = Rules(players=players, decks=decks, jokers=jokers)
    m = Match(rules, seed=11)
    hands = m.deal_hands[0]
    assert sum(hands, CardSet()) == full_deck(decks, jokers)
    size, extra = divmod(rules.deck_size, players)
    # deal 1 starts at seat 0: seats 0..extra-1 get one card more
    assert [len(h) for h in hands] == [size + 1] * extra + [size] * (players - extra)


def test_extra_cards_go_to_the_first_players_dealt_from_the_start_seat() -> None:
    rules = Rules(players=5)  # 52 = 5 * 10 + 2
    hands = shuffled_deal(rules, 4, 2, start_seat=3)
    assert [len(h) for h in hands] == [10, 10, 10, 11, 11]


def test_seeded_deal_is_a_pure_function_of_seed_and_deal() -> None:
    rules = Rules(players=4)
    assert shuffled_deal(rules, 7, 1, 0) == shuffled_deal(rules, 7, 1, 0)
    assert shuffled_deal(rules, 7, 1, 0) != shuffled_deal(rules, 8, 1, 0)
    assert shuffled_deal(rules, 7, 1, 0) != shuffled_deal(rules, 7, 2, 0)
    # the same seed gives the same first deal whatever else happens in the match
    assert Match(rules, seed=7).deal_hands[0] == tuple(shuffled_deal(rules, 7, 1, 0))
    a, b = Match(rules.replace(deals=3), seed=7), Match(rules.replace(deals=3), seed=7)
    assert a.deal_hands == b.deal_hands
    # rotating the start seat only rotates who receives which packet
    base = shuffled_deal(rules, 7, 1, 0)
    assert shuffled_deal(rules, 7, 1, 1) == base[-1:] + base[:-1]


def test_shuffle_is_pinned() -> None:
    """The shuffle is specified (SHAKE-256 keys) so other languages can reproduce it: pin one deal."""
    hands = shuffled_deal(Rules(players=4), 1, 1, 0)
    assert [str(h) for h in hands] == [
        "2C 2D 3H 4D 5H 6H 7D 7S 9H 9S 10H JH AC",
        "3S 4C 4H 5S 6C 6D 6S 8H 10C JS QC QH AH",
        "2H 2S 3C 5C 5D 7H 8D 9D JC QD KS AD AS",
        "3D 4S 7C 8C 8S 9C 10D 10S JD QS KC KD KH",
    ]


def test_explicit_hands_are_used_and_recorded() -> None:
    hands = deal("3C 4D", "5H", "JK 2S 2S")
    m = match(None, hands, players=3, decks=2, jokers=1)
    assert m.deal_hands[0] == tuple(hands)
    assert m.hand(2) == CardSet("2S 2S JK")
    assert m.hand_sizes() == (2, 1, 3)


@pytest.mark.parametrize(("hands", "options", "message"), [
    (["3C", "4C"], {}, "2 hands for 3 players"),
    (["3C", "", "4C"], {}, "seat 1 is empty"),
    (["3C 3C", "4C", "5C"], {}, "more copies"),
    (["JK", "4C", "5C"], {}, "more copies"),
    (["JK JK JK", "4C", "5C"], {"jokers": 1, "decks": 2}, "more copies"),
])
def test_explicit_hands_are_validated(hands: list[str], options: dict[str, int], message: str) -> None:
    with pytest.raises(DealError, match=message):
        Match(Rules(players=3, **options), hands=[deal(*hands)])


def test_explicit_hands_need_two_cards_each_from_deal_two_with_exchange() -> None:
    rules = Rules(players=3, exchange=True, deals=2)
    first = deal("3C", "4C", "5C")  # deal 1 has no exchange: one card is fine
    Match(rules, hands=[first])
    with pytest.raises(DealError, match="at least 2 cards"):
        Match(rules, hands=[first, deal("3C 3D", "4C", "5C 5D")])


def test_sizes_are_free_and_not_every_card_must_be_dealt() -> None:
    m = match(None, deal("3C", "4C 4D 4H 4S 5C", "AS"), players=3)
    assert m.hand_sizes() == (1, 5, 1)


def test_first_lead_seat0() -> None:
    m = match(None, deal("4C", "3C", "5C"), players=3)
    assert m.to_act == 0


def test_first_lead_three_of_clubs() -> None:
    m = match(None, deal("4C 5D", "5C 6D", "3C 6C"), players=3, first_lead="three_of_clubs")
    assert m.to_act == 2
    assert m.events[-1] == PlayStarted(2)
    # the lead need not contain it
    run(m, "6C")
    assert m.hand(2) == CardSet("3C")


def test_first_lead_three_of_clubs_lowest_seat_with_two_decks_and_seat0_when_nobody() -> None:
    m = match(None, deal("4C", "3C 5C", "3C"), players=3, decks=2, first_lead="three_of_clubs")
    assert m.to_act == 1
    m = match(None, deal("4C", "3D 5C", "3H"), players=3, first_lead="three_of_clubs")
    assert m.to_act == 0


def test_first_lead_applies_to_deal_one_only_then_next_lead() -> None:
    rules = Rules(players=3, deals=2, first_lead="three_of_clubs", next_lead="scum")
    m = Match(rules, hands=[deal("3D", "4D 9D", "3C 5C"), deal("3C 4C", "7C 8C", "8D 9C")])
    assert m.to_act == 2
    while m.deal == 1:
        m.apply(m.legal_actions()[0])
    scum = m.last_places[-1]
    assert scum == 1 and m.hand(0).count_rank(Rank.THREE)  # player 0 holds the three of clubs, does not lead
    assert m.to_act == scum


def _finish(m: Match) -> None:
    while m.deal == 1 and not m.is_over:
        m.apply(m.legal_actions()[0])


@pytest.mark.parametrize(("next_lead", "expected"), [("president", Role.PRESIDENT), ("scum", Role.SCUM)])
def test_next_lead_from_deal_two(next_lead: str, expected: Role) -> None:
    rules = Rules(players=3, deals=2, next_lead=next_lead, first_lead="three_of_clubs")
    m = Match(rules, hands=[deal("3C", "4C 5C", "6C 7C 8C"), deal("3C", "4C", "9C")])
    run(m, "3C")  # P0 out first
    _finish(m)
    assert m.deal == 2
    assert m.roles[m.to_act] is expected  # the three of clubs no longer matters


def test_dealer_is_previous_last_place_and_dealing_starts_next_seat() -> None:
    rules = Rules(players=4, deals=2)
    m = Match(rules, seed=5, hands=[deal("3C", "4C 4D", "5C 5D 5H", "6C 6D 6H 6S")])
    first = next(e for e in m.events if isinstance(e, DealStarted))
    assert first.dealer == 3  # dealing starts at seat 0
    run(m, "3C")
    _finish(m)
    second = [e for e in m.events if isinstance(e, DealStarted)][1]
    last = m.last_places[-1]
    assert second.dealer == last
    start = (m.seat_of(last) + 1) % 4
    assert m.deal_hands[1] == tuple(shuffled_deal(rules, 5, 2, start))


def test_seating_by_rank_reseats_in_finishing_order() -> None:
    rules = Rules(players=4, deals=2, seating="by_rank")
    m = Match(rules, hands=[deal("9C 9D", "3C", "4C", "5C")])
    run(m, "9C", "pass", "pass", "pass")  # P0 wins, leads
    run(m, "9D")  # P0 goes out first
    while m.deal == 1:
        m.apply(m.legal_actions()[0])
    places = m.last_places
    assert m.seats == places  # President seat 0 ... Scum seat N-1
    assert m.seat_of(places[0]) == 0 and m.seat_of(places[-1]) == 3
    started = [e for e in m.events if isinstance(e, DealStarted)][1]
    assert started.seats == places
    assert started.dealer == places[-1]  # the Scum deals; dealing starts at seat 0


def test_seating_fixed_keeps_seats() -> None:
    m = Match(Rules(players=4, deals=2), seed=3)
    while m.deal == 1:
        m.apply(m.legal_actions()[0])
    assert m.seats == (0, 1, 2, 3)
