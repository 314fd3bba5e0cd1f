"""The rules that make each preset distinctive (RULES 3)."""

from __future__ import annotations

from engine_support import deal, of_type, run, same_play, texts
from president_engine import CardSet, Match, Play, Rank, Rules
from president_engine.events import DealStarted, RevolutionHappened, TrickWon


def test_norwegian_tricks_are_one_orbit() -> None:
    rules = Rules.preset("norwegian")
    m = Match(rules, hands=[deal("3C 9C", "4C 9D", "5C 9H", "7C 9S")])
    assert m.to_act == 0  # three of clubs
    run(m, "3C", "4C", "5C", "7C")
    assert m.events[-1] == TrickWon(3, 3)  # one turn each, no second round


def test_norwegian_wild_sixes_lead_as_six_and_follow_declared() -> None:
    rules = Rules.preset("norwegian")
    m = Match(rules, hands=[deal("3C 6D 6H", "5C 5D 9D", "7C 7D 9H", "8C 9S")])
    run(m, "3C", "pass", "pass", "pass")
    run(m, "6D 6H")
    assert same_play(m.table, Play(CardSet("6D 6H"), rank=Rank.SIX))
    assert texts(m.legal_actions()) == ["pass"]  # fives are below six
    run(m, "pass")
    assert texts(m.legal_actions()) == ["7C 7D", "pass"]
    m = Match(rules, hands=[deal("3C 9C", "6C 4D", "7C 7D 9H", "8C 9S")])
    run(m, "9C")
    assert "6C as 9" in texts(m.legal_actions()) and "6C as 6" not in texts(m.legal_actions())


def test_cardverse_passes_are_final() -> None:
    rules = Rules.preset("cardverse")
    m = Match(rules, hands=[deal("5C 9C 3D", "6C 10C 3H", "7C 8C 3S", "4C 4D")])
    run(m, "5C", "pass", "7C", "pass", "9C")
    assert m.to_act == 2  # P1 and P3 passed: not asked again though P1 holds 10C
    run(m, "pass")
    assert m.events[-1] == TrickWon(0, 0)


def test_cardverse_revolution_by_four_inside_a_trick() -> None:
    rules = Rules.preset("cardverse")
    m = Match(rules, hands=[deal("3C 3D 3H 3S 8C", "9C 9D 9H 9S 4C", "KC KD KH KS 5C", "4D 4H 4S 5S 5D")])
    run(m, "3C 3D 3H 3S")
    assert m.reversed
    assert texts(m.legal_actions()) == ["pass"]  # nines are lower than threes now
    run(m, "pass", "pass", "pass")
    assert m.events[-1] == TrickWon(0, 0)
    m = Match(rules, hands=[deal("8C 8D 8H 8S 3C", "9C 9D 9H 9S 4C", "KC KD KH KS 5C", "4D 4H 4S 5S 5D")])
    run(m, "8C 8D 8H 8S", "pass", "pass", "pass")
    assert m.reversed and len(of_type(m, RevolutionHappened)) == 1


def test_italian_reseats_by_rank_and_scores_two_and_one() -> None:
    rules = Rules.preset("italian", deals=2)
    m = Match(rules, hands=[deal("3C", "2S", "2H", "4C 4D", "5C 5D")])
    # P0 leads 3C and is out first; P1 and P2 follow with twos and go out
    run(m, "3C", "2S", "2H")
    while m.deal == 1:
        m.apply(m.legal_actions()[0])
    places = m.last_places
    assert places[:3] == (0, 1, 2)
    assert m.scores == [2, 1, 0, 0, 0]
    assert m.seats == places
    started = of_type(m, DealStarted)[1]
    assert started.seats == places and started.dealer == places[-1]
    assert m.to_act == places[0]  # the President leads, from seat 0
