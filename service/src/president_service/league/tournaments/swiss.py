"""Swiss: each round the entrants are ranked by points and seated at tables of entrants of similar score.

Ties are ranked in a seeded order, new each round.  When N does not divide
E, E mod N entrants have a bye: the fewest byes first (nobody sits out again
while someone who plays has sat out less), the lowest-ranked among them
preferred.  The pairing minimises, in this order: repeated tablemates (each
pair weighted by how often it met), a bye away from the lowest-ranked, and
the spread of scores (the sum over tables of the highest minus the lowest
score).  A greedy seating is refined by an exact branch-and-bound search for
fields of up to `EXACT_FIELD` entrants (bounded by `SEARCH_NODES`; it
finishes on the small fields the tests compare with a brute force), then by
swapping two entrants of two tables while that lowers the cost.  Seats are
those that least repeat each entrant's earlier seat positions.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from itertools import combinations, permutations

from president_service.league.tournaments.model import History, Pairing
from president_service.league.tournaments.plan import PairingError, Plan, derive_seed, pairing_of, shuffled
from president_service.league.tournaments.standings import points

EXACT_FIELD = 24
"""Swiss fields up to this size get the exact search after the greedy seating."""
SEARCH_NODES = 20_000
"""The exact search's budget (tables tried, one entrant at a time): beyond it, the best seating found stands."""
_EPSILON = 1e-9
"""Score spreads are sums of floats: a change smaller than this is no change (no swap back and forth)."""

_Table = tuple[int, ...]
"""A table of entrant indices (a round robin's range(size), Swiss ranks)."""
_Seating = list[_Table]


def swiss(plan: Plan, entrants: Sequence[str], history: History) -> Pairing:
    players = plan.players
    score = points(entrants, players, history, forfeit=plan.forfeit)
    order = sorted(shuffled(entrants, derive_seed(plan.seed, "swiss", len(history))), key=lambda name: -score[name])
    index = {name: i for i, name in enumerate(order)}
    met = [[0] * len(order) for _ in order]
    seats = [[0] * players for _ in order]
    byes = [0] * len(order)
    for round_index, (pairing, _) in enumerate(history):
        for table in pairing.tables:
            strangers = [name for name in table if name not in index]
            if strangers:
                raise PairingError(f"round {round_index + 1}: {strangers[0]!r} is not an entrant")
            ids = [index[name] for name in table]
            for seat, i in enumerate(ids):
                seats[i][seat] += 1
            for i, j in combinations(ids, 2):
                met[i][j] += 1
                met[j][i] += 1
        for name in pairing.byes:
            byes[index[name]] += 1
    search = _Search(players=players, met=met, values=[score[name] for name in order])
    tables = search.best(_bye_sets(byes, len(order) % players))
    seated = [min(permutations(table), key=lambda seating: sum(seats[i][s] for s, i in enumerate(seating)))
              for table in sorted(tables)]
    return pairing_of([tuple(order[i] for i in table) for table in seated], entrants)


def _bye_sets(byes: Sequence[int], count: int) -> Iterator[_Table]:
    """The sets of `count` entrants (indices by rank, best first) who may sit out, in order of preference:
    nobody with more byes than an entrant who plays, the lowest-ranked first."""
    if count == 0:
        yield ()
        return
    prefer = sorted(range(len(byes)), key=lambda i: (byes[i], -i))
    level = byes[prefer[count - 1]]
    forced = tuple(i for i in prefer if byes[i] < level)
    for chosen in combinations([i for i in prefer if byes[i] == level], count - len(forced)):
        yield forced + chosen


_Cost = tuple[int, float]
"""(repeats, spread): repeated tablemate pairs weighted by how often they met, then the sum of score ranges."""


class _Search:
    """The Swiss seating of one round (entrants are indices by rank, best first, so scores never increase)."""

    def __init__(self, *, players: int, met: list[list[int]], values: list[float]) -> None:
        self._players = players
        self._met = met
        self._values = values
        self._nodes = 0
        self._bound: _Cost = (0, 0.0)
        self._found: _Seating = []
        self._fewer_repeats = False

    def best(self, bye_sets: Iterator[_Table]) -> _Seating:
        """The best seating over the bye sets (a later bye set only for fewer repeats): greedy, then exact on a
        small field (within the budget), then improved by swaps."""
        best: _Seating = []
        best_cost: _Cost = (0, 0.0)
        for bye in bye_sets:
            if best and (best_cost[0] == 0 or self._nodes >= SEARCH_NODES):
                break
            free = [i for i in range(len(self._values)) if i not in bye]
            seating = self._greedy(free)
            if len(free) <= EXACT_FIELD:
                seating = self._exact(free, seating)
            seating = self._improve(seating)
            cost = self._cost(seating)
            if not best or cost[0] < best_cost[0]:
                best, best_cost = seating, cost
        return best

    def _table_cost(self, table: Sequence[int]) -> _Cost:
        values = [self._values[i] for i in table]
        return sum(self._met[i][j] for i, j in combinations(table, 2)), max(values) - min(values)

    def _cost(self, seating: _Seating) -> _Cost:
        costs = [self._table_cost(table) for table in seating]
        return sum(c[0] for c in costs), sum(c[1] for c in costs)

    def _better(self, cost: _Cost, than: _Cost) -> bool:
        return cost[0] < than[0] or (cost[0] == than[0] and cost[1] < than[1] - _EPSILON)

    def _greedy(self, free: list[int]) -> _Seating:
        """Best-ranked first, each with the best-ranked entrants who add the fewest repeats."""
        rest, seating = list(free), []
        while rest:
            table = [rest.pop(0)]
            while len(table) < self._players:
                pick = min(range(len(rest)), key=lambda p: (sum(self._met[rest[p]][i] for i in table), p))
                table.append(rest.pop(pick))
            self._nodes += len(free)
            seating.append(tuple(sorted(table)))
        return seating

    def _exact(self, free: list[int], seating: _Seating) -> _Seating:
        """Branch and bound from `seating`: first for fewer repeats whatever the spread (the most constrained
        entrant's table first, so that a seating without repeats is found soon), then for the least spread with
        those repeats (the best-ranked entrant's table first, to follow the bound on the spread)."""
        self._found = seating
        if self._cost(seating)[0]:
            self._fewer_repeats = True
            self._bound = (self._cost(seating)[0], -math.inf)
            self._tables(free, [], 0, 0.0)
        self._fewer_repeats = False
        self._bound = self._cost(self._found)
        self._tables(free, [], 0, 0.0)
        return self._found

    def _lower(self, free: Sequence[int]) -> float:
        """The least spread `free` can be seated with: consecutive tables in rank order (any table spans every
        gap between its members; tables of consecutive entrants span no gap between two tables)."""
        return sum(self._values[free[p]] - self._values[free[p + 1]] for p in range(len(free) - 1)
                   if (p + 1) % self._players)

    def _leader(self, free: list[int]) -> int:
        """The entrant whose table is chosen next: the one with the fewest new tablemates left while looking
        for fewer repeats, else the best-ranked."""
        if not self._fewer_repeats:
            return free[0]
        return min(free, key=lambda i: (sum(not self._met[i][j] for j in free), i))

    def _tables(self, free: list[int], done: _Seating, repeats: int, spread: float) -> None:
        """Branch and bound: the leader's table, each choice of companions in turn."""
        if not free:
            if self._better((repeats, spread), self._bound):
                self._found = list(done)
                self._bound = (repeats, -math.inf) if self._fewer_repeats else (repeats, spread)
            return
        leader = self._leader(free)
        line = sorted((i for i in free if i != leader), key=lambda i: (self._met[leader][i], abs(i - leader)))
        self._companions(free, line, [leader], -1, done, repeats, spread)

    def _companions(self, free: list[int], line: list[int], table: list[int], last: int, done: _Seating,
                    repeats: int, spread: float) -> None:
        need = self._players - len(table)
        if need == 0:
            rest = [i for i in free if i not in table]
            spread += self._table_cost(table)[1]
            if self._better((repeats, spread + self._lower(rest)), self._bound):
                self._tables(rest, [*done, tuple(sorted(table))], repeats, spread)
            return
        choices = sorted((sum(self._met[line[p]][i] for i in table), p) for p in range(last + 1, len(line) - need + 1))
        for added, position in choices:
            if self._nodes >= SEARCH_NODES:
                return
            self._nodes += 1
            values = [self._values[i] for i in [*table, line[position]]]
            if self._better((repeats + added, spread + max(values) - min(values)), self._bound):
                table.append(line[position])
                self._companions(free, line, table, position, done, repeats + added, spread)
                table.pop()

    def _improve(self, seating: _Seating) -> _Seating:
        """Swap two entrants of two tables while a swap lowers the cost.  Only tables with a repeat, or whose
        score ranges overlap, can gain from a swap (two tables one above the other are seated as well as they
        can be), so only those are tried."""
        tables = [list(table) for table in seating]
        costs = [self._table_cost(table) for table in tables]
        improved = True
        while improved:
            improved = False
            for i, j in combinations(range(len(tables)), 2):
                if not (costs[i][0] or costs[j][0] or self._overlap(tables[i], tables[j])):
                    continue
                for a, b in ((a, b) for a in range(self._players) for b in range(self._players)):
                    first, second = list(tables[i]), list(tables[j])
                    first[a], second[b] = second[b], first[a]
                    new_first, new_second = self._table_cost(first), self._table_cost(second)
                    change = (new_first[0] + new_second[0] - costs[i][0] - costs[j][0],
                              new_first[1] + new_second[1] - costs[i][1] - costs[j][1])
                    if self._better(change, (0, 0.0)):
                        tables[i], tables[j], costs[i], costs[j] = first, second, new_first, new_second
                        improved = True
        return [tuple(sorted(table)) for table in tables]

    def _overlap(self, first: Sequence[int], second: Sequence[int]) -> bool:
        one, two = [self._values[i] for i in first], [self._values[i] for i in second]
        return min(one) < max(two) - _EPSILON and min(two) < max(one) - _EPSILON

