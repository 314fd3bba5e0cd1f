"""RULES 1.4 Card exchange: tributes of best cards, give-backs, order of steps, requests, visibility."""

from __future__ import annotations

from typing import Any

import pytest
from engine_support import exchange_match, reason, run, texts
from president_engine import CardSet, IllegalReason, Match, Phase, Role, Rules, visible_to
from president_engine.events import CardsGiven, CardsRequested, PlayStarted


def given(m: Match) -> list[CardsGiven]:
    return [e for e in m.events if isinstance(e, CardsGiven)]


def test_no_exchange_in_deal_one() -> None:
    m = Match(Rules(players=4, exchange=True, exchange_requests=True, deals=2), seed=1)
    assert m.phase is Phase.PLAY and not given(m)


def test_tribute_of_best_cards_by_rank_order_and_suit_ties() -> None:
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "2C 2H 2D 7C"])
    assert given(m) == [CardsGiven(3, 0, 2, True, CardSet("2C 2H")),  # spades, hearts, clubs, diamonds
                        CardsGiven(2, 1, 1, True, CardSet("KC"))]
    assert m.phase is Phase.GIVE_BACK and m.to_act == 0 and m.owed(0) == 2


def test_tribute_uses_the_normal_order_not_the_custom_top() -> None:
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "2C AH 3S 7C"], rank_order="2 3 4 5 6 7 8 9 10 J Q K A")
    assert given(m)[0].cards == CardSet("AH 7C")  # the option's order, ace on top


@pytest.mark.parametrize(("options", "scum", "best"), [
    ({"jokers": 1}, "JK 2S 6C 7C", "JK 2S"),  # wild jokers first
    ({"jokers": 1, "joker_alone": "low"}, "JK 2S 6C 7C", "JK 2S"),  # wild jokers first even when low alone
    ({"jokers": 1, "joker_wild": False, "joker_alone": "high"}, "JK 2S 6C 7C", "JK 2S"),  # high jokers first
    ({"jokers": 1, "joker_wild": False, "joker_alone": "low"}, "JK 3S 5S", "3S 5S"),  # low plain jokers last
    ({"jokers": 1, "joker_wild": False, "joker_alone": "low"}, "JK 3S 9D", "3S 9D"),
    ({"jokers": 1, "joker_wild": False, "joker_alone": "low"}, "JK 3S", "JK 3S"),
    ({"wild_ranks": "6", "joker_alone": "declared"}, "6C AS 2H 3C", "6C 2H"),  # then wild cards
    ({"wild_ranks": "6", "joker_alone": "declared", "jokers": 1}, "6C 2H JK 3C", "JK 6C"),
    ({"wild_ranks": "6 9", "joker_alone": "declared"}, "6C 9D 2H 3C", "9D 6C"),  # wild ranks from the top
])
def test_tribute_best_cards_jokers_and_wild_cards(options: dict[str, Any], scum: str, best: str) -> None:
    m = exchange_match(["3H 3D", "4C 4D", "KC 5D 9S", scum], **options) if "9" not in str(options.get(
        "wild_ranks", "")) else exchange_match(["3H 3D", "4C 4D", "KC 5D 10S", scum], **options)
    assert given(m)[0] == CardsGiven(3, 0, 2, True, CardSet(best))


def test_give_back_any_cards_including_received_ones_then_vice_then_play() -> None:
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "2C 2H 2D 7C"])
    assert texts(m.legal_actions()) == ["give 3C 3D", "give 2C 3C", "give 2C 2H"]  # worst first, one per rank
    m.check(parse("give 3D 2H"))  # any cards held, not only the listed suits
    assert reason(m, "give 3C") is IllegalReason.WRONG_COUNT
    assert reason(m, "give 3C AS") is IllegalReason.CARDS_NOT_HELD
    assert reason(m, "3C") is IllegalReason.WRONG_PHASE
    assert reason(m, "give 3C 3D", 3) is IllegalReason.NOT_YOUR_TURN
    run(m, "give 2C 2H")  # the received cards go straight back
    assert given(m)[-1] == CardsGiven(0, 3, 2, False, CardSet("2C 2H"))
    assert m.phase is Phase.GIVE_BACK and m.to_act == 1 and m.owed(1) == 1
    assert texts(m.legal_actions()) == ["give 4C", "give KC"]
    run(m, "give KC")
    assert m.phase is Phase.PLAY
    assert m.hand(0) == CardSet("3C 3D") and m.hand(3) == CardSet("2C 2H 2D 7C")
    assert m.hand(1) == CardSet("4C 4D") and m.hand(2) == CardSet("KC 5D 9S")
    assert m.events[-1] == PlayStarted(0)  # next_lead president


def test_give_back_with_suit_order_lists_every_distinct_set() -> None:
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "2C 2H 2D 7C"], suit_order="C D H S")
    # worst first: within a rank, ties go by the tribute's suit order reversed (D, C, H, S)
    assert texts(m.legal_actions()) == ["give 3C 3D", "give 2C 3D", "give 2H 3D", "give 2C 3C",
                                        "give 2H 3C", "give 2C 2H"]


def test_three_players_only_president_and_scum_exchange() -> None:
    m = exchange_match(["3C 3D", "KC 5D 9S", "2C 2H 2D 7C"], players=3)
    assert given(m) == [CardsGiven(2, 0, 2, True, CardSet("2C 2H"))]
    assert m.roles == [Role.PRESIDENT, Role.NEUTRAL, Role.SCUM]
    run(m, "give 3C 3D")
    assert m.phase is Phase.PLAY


def test_order_of_steps_with_requests() -> None:
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "2C 2H 2D 7C"], exchange_requests=True)
    assert (m.phase, m.to_act, m.owed(0)) == (Phase.REQUEST, 0, 2)
    assert not given(m)
    run(m, "request 7C 4H")
    assert (m.phase, m.to_act, m.owed(1)) == (Phase.REQUEST, 1, 1)
    assert not given(m)  # no tribute before both requests
    run(m, "request")
    # both tributes, then the give-backs
    assert given(m) == [CardsGiven(3, 0, 2, True, CardSet("7C 2H")),  # named card held, then the best
                        CardsGiven(2, 1, 1, True, CardSet("KC"))]
    assert [e for e in m.events if isinstance(e, CardsRequested)] == [
        CardsRequested(0, 3, CardSet("4H 7C")), CardsRequested(1, 2, CardSet())]
    assert (m.phase, m.to_act) == (Phase.GIVE_BACK, 0)
    run(m, "give 3C 3D")
    assert (m.phase, m.to_act) == (Phase.GIVE_BACK, 1)
    run(m, "give 4C")
    assert m.phase is Phase.PLAY


def test_requests_name_cards_not_held_in_every_copy() -> None:
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "2C 2H 2D 7C"], exchange_requests=True)
    assert reason(m, "request 3C") is IllegalReason.BAD_REQUEST  # P0 holds the only 3C
    assert reason(m, "request AS KS QS") is IllegalReason.BAD_REQUEST  # more than owed
    assert reason(m, "request JK") is IllegalReason.BAD_REQUEST  # the deck has no joker
    assert reason(m, "give 3C 3D") is IllegalReason.WRONG_PHASE
    assert reason(m, "request 2C", 1) is IllegalReason.NOT_YOUR_TURN
    legal = texts(m.legal_actions())
    assert legal[0] == "request" and legal[1] == "request 2S" and legal[2] == "request 2H"
    assert "request 3C" not in legal and "request 3D" not in legal
    assert len(legal) == 1 + 50 + 50 * 49 // 2
    assert legal.index("request 2H 2S") > legal.index("request 3H")  # fewer cards first


def test_requests_with_two_decks_may_name_a_card_held_once() -> None:
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "3C 2H 2D 7C"], decks=2, exchange_requests=True)
    run(m, "request 3C")  # P0 holds one of two 3C
    run(m, "request")
    assert given(m)[0] == CardsGiven(3, 0, 2, True, CardSet("3C 2H"))
    m = exchange_match(["3C 3C", "4C 4D", "KC 5D 9S", "3D 2H 2D 7C"], decks=2, exchange_requests=True)
    assert reason(m, "request 3C") is IllegalReason.BAD_REQUEST  # holds both copies
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "3D 2H 2D 7C"], decks=2, exchange_requests=True)
    assert reason(m, "request 3C 3C") is IllegalReason.BAD_REQUEST  # only one copy is out


def test_exchange_is_seen_only_by_the_pair() -> None:
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "2C 2H 2D 7C"], exchange_requests=True)
    run(m, "request 7C", "request AS", "give 3C 3D", "give 4C")
    for e in m.events:
        if isinstance(e, CardsRequested):
            pair = {e.receiver, e.giver}
            for p in range(4):
                assert (visible_to(e, p) is e) == (p in pair)
            assert visible_to(e, None) is None
        elif isinstance(e, CardsGiven):
            pair = {e.receiver, e.giver}
            for p in (*range(4), None):
                shown = visible_to(e, p)
                assert isinstance(shown, CardsGiven)
                assert shown.count == e.count and shown.tribute == e.tribute
                assert shown.cards == (e.cards if p in pair else None)
    for p in range(4):
        seen = m.observation(p).exchange
        assert len(seen) == 4
        assert all((g.cards is not None) == (p in (g.giver, g.receiver)) for g in seen)


def parse(text: str) -> Any:
    from president_engine import parse_action
    return parse_action(text)


def test_the_spectator_sees_that_cards_moved_and_how_many() -> None:
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "2C 2H 2D 7C"], exchange_requests=True)
    run(m, "request 7C", "request AS", "give 3C 3D", "give 4C")
    seen = m.public_observation().exchange
    assert [(g.giver, g.receiver, g.count, g.tribute) for g in seen] == [
        (g.giver, g.receiver, g.count, g.tribute) for g in m.observation(0).exchange]
    assert len(seen) == 4 and all(g.cards is None for g in seen)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_exchange_pairs_are_the_ones_the_match_plays(players: int) -> None:
    """`exchange_pairs`/`exchange_partner` (what the server asks about give-backs) agree with the match itself."""
    from president_engine.exchange import exchange_pairs, exchange_partner

    for seed in range(3):
        m = Match(Rules(players=players, deals=2, exchange=True), seed=seed)
        while m.deal == 1:
            m.apply(m.legal_actions()[0])
        while m.phase is not Phase.PLAY:
            m.apply(m.legal_actions()[0])
        moved = {(e.giver, e.receiver) for e in given(m)}
        pairs = exchange_pairs(m.roles)
        assert moved == {(p.giver, p.receiver) for p in pairs} | {(p.receiver, p.giver) for p in pairs}
        assert len(pairs) == (1 if players == 3 else 2)
        for player in range(players):
            partner = exchange_partner(m.roles, player)
            if m.roles[player] is Role.NEUTRAL:
                assert partner is None
            else:
                assert partner is not None and ((player, partner) in moved and (partner, player) in moved)
