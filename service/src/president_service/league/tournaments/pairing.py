"""A tournament's formats for tables of N players: which entrants sit at which table, round after round.

A round is a set of tables of ``players`` entrants each (in seat order); the
entrants at no table sit the round out (a bye, scored by `standings`).
Every function is pure: the next round is a deterministic function of the
plan, the entrants (in any order) and the rounds played, so a restarted
server computes the same one.  The formats, each in its own module:
`round_robin`, `swiss` and `stages` (elimination: round robins in groups).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from president_service.league.tournaments.model import History, Pairing
from president_service.league.tournaments.plan import Format, PairingError, Plan, pairing_of
from president_service.league.tournaments.round_robin import check_round_robin, packing, round_robin
from president_service.league.tournaments.stages import layout, stages
from president_service.league.tournaments.swiss import swiss


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
        check_round_robin(len(entrants), plan.players, "a round robin of", "use swiss or stages")
    elif plan.format is Format.STAGES:
        layout(plan, len(entrants))


def round_count(plan: Plan, entrants: Sequence[str]) -> int:
    """The rounds the event will have, known at the start."""
    check(plan, entrants)
    if plan.format is Format.SWISS:
        return plan.rounds
    if plan.format is Format.ROUND_ROBIN:
        return plan.rounds * len(packing(len(entrants), plan.players))
    return sum(plan.rounds * max(len(packing(size, plan.players)) for size in sizes)
               for sizes in layout(plan, len(entrants)))


def next_round(plan: Plan, entrants: Sequence[str], history: History) -> Pairing | None:
    """The pairing of the round after the finished rounds `history` (pairing and table results of each), or None
    when the event is over."""
    check(plan, entrants)
    if plan.format is Format.SWISS:
        return swiss(plan, entrants, history) if len(history) < plan.rounds else None
    if plan.format is Format.ROUND_ROBIN:
        rounds = round_robin(tuple(sorted(entrants)), plan.players, plan.rounds, (plan.seed, "round-robin"))
        if len(history) >= len(rounds):
            return None
        return pairing_of(rounds[len(history)], entrants)
    return stages(plan, entrants, history)

