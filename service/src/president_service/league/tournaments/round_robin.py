"""Round robin: every combination of ``players`` entrants is one table, played ``rounds`` times over (cycles).

Every two entrants meet the same number of times, C(E-2, N-2) per cycle.  The
tables of a cycle are packed into the fewest rounds there can be,
ceil(C(E, N) / floor(E / N)), with the construction of Baranyai's theorem
(one element at a time, each step an integral flow); so every entrant also
has the same number of byes.  Seats are rotated (a bipartite edge
colouring): each entrant sits at each seat position equally often, within
one over the event and over its first cycles, within two in any one cycle,
and exactly in each cycle when N divides an entrant's C(E-1, N-1) tables of
a cycle.  A cycle of more than `ROUND_ROBIN_TABLE_LIMIT` tables is refused
(64 entrants at tables of 4 would need 635,376): Swiss or stages are the
formats for a large field.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict, deque
from collections.abc import Sequence
from functools import lru_cache

from president_service.league.tournaments.plan import PairingError, derive_seed, shuffled

ROUND_ROBIN_TABLE_LIMIT = 1000
"""Tables per cycle of a round robin (or of one group's): beyond, the event would be too long to run."""
_Table = tuple[int, ...]
"""A table of entrant indices (a round robin's range(size), Swiss ranks)."""


def check_round_robin(size: int, players: int, what: str, instead: str) -> None:
    tables = math.comb(size, players)
    if tables > ROUND_ROBIN_TABLE_LIMIT:
        raise PairingError(f"{what} {size} entrants at tables of {players} needs {tables:,} tables per cycle,"
                           f" more than {ROUND_ROBIN_TABLE_LIMIT:,}: {instead}")


@lru_cache(maxsize=256)
def round_robin(members: tuple[str, ...], players: int, cycles: int,
                 parts: tuple[int | str, ...]) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """The rounds of a round robin of `members`, in play order (each cycle's rounds in a seeded order); kept, as
    every round of the event asks for them again."""
    names = shuffled(members, derive_seed(*parts, "names"))
    schedule = _schedule(len(names), players, cycles)
    per_cycle = len(schedule) // cycles
    rounds: list[tuple[tuple[str, ...], ...]] = []
    for cycle in range(cycles):
        chunk = list(schedule[cycle * per_cycle:(cycle + 1) * per_cycle])
        random.Random(derive_seed(*parts, "cycle", cycle)).shuffle(chunk)
        rounds.extend(tuple(tuple(names[i] for i in table) for table in round_) for round_ in chunk)
    return tuple(rounds)


@lru_cache(maxsize=64)
def packing(size: int, players: int) -> tuple[tuple[_Table, ...], ...]:
    """Every `players`-subset of range(size) exactly once, in ceil(C / floor(size / players)) rounds of disjoint
    tables (the least possible), by Baranyai's construction.

    The rounds' tables are slots that fill one element at a time.  Before element m is placed, every subset S
    of range(m) is the content of exactly C(size - m, players - |S|) slots; placing m in exactly
    C(size - m - 1, players - |S| - 1) of the slots holding S, at most one per round, keeps that true for m + 1.
    A fractional placement exists (each slot holding S gets (players - |S|) / (size - m)), so an integral one
    does: a bipartite assignment of rounds to contents, in which a round with as many open places as elements
    left must take one (it always can, as the fractional placement shows).
    """
    total = math.comb(size, players)
    count = -(-total // (size // players))
    slots: list[list[list[int]]] = [[[] for _ in range(total // count + (i < total % count))] for i in range(count)]
    for element in range(size):
        left = size - element
        options: dict[int, dict[_Table, int]] = {}
        forced: list[int] = []
        optional: list[int] = []
        for index, round_ in enumerate(slots):
            room = {tuple(slot): position for position, slot in enumerate(round_) if len(slot) < players}
            open_places = sum(players - len(slot) for slot in round_)
            if open_places:
                options[index] = room
                (forced if open_places == left else optional).append(index)
        demand = {content: math.comb(left - 1, players - len(content) - 1)
                  for room in options.values() for content in room}
        for index, content in _assign(forced + optional, options, demand).items():
            slots[index][options[index][content]].append(element)
    return tuple(tuple(tuple(slot) for slot in round_) for round_ in slots)


def _assign(rounds: Sequence[int], options: dict[int, dict[_Table, int]],
            demand: dict[_Table, int]) -> dict[int, _Table]:
    """A most complete assignment of rounds (each at most one content it has room for) to contents (each at most
    its demand), taking rounds in the given order: augmenting paths never drop a round already assigned, so
    the first rounds (the forced ones) are all assigned when they can be."""
    match: dict[int, _Table] = {}
    holders: defaultdict[_Table, list[int]] = defaultdict(list)
    for start in rounds:
        reached: dict[_Table, int] = {}
        queue, seen = deque([start]), {start}
        found: _Table | None = None
        while queue and found is None:
            index = queue.popleft()
            for content in options[index]:
                if content in reached or content == match.get(index):
                    continue
                reached[content] = index
                if len(holders[content]) < demand[content]:
                    found = content
                    break
                for other in holders[content]:
                    if other not in seen:
                        seen.add(other)
                        queue.append(other)
        while found is not None:
            index = reached[found]
            previous = match.get(index)
            match[index] = found
            holders[found].append(index)
            if previous is not None:
                holders[previous].remove(index)
            found = previous
    return match


@lru_cache(maxsize=64)
def _schedule(size: int, players: int, cycles: int) -> tuple[tuple[_Table, ...], ...]:
    """Every cycle's rounds (the packing each time), each table in seat order (`_seat`)."""
    rounds = [round_ for _ in range(cycles) for round_ in packing(size, players)]
    seated = iter(_seat([table for round_ in rounds for table in round_], size, players))
    return tuple(tuple(next(seated) for _ in round_) for round_ in rounds)


def _seat(tables: Sequence[_Table], size: int, players: int) -> list[_Table]:
    """Seat orders for `tables` such that each entrant sits at every seat position equally often: within one
    over any first tables of the list (the whole event, its first cycles), within two over any run of
    consecutive ones (a cycle), and exactly in every cycle when `players` divides an entrant's tables in one.

    Each entrant's tables, in order, are cut into runs of `players`; the runs and the tables form a bipartite
    graph of degree at most `players`, which König's theorem colours with `players` colours, the seats: a table
    gets every seat once, a run distinct seats (so a full run every seat once).  Each edge is coloured in turn,
    after swapping two colours along an alternating path when no colour is free at both ends.
    """
    owner: list[int] = []
    """A run's entrant."""
    at_run: list[list[int]] = []
    """A run's table at each seat (-1: none)."""
    seat = [[-1] * players for _ in tables]
    """A table's run at each seat."""
    current = [-1] * size
    seen = [0] * size
    for t, table in enumerate(tables):
        for entrant in table:
            if seen[entrant] % players == 0:
                current[entrant] = len(owner)
                owner.append(entrant)
                at_run.append([-1] * players)
            seen[entrant] += 1
            run = current[entrant]
            a, b = at_run[run].index(-1), seat[t].index(-1)
            if seat[t][a] != -1 and at_run[run][b] == -1:
                a = b
            elif seat[t][a] != -1:
                _swap_colours(t, a, b, seat, at_run)
            seat[t][a], at_run[run][a] = run, t
    return [tuple(owner[run] for run in by_seat) for by_seat in seat]


def _swap_colours(table: int, a: int, b: int, seat: list[list[int]], at_run: list[list[int]]) -> None:
    """Swap seats a and b along the path from `table` that alternates a (table to run) and b (run to table),
    which frees a at `table` (the path cannot come back to the run being seated: a is free there)."""
    path: list[tuple[int, int, int]] = []
    run = seat[table][a]
    while run != -1:
        path.append((run, table, a))
        table = at_run[run][b]
        if table == -1:
            break
        path.append((run, table, b))
        run = seat[table][a]
    for run, table, colour in path:
        seat[table][colour] = at_run[run][colour] = -1
    for run, table, colour in path:
        other = b if colour == a else a
        seat[table][other], at_run[run][other] = run, table

