"""Tournament pairing: round robins meet everyone equally with rotated seats in the fewest rounds; Swiss avoids
every avoidable repeat (checked against a brute force), rotates byes and seats similar scores together; stages
play round robins in groups and send on the top of each; impossible formats are refused with one line."""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from president_service.league.tournaments.model import Pairing, TableResult
from president_service.league.tournaments.pairing import check, next_round, round_count
from president_service.league.tournaments.plan import Format, PairingError, Plan
from president_service.league.tournaments.round_robin import ROUND_ROBIN_TABLE_LIMIT
from president_service.league.tournaments.standings import points, ranking

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
History = list[tuple[Pairing, list[TableResult]]]


def names(count: int) -> list[str]:
    return [f"bot{i:02d}" for i in range(count)]


def results(pairing: Pairing, round_index: int, rng: random.Random, deals: int = 3) -> list[TableResult]:
    """Random finishing orders for every table of the round."""
    return [TableResult(round=round_index, table=index, entrants=table,
                        orders=tuple(tuple(rng.sample(table, len(table))) for _ in range(deals)))
            for index, table in enumerate(pairing.tables)]


def play(plan: Plan, entrants: Sequence[str], rng: random.Random, *, deals: int = 3) -> History:
    """The whole event with random results."""
    history: History = []
    while (pairing := next_round(plan, entrants, history)) is not None:
        history.append((pairing, results(pairing, len(history), rng, deals)))
    return history


def check_round(pairing: Pairing, field: Sequence[str], players: int) -> None:
    """Tables of `players`, nobody twice in a round, the byes exactly the rest of the field."""
    seated = [name for table in pairing.tables for name in table]
    assert all(len(table) == players for table in pairing.tables)
    assert len(seated) == len(set(seated))
    assert sorted(pairing.byes) == sorted(set(field) - set(seated))


def meetings(history: Sequence[tuple[Pairing, Sequence[TableResult]]]) -> Counter[tuple[str, str]]:
    met: Counter[tuple[str, str]] = Counter()
    for pairing, _ in history:
        for table in pairing.tables:
            met.update(combinations(sorted(table), 2))
    return met


# ---------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(("plan", "count", "says"), [
    (Plan(format=Format.SWISS, players=2, rounds=3, seed=1), 8, "tables of 2: a table seats 3 to 6 players"),
    (Plan(format=Format.SWISS, players=7, rounds=3, seed=1), 8, "tables of 7: a table seats 3 to 6 players"),
    (Plan(format=Format.SWISS, players=4, rounds=0, seed=1), 8, "0 rounds: an event has at least 1"),
    (Plan(format=Format.ROUND_ROBIN, players=4, rounds=1, seed=1), 3, "3 entrants cannot fill a table of 4"),
    (Plan(format=Format.ROUND_ROBIN, players=4, rounds=1, seed=1), 64,
     "a round robin of 64 entrants at tables of 4 needs 635,376 tables per cycle, more than 1,000: use swiss or"
     " stages"),
    (Plan(format=Format.STAGES, players=4, rounds=1, seed=1, group_size=3, advance=1), 16,
     "groups of 3 cannot fill a table of 4"),
    (Plan(format=Format.STAGES, players=4, rounds=1, seed=1, group_size=6, advance=0), 16,
     "advance 0: from groups of 6, 1 to 5 entrants go on"),
    (Plan(format=Format.STAGES, players=4, rounds=1, seed=1, group_size=6, advance=6), 16,
     "advance 6: from groups of 6, 1 to 5 entrants go on"),
    (Plan(format=Format.STAGES, players=4, rounds=1, seed=1, group_size=6, advance=1), 12,
     "stage 2 would have 2 entrants, too few for a table of 4"),
    (Plan(format=Format.STAGES, players=3, rounds=1, seed=1, group_size=6, advance=5), 11,
     "stage 1: the top 5 of groups of 5 would not shrink the field"),
    (Plan(format=Format.STAGES, players=4, rounds=1, seed=1, group_size=20, advance=4), 20,
     "stage 1: a group of 20 entrants at tables of 4 needs 4,845 tables per cycle, more than 1,000: use smaller"
     " groups"),
])
def test_an_impossible_format_is_refused_with_one_line_naming_the_numbers(plan: Plan, count: int, says: str) -> None:
    for call in (check, round_count):
        with pytest.raises(PairingError) as refused:
            call(plan, names(count))
        assert str(refused.value) == says
    with pytest.raises(PairingError, match=r"^entrant 'bot01' is entered 2 times$"):
        next_round(Plan(format=Format.SWISS, players=3, rounds=1, seed=1), [*names(5), "bot01"], [])


# ---------------------------------------------------------------------------- round robin


def round_robin(plan: Plan, entrants: Sequence[str]) -> list[Pairing]:
    """Every round of a round robin (its pairings do not depend on the results)."""
    history: list[tuple[Pairing, list[TableResult]]] = []
    while (pairing := next_round(plan, entrants, history)) is not None:
        history.append((pairing, []))
    return [pairing for pairing, _ in history]


def check_round_robin(plan: Plan, entrants: Sequence[str]) -> None:
    rounds = round_robin(plan, entrants)
    count, players = len(entrants), plan.players
    least = -(-math.comb(count, players) // (count // players))
    assert len(rounds) == round_count(plan, entrants) == plan.rounds * least
    for pairing in rounds:
        check_round(pairing, entrants, players)
    tables = Counter(tuple(sorted(table)) for pairing in rounds for table in pairing.tables)
    assert sorted(tables) == list(combinations(sorted(entrants), players))
    assert set(tables.values()) == {plan.rounds}
    met = meetings([(pairing, []) for pairing in rounds])
    assert set(met.values()) == {plan.rounds * math.comb(count - 2, players - 2)}
    byes = Counter(name for pairing in rounds for name in pairing.byes)
    assert len({byes[name] for name in entrants}) == 1
    per_cycle = len(rounds) // plan.rounds
    exact = math.comb(count - 1, players - 1) % players == 0
    for cycle in range(plan.rounds):
        assert seat_spread(rounds[:(cycle + 1) * per_cycle], entrants, players) <= 1
        assert seat_spread(rounds[cycle * per_cycle:(cycle + 1) * per_cycle], entrants, players) <= (0 if exact else 2)


def seat_spread(rounds: Sequence[Pairing], entrants: Sequence[str], players: int) -> int:
    """The largest difference, over entrants, between the times an entrant sat at two seat positions."""
    spreads = []
    for name in entrants:
        seats = Counter(table.index(name) for pairing in rounds for table in pairing.tables if name in table)
        spreads.append(max(seats[s] for s in range(players)) - min(seats[s] for s in range(players)))
    return max(spreads)


def test_every_round_robin_within_the_limit_meets_everyone_equally_in_the_fewest_rounds() -> None:
    """Every table size and field the limit allows, one cycle: each combination once, the least possible rounds
    (Baranyai), equal byes, every seat position within one for every entrant (equal when N divides an
    entrant's tables)."""
    for players in range(3, 7):
        for count in range(players, 40):
            if math.comb(count, players) > ROUND_ROBIN_TABLE_LIMIT:
                break
            check_round_robin(Plan(format=Format.ROUND_ROBIN, players=players, rounds=1, seed=count), names(count))


@SETTINGS
@given(players=st.integers(3, 6), extra=st.integers(0, 5), cycles=st.integers(2, 3), seed=st.integers(0, 2**63))
def test_a_round_robin_of_several_cycles_rotates_seats_within_one_over_its_first_cycles(
        players: int, extra: int, cycles: int, seed: int) -> None:
    """Within one over the first c cycles for every c, within two in each cycle (exact when N divides an
    entrant's tables of a cycle)."""
    check_round_robin(Plan(format=Format.ROUND_ROBIN, players=players, rounds=cycles, seed=seed),
                      names(players + extra))


def test_a_round_robin_does_not_depend_on_the_order_of_the_entrants() -> None:
    plan = Plan(format=Format.ROUND_ROBIN, players=4, rounds=1, seed=5)
    entrants = names(9)
    assert round_robin(plan, entrants) == round_robin(plan, entrants[::-1])
    assert round_robin(plan, entrants) != round_robin(Plan(format=Format.ROUND_ROBIN, players=4, rounds=1, seed=6),
                                                      entrants)


# ---------------------------------------------------------------------------- swiss


def partitions(items: Sequence[str], players: int) -> Iterator[list[tuple[str, ...]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for companions in combinations(rest, players - 1):
        for others in partitions([name for name in rest if name not in companions], players):
            yield [(first, *companions), *others]


def repeats(tables: Sequence[Sequence[str]], met: Counter[tuple[str, str]]) -> int:
    return sum(met[pair] for table in tables for pair in combinations(sorted(table), 2))


def spread(tables: Sequence[Sequence[str]], score: dict[str, float]) -> float:
    return sum(max(score[n] for n in table) - min(score[n] for n in table) for table in tables)


def random_history(entrants: Sequence[str], players: int, rounds: int, rng: random.Random) -> History:
    """Rounds of random tables and random byes (not rotated), with random results."""
    history: History = []
    for round_index in range(rounds):
        order = rng.sample(list(entrants), len(entrants))
        byes = len(order) % players
        pairing = Pairing(tables=tuple(tuple(order[i:i + players]) for i in range(byes, len(order), players)),
                          byes=tuple(order[:byes]))
        history.append((pairing, results(pairing, round_index, rng, rng.randint(1, 3))))
    return history


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(3, 4), count=st.integers(6, 9), rounds=st.integers(0, 3), seed=st.integers(0, 2**63))
def test_swiss_repeats_a_tablemate_only_when_every_seating_would(players: int, count: int, rounds: int,
                                                                  seed: int) -> None:
    """Against a brute force over every bye set the rotation allows and every seating of the rest: the pairing
    has the fewest repeats there are (none in round 1, none whenever a seating without exists), its byes follow
    the rotation, and among seatings of its players with that many repeats it has the least score spread."""
    entrants = names(count)
    history = random_history(entrants, players, rounds, random.Random(seed))
    pairing = next_round(Plan(format=Format.SWISS, players=players, rounds=rounds + 1, seed=seed), entrants, history)
    assert pairing is not None
    check_round(pairing, entrants, players)
    met = meetings(history)
    had = Counter(name for p, _ in history for name in p.byes)
    allowed = [set(byes) for byes in combinations(entrants, count % players)
               if not byes or max(had[n] for n in byes) <= min(had[n] for n in entrants if n not in byes)]
    assert set(pairing.byes) in allowed
    fewest = min(repeats(seating, met) for byes in allowed
                 for seating in partitions([n for n in entrants if n not in byes], players))
    assert repeats(pairing.tables, met) == fewest
    if rounds == 0:
        assert fewest == 0
    score = points(entrants, players, history)
    best = min(spread(seating, score) for seating in partitions([n for n in entrants if n not in pairing.byes], players)
               if repeats(seating, met) == fewest)
    assert math.isclose(spread(pairing.tables, score), best, abs_tol=1e-9)


@SETTINGS
@given(players=st.integers(3, 5), count=st.integers(7, 17), seed=st.integers(0, 2**63))
def test_swiss_byes_rotate(players: int, count: int, seed: int) -> None:
    """Nobody sits out again while someone who plays has sat out less: after every round the counts of byes are
    within one of each other."""
    assume(count % players)
    entrants = names(count)
    rounds = min(5, 2 * -(-count // (count % players)))
    history = play(Plan(format=Format.SWISS, players=players, rounds=rounds, seed=seed), entrants,
                   random.Random(seed), deals=1)
    had: Counter[str] = Counter()
    for pairing, _ in history:
        check_round(pairing, entrants, players)
        assert len(pairing.byes) == count % players
        assert max(had[n] for n in pairing.byes) <= min(had[n] for n in entrants if n not in pairing.byes)
        had.update(pairing.byes)
        assert max(had[n] for n in entrants) - min(had[n] for n in entrants) <= 1


def test_the_bye_goes_to_the_lowest_ranked_of_those_with_the_fewest_byes() -> None:
    """Five at a table of four: whoever sits out, the table repeats three pairs, so the bye is the rotation's
    and the ranking's alone: not the first round's bye, and of the others the one with the fewest points."""
    entrants = names(5)
    plan = Plan(format=Format.SWISS, players=4, rounds=2, seed=3)
    first = next_round(plan, entrants, [])
    assert first is not None
    (table,) = first.tables
    history: History = [(first, [TableResult(round=0, table=0, entrants=table, orders=(table, table))])]
    second = next_round(plan, entrants, history)
    assert second is not None and second.byes == (table[-1],)


@SETTINGS
@given(players=st.integers(3, 5), count=st.integers(6, 40), rounds=st.integers(1, 4), seed=st.integers(0, 2**63))
def test_swiss_seats_similar_scores_together(players: int, count: int, rounds: int, seed: int) -> None:
    """Every round: tables are listed best first (each table's best score at least the next one's), and no swap
    of two entrants between two tables lowers the cost (fewer repeats, or as many and less score spread)."""
    assume(count >= players)
    entrants = names(count)
    history = play(Plan(format=Format.SWISS, players=players, rounds=rounds, seed=seed), entrants, random.Random(seed))
    for index, (pairing, _) in enumerate(history):
        before = history[:index]
        met, score = meetings(before), points(entrants, players, before)
        tops = [max(score[n] for n in table) for table in pairing.tables]
        assert tops == sorted(tops, reverse=True)
        tables = [list(table) for table in pairing.tables]
        for i, j in combinations(range(len(tables)), 2):
            for a, b in ((a, b) for a in range(players) for b in range(players)):
                one, two = list(tables[i]), list(tables[j])
                one[a], two[b] = two[b], one[a]
                was = (repeats([tables[i], tables[j]], met), spread([tables[i], tables[j]], score))
                now = (repeats([one, two], met), spread([one, two], score))
                assert now[0] > was[0] or (now[0] == was[0] and now[1] >= was[1] - 1e-9)


def test_a_64_entrant_swiss_of_7_rounds_pairs_fast_and_never_repeats() -> None:
    entrants = names(64)
    plan = Plan(format=Format.SWISS, players=4, rounds=7, seed=11)
    rng = random.Random(11)
    skill = {name: rng.random() for name in entrants}
    history: History = []
    slowest = 0.0
    while True:
        started = time.perf_counter()
        pairing = next_round(plan, entrants, history)
        slowest = max(slowest, time.perf_counter() - started)
        if pairing is None:
            break
        check_round(pairing, entrants, 4)
        history.append((pairing, [TableResult(round=len(history), table=i, entrants=table, orders=tuple(
            tuple(sorted(table, key=lambda n: skill[n] + rng.random())) for _ in range(16)))
            for i, table in enumerate(pairing.tables)]))
    assert len(history) == round_count(plan, entrants) == 7
    assert max(meetings(history).values()) == 1
    assert slowest < 1.0, slowest


def test_swiss_is_a_pure_function_of_its_arguments() -> None:
    entrants = names(13)
    plan = Plan(format=Format.SWISS, players=4, rounds=3, seed=2)
    history = play(Plan(format=Format.SWISS, players=4, rounds=2, seed=2), entrants, random.Random(2))
    again = next_round(plan, entrants, history)
    assert again is not None
    assert next_round(plan, entrants[::-1], history) == again == next_round(plan, entrants, list(history))
    assert next_round(plan, entrants, [*history, (again, results(again, 2, random.Random(0)))]) is None


# ---------------------------------------------------------------------------- stages


@SETTINGS
@given(players=st.integers(3, 4), extra=st.integers(0, 22), larger=st.integers(0, 4), advance=st.integers(0, 99),
       cycles=st.integers(1, 2), seed=st.integers(0, 2**63))
def test_stages_play_round_robins_in_groups_and_the_top_of_each_go_on(players: int, extra: int, larger: int,
                                                                     advance: int, cycles: int, seed: int) -> None:
    """Groups of sizes within one, none smaller than a table, each playing every combination of its members
    `cycles` times (all groups in the same rounds); the next stage is exactly the top `advance` of each group by
    that group's results in that stage; the last stage is one group; and round_count was exact."""
    group_size = players + larger
    advance = 1 + advance % (group_size - 1)
    plan = Plan(format=Format.STAGES, players=players, rounds=cycles, seed=seed, group_size=group_size,
                advance=advance)
    entrants = names(players + extra)
    try:
        check(plan, entrants)
    except PairingError:
        assume(False)
    history = play(plan, entrants, random.Random(seed), deals=2)
    assert len(history) == round_count(plan, entrants)
    stages = [[(p, r) for p, r in history if p.stage == stage] for stage in range(history[-1][0].stage + 1)]
    assert [p.stage for p, _ in history] == sorted(p.stage for p, _ in history)
    field = list(entrants)
    for stage, rounds in enumerate(stages):
        groups = rounds[0][0].groups
        assert all(p.groups == groups for p, _ in rounds)
        assert sorted(n for g in groups for n in g) == sorted(field)
        assert max(map(len, groups)) - min(map(len, groups)) <= 1 and min(map(len, groups)) >= players
        for pairing, _ in rounds:
            check_round(pairing, field, players)
            assert all(any(set(table) <= set(g) for g in groups) for table in pairing.tables)
        for group in groups:
            tables = Counter(tuple(sorted(t)) for p, _ in rounds for t in p.tables if set(t) <= set(group))
            assert sorted(tables) == list(combinations(sorted(group), players))
            assert set(tables.values()) == {cycles}
        if stage + 1 == len(stages):
            assert len(groups) == 1
            break
        field = []
        for group in groups:
            within = [(Pairing(tables=tuple(t for t in p.tables if set(t) <= set(group)),
                               byes=tuple(n for n in p.byes if n in group)),
                       [r for r in rs if set(r.entrants) <= set(group)]) for p, rs in rounds]
            field += ranking(group, players, within)[:advance]
        assert sorted(field) == sorted(n for g in stages[stage + 1][0][0].groups for n in g)


def test_a_64_entrant_event_in_stages() -> None:
    """Eight groups of eight, the top two of each into two groups of eight, their top two into the final."""
    plan = Plan(format=Format.STAGES, players=4, rounds=1, seed=4, group_size=8, advance=2)
    first = next_round(plan, names(64), [])
    assert first is not None and [len(g) for g in first.groups] == [8] * 8 and len(first.tables) == 16
    assert round_count(plan, names(64)) == 35 + 35 + 1
