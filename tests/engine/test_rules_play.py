"""RULES 1 "A play", "Trick", "Trick end", "Going out", "Roles" and 1.1 "When does a play beat the table"."""

from __future__ import annotations

import pytest
from engine_support import deal, match, reason, run, texts
from president_engine import PASS, CardSet, IllegalReason, Match, Play, Role, Rules
from president_engine.events import DealEnded, MatchEnded, Played, TrickWon, WentOut


def test_match_count_follow_must_have_the_same_number_of_cards() -> None:
    m = match(None, deal("5C 5D", "6C 6D 6H", "3C"), players=3)
    run(m, "5C 5D")
    assert reason(m, "6C") is IllegalReason.WRONG_COUNT
    assert reason(m, "6C 6D 6H") is IllegalReason.WRONG_COUNT
    assert texts(m.legal_actions()) == ["6C 6D", "pass"]


def test_a_play_may_have_any_number_of_cards() -> None:
    m = match(None, deal("5C 5D 5H 5S 9C", "3C", "4C"), players=3, decks=2)
    assert "5C 5D 5H 5S" in texts(m.legal_actions())
    m = match(None, deal("5C 5C 5D 5D 5H 5H", "3C", "4C"), players=3, decks=2)
    assert "5C 5C 5D 5D 5H 5H" in texts(m.legal_actions())


def test_beat_equal_or_higher() -> None:
    m = match(None, deal("5C 3C", "5D 4C", "4D 6C"), players=3)
    run(m, "5C")
    assert texts(m.legal_actions()) == ["5D", "pass"]
    run(m, "5D")
    assert reason(m, "4D") is IllegalReason.DOES_NOT_BEAT
    assert texts(m.legal_actions()) == ["6C", "pass"]


def test_beat_strictly_higher() -> None:
    m = match(None, deal("5C 3C", "5D 6D", "4D 6C"), players=3, beat="strictly_higher")
    run(m, "5C")
    assert reason(m, "5D") is IllegalReason.DOES_NOT_BEAT
    assert texts(m.legal_actions()) == ["6D", "pass"]


def test_higher_rank_in_the_rank_order_beats_two_is_top_by_default() -> None:
    m = match(None, deal("AC 3C", "2D 4D", "KD 6C"), players=3)
    run(m, "AC")
    assert texts(m.legal_actions()) == ["2D", "pass"]


def test_custom_rank_order() -> None:
    order = "2 3 4 5 6 7 8 9 10 J Q K A"
    m = match(None, deal("2C 3C", "AD 4D", "KD 6C"), players=3, rank_order=order)
    run(m, "3C")
    assert texts(m.legal_actions()) == ["4D", "AD", "pass"]
    m = match(None, deal("AC 3C", "2D 4D", "KD 6C"), players=3, rank_order=order)
    run(m, "AC")
    assert texts(m.legal_actions()) == ["pass"]


def test_suit_order_on_equal_rank_needs_a_higher_suit() -> None:
    # suit order D C H S (low to high): spades beat hearts beat clubs beat diamonds
    opts = {"players": 3, "suit_order": "D C H S"}
    m = match(None, deal("5H 3C", "5C 5S 4D", "4H 6C"), **opts)
    run(m, "5H")
    assert texts(m.legal_actions()) == ["5S", "pass"]
    assert reason(m, "5C") is IllegalReason.DOES_NOT_BEAT
    # a pair beats an equal pair when its highest suit is higher than the table's highest
    m = match(None, deal("5D 5H 3C", "5C 5S 4D", "4H 6C"), **opts)
    run(m, "5D 5H")
    assert texts(m.legal_actions()) == ["5C 5S", "pass"]
    m = match(None, deal("5C 5S 3C", "5D 5H 4D", "4H 6C"), **opts)
    run(m, "5C 5S")
    assert texts(m.legal_actions()) == ["pass"]


def test_suit_order_does_not_apply_to_a_higher_rank_nor_with_strictly_higher() -> None:
    m = match(None, deal("5S 3C", "6D 5H", "4H 7C"), players=3, suit_order="D C H S")
    run(m, "5S")
    assert texts(m.legal_actions()) == ["6D", "pass"]
    m = match(None, deal("5D 3C", "6D 5S", "4H 7C"), players=3, suit_order="D C H S", beat="strictly_higher")
    run(m, "5D")
    assert texts(m.legal_actions()) == ["6D", "pass"]


def test_suit_order_wild_cards_and_jokers_have_no_suit() -> None:
    # a joker added to a play brings no suit: only the natural cards' suits compare
    opts: dict[str, object] = {"players": 3, "suit_order": "C D H S", "jokers": 2}
    m = match(None, deal("5D JK 3C", "5C JK 4D", "4H 7C"), **opts)
    run(m, "5D JK")
    assert reason(m, "5C JK") is IllegalReason.DOES_NOT_BEAT  # clubs < diamonds
    # nor does a card of a wild rank
    opts = {"players": 3, "suit_order": "C D H S", "wild_ranks": "6", "joker_alone": "declared"}
    m = match(None, deal("9H 6D 3C", "9C 6S 4D", "4H 7C"), **opts)
    run(m, "9H 6D")
    assert reason(m, "9C 6S") is IllegalReason.DOES_NOT_BEAT  # the six is no spade: clubs < hearts


def test_suit_order_no_suit_is_below_every_suit() -> None:
    opts: dict[str, object] = {"players": 3, "suit_order": "C D H S", "wild_ranks": "6", "joker_alone": "declared"}
    # wild cards only (no suit) do not beat an equal rank of any suit ...
    m = match(None, deal("9C 3C", "6S 4D", "4H 7C"), **opts)
    run(m, "9C")
    assert reason(m, "6S as 9") is IllegalReason.DOES_NOT_BEAT
    assert texts(m.legal_actions()) == ["6S as 10", "6S as J", "6S as Q", "6S as K", "6S as A", "6S as 2", "pass"]
    # ... and any natural suit beats wild cards only of an equal rank
    m = match(None, deal("3C 9S", "6D 10D", "4C 7C"), **opts)
    run(m, "3C", "6D as 4")
    assert texts(m.legal_actions()) == ["4C", "7C", "pass"]


def test_leader_must_play_others_may_always_pass() -> None:
    m = match(None, deal("5C", "6C", "7C"), players=3)
    assert reason(m, "pass") is IllegalReason.LEADER_MUST_PLAY
    assert PASS not in m.legal_actions()
    run(m, "5C")
    assert PASS in m.legal_actions()  # even with a card that beats


def test_all_pass_without_pass_is_final_asks_a_passer_again() -> None:
    m = match(None, deal("5C 9C 3D", "6C 3H", "7C 8C 3S"), players=3)
    run(m, "5C", "pass", "7C")  # P1 passed, the trick goes on
    assert m.to_act == 0
    run(m, "9C")
    assert m.to_act == 1  # P1 is asked again
    run(m, "pass", "pass")
    assert [e for e in m.events if isinstance(e, TrickWon)] == [TrickWon(0, 0)]


def test_all_pass_trick_ends_when_all_others_pass_in_a_row_after_the_last_play() -> None:
    m = match(None, deal("5C 3D", "6C 3H", "7C 8C 3S"), players=3)
    run(m, "5C", "6C", "pass", "pass")
    assert m.events[-1] == TrickWon(1, 1)
    assert m.to_act == 1 and m.table is None


def test_all_pass_with_pass_is_final_passer_gets_no_more_turns() -> None:
    m = match(None, deal("5C 9C 3D", "6C 10C 3H", "7C 8C 3S"), players=3, pass_is_final=True)
    run(m, "5C", "pass", "7C")
    assert m.to_act == 0
    run(m, "9C")
    assert m.to_act == 2  # P1 is not asked again (it holds 10C that would beat)
    run(m, "pass")
    assert m.events[-1] == TrickWon(0, 0)


def test_one_orbit_every_other_holder_gets_exactly_one_turn() -> None:
    m = match(None, deal("5C 9C 3D", "6C 10C 3H", "7C 8C 3S"), players=3, trick_end="one_orbit")
    run(m, "5C", "6C")
    assert m.to_act == 2
    run(m, "7C")
    assert m.events[-1] == TrickWon(2, 2)  # P0 had its turn (the lead), trick over
    m = match(None, deal("5C 9C 3D", "6C 10C 3H", "7C 8C 3S"), players=3, trick_end="one_orbit")
    run(m, "5C", "pass", "pass")
    assert m.events[-1] == TrickWon(0, 0)


def test_one_orbit_direction_turning_mid_orbit_goes_to_the_next_player_without_a_turn() -> None:
    rules = Rules(players=6, trick_end="one_orbit", revolution=True, revolution_triggers=["four_singles"],
                  revolution_effect="ranks_and_direction")
    m = Match(rules, hands=[deal("5C 3C", "5D 3D", "5H 3H", "5S 3S", "4C 4D", "4H 4S")])
    run(m, "5C", "5D", "5H", "5S")  # four singles of one rank: revolution, direction -1
    assert m.direction == -1 and m.reversed
    # P2, P1, P0 already had their turn: counter-clockwise the next without one is P5, then P4
    assert m.to_act == 5
    assert texts(m.legal_actions()) == ["4H", "pass"]  # reversed order: a four beats a five
    run(m, "pass")
    assert m.to_act == 4
    run(m, "4C")
    assert m.events[-1] == TrickWon(4, 4)


def test_lead_passes_to_next_holder_when_the_trick_winner_is_out() -> None:
    m = match(None, deal("5C", "6C 3D", "7C 8C", "4D 9D"), players=4)
    # P0 plays its last card and goes out; P1 passes, P2 plays, P3 passes, P1 passes again
    run(m, "5C", "pass", "7C", "pass")
    run(m, "pass")
    assert m.events[-1] == TrickWon(2, 2)
    m = match(None, deal("5C 3C", "6C 3D", "7C", "4D 9D"), players=4)
    run(m, "5C", "6C", "7C")  # P2 goes out
    run(m, "pass", "pass", "pass")
    assert m.events[-1] == TrickWon(2, 3)
    assert m.to_act == 3


def test_lead_goes_in_the_current_direction_after_a_revolution() -> None:
    rules = Rules(players=4, revolution=True, revolution_triggers=["four_singles"],
                  revolution_effect="ranks_and_direction")
    m = Match(rules, hands=[deal("5C", "5D 9C", "5H 9D", "5S")])
    run(m, "5C", "5D", "5H", "5S")  # P0 and P3 go out; the fourth five makes a revolution
    assert m.direction == -1
    run(m, "pass", "pass")  # P2 then P1
    # P3 won and is out: the lead goes counter-clockwise to seat 2 (clockwise would be seat 1)
    assert m.events[-1] == TrickWon(3, 2)
    assert m.to_act == 2


def test_going_out_takes_the_next_place_and_the_trick_continues() -> None:
    m = match(None, deal("5C", "6C 3D", "7C 8C", "4D 9D"), players=4)
    run(m, "5C")
    assert of_went_out(m) == [WentOut(0, 1)]
    assert m.to_act == 1 and m.table is not None


def of_went_out(m: Match) -> list[WentOut]:
    return [e for e in m.events if isinstance(e, WentOut)]


def test_deal_ends_the_moment_one_player_holds_cards_even_mid_trick() -> None:
    m = match(None, deal("5C", "6C", "7C 8C"), players=3)
    run(m, "5C", "6C")  # P0 out, then P1 out mid-trick: P2 is last without a turn
    assert m.is_over
    ended = next(e for e in m.events if isinstance(e, DealEnded))
    assert ended.places == (0, 1, 2)
    assert not [e for e in m.events if isinstance(e, TrickWon)]


def test_any_legal_play_may_be_a_last_play() -> None:
    m = match(None, deal("2C 2D", "3C", "4C"), players=3)
    run(m, "2C 2D")
    assert of_went_out(m) == [WentOut(0, 1)]


@pytest.mark.parametrize(("players", "roles"), [
    (3, [Role.PRESIDENT, Role.NEUTRAL, Role.SCUM]),
    (4, [Role.PRESIDENT, Role.VICE_PRESIDENT, Role.VICE_SCUM, Role.SCUM]),
    (5, [Role.PRESIDENT, Role.VICE_PRESIDENT, Role.NEUTRAL, Role.VICE_SCUM, Role.SCUM]),
])
def test_roles_by_finishing_place(players: int, roles: list[Role]) -> None:
    m = Match(Rules(players=players, deals=2), seed=9)
    assert m.roles == [Role.NEUTRAL] * players  # deal 1: everybody neutral
    while m.deal == 1:
        m.apply(m.legal_actions()[0])
    assert [m.roles[p] for p in m.last_places] == roles


def test_pass_is_final_has_no_effect_with_one_orbit() -> None:
    for final in (False, True):
        m = match(None, deal("5C 9C 3D", "6C 10C 3H", "7C 8C 3S"), players=3, trick_end="one_orbit",
                  pass_is_final=final)
        run(m, "5C", "pass", "7C")
        assert m.events[-1] == TrickWon(2, 2)


def test_apply_returns_the_events_it_wrote() -> None:
    m = Match(Rules(players=4, deals=2), seed=3)
    while not m.is_over:
        before = len(m.events)
        written = m.apply(m.legal_actions()[-1])
        assert written == m.events[before:] and written
    assert isinstance(written[-1], MatchEnded)


def test_an_action_check_resolved_is_applied_without_a_second_check(monkeypatch: pytest.MonkeyPatch) -> None:
    import president_engine.match as match_module

    if not match_module.__file__ or not match_module.__file__.endswith(".py"):
        pytest.skip("the compiled build binds its calls at build time")
    m = match(None, deal("5C 5D 9H", "6C 6D", "3C"), players=3)
    unlisted = Play(CardSet("5D"))  # the engine lists the lowest suit, 5C
    assert all(a.cards != unlisted.cards for a in m.legal_actions() if isinstance(a, Play))
    calls: list[Play] = []
    real = match_module.check_play

    def counted(*args: object, **kwargs: object) -> Play:
        calls.append(args[2])  # type: ignore[arg-type]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(match_module, "check_play", counted)
    resolved = m.check(unlisted)
    m.apply(resolved)
    assert calls == [unlisted]
    assert m.events[-1] == Played(0, resolved)
