"""A tournament's formats for tables of N players: which entrants sit at which table, round after round.

A round is a set of tables of ``players`` entrants each (in seat order); the
entrants at no table sit the round out (a bye, scored by
`tournament_standings`).  Every function is pure: the next round is a
deterministic function of the plan, the entrants (in any order) and the
rounds played, so a restarted server computes the same one.

- **Round robin**: every combination of ``players`` entrants is one table,
  played ``rounds`` times over (cycles), so every two entrants meet the same
  number of times, C(E-2, N-2) per cycle.  The tables of a cycle are packed
  into the fewest rounds there can be, ceil(C(E, N) / floor(E / N)), with the
  construction of Baranyai's theorem (one element at a time, each step an
  integral flow); so every entrant also has the same number of byes.  Seats
  are rotated (a bipartite edge colouring): each entrant sits at each seat
  position equally often, within one over the event and over its first
  cycles, within two in any one cycle, and exactly in each cycle when N
  divides an entrant's C(E-1, N-1) tables of a cycle.  A cycle of more than
  `ROUND_ROBIN_TABLE_LIMIT` tables is refused (64 entrants at tables of 4
  would need 635,376): Swiss or stages are the formats for a large field.
- **Swiss**: each round the entrants are ranked by points (ties in a seeded
  order, new each round) and seated at tables of entrants of similar score.
  When N does not divide E, E mod N entrants have a bye: the fewest byes
  first (nobody sits out again while someone who plays has sat out less),
  the lowest-ranked among them preferred.  The pairing minimises, in this order: repeated
  tablemates (each pair weighted by how often it met), a bye away from the
  lowest-ranked, and the spread of scores (the sum over tables of the
  highest minus the lowest score).  A greedy seating is refined by an exact
  branch-and-bound search for fields of up to `EXACT_FIELD` entrants
  (bounded by `SEARCH_NODES`; it finishes on the small fields the tests
  compare with a brute force), then by swapping two entrants of two tables
  while that lowers the cost.  Seats are those that least repeat each
  entrant's earlier seat positions.
- **Stages** (elimination): stage 0 snake-seeds the entrants, in a seeded
  order, into groups of about ``group_size`` (sizes differ by at most one,
  none smaller than a table); each group plays a round robin within itself,
  all groups in the same rounds.  Then the top ``advance`` of each group, by
  that stage's results alone (`tournament_standings.ranking`), are
  snake-seeded (group winners first, then the seconds, ...; a seeded order
  among equals) into the next stage's groups, until a stage of one group,
  the final.  Group sizes depend only on the counts, so the number of rounds
  is known at the start.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter, defaultdict, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from itertools import combinations, permutations
from typing import TypeVar

from president_service.league.tournaments.model import History, Pairing
from president_service.league.tournaments.standings import points, ranking

ROUND_ROBIN_TABLE_LIMIT = 1000
"""Tables per cycle of a round robin (or of one group's): beyond, the event would be too long to run."""
EXACT_FIELD = 24
"""Swiss fields up to this size get the exact search after the greedy seating."""
SEARCH_NODES = 20_000
"""The exact search's budget (tables tried, one entrant at a time): beyond it, the best seating found stands."""
_EPSILON = 1e-9
"""Score spreads are sums of floats: a change smaller than this is no change (no swap back and forth)."""

_T = TypeVar("_T")
_Table = tuple[int, ...]
"""A table of entrant indices (a round robin's range(size), Swiss ranks)."""
_Seating = list[_Table]


class Format(StrEnum):
    ROUND_ROBIN = "round-robin"
    SWISS = "swiss"
    STAGES = "stages"


class PairingError(ValueError):
    """An impossible format for these entrants: the message is one line a person reads."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Plan:
    """The format of an event, fixed at its creation."""

    format: Format
    players: int
    """Table size, 3..6."""
    rounds: int
    """SWISS: the number of rounds; ROUND_ROBIN: cycles (times through every table); STAGES: cycles of each
    group's round robin."""
    seed: int
    group_size: int = 0
    """STAGES: entrants per group in the first stage (at least `players`); unused otherwise."""
    advance: int = 0
    """STAGES: the top `advance` of each group go on to the next stage; unused otherwise."""
    forfeit: bool = False
    """A deal an entrant forfeited scores it last (`tournament_standings`, the fault rule FORFEIT)."""


def check(plan: Plan, entrants: Sequence[str]) -> None:
    """Refuse (`PairingError`) a plan these entrants cannot play."""
    if not 3 <= plan.players <= 6:
        raise PairingError(f"tables of {plan.players}: a table seats 3 to 6 players")
    if plan.rounds < 1:
        raise PairingError(f"{plan.rounds} rounds: an event has at least 1")
    if len(entrants) < plan.players:
        raise PairingError(f"{len(entrants)} entrants cannot fill a table of {plan.players}")
    twice = sorted(name for name, count in Counter(entrants).items() if count > 1)
    if twice:
        raise PairingError(f"entrant {twice[0]!r} is entered {Counter(entrants)[twice[0]]} times")
    if plan.format is Format.ROUND_ROBIN:
        _check_round_robin(len(entrants), plan.players, "a round robin of", "use swiss or stages")
    elif plan.format is Format.STAGES:
        _layout(plan, len(entrants))


def round_count(plan: Plan, entrants: Sequence[str]) -> int:
    """The rounds the event will have, known at the start."""
    check(plan, entrants)
    if plan.format is Format.SWISS:
        return plan.rounds
    if plan.format is Format.ROUND_ROBIN:
        return plan.rounds * len(_packing(len(entrants), plan.players))
    return sum(plan.rounds * max(len(_packing(size, plan.players)) for size in sizes)
               for sizes in _layout(plan, len(entrants)))


def next_round(plan: Plan, entrants: Sequence[str], history: History) -> Pairing | None:
    """The pairing of the round after the finished rounds `history` (pairing and table results of each), or None
    when the event is over."""
    check(plan, entrants)
    if plan.format is Format.SWISS:
        return _swiss(plan, entrants, history) if len(history) < plan.rounds else None
    if plan.format is Format.ROUND_ROBIN:
        rounds = _round_robin(tuple(sorted(entrants)), plan.players, plan.rounds, (plan.seed, "round-robin"))
        if len(history) >= len(rounds):
            return None
        return _pairing(rounds[len(history)], entrants)
    return _stages(plan, entrants, history)


def derive_seed(*parts: int | str) -> int:
    """A 63-bit seed from a tournament's seed and a position (its pairings', its matches' shuffles and bots'),
    stable across processes and Python versions."""
    digest = hashlib.sha256(("tournament/" + "/".join(map(str, parts))).encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def _shuffled(names: Sequence[str], seed: int) -> list[str]:
    """`names` in a seeded order that does not depend on the order they were given in."""
    order = sorted(names)
    random.Random(seed).shuffle(order)
    return order


def _pairing(tables: Sequence[tuple[str, ...]], field: Sequence[str], *, stage: int = 0,
             groups: tuple[tuple[str, ...], ...] = ()) -> Pairing:
    seated = {name for table in tables for name in table}
    return Pairing(tables=tuple(tables), byes=tuple(sorted(name for name in field if name not in seated)),
                   stage=stage, groups=groups)


# ---------------------------------------------------------------------------- round robin


def _check_round_robin(size: int, players: int, what: str, instead: str) -> None:
    tables = math.comb(size, players)
    if tables > ROUND_ROBIN_TABLE_LIMIT:
        raise PairingError(f"{what} {size} entrants at tables of {players} needs {tables:,} tables per cycle,"
                           f" more than {ROUND_ROBIN_TABLE_LIMIT:,}: {instead}")


@lru_cache(maxsize=256)
def _round_robin(members: tuple[str, ...], players: int, cycles: int,
                 parts: tuple[int | str, ...]) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """The rounds of a round robin of `members`, in play order (each cycle's rounds in a seeded order); kept, as
    every round of the event asks for them again."""
    names = _shuffled(members, derive_seed(*parts, "names"))
    schedule = _schedule(len(names), players, cycles)
    per_cycle = len(schedule) // cycles
    rounds: list[tuple[tuple[str, ...], ...]] = []
    for cycle in range(cycles):
        chunk = list(schedule[cycle * per_cycle:(cycle + 1) * per_cycle])
        random.Random(derive_seed(*parts, "cycle", cycle)).shuffle(chunk)
        rounds.extend(tuple(tuple(names[i] for i in table) for table in round_) for round_ in chunk)
    return tuple(rounds)


@lru_cache(maxsize=64)
def _packing(size: int, players: int) -> tuple[tuple[_Table, ...], ...]:
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
    rounds = [round_ for _ in range(cycles) for round_ in _packing(size, players)]
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


# ---------------------------------------------------------------------------- stages


def _snake(order: Sequence[_T], groups: int) -> list[tuple[_T, ...]]:
    """Deal `order` into `groups` groups 0, 1, .., g-1, g-1, .., 0, 0, 1, ..: each group gets a fair share of
    every part of the order."""
    dealt: list[list[_T]] = [[] for _ in range(groups)]
    for position, item in enumerate(order):
        row, column = divmod(position, groups)
        dealt[column if row % 2 == 0 else groups - 1 - column].append(item)
    return [tuple(group) for group in dealt]


def _layout(plan: Plan, count: int) -> list[list[int]]:
    """The group sizes of every stage, from the counts alone; refuses stages that cannot be played."""
    if plan.group_size < plan.players:
        raise PairingError(f"groups of {plan.group_size} cannot fill a table of {plan.players}")
    if not 1 <= plan.advance < plan.group_size:
        raise PairingError(f"advance {plan.advance}: from groups of {plan.group_size}, 1 to {plan.group_size - 1}"
                           " entrants go on")
    stages: list[list[int]] = []
    while True:
        if count < plan.players:
            raise PairingError(f"stage {len(stages) + 1} would have {count} entrants, too few for a table of"
                               f" {plan.players}")
        groups = max(1, min(count // plan.players, (2 * count + plan.group_size) // (2 * plan.group_size)))
        sizes = [len(group) for group in _snake(range(count), groups)]
        for size in sorted(set(sizes)):
            _check_round_robin(size, plan.players, f"stage {len(stages) + 1}: a group of", "use smaller groups")
        stages.append(sizes)
        if groups == 1:
            return stages
        if min(sizes) <= plan.advance:
            raise PairingError(f"stage {len(stages)}: the top {plan.advance} of groups of {min(sizes)} would not"
                               " shrink the field")
        count = groups * plan.advance


def _stages(plan: Plan, entrants: Sequence[str], history: History) -> Pairing | None:
    layout = _layout(plan, len(entrants))
    groups = _snake(_shuffled(entrants, derive_seed(plan.seed, "stages", "order", 0)), len(layout[0]))
    start = 0
    for stage in range(len(layout)):
        rounds = [_round_robin(group, plan.players, plan.rounds, (plan.seed, "stages", stage, index))
                  for index, group in enumerate(groups)]
        length = max(len(group_rounds) for group_rounds in rounds)
        played = len(history) - start
        if played < length:
            tables = [table for group_rounds in rounds if played < len(group_rounds) for table in group_rounds[played]]
            return _pairing(tables, [name for group in groups for name in group], stage=stage, groups=tuple(groups))
        if stage + 1 < len(layout):
            groups = _advance(plan, groups, history[start:start + length], stage + 1, len(layout[stage + 1]))
        start += length
    return None


def _advance(plan: Plan, groups: Sequence[tuple[str, ...]], stage_history: History, stage: int,
             count: int) -> list[tuple[str, ...]]:
    """The next stage's groups: the top `advance` of each group by its own results, snake-seeded by place in
    the group (a seeded order among the same place)."""
    tie = {name: i for i, name in enumerate(_shuffled([n for g in groups for n in g],
                                                      derive_seed(plan.seed, "stages", "order", stage)))}
    place: dict[str, int] = {}
    for group in groups:
        members = set(group)
        within = [(Pairing(tables=tuple(t for t in pairing.tables if members.issuperset(t)),
                           byes=tuple(name for name in pairing.byes if name in members)),
                   [result for result in results if members.issuperset(result.entrants)])
                  for pairing, results in stage_history]
        for position, name in enumerate(ranking(group, plan.players, within, forfeit=plan.forfeit)[:plan.advance]):
            place[name] = position
    return _snake(sorted(place, key=lambda name: (place[name], tie[name])), count)


# ---------------------------------------------------------------------------- swiss


def _swiss(plan: Plan, entrants: Sequence[str], history: History) -> Pairing:
    players = plan.players
    score = points(entrants, players, history, forfeit=plan.forfeit)
    order = sorted(_shuffled(entrants, derive_seed(plan.seed, "swiss", len(history))), key=lambda name: -score[name])
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
    return _pairing([tuple(order[i] for i in table) for table in seated], entrants)


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
