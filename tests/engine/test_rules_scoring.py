"""RULES 1.7 Scoring and match end."""

from __future__ import annotations

from engine_support import deal, of_type, run
from president_engine import Match, Phase, Rules
from president_engine.events import DealEnded, MatchEnded


def play_out(m: Match) -> None:
    steps = 0
    while not m.is_over:
        m.apply(m.legal_actions()[0])
        steps += 1
        assert steps < 100_000


def test_points_per_place_are_added_up() -> None:
    rules = Rules(players=3, points=[5, 2, 0], deals=2)
    m = Match(rules, hands=[deal("2S", "2H", "3C"), deal("3C", "2H", "2S")])
    play_out(m)
    ended = of_type(m, DealEnded)
    assert [e.places for e in ended] == [(0, 1, 2), (0, 1, 2)]
    assert (ended[0].points, ended[0].totals) == ((5, 2, 0), (5, 2, 0))
    assert (ended[1].points, ended[1].totals) == ((5, 2, 0), (10, 4, 0))
    assert m.scores == [10, 4, 0]


def test_default_points_are_n_down_to_one() -> None:
    assert Rules(players=5).points == (5, 4, 3, 2, 1)


def test_match_ends_after_deals() -> None:
    m = Match(Rules(players=4, deals=3), seed=4)
    play_out(m)
    assert m.deal == 3 and len(of_type(m, DealEnded)) == 3
    assert m.phase is Phase.OVER and m.to_act is None and m.legal_actions() == ()


def test_deals_default_to_one_or_to_no_limit_with_a_target_score() -> None:
    assert Rules().deals == 1
    rules = Rules.preset("cardverse", target_score=10)
    assert rules.deals is None
    m = Match(rules, seed=3)
    play_out(m)
    ended = of_type(m, DealEnded)
    assert max(ended[-1].totals) >= 10
    assert all(max(e.totals) < 10 for e in ended[:-1])
    assert len(ended) >= 3  # 4 points a deal at most


def test_target_score_or_deals_whichever_comes_first() -> None:
    m = Match(Rules(players=4, target_score=100, deals=2), seed=3)
    play_out(m)
    assert m.deal == 2
    m = Match(Rules(players=4, target_score=4, deals=5), seed=3)
    play_out(m)
    assert m.deal == 1


def test_winner_has_most_points_tie_goes_to_better_place_in_last_deal() -> None:
    rules = Rules(players=3, points=[2, 1, 0], deals=2)
    m = Match(rules, hands=[deal("2S", "2H", "3C"), deal("3C", "2H", "2S")])
    play_out(m)
    ended = of_type(m, DealEnded)
    assert ended[0].places == (0, 1, 2)
    totals = ended[-1].totals
    best = max(totals)
    tied = [p for p in range(3) if totals[p] == best]
    last_places = ended[-1].places
    assert m.winner == min(tied, key=last_places.index)
    assert of_type(m, MatchEnded) == [MatchEnded(m.winner, totals, last_places)]


def test_tie_break_by_last_deal_place_explicit() -> None:
    rules = Rules(players=3, points=[1, 0, 0], deals=2, next_lead="scum")
    m = Match(rules, hands=[deal("2S", "2H", "3C"), deal("3C", "2H 3D", "2S")])
    run(m, "2S")  # deal 1: P0 first
    play_out(m)
    ended = of_type(m, DealEnded)
    assert ended[0].places[0] == 0
    assert ended[1].places[0] == 2  # the Scum leads the two of spades and goes out first
    assert m.scores == [1, 0, 1]
    assert m.winner == 2  # tied on points: the better place in the last deal wins
