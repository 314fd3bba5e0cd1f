"""The Daifugō options of UECDA 4.4-4.7 and 5: 8-stop, suit lock, the lone joker and the spade 3, revolution by
groups and sequences, 11-back, 6-reverse; each off by default, and views and worlds that know them."""

from __future__ import annotations

from typing import Any

import pytest
from engine_support import deal, does_not_beat, exchange_match, match, of_type, reason, run, texts
from president_engine import (
    CardSet,
    IllegalReason,
    Match,
    Rank,
    Rules,
    RulesError,
    Suit,
    parse_action,
)
from president_engine.events import CardsGiven, DealEnded, DealStarted, RevolutionHappened, TrickWon
from president_engine.roles import Role

BASE: dict[str, Any] = {"players": 3, "jokers": 1, "beat": "strictly_higher", "pass_is_final": True}
STOP = {**BASE, "eight_stop": True}
LOCK = {**BASE, "suit_lock": True}
SPADE3 = {**BASE, "joker_spade_three": True}
REV = {"revolution": True, "revolution_triggers": ["four_of_a_kind"]}




def trick_over(m: Match, winner: int, leader: int) -> bool:
    """The last event ended the trick, won by `winner`, and `leader` leads the next one."""
    return m.events[-1] == TrickWon(winner, leader) and m.table is None and m.to_act == leader


# ---------------------------------------------------------------------------- 8-stop (4.7)


def test_an_eight_ends_the_trick_and_its_player_leads_again() -> None:
    m = match(None, deal("8C 3C 4C", "9C 10C", "JC QC"), **STOP)
    run(m, "8C")
    assert trick_over(m, 0, 0)


def test_an_eight_anywhere_in_a_play_stops_the_joker_standing_for_it_too() -> None:
    rules = {**STOP, "sequences": True}
    for play in ("7S 8S 9S", "7S 9S JK=8S", "8C JK=8D", "8C 8D"):
        m = match(None, deal("7S 8S 9S 8C 8D JK 3C", "9C 10C", "JC QC"), **rules)
        run(m, play)
        assert trick_over(m, 0, 0), play


def test_a_lone_joker_is_never_an_eight() -> None:
    m = match(None, deal("JK 3C", "9C 10C", "JC QC"), **STOP)
    run(m, "JK")
    assert m.table == parse_action("JK") and m.to_act == 1


def test_an_eight_that_goes_out_passes_the_lead_on() -> None:
    m = match(None, deal("8C", "9C 10C", "JC QC"), **STOP)
    run(m, "8C")
    assert m.events[-1] == TrickWon(0, 1) and m.to_act == 1


def test_eight_stop_applies_in_a_revolution() -> None:
    m = match(None, deal("9C 9D 9H 9S 3C", "8C 8D 8H 8S 2C", "KC"), **STOP, **REV)
    run(m, "9C 9D 9H 9S", "8C 8D 8H 8S")
    assert trick_over(m, 1, 1) and not m.reversed  # the eights reversed back, then stopped


def test_no_eight_stop_by_default() -> None:
    m = match(None, deal("8C 3C 4C", "9C 10C", "JC QC"), **BASE)
    run(m, "8C")
    assert m.table is not None and m.to_act == 1


# ---------------------------------------------------------------------------- suit lock (4.4)


def test_a_play_of_the_tables_suits_locks_the_trick() -> None:
    m = match(None, deal("5H 3C", "7H 9S 4C", "9H 10S 10H KC"), **LOCK)
    run(m, "5H")
    assert m.suit_lock == ()
    run(m, "7H")
    assert m.suit_lock == (Suit.HEARTS,) and m.observation(2).suit_lock == (Suit.HEARTS,)
    assert does_not_beat(m, "10S") == "the suits are locked to H"
    assert texts(m.legal_actions()) == ["9H", "10H", "pass"]


def test_the_lock_is_the_suit_set_of_a_group_the_jokers_cell_included() -> None:
    m = match(None, deal("5C 5H 3D", "7C JK 4D", "9C 9H 9D 9S QC QD"), **LOCK)
    run(m, "5C 5H", "7C JK=7H")
    assert m.suit_lock == (Suit.CLUBS, Suit.HEARTS)
    assert does_not_beat(m, "9D 9S") == does_not_beat(m, "QC QD") == "the suits are locked to C H"
    assert texts(m.legal_actions()) == ["9C 9H", "pass"]


def test_another_suit_set_does_not_lock() -> None:
    m = match(None, deal("5H 3C", "7S 9S 4C", "9H 10S 10H KC"), **LOCK)
    run(m, "5H", "7S")
    assert m.suit_lock == () and "10H" in texts(m.legal_actions())


def test_a_lock_is_checked_only_on_a_play_that_beats() -> None:
    m = match(None, deal("5H 3C", "7H 9S 4C", "6S 6H KC"), **LOCK)
    run(m, "5H", "7H")
    assert reason(m, "6S") is IllegalReason.DOES_NOT_BEAT


def test_a_lone_joker_is_not_locked_and_clears_the_lock() -> None:
    m = match(None, deal("5H 3C", "7H 9S 4C", "JK KC"), **LOCK)
    run(m, "5H", "7H")
    assert "JK" in texts(m.legal_actions())
    run(m, "JK")
    assert m.suit_lock == ()


def test_the_lock_ends_with_the_trick() -> None:
    m = match(None, deal("5H 3C 4C", "7H 9S 4D", "KC QC"), **LOCK)
    run(m, "5H", "7H", "pass", "pass")
    assert m.table is None and m.suit_lock == ()


def test_sequences_lock_by_their_suit() -> None:
    m = match(None, deal("3S 4S 5S 2C", "7S 8S 9S 2D", "10S JS QS 10H JH QH KC"), **LOCK, sequences=True)
    run(m, "3S 4S 5S", "7S 8S 9S")
    assert m.suit_lock == (Suit.SPADES,)
    assert does_not_beat(m, "10H JH QH") == "the suits are locked to S"
    assert texts(m.legal_actions()) == ["10S JS QS", "pass"]


def test_a_world_from_a_locked_view_keeps_the_lock() -> None:
    m = match(None, deal("5H 3C", "7H 9S 4C", "9H 10S 10H KC"), **LOCK)
    run(m, "5H", "7H")
    world = Match.from_view(m.observation(2), [m.hand(p) for p in range(3)])
    assert world.suit_lock == (Suit.HEARTS,) and world.legal_actions() == m.legal_actions()


# ---------------------------------------------------------------------------- the lone joker and the spade 3 (4.5)


def test_a_lone_joker_beats_any_single_in_a_revolution_too() -> None:
    m = match(None, deal("2C 9C 9D 9H 9S", "JK 3D", "KC"), **SPADE3, **REV)
    run(m, "2C")
    assert "JK" in texts(m.legal_actions())
    m = match(None, deal("9C 9D 9H 9S 2C 4C", "JK 3D", "KC 3H"), **SPADE3, **REV)
    run(m, "9C 9D 9H 9S", "pass", "pass", "4C")
    assert m.reversed and "JK" in texts(m.legal_actions())


def test_only_the_spade_three_beats_a_lone_joker_and_it_ends_the_trick() -> None:
    m = match(None, deal("JK 4C", "3S 3H 2C", "KC"), **SPADE3)
    run(m, "JK")
    assert texts(m.legal_actions()) == ["3S", "pass"]
    assert reason(m, "2C") is IllegalReason.DOES_NOT_BEAT
    assert reason(m, "3H") is IllegalReason.DOES_NOT_BEAT
    run(m, "3S")
    assert trick_over(m, 1, 1)


def test_without_the_option_the_spade_three_does_not_beat_a_joker() -> None:
    m = match(None, deal("JK 4C", "3S 3H 2C", "KC"), **BASE)
    run(m, "JK")
    assert texts(m.legal_actions()) == ["pass"]


@pytest.mark.parametrize("options", [{"jokers": 0}, {"joker_alone": "low"}])
def test_the_spade_three_needs_a_high_joker(options: dict[str, Any]) -> None:
    with pytest.raises(RulesError) as refused:
        Rules(**{**SPADE3, **options})
    assert refused.value.option == "joker_spade_three"


# ---------------------------------------------------------------------------- revolution (4.6)


def test_a_sequence_of_five_revolts_and_of_four_does_not() -> None:
    rules = {**BASE, "sequences": True, **REV}
    m = match(None, deal("3S 4S 5S 6S 7S 9C", "KC", "QC"), **rules)
    run(m, "3S 4S 5S 6S 7S")
    assert of_type(m, RevolutionHappened) == [RevolutionHappened(True, 1)]
    m = match(None, deal("3S 4S 5S 6S 9C", "KC", "QC"), **rules)
    run(m, "3S 4S 5S 6S")
    assert not m.reversed  # four cards, but a sequence: four_of_a_kind counts groups only


def test_a_sequence_of_five_revolts_only_with_the_four_of_a_kind_trigger() -> None:
    m = match(None, deal("3S 4S 5S 6S 7S 9C", "KC", "QC"), **BASE, sequences=True, revolution=True,
              revolution_triggers=["four_singles"])
    run(m, "3S 4S 5S 6S 7S")
    assert not m.reversed


def test_four_and_the_joker_make_a_five_group_that_revolts() -> None:
    m = match(None, deal("9C 9D 9H 9S JK 3C", "KC", "QC"), **BASE, suit_lock=True, **REV)
    run(m, "9C 9D 9H 9S JK=9")
    assert m.reversed


# ---------------------------------------------------------------------------- 11-back and 6-reverse (5)


def test_a_jack_reverses_the_order_until_the_trick_ends() -> None:
    m = match(None, deal("JC 3C 4C", "10C QC 5C", "9C KC 6C"), **BASE, jack_back=True)
    run(m, "JC")
    assert m.jack_back and not m.reversed
    assert texts(m.legal_actions()) == ["10C", "5C", "pass"]
    view = m.observation(1)
    assert view.jack_back and view.strength(Rank.TEN) > view.strength(Rank.QUEEN)
    run(m, "10C", "9C", "pass", "pass")
    assert m.table is None and not m.jack_back
    world_m = match(None, deal("JC 3C 4C", "10C QC 5C", "9C KC 6C"), **BASE, jack_back=True)
    run(world_m, "JC")
    world = Match.from_view(world_m.observation(1), [world_m.hand(p) for p in range(3)])
    assert world.jack_back and world.legal_actions() == world_m.legal_actions()


def test_a_jack_reverses_the_order_on_a_table_without_jokers_too() -> None:
    m = match(None, deal("JC 3C 4C", "10C QC 5C", "9C KC 6C"), **{**BASE, "jokers": 0}, jack_back=True)
    assert m._t.simple  # the fast path for plain decks lists the follows in the order in force too
    run(m, "JC")
    assert texts(m.legal_actions()) == ["10C", "5C", "pass"]
    run(m, "10C")
    assert texts(m.legal_actions()) == ["9C", "6C", "pass"]


def test_11_back_and_a_revolution_undo_each_other() -> None:
    m = match(None, deal("JC JD JH JS 3C", "QC QD QH QS 5C", "9C 9D 9H 9S KC"), **BASE, jack_back=True, **REV)
    run(m, "JC JD JH JS")
    assert m.reversed and m.jack_back
    assert texts(m.legal_actions()) == ["QC QD QH QS", "pass"]  # the normal order, in force again


def test_a_six_reverses_the_direction_for_the_rest_of_the_deal() -> None:
    m = match(None, deal("6C 3C 4C", "7C QC 5C", "9C KC 2C", "10C AC 8C"), **{**BASE, "players": 4},
              six_reverse=True)
    run(m, "6C")
    assert m.direction == -1 and m.to_act == 3
    run(m, "10C", "pass", "pass", "pass")
    assert m.to_act == 3 and m.direction == -1  # the next trick goes on the same way


def test_the_options_are_off_by_default() -> None:
    rules = Rules()
    assert not (rules.sequences or rules.eight_stop or rules.suit_lock or rules.joker_spade_three
                or rules.jack_back or rules.six_reverse)
    for name in ("italian", "norwegian", "cardverse"):
        data = Rules.preset(name).to_dict()
        assert not {"sequences", "eight_stop", "suit_lock", "joker_spade_three", "jack_back", "six_reverse"} & set(data)
    on = Rules(eight_stop=True, jack_back=True)
    assert on.to_dict()["eight_stop"] is True and "six_reverse" not in on.to_dict()
    assert Rules.from_dict(on.to_dict()) == on


# ---------------------------------------------------------------------------- the contest's tribute order (3.4)


@pytest.mark.parametrize(("suits", "paid"), [(None, "2C 2H"), ("S H D C", "2D 2H")])
def test_the_tribute_takes_equal_cards_in_the_tribute_suits_order(suits: str | None, paid: str) -> None:
    options = {} if suits is None else {"tribute_suits": suits}
    m = exchange_match(["3C 4C", "3D 4D", "3H 4H", "2C 2D 2H 4S"], **options)
    tribute = [e for e in m.events if isinstance(e, CardsGiven) and e.tribute and e.giver == 3]
    assert tribute[0].cards == CardSet(paid)


def test_tribute_suits_must_be_the_four_suits() -> None:
    with pytest.raises(RulesError) as refused:
        Rules(tribute_suits="S H D")
    assert refused.value.option == "tribute_suits"
    assert Rules(tribute_suits="S H D C").to_dict()["tribute_suits"] == ["S", "H", "D", "C"]


# ---------------------------------------------------------------------------- the turn model (4.8)

COUNT: dict[str, Any] = {**BASE, "players": 4, "pass_count": True, "leader_may_pass": True}


def test_the_leader_may_pass_and_the_next_player_leads() -> None:
    m = match(None, deal("3C 4C", "5C 6C", "7C 8C", "9C 10C"), **COUNT)
    assert texts(m.legal_actions())[-1] == "pass"
    run(m, "pass")
    assert m.table is None and m.to_act == 1 and texts(m.legal_actions())[-1] == "pass"
    assert reason(m, "pass", 0) is IllegalReason.NOT_YOUR_TURN


def test_the_leader_must_play_without_the_option() -> None:
    m = match(None, deal("3C 4C", "5C 6C", "7C 8C", "9C 10C"), **{**COUNT, "leader_may_pass": False})
    assert reason(m, "pass") is IllegalReason.LEADER_MUST_PLAY


def test_leader_may_pass_needs_the_pass_count_and_that_final_passes() -> None:
    with pytest.raises(RulesError) as refused:
        Rules(leader_may_pass=True)
    assert refused.value.option == "leader_may_pass"
    for options in ({"pass_is_final": False}, {"trick_end": "one_orbit"}):
        with pytest.raises(RulesError) as refused:
            Rules(**{**COUNT, **options})
        assert refused.value.option == "pass_count"


def test_a_play_that_goes_out_ends_the_trick_one_pass_earlier() -> None:
    hands = deal("KC", "3D 4D", "3H 4H", "3S 4S")
    m = match(None, hands, **COUNT)
    run(m, "KC", "pass", "pass")  # all but one of the three still holding cards have passed
    assert m.events[-1] == TrickWon(0, 1) and m.to_act == 1
    m = match(None, hands, **{**BASE, "players": 4})  # all_pass: the last player answers too
    run(m, "KC", "pass", "pass")
    assert m.to_act == 3


def test_a_trick_with_no_play_is_led_again_by_the_last_player_to_play() -> None:
    m = match(None, deal("3C 4C 5C", "6C 7C 8C", "9C 10C JC"), **{**COUNT, "players": 3})
    run(m, "pass", "pass")  # no play yet in the deal: its leader leads again
    assert m.events[-1] == TrickWon(0, 0) and m.to_act == 0
    run(m, "3C", "6C", "pass", "pass")  # player 1 won the trick and leads it
    run(m, "pass", "pass")  # the next trick ends with no play: the last player to play leads again
    assert m.events[-1] == TrickWon(1, 1) and m.to_act == 1 and m.table is None


def test_twenty_passes_in_a_row_end_the_deal_in_a_seeded_order() -> None:
    rules = {**COUNT, "players": 3, "pass_limit": 4}
    places = set()
    for seed in range(8):
        m = match(None, deal("3C 4C 5C", "6C 7C 8C", "9C 10C JC"), seed=seed, **rules)
        run(m, "3C", "pass", "pass", "pass")  # a play resets the count; the trick's end does not
        assert not of_type(m, DealEnded)
        run(m, "pass")
        ended = of_type(m, DealEnded)
        assert len(ended) == 1 and m.is_over
        places.add(ended[0].places)
        again = match(None, deal("3C 4C 5C", "6C 7C 8C", "9C 10C JC"), seed=seed, **rules)
        assert of_type(run(again, "3C", "pass", "pass", "pass", "pass"), DealEnded) == ended
    assert len(places) > 1  # the order is random, by the seed


def test_the_turn_model_options_are_written_only_when_set() -> None:
    rules = Rules(**{**COUNT, "pass_limit": 20})
    data = rules.to_dict()
    assert data["pass_count"] is True and data["leader_may_pass"] is True and data["pass_limit"] == 20
    assert Rules.from_dict(data) == rules
    assert "pass_limit" not in Rules().to_dict()
    with pytest.raises(RulesError):
        Rules(pass_limit=0)


# ---------------------------------------------------------------------------- the contest's match (4.1, 5)


def play_out(m: Match, deals: int) -> Match:
    """Play the first player's first listed action until `deals` deals are over (or the match is)."""
    while not m.is_over and m.deal <= deals:
        m.apply(m.legal_actions()[0])
    return m


def starts(m: Match) -> list[DealStarted]:
    return of_type(m, DealStarted)


def test_the_diamond_three_leads_every_deal_after_the_exchange() -> None:
    from president_engine.events import PlayStarted
    m = Match(Rules.preset("daifugo", deals=6), seed=4)
    leaders, seen, exchanged = [], 0, 0
    while not m.is_over:
        for event in m.events[seen:]:
            if isinstance(event, PlayStarted):
                assert CardSet("3D") <= m.hand(event.leader) and m.to_act == event.leader
                leaders.append(event.leader)
            exchanged += isinstance(event, CardsGiven)
        seen = len(m.events)
        m.apply(m.legal_actions()[0])
    assert len(leaders) == 6 and exchanged == 5 * 4


def test_the_first_card_goes_to_the_presidents_seat() -> None:
    m = play_out(Match(Rules.preset("daifugo", deals=5), seed=2), 5)
    for start in starts(m)[1:]:
        president = start.roles.index(Role.PRESIDENT)
        first = start.seats.index(president)
        assert start.seats[(first - 1) % 5] == start.dealer
        dealt = [start.hand_sizes[start.seats[(first + k) % 5]] for k in range(5)]
        assert dealt == [11, 11, 11, 10, 10]


def test_seats_are_drawn_every_n_deals_and_kept_between() -> None:
    m = play_out(Match(Rules.preset("daifugo", deals=7, reseat_every=3), seed=9), 7)
    seats = [s.seats for s in starts(m)]
    assert seats[0] == seats[1] == seats[2] and seats[3] == seats[4] == seats[5] and seats[6] != seats[5]
    assert seats[0] != (0, 1, 2, 3, 4) or seats[3] != (0, 1, 2, 3, 4)
    again = play_out(Match(Rules.preset("daifugo", deals=7, reseat_every=3), seed=9), 7)
    assert [s.seats for s in starts(again)] == seats, "the draw is the seed's"


def test_a_rank_reset_deal_has_no_roles_and_no_exchange() -> None:
    m = play_out(Match(Rules.preset("daifugo", deals=5, rank_reset_every=3), seed=1), 5)
    roles = [set(s.roles) for s in starts(m)]
    assert roles[0] == roles[3] == {Role.NEUTRAL}
    assert Role.PRESIDENT in roles[1] and Role.PRESIDENT in roles[2] and Role.PRESIDENT in roles[4]
    given_in = {deal_number for deal_number, given in _exchange_by_deal(m) if given}
    assert given_in == {2, 3, 5}


def _exchange_by_deal(m: Match) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for event in m.events:
        if isinstance(event, DealStarted):
            out.append((event.deal, 0))
        elif isinstance(event, CardsGiven):
            out[-1] = (out[-1][0], out[-1][1] + 1)
    return out


def test_the_preset_is_the_contests_match() -> None:
    rules = Rules.preset("daifugo")
    assert rules.players == 5 and rules.deck_size == 53 and rules.points == (5, 4, 3, 2, 1)
    assert rules.deals == 100 and rules.rank_reset_every == 100 and rules.reseat_every == 3
    assert [rules.fresh_deal(d) for d in (1, 2, 100, 101, 102, 201)] == [True, False, False, True, False, True]
    assert [rules.reseats(d) for d in (1, 2, 3, 4, 7)] == [True, False, False, True, True]
    assert rules.tribute_suits == (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)


@pytest.mark.parametrize(("options", "option"), [
    ({"reseat_every": 0}, "reseat_every"),
    ({"rank_reset_every": 0}, "rank_reset_every"),
    ({"reseat_every": 2, "seating": "by_rank"}, "reseat_every"),
])
def test_bad_match_options_are_refused(options: dict[str, Any], option: str) -> None:
    with pytest.raises(RulesError) as caught:
        Rules(**options)
    assert caught.value.option == option


def test_the_match_options_change_nothing_by_default() -> None:
    for name in ("cardverse", "norwegian", "italian"):
        rules = Rules.preset(name)
        assert not {"deal_from", "reseat_every", "rank_reset_every"} & set(rules.to_dict())
