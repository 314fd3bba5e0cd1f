"""A tournament in memory (`Event`), kept in step with its rows, and the fault record of its finished matches.

Faults: when a match ends, each deal in which the server played a move of a
seat or its client reported one as a fallback is recorded as forfeited by
that seat, with each entrant's faults and server-played moves (`Conduct`),
in the transaction that stores the orders; the standings score a forfeited
deal last under the fault rule FORFEIT (the default) and count them all.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from president_engine import Match, Rules, parse_action
from president_engine.events import DealEnded
from president_protocol.v1 import president_pb2 as pb

from president_service.league.tournaments.model import Pairing, TableResult
from president_service.league.tournaments.pairing import round_count as count_rounds
from president_service.league.tournaments.plan import Plan
from president_service.league.tournaments.spec import check_spec, plan_of
from president_service.play.clock import ClockSettings
from president_service.play.match_request import clock_from_proto, rules_from_request
from president_service.play.match_runner import MatchRunner
from president_service.play.match_store import Source

log = logging.getLogger(__name__)

Spot = tuple[int, int, int]
"""A match of a tournament: (round, table, seating)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Entrant:
    account: str
    player: str
    """The name it plays and is ranked under (`player_name` of its pinned version)."""
    version: str = ""
    house: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class Conduct:
    """How a finished match's seats were played, by player name: what the fault rules read."""

    forfeits: tuple[frozenset[str], ...] = ()
    """Per deal, the players that forfeited it (a move the server played, or a reported fallback)."""
    faults: tuple[tuple[str, int], ...] = ()
    server_moves: tuple[tuple[str, int], ...] = ()

    def dumps(self) -> str:
        return json.dumps({"forfeits": [sorted(f) for f in self.forfeits], "faults": dict(self.faults),
                           "server_moves": dict(self.server_moves)})

    @classmethod
    def loads(cls, text: str | None, match_id: str) -> Conduct:
        """The stored record; none for a result stored before it was kept, or one the server cannot read
        (logged: the event goes on, without that match's forfeits)."""
        if not text:
            return cls()
        try:
            data = json.loads(text)
            return cls(forfeits=tuple(frozenset(str(n) for n in f) for f in data["forfeits"]),
                       faults=tuple((str(k), int(v)) for k, v in data["faults"].items()),
                       server_moves=tuple((str(k), int(v)) for k, v in data["server_moves"].items()))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("tournament match %s: its stored fault record cannot be read (%s): counted without it",
                        match_id, exc)
            return cls()


@dataclass(kw_only=True, slots=True)
class Played:
    match_id: str
    absent: tuple[str, ...]
    orders: tuple[tuple[str, ...], ...] | None = None
    """Each deal's finishing order by player, once the match is over."""
    conduct: Conduct = field(default_factory=Conduct)


@dataclass(kw_only=True)
class Event:
    """A tournament in memory: what the database holds, read once and kept in step with it."""

    tournament_id: str
    spec: pb.TournamentSpec
    plan: Plan
    rules: Rules
    clock: ClockSettings
    state: pb.TournamentState.ValueType
    created_at: float
    entrants: list[Entrant]
    started_at: float | None = None
    ended_at: float | None = None
    rounds: list[Pairing] = field(default_factory=list)
    played: dict[Spot, Played] = field(default_factory=dict)
    timer: asyncio.TimerHandle | None = None
    shown: tuple[tuple[Any, ...], pb.Tournament] | None = None
    """The last full message, with what it was built from (`Tournaments.message`)."""
    refused: str = ""
    """Why the server last refused to start one of its matches (cleared when one starts)."""
    logged: dict[tuple[int, int], str] = field(default_factory=dict)
    """Per table of the current round, the wait last logged for it (one line per change)."""

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Event:
        """The tournament of a stored row (id, created_at, spec, state, entrants, started_at, ended_at), without
        its rounds and matches; ValueError or MALFORMED for one this server cannot read."""
        tournament_id, created_at, spec_bytes, state, entrants, started_at, ended_at = row
        spec = pb.TournamentSpec.FromString(spec_bytes)
        check_spec(spec)
        pb.TournamentState.Name(state)  # ValueError for a state this server does not have
        rules = rules_from_request(spec.preset, spec.rules)
        return cls(tournament_id=tournament_id, spec=spec, plan=plan_of(spec, rules), rules=rules,
                   clock=clock_from_proto(spec.clock), state=state, created_at=created_at,
                   entrants=[Entrant(**e) for e in json.loads(entrants)], started_at=started_at,
                   ended_at=ended_at)

    @property
    def forfeit(self) -> bool:
        """The fault rule FORFEIT (a tournament stored before the rule existed plays on)."""
        return self.spec.fault_rule == pb.TOURNAMENT_FAULT_RULE_FORFEIT

    @functools.cached_property
    def round_count(self) -> int:
        """Fixed by the format and the number of entrants (computing it builds a round robin's schedule)."""
        return count_rounds(self.plan, [e.account for e in self.entrants])

    @property
    def players(self) -> list[str]:
        return [e.player for e in self.entrants]

    def seatings(self) -> int:
        return self.rules.players if self.spec.duplicate else 1

    def table_done(self, round_: int, table: int) -> bool:
        return all((p := self.played.get((round_, table, s))) is not None and p.orders is not None
                   for s in range(self.seatings()))

    def round_done(self, round_: int) -> bool:
        return all(self.table_done(round_, t) for t in range(len(self.rounds[round_].tables)))

    def history(self) -> list[tuple[Pairing, list[TableResult]]]:
        """Every round begun, with the results of its finished tables."""
        out = []
        for r, pairing in enumerate(self.rounds):
            results = [self._result(r, t, table) for t, table in enumerate(pairing.tables) if self.table_done(r, t)]
            out.append((pairing, results))
        return out

    def _result(self, round_: int, table: int, entrants: tuple[str, ...]) -> TableResult:
        """A finished table's result: its seatings' deals in seating order, their forfeits, faults and absences."""
        played = [self.played[(round_, table, s)] for s in range(self.seatings())]
        faults: Counter[str] = Counter()
        server: Counter[str] = Counter()
        forfeits: list[frozenset[str]] = []
        for p in played:
            faults.update(dict(p.conduct.faults))
            server.update(dict(p.conduct.server_moves))
            deals = len(p.orders or ())
            forfeits += [p.conduct.forfeits[d] if d < len(p.conduct.forfeits) else frozenset() for d in range(deals)]
        return TableResult(round=round_, table=table, entrants=entrants,
                           orders=tuple(order for p in played for order in p.orders or ()), forfeits=tuple(forfeits),
                           faults=tuple(sorted(faults.items())), server_moves=tuple(sorted(server.items())),
                           absent=tuple(sorted({a for p in played for a in p.absent})))

    def due(self) -> list[tuple[int, tuple[str, ...], int]]:
        """The current round's tables with matches still to start: (table, players, matches not started)."""
        if not self.rounds:
            return []
        r = len(self.rounds) - 1
        out = []
        for t, table in enumerate(self.rounds[r].tables):
            missing = sum((r, t, s) not in self.played for s in range(self.seatings()))
            if missing:
                out.append((t, table, missing))
        return out


def conduct_of(runner: MatchRunner, rows: Sequence[tuple[Any, ...]]) -> Conduct:
    """Each seat's forfeited deals, faults and server-played moves in a finished match, from its stored actions
    `rows` (player, action, source, fault; replayed to learn each one's deal) and the faults the runner counted."""
    match = runner.match
    deals = [e.deal for e in match.events if isinstance(e, DealEnded)]
    forfeits: list[set[str]] = [set() for _ in deals]
    server: Counter[str] = Counter()
    try:
        replay = Match(match.rules, seed=match.seed, hands=match.deal_hands, seats=match.deal_seats,
                       pass_orders=match.pass_orders)
        for player, action, source, fault in rows:
            deal = replay.deal
            replay.apply(parse_action(action))
            if source != Source.SEAT or fault:
                if deal in deals:
                    forfeits[deals.index(deal)].add(runner.names[player])
                server[runner.names[player]] += source != Source.SEAT
    except ValueError:  # never expected: then every deal of a seat with such a move counts
        log.exception("match %s: its moves could not be replayed for the tournament's fault record",
                      runner.match_id)
        marked = {runner.names[player] for player, _, source, fault in rows if source != Source.SEAT or fault}
        forfeits = [set(marked) for _ in deals]
        server = Counter(runner.names[player] for player, _, source, _ in rows if source != Source.SEAT)
    faults = Counter({runner.names[p]: sum(counts.values()) for p, counts in enumerate(runner.faults)
                      if sum(counts.values())})
    return Conduct(forfeits=tuple(frozenset(f) for f in forfeits), faults=tuple(sorted(faults.items())),
                   server_moves=tuple(sorted(server.items())))


def orders_of(runner: MatchRunner) -> list[list[str]]:
    return [[runner.names[p] for p in e.places] for e in runner.match.events if isinstance(e, DealEnded)]


def entrants_json(entrants: Sequence[Entrant]) -> str:
    return json.dumps([{"account": e.account, "player": e.player, "version": e.version, "house": e.house}
                       for e in entrants])


def pairing_json(pairing: Pairing) -> str:
    return json.dumps({"tables": pairing.tables, "byes": pairing.byes, "stage": pairing.stage,
                       "groups": pairing.groups})


def pairing_from_json(text: str) -> Pairing:
    data = json.loads(text)
    return Pairing(tables=tuple(tuple(t) for t in data["tables"]), byes=tuple(data["byes"]), stage=data["stage"],
                   groups=tuple(tuple(g) for g in data["groups"]))

