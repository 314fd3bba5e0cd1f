"""Stages (elimination): round robins in groups, the top of each group going on to the next stage's groups.

Stage 0 snake-seeds the entrants, in a seeded order, into groups of about
``group_size`` (sizes differ by at most one, none smaller than a table); each
group plays a round robin within itself, all groups in the same rounds.
Then the top ``advance`` of each group, by that stage's results alone
(`standings.ranking`), are snake-seeded (group winners first, then the
seconds, ...; a seeded order among equals) into the next stage's groups,
until a stage of one group, the final.  Group sizes depend only on the
counts, so the number of rounds is known at the start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from president_service.league.tournaments.model import History, Pairing
from president_service.league.tournaments.plan import PairingError, Plan, derive_seed, pairing_of, shuffled
from president_service.league.tournaments.round_robin import check_round_robin, round_robin
from president_service.league.tournaments.standings import ranking

_T = TypeVar("_T")


def snake(order: Sequence[_T], groups: int) -> list[tuple[_T, ...]]:
    """Deal `order` into `groups` groups 0, 1, .., g-1, g-1, .., 0, 0, 1, ..: each group gets a fair share of
    every part of the order."""
    dealt: list[list[_T]] = [[] for _ in range(groups)]
    for position, item in enumerate(order):
        row, column = divmod(position, groups)
        dealt[column if row % 2 == 0 else groups - 1 - column].append(item)
    return [tuple(group) for group in dealt]


def layout(plan: Plan, count: int) -> list[list[int]]:
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
        sizes = [len(group) for group in snake(range(count), groups)]
        for size in sorted(set(sizes)):
            check_round_robin(size, plan.players, f"stage {len(stages) + 1}: a group of", "use smaller groups")
        stages.append(sizes)
        if groups == 1:
            return stages
        if min(sizes) <= plan.advance:
            raise PairingError(f"stage {len(stages)}: the top {plan.advance} of groups of {min(sizes)} would not"
                               " shrink the field")
        count = groups * plan.advance


def stages(plan: Plan, entrants: Sequence[str], history: History) -> Pairing | None:
    sizes = layout(plan, len(entrants))
    groups = snake(shuffled(entrants, derive_seed(plan.seed, "stages", "order", 0)), len(sizes[0]))
    start = 0
    for stage in range(len(sizes)):
        rounds = [round_robin(group, plan.players, plan.rounds, (plan.seed, "stages", stage, index))
                  for index, group in enumerate(groups)]
        length = max(len(group_rounds) for group_rounds in rounds)
        played = len(history) - start
        if played < length:
            tables = [table for group_rounds in rounds if played < len(group_rounds) for table in group_rounds[played]]
            return pairing_of(tables, [name for group in groups for name in group], stage=stage, groups=tuple(groups))
        if stage + 1 < len(sizes):
            groups = _advance(plan, groups, history[start:start + length], stage + 1, len(sizes[stage + 1]))
        start += length
    return None


def _advance(plan: Plan, groups: Sequence[tuple[str, ...]], stage_history: History, stage: int,
             count: int) -> list[tuple[str, ...]]:
    """The next stage's groups: the top `advance` of each group by its own results, snake-seeded by place in
    the group (a seeded order among the same place)."""
    tie = {name: i for i, name in enumerate(shuffled([n for g in groups for n in g],
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
    return snake(sorted(place, key=lambda name: (place[name], tie[name])), count)

