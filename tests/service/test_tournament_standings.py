"""Tournament standings: the declared points, bye value and tie-breaks, a recomputation that does not depend on
the order results arrived in, and the one rating update of the arena and the ladder."""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from president_engine.intervals import mean_interval
from president_service.league.arena_ratings import rate_deals, rating_model
from president_service.league.tournaments.model import Pairing, TableResult
from president_service.league.tournaments.pairing import next_round
from president_service.league.tournaments.plan import Format, Plan
from president_service.league.tournaments.standings import (
    StandingsError,
    points,
    points_of,
    ranking,
    stage_order,
    standings,
)

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
History = list[tuple[Pairing, list[TableResult]]]


def table(round_index: int, index: int, *orders: str) -> TableResult:
    """A table's result from orders written as strings of one-letter entrants, first to last."""
    return TableResult(round=round_index, table=index, entrants=tuple(sorted(orders[0])),
                       orders=tuple(tuple(order) for order in orders))


def test_a_deal_gives_players_minus_place() -> None:
    assert [points_of(place, 4) for place in range(1, 5)] == [3, 2, 1, 0]
    assert [points_of(place, 6) for place in (1, 6)] == [5, 0]


def test_points_ties_go_to_head_to_head_then_buchholz_then_the_name() -> None:
    """Round 1: a and b split two deals (3 points each, even head to head, equal Buchholz), c has 0, d the bye
    worth 1 point a deal for 2 deals.  Round 2: d beats a once; c beats b twice."""
    first = Pairing(tables=(("a", "b", "c"),), byes=("d",))
    history = [(first, [table(0, 0, "abc", "bac")])]
    assert [(s.entrant, s.points, s.head_to_head, s.buchholz) for s in standings("abcd", 3, history)] == [
        ("a", 3, 0, 3), ("b", 3, 0, 3), ("d", 2, 0, 0), ("c", 0, 0, 6)]
    second = Pairing(tables=(("a", "c", "d"),), byes=("b",))
    history.append((second, [table(1, 0, "dac")]))
    # a 3+1, b 3+1 (a bye of one deal), d 2+2, c 0+0: all but c tied on 4; d beat a: d +1, a -1; a and b
    # split (0 each); b and d never met.
    found = {s.entrant: s for s in standings("abcd", 3, history)}
    assert {name: (s.points, s.head_to_head) for name, s in found.items()} == {
        "a": (4, -1), "b": (4, 0), "c": (0, 0), "d": (4, 1)}
    assert [s.entrant for s in sorted(found.values(), key=lambda s: s.rank)] == ["d", "b", "a", "c"]
    assert (found["b"].byes, found["b"].tables, found["b"].deals) == (1, 1, 2)


def test_buchholz_breaks_a_tie_that_head_to_head_leaves() -> None:
    """b and f never meet and tie on 1 point; f's tablemates scored more, so f ranks above b (the name last)."""
    first = Pairing(tables=(("a", "b", "c"), ("d", "e", "f")), byes=())
    second = Pairing(tables=(("a", "d", "f"), ("b", "c", "e")), byes=())
    history = [(first, [table(0, 0, "cab", "abc"), table(0, 1, "edf", "dfe")]),
               (second, [table(1, 0, "daf", "adf"), table(1, 1, "ecb", "ceb")])]
    assert [(s.entrant, s.points, s.head_to_head, s.buchholz) for s in standings("abcdef", 3, history)] == [
        ("a", 6, 0, 13), ("d", 6, 0, 13), ("c", 5, 0, 13), ("e", 5, 0, 13), ("f", 1, 0, 23), ("b", 1, 0, 21)]


def test_a_bye_is_worth_half_the_points_of_the_mean_deals_of_its_round() -> None:
    """Tables of 4: one table played 2 deals, the other 6; the bye is worth 3/2 a deal times 4 deals."""
    pairing = Pairing(tables=(("a", "b", "c", "d"), ("e", "f", "g", "h")), byes=("i",))
    history = [(pairing, [table(0, 0, *["abcd"] * 2), table(0, 1, *["efgh"] * 6)])]
    found = {s.entrant: s for s in standings("abcdefghi", 4, history)}
    assert found["i"].points == 6 and found["i"].byes == 1
    assert found["i"].tables == found["i"].deals == 0 and math.isnan(found["i"].mean_place.mean)
    assert found["i"].mu == rating_model(skill_drifts=False).rating().mu
    # a round in progress: only its finished tables count toward the bye
    assert points("abcdefghi", 4, [(pairing, [table(0, 1, *["efgh"] * 6)])])["i"] == 9


def test_results_naming_a_stranger_are_refused() -> None:
    pairing = Pairing(tables=(("a", "b", "c"),), byes=())
    with pytest.raises(StandingsError, match=r"^round 1 table 1: 'z' is not an entrant at that table$"):
        standings("abc", 3, [(pairing, [TableResult(round=0, table=0, entrants=("a", "b", "c"),
                                                    orders=(("a", "z", "c"),))])])
    with pytest.raises(StandingsError, match=r"^round 1: the bye 'q' is not an entrant$"):
        standings("abc", 3, [(Pairing(tables=(), byes=("q",)), [])])


def swiss_event(players: int, count: int, rounds: int, seed: int) -> tuple[list[str], History]:
    entrants = [f"bot{i:02d}" for i in range(count)]
    rng = random.Random(seed)
    plan = Plan(format=Format.SWISS, players=players, rounds=rounds, seed=seed)
    history: History = []
    while (pairing := next_round(plan, entrants, history)) is not None:
        history.append((pairing, [TableResult(round=len(history), table=i, entrants=t, orders=tuple(
            tuple(rng.sample(t, len(t))) for _ in range(rng.randint(1, 4)))) for i, t in enumerate(pairing.tables)]))
    return entrants, history


@SETTINGS
@given(players=st.integers(3, 6), extra=st.integers(0, 10), rounds=st.integers(1, 4), seed=st.integers(0, 2**63))
def test_standings_follow_the_declared_rules(players: int, extra: int, rounds: int, seed: int) -> None:
    """Ranks 1..E best first by (points, head to head, Buchholz, name); points are the deals' plus the byes'
    (a deal's points always sum to N(N-1)/2); head to head sums to zero within a tie and is zero without one;
    Buchholz, counts and mean place are as declared; the rating is the shared update over every deal in
    (round, table, deal) order; `points` and `ranking` agree."""
    entrants, history = swiss_event(players, players + extra, rounds, seed)
    table_ = standings(entrants, players, history)
    assert [s.rank for s in table_] == list(range(1, len(entrants) + 1))
    assert table_ == sorted(table_, key=lambda s: (-s.points, -s.head_to_head, -s.buchholz, s.entrant))
    assert [s.entrant for s in table_] == ranking(entrants, players, history)
    assert {s.entrant: s.points for s in table_} == points(entrants, players, history)
    found = {s.entrant: s for s in table_}
    deals = [order for _, results in history for result in results for order in result.orders]
    bye_points = Fraction(0)
    for pairing, results in history:
        mean = Fraction(sum(len(r.orders) for r in results), len(results)) if results else Fraction(0)
        bye_points += len(pairing.byes) * Fraction(players - 1, 2) * mean
    assert math.isclose(sum(s.points for s in table_), len(deals) * players * (players - 1) / 2 + bye_points)
    for value in {s.points for s in table_}:
        tied = [s for s in table_ if s.points == value]
        assert sum(s.head_to_head for s in tied) == 0
        if len(tied) == 1:
            assert tied[0].head_to_head == 0
    for name, standing in found.items():
        tables = [r for _, results in history for r in results if name in r.entrants]
        assert standing.tables == len(tables) and standing.deals == sum(len(r.orders) for r in tables)
        assert standing.byes == sum(name in p.byes for p, _ in history)
        assert math.isclose(standing.buchholz, sum(found[o].points for r in tables for o in r.entrants if o != name))
        per_table = [sum(o.index(name) + 1 for o in r.orders) / len(r.orders) for r in tables]
        assert standing.mean_place == mean_interval(per_table, low=1, high=players, observations=standing.deals)
    model = rating_model(skill_drifts=False)
    ratings = {name: model.rating(name=name) for name in entrants}
    rate_deals(model, ratings, deals)
    assert all(found[n].mu == ratings[n].mu and found[n].sigma == ratings[n].sigma for n in entrants)
    assert all(math.isclose(s.ordinal, s.mu - 3 * s.sigma) for s in table_)


@SETTINGS
@given(players=st.integers(3, 5), extra=st.integers(0, 8), rounds=st.integers(1, 3), seed=st.integers(0, 2**63))
def test_standings_do_not_depend_on_the_order_results_arrived_in(players: int, extra: int, rounds: int,
                                                                 seed: int) -> None:
    """A restarted server recomputes from stored results in whatever order it reads them: same table."""
    entrants, history = swiss_event(players, players + extra, rounds, seed)
    rng = random.Random(seed)
    shuffled = [(pairing, rng.sample(results, len(results))) for pairing, results in history]
    assert standings(rng.sample(entrants, len(entrants)), players, shuffled) == standings(entrants, players, history)


def test_an_entrant_who_never_played_has_a_full_interval_and_a_fresh_rating() -> None:
    found = standings(["x", "y", "z"], 3, [])
    assert [s.entrant for s in found] == ["x", "y", "z"] and all(s.points == 0 for s in found)
    assert Counter((s.mean_place.low, s.mean_place.high) for s in found) == Counter({(1, 3): 3})


def test_an_elimination_ranks_by_the_stage_reached_then_by_that_stage_alone() -> None:
    """The finalists rank above everyone knocked out earlier, in the final's order, though an early leader
    piled up more points in the groups; those knocked out rank by their group stage."""
    names = [f"e{i}" for i in range(8)]
    plan = Plan(format=Format.STAGES, players=4, rounds=3, seed=1, group_size=4, advance=2)
    strength = {name: i for i, name in enumerate(names)}  # e0 always first, while stage 0
    history: list[tuple[Pairing, list[TableResult]]] = []
    while (pairing := next_round(plan, names, history)) is not None:
        final = pairing.stage == 1
        key = (lambda n: -strength[n]) if final else (lambda n: strength[n])  # the final turns the order round
        history.append((pairing, [TableResult(round=len(history), table=t, entrants=table,
                                              orders=(tuple(sorted(table, key=key)),))
                                  for t, table in enumerate(pairing.tables)]))
    order = stage_order(names, 4, history)
    finalists = set(history[-1][0].groups[0])
    assert set(order[:4]) == finalists and "e0" in finalists
    assert order[:4] == sorted(finalists, key=lambda n: -strength[n]), "the final's order, not the groups' points"
    assert set(order[4:]) == set(names) - finalists


def test_a_forfeited_deal_scores_last_and_the_others_move_up() -> None:
    """Tables of 4: in the first deal b forfeits though it finished first; in the second c and d both forfeit.
    Under FORFEIT b is last in deal 1 (0 points; a, c, d move up) and c and d both score the last place in deal
    2; under PLAY_ON the deals count as played."""
    pairing = Pairing(tables=(("a", "b", "c", "d"),), byes=())
    result = TableResult(round=0, table=0, entrants=("a", "b", "c", "d"), orders=(("b", "a", "c", "d"),
                                                                                 ("c", "a", "d", "b")),
                         forfeits=(frozenset("b"), frozenset("cd")), faults=(("b", 3),),
                         server_moves=(("c", 1), ("d", 2)), absent=("d",))
    found = {s.entrant: s for s in standings("abcd", 4, [(pairing, [result])], forfeit=True)}
    assert {name: s.points for name, s in found.items()} == {"a": 3 + 3, "b": 0 + 2, "c": 2 + 0, "d": 1 + 0}
    assert {name: (s.forfeits, s.faults, s.server_moves, s.absences) for name, s in found.items()} == {
        "a": (0, 0, 0, 0), "b": (1, 3, 0, 0), "c": (1, 0, 1, 0), "d": (1, 0, 2, 1)}
    assert found["c"].mean_place.mean == (2 + 4) / 2 and found["d"].mean_place.mean == (3 + 4) / 2
    assert [s.entrant for s in sorted(found.values(), key=lambda s: s.rank)] == ["a", "b", "c", "d"]
    played = {s.entrant: s.points for s in standings("abcd", 4, [(pairing, [result])])}
    assert played == {"a": 2 + 2, "b": 3 + 0, "c": 1 + 3, "d": 0 + 1}, "PLAY_ON: as played"
    assert {s.entrant: s.forfeits for s in standings("abcd", 4, [(pairing, [result])])}["b"] == 1, \
        "counted whatever the rule"


def test_a_bye_is_worth_its_share_only_in_the_deals_not_forfeited() -> None:
    """Five entrants at tables of 4, two rounds of 2 deals: e sits out round 1 and forfeits both deals it plays in
    round 2, so its bye is worth nothing; a, who sits out round 2 and forfeits one of its two deals, gets half."""
    first = Pairing(tables=(("a", "b", "c", "d"),), byes=("e",))
    second = Pairing(tables=(("b", "c", "d", "e"),), byes=("a",))
    history = [(first, [TableResult(round=0, table=0, entrants=("a", "b", "c", "d"), orders=(tuple("abcd"),) * 2,
                                    forfeits=(frozenset("a"), frozenset()))]),
               (second, [TableResult(round=1, table=0, entrants=("b", "c", "d", "e"), orders=(tuple("ebcd"),) * 2,
                                     forfeits=(frozenset("e"),) * 2)])]
    score = points("abcde", 4, history, forfeit=True)
    assert score["e"] == 0
    assert score["a"] == 0 + 3 + Fraction(3, 2) * 2 * Fraction(1, 2)
    assert points("abcde", 4, history)["e"] == Fraction(3, 2) * 2 + 3 * 2, "PLAY_ON: a bye is neutral"
    assert ranking("abcde", 4, history, forfeit=True)[-1] == "e"
