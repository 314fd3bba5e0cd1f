"""Tournaments: events with a format, pinned entrants and standings, kept in the match database.

- A tournament is created with its rules, table size, clock, format and
  entrants (accounts), and is CREATED until it starts (ControlTournament, or
  its `start_at`).  Starting pins each entrant at its account's current
  version (`Versions.pin`: a later submission does not change a running
  event; the host keeps running the pinned version meanwhile) and names it as
  the arena does: the account, or `account@version`.
- Rounds come from `pairing.next_round`, a pure function of the
  finished rounds, so a round's pairing is computed once when the previous
  round is over and stored.  A round's tables are started as their
  entrants' accounts have room (their limits, and their Session's
  `max_matches`); with duplicate boards a table plays one set of hands in
  every rotation of its seats.
- An entrant whose account has no Session (or whose Session is not its
  pinned version's) when one of its table's matches starts is marked absent
  at that table: the match is played anyway and the server's clock plays its
  seat (strikes, then the autopilot) until it connects.
- Entrants are accounts with a READY, checked version (or whose own bot
  passed its check match), house bots, or accounts the organiser names in
  `unchecked`; anything else is refused (VERSION_STATE) with why, in one line.
- Faults: when a match ends, each deal in which the server played a move of
  a seat or its client reported one as a fallback is recorded as forfeited
  by that seat, with each entrant's faults and server-played moves, in the
  transaction that stores the orders; the standings score a forfeited deal
  last under the fault rule FORFEIT (the default) and count them all.
- Precedence over the arena: `reserved` tells the arena how many of an
  account's match slots a due table is waiting for, so the arena leaves them
  free; `waiting` says, per table, why one is not started and for whom.
- Nothing is lost or counted twice: a match's row here is written in the
  transaction that creates the match (so a crash never leaves a match the
  tournament does not know, or one it starts again), and its finishing
  orders in the transaction that stores its result.  Standings are always
  computed from those stored orders (`standings.standings`), so
  after a restart they equal a recomputation from the database.  A
  restarted server waits the registry's start grace before it starts new
  matches, so that Sessions have reconnected and are not marked absent.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import logging
import secrets
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from president_engine import PRESETS, Match, Rules, RulesError, board_hands, parse_action
from president_engine.events import DealEnded
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError
from president_service.hosting.versions import Versions, player_name
from president_service.league.tournaments.model import Pairing, TableResult
from president_service.league.tournaments.pairing import check as check_plan
from president_service.league.tournaments.pairing import next_round
from president_service.league.tournaments.pairing import round_count as count_rounds
from president_service.league.tournaments.plan import Format, PairingError, Plan, derive_seed
from president_service.league.tournaments.standings import stage_order, standings
from president_service.play.accounts import Accounts
from president_service.play.clock import ClockError, ClockSettings
from president_service.play.match_request import (
    MAX_SEED,
    MatchRequest,
    clock_from_proto,
    rules_from_request,
    shorten,
)
from president_service.play.match_runner import MatchRunner
from president_service.play.match_store import MatchKind, MatchStore, Source, Statement
from president_service.play.messages import clock_message, timestamp
from president_service.play.registry import Registry
from president_service.play.request_guard import check_message
from president_service.play.session import Sessions

log = logging.getLogger(__name__)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tournaments (id TEXT PRIMARY KEY, created_at REAL NOT NULL, spec BLOB NOT NULL,"
    " state INTEGER NOT NULL, entrants TEXT NOT NULL DEFAULT '[]', started_at REAL, ended_at REAL)",
    "CREATE TABLE IF NOT EXISTS tournament_rounds (tournament_id TEXT NOT NULL, round INTEGER NOT NULL,"
    " pairing TEXT NOT NULL, PRIMARY KEY (tournament_id, round))",
    "CREATE TABLE IF NOT EXISTS tournament_matches (match_id TEXT PRIMARY KEY, tournament_id TEXT NOT NULL,"
    " round INTEGER NOT NULL, tbl INTEGER NOT NULL, seating INTEGER NOT NULL, absent TEXT NOT NULL, orders TEXT)",
)
_CONDUCT_COLUMN = "ALTER TABLE tournament_matches ADD COLUMN conduct TEXT"
"""Added since the first schema: each finished match's forfeits, faults and server-played moves (`_Conduct`)."""
NAME_CHARS = 64
_RETRY_S = 5.0
"""When a match could not start (a limit without a retry hint), how soon to try again."""
MAX_ENTRANTS = 1_000
MAX_ROUNDS = 1_000
"""The most rounds (Swiss) or cycles (a round robin's) a tournament may ask for."""
_FORMATS = {pb.TOURNAMENT_FORMAT_ROUND_ROBIN: Format.ROUND_ROBIN, pb.TOURNAMENT_FORMAT_SWISS: Format.SWISS,
            pb.TOURNAMENT_FORMAT_STAGES: Format.STAGES}
_OVER = (pb.TOURNAMENT_STATE_FINISHED, pb.TOURNAMENT_STATE_CANCELLED)
_CONTROLS: dict[pb.TournamentControl.ValueType, tuple[tuple[pb.TournamentState.ValueType, ...],
                                                        pb.TournamentState.ValueType]] = {
    pb.TOURNAMENT_CONTROL_START: ((pb.TOURNAMENT_STATE_CREATED,), pb.TOURNAMENT_STATE_RUNNING),
    pb.TOURNAMENT_CONTROL_PAUSE: ((pb.TOURNAMENT_STATE_RUNNING,), pb.TOURNAMENT_STATE_PAUSED),
    pb.TOURNAMENT_CONTROL_RESUME: ((pb.TOURNAMENT_STATE_PAUSED,), pb.TOURNAMENT_STATE_RUNNING),
    pb.TOURNAMENT_CONTROL_CANCEL: ((pb.TOURNAMENT_STATE_CREATED, pb.TOURNAMENT_STATE_RUNNING,
                                    pb.TOURNAMENT_STATE_PAUSED), pb.TOURNAMENT_STATE_CANCELLED),
}
_DONE = {pb.TOURNAMENT_CONTROL_START: "started", pb.TOURNAMENT_CONTROL_PAUSE: "paused",
         pb.TOURNAMENT_CONTROL_RESUME: "resumed", pb.TOURNAMENT_CONTROL_CANCEL: "cancelled"}
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
class _Conduct:
    """How a finished match's seats were played, by player name: what the fault rules read."""

    forfeits: tuple[frozenset[str], ...] = ()
    """Per deal, the players that forfeited it (a move the server played, or a reported fallback)."""
    faults: tuple[tuple[str, int], ...] = ()
    server_moves: tuple[tuple[str, int], ...] = ()

    def dumps(self) -> str:
        return json.dumps({"forfeits": [sorted(f) for f in self.forfeits], "faults": dict(self.faults),
                           "server_moves": dict(self.server_moves)})

    @classmethod
    def loads(cls, text: str | None, match_id: str) -> _Conduct:
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
class _Played:
    match_id: str
    absent: tuple[str, ...]
    orders: tuple[tuple[str, ...], ...] | None = None
    """Each deal's finishing order by player, once the match is over."""
    conduct: _Conduct = field(default_factory=_Conduct)


@dataclass(kw_only=True)
class _Event:
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
    played: dict[Spot, _Played] = field(default_factory=dict)
    timer: asyncio.TimerHandle | None = None
    shown: tuple[tuple[Any, ...], pb.Tournament] | None = None
    """The last full message, with what it was built from (`Tournaments.message`)."""
    refused: str = ""
    """Why the server last refused to start one of its matches (cleared when one starts)."""
    logged: dict[tuple[int, int], str] = field(default_factory=dict)
    """Per table of the current round, the wait last logged for it (one line per change)."""

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


class Tournaments:
    def __init__(self, registry: Registry, sessions: Sessions, versions: Versions,
                 default_clock: ClockSettings) -> None:
        self._registry = registry
        self._store: MatchStore = registry.store
        self._accounts: Accounts = registry.accounts
        self._sessions = sessions
        self._versions = versions
        self._default_clock = default_clock
        self._events: dict[str, _Event] = {}
        self._by_match: dict[str, tuple[str, Spot]] = {}
        self._live = False
        """Whether new matches may start (after the start grace of a restart)."""
        self._filling = False
        self._retrying: asyncio.TimerHandle | None = None
        self._finished: dict[str, _Conduct] = {}
        """A match's fault record between the commit of its result and `_over` (computed once)."""
        self._store.write([(sql, ()) for sql in _SCHEMA])
        if "conduct" not in {row[1] for row in self._store.query("PRAGMA table_info(tournament_matches)")}:
            self._store.write([(_CONDUCT_COLUMN, ())])
        self._store.load_each("tournament", self._store.query(
            "SELECT id, created_at, spec, state, entrants, started_at, ended_at FROM tournaments ORDER BY created_at"),
            lambda row: row[0], self._load)
        self._pin()
        registry.finishing.append(self._finishing)
        registry.on_over.append(self._over)
        sessions.on_change.append(self.poke)

    def _load(self, row: tuple[Any, ...]) -> None:
        tournament_id, created_at, spec_bytes, state, entrants, started_at, ended_at = row
        spec = pb.TournamentSpec.FromString(spec_bytes)
        check_spec(spec)
        pb.TournamentState.Name(state)  # ValueError for a state this server does not have
        rules = rules_from_request(spec.preset, spec.rules)
        event = _Event(tournament_id=tournament_id, spec=spec, plan=_plan(spec, rules), rules=rules,
                       clock=clock_from_proto(spec.clock), state=state, created_at=created_at,
                       entrants=[Entrant(**e) for e in json.loads(entrants)], started_at=started_at,
                       ended_at=ended_at)
        for (pairing,) in self._store.query("SELECT pairing FROM tournament_rounds WHERE tournament_id = ?"
                                            " ORDER BY round", (tournament_id,)):
            event.rounds.append(_pairing_from_json(pairing))
        by_match: dict[str, tuple[str, Spot]] = {}
        for match_id, round_, table, seating, absent, orders, conduct in self._store.query(
                "SELECT match_id, round, tbl, seating, absent, orders, conduct FROM tournament_matches"
                " WHERE tournament_id = ?", (tournament_id,)):
            event.played[(round_, table, seating)] = _Played(
                match_id=match_id, absent=tuple(json.loads(absent)),
                orders=None if orders is None else tuple(tuple(o) for o in json.loads(orders)),
                conduct=_Conduct.loads(conduct, match_id))
            by_match[match_id] = (tournament_id, (round_, table, seating))
        self._by_match.update(by_match)  # only once the whole tournament is read
        self._events[tournament_id] = event

    def start(self, grace_s: float) -> None:
        """Begin running: after `grace_s` (the Sessions of a restarted server reconnect meanwhile) the running
        tournaments start what they have to; timers are set for those that start at a time."""
        for event in self._events.values():
            self._arm(event)
        if any(event.state == pb.TOURNAMENT_STATE_RUNNING for event in self._events.values()):
            asyncio.get_running_loop().call_later(grace_s, self._go_live)
        else:
            self._go_live()

    def _go_live(self) -> None:
        self._live = True
        self.poke()

    def close(self) -> None:
        if self._retrying is not None:
            self._retrying.cancel()
        for event in self._events.values():
            if event.timer is not None:
                event.timer.cancel()
        self._live = False

    # ------------------------------------------------------------------ creating and controlling

    def create(self, spec: pb.TournamentSpec) -> pb.Tournament:
        if not 1 <= len(spec.name) <= NAME_CHARS or not spec.name.isprintable():
            raise ServiceError(Reason.MALFORMED, f"name: 1 to {NAME_CHARS} printable characters")
        if spec.preset not in PRESETS:
            raise ServiceError(Reason.BAD_OPTION, f"preset: unknown preset {shorten(spec.preset)}"
                                                  f" (known: {', '.join(PRESETS)})", {"option": "preset"})
        try:
            rules = rules_from_request(spec.preset, spec.rules)
            clock = clock_from_proto(spec.clock) if spec.HasField("clock") else self._default_clock
        except (RulesError, ClockError) as exc:
            raise ServiceError(Reason.BAD_OPTION, str(exc), {"option": exc.option}) from None
        if not 3 <= rules.players <= 6:
            raise ServiceError(Reason.BAD_OPTION, f"players: tables of 3 to 6, not {rules.players}",
                               {"option": "players"})
        if spec.format not in _FORMATS:
            raise ServiceError(Reason.BAD_OPTION, "format: round robin, swiss or stages", {"option": "format"})
        if spec.HasField("seed") and spec.seed > MAX_SEED:
            raise ServiceError(Reason.BAD_OPTION, f"seed: at most {MAX_SEED}", {"option": "seed"})
        if spec.rounds > MAX_ROUNDS:
            raise ServiceError(Reason.BAD_OPTION, f"rounds: at most {MAX_ROUNDS}", {"option": "rounds"})
        if len(spec.entrants) > MAX_ENTRANTS:
            raise ServiceError(Reason.BAD_OPTION, f"entrants: at most {MAX_ENTRANTS}", {"option": "entrants"})
        for name in spec.entrants:
            self._accounts.usable(name)
        if spec.fault_rule not in (pb.TOURNAMENT_FAULT_RULE_UNSPECIFIED, pb.TOURNAMENT_FAULT_RULE_FORFEIT,
                                   pb.TOURNAMENT_FAULT_RULE_PLAY_ON):
            raise ServiceError(Reason.BAD_OPTION, "fault_rule: forfeit or play on", {"option": "fault_rule"})
        strangers = [name for name in spec.unchecked if name not in spec.entrants]
        if strangers:
            raise ServiceError(Reason.BAD_OPTION, f"unchecked: {shorten(strangers[0])} is not an entrant",
                               {"option": "unchecked"})
        spec = _copy(spec)
        if not spec.HasField("seed"):
            spec.seed = secrets.randbelow(MAX_SEED)
        if spec.fault_rule == pb.TOURNAMENT_FAULT_RULE_UNSPECIFIED:
            spec.fault_rule = pb.TOURNAMENT_FAULT_RULE_FORFEIT
        spec.clock.CopyFrom(clock_message(clock))
        spec.rules.CopyFrom(convert.rules_to_proto(rules))  # every option in force, the table size included
        plan = _plan(spec, rules)
        try:
            check_plan(plan, list(spec.entrants))
        except PairingError as exc:
            raise ServiceError(Reason.BAD_OPTION, str(exc), {"option": "format"}) from None
        self._refuse_unready([name for name in spec.entrants if name not in spec.unchecked])
        event = _Event(tournament_id=secrets.token_hex(6), spec=spec, plan=plan, rules=rules, clock=clock,
                       state=pb.TOURNAMENT_STATE_CREATED, created_at=time.time(),
                       entrants=[self._entrant(name, pinned=False) for name in spec.entrants])
        self._write([("INSERT INTO tournaments (id, created_at, spec, state, entrants) VALUES (?,?,?,?,?)",
                      (event.tournament_id, event.created_at, spec.SerializeToString(), event.state,
                       _entrants_json(event.entrants)))])
        self._events[event.tournament_id] = event
        self._arm(event)
        return self.message(event.tournament_id)

    def _refuse_unready(self, names: Sequence[str]) -> None:
        """VERSION_STATE, naming every entrant without a READY, checked version (nor a passed check match of its
        own bot), and why: the organiser enters such an account only by naming it in `unchecked`."""
        why = {name: reason for name in names if (reason := self.unready(name))}
        if why:
            first = next(iter(why))
            listed = "; ".join(f"{name}: {reason}" for name, reason in why.items())
            raise ServiceError(Reason.VERSION_STATE, f"not ready to be entered: {listed} (name them in unchecked to"
                               " enter them anyway)", {"accounts": ",".join(why), "account": first,
                                                         "state": self._newest_state(first)})

    def unready(self, account: str) -> str:
        """Why the account cannot be entered without being named in `unchecked` ("" when it can)."""
        if self._accounts.get(account).house:
            return ""
        current = self._versions.current.get(account)
        if current:
            return "" if self._versions.checked(current) else f"its version {current} has not passed its check match"
        newest = self._versions.listing(account)[:1]
        if newest:
            version = newest[0]
            state = pb.VersionState.Name(version.state).removeprefix("VERSION_STATE_")
            return f"no READY version (its newest, {version.version_id}, is {state}" + (
                f": {' '.join(version.reason.split())[:200]})" if version.reason.strip() else ")")
        if self._accounts.get(account).checked:
            return ""
        return "no version, and its own bot has not passed a check match"

    def _newest_state(self, account: str) -> str:
        newest = self._versions.listing(account)[:1]
        return pb.VersionState.Name(newest[0].state if newest else pb.VERSION_STATE_UNSPECIFIED)

    def _entrant(self, account: str, *, pinned: bool) -> Entrant:
        version = self._versions.current.get(account, "") if pinned else ""
        return Entrant(account=account, player=player_name(account, version) if version else account,
                       version=version, house=self._accounts.get(account).house)

    def control(self, tournament_id: str, control: pb.TournamentControl.ValueType) -> pb.Tournament:
        event = self._event(tournament_id)
        if control not in _CONTROLS:
            raise ServiceError(Reason.MALFORMED, "control: start, pause, resume or cancel")
        allowed, state = _CONTROLS[control]
        if event.state not in allowed:
            raise ServiceError(Reason.TOURNAMENT_STATE,
                               f"tournament {tournament_id} is {_state_name(event.state)}: it cannot be"
                               f" {_DONE[control]}", {"state": pb.TournamentState.Name(event.state)})
        if control == pb.TOURNAMENT_CONTROL_START:
            self._begin(event)
        else:
            ended = time.time() if state == pb.TOURNAMENT_STATE_CANCELLED else None
            self._write([("UPDATE tournaments SET state = ?, ended_at = ? WHERE id = ?",
                          (state, ended, tournament_id))])
            event.state, event.ended_at = state, ended
            if ended is not None:
                self._pin()
        if event.timer is not None and event.state != pb.TOURNAMENT_STATE_CREATED:
            event.timer.cancel()
            event.timer = None
        self.poke()
        return self.message(tournament_id)

    def _begin(self, event: _Event) -> None:
        """CREATED -> RUNNING: the entrants pinned at their current versions."""
        for name in event.spec.entrants:
            self._accounts.usable(name)
        entrants = [self._entrant(name, pinned=True) for name in event.spec.entrants]
        now = time.time()
        self._write([("UPDATE tournaments SET state = ?, entrants = ?, started_at = ? WHERE id = ?",
                      (pb.TOURNAMENT_STATE_RUNNING, _entrants_json(entrants), now, event.tournament_id))])
        event.state, event.entrants, event.started_at = pb.TOURNAMENT_STATE_RUNNING, entrants, now
        self._pin()

    def _arm(self, event: _Event) -> None:
        """A CREATED tournament with a start time starts by itself then."""
        if event.state != pb.TOURNAMENT_STATE_CREATED or not event.spec.HasField("start_at") or event.timer:
            return
        wait = max(0.0, event.spec.start_at.ToNanoseconds() / 1e9 - time.time())
        event.timer = asyncio.get_running_loop().call_later(wait, self._start_on_time, event.tournament_id)

    def _start_on_time(self, tournament_id: str) -> None:
        event = self._events[tournament_id]
        event.timer = None
        try:
            self.control(tournament_id, pb.TOURNAMENT_CONTROL_START)
        except ServiceError as exc:
            log.warning("tournament %s could not start at its time: %s", tournament_id, exc.message)

    def _pin(self) -> None:
        """Hold every running (or paused) tournament's entrants at their pinned versions."""
        self._versions.pin({e.account: e.version for event in self._events.values()
                            if event.state in (pb.TOURNAMENT_STATE_RUNNING, pb.TOURNAMENT_STATE_PAUSED)
                            for e in event.entrants if e.version})

    # ------------------------------------------------------------------ rounds and matches

    def poke(self) -> None:
        """Something changed (a match ended, a Session came or went): start what can start, soon."""
        if not self._live and self._all_back():
            self._live = True  # a restart's grace ends early once every running event's entrant is connected
        if self._live and not self._filling:
            self._filling = True
            asyncio.get_running_loop().call_soon(self._fill_all)

    def _all_back(self) -> bool:
        return all(self._present(e) for event in self._events.values() if event.state == pb.TOURNAMENT_STATE_RUNNING
                   for e in event.entrants if not self._accounts.get(e.account).revoked)

    def _fill_all(self) -> None:
        self._filling = False
        for event in list(self._events.values()):
            if event.state == pb.TOURNAMENT_STATE_RUNNING:
                try:
                    self._advance(event)
                except ServiceError as exc:  # the database, or the server's limit of matches
                    self._retry(event, exc)

    def _retry(self, event: _Event, exc: ServiceError) -> None:
        """A match that could not start (a limit): try again when the refusal says, or at the next change; one
        retry pending at a time, and one line for it."""
        event.refused = exc.message
        if self._retrying is not None:
            return
        wait = exc.retry_after_s or _RETRY_S
        log.warning("tournament %s: %s; it tries again in %.0f s or at the next change", event.tournament_id,
                    exc.message, wait)
        self._retrying = asyncio.get_running_loop().call_later(wait, self._retried)

    def _retried(self) -> None:
        self._retrying = None
        self.poke()

    def _advance(self, event: _Event) -> None:
        """Pair the next round once the current one is over (or finish the tournament), then start matches."""
        if not event.rounds or event.round_done(len(event.rounds) - 1):
            pairing = next_round(event.plan, event.players, event.history())
            if pairing is None:
                now = time.time()
                self._write([("UPDATE tournaments SET state = ?, ended_at = ? WHERE id = ?",
                              (pb.TOURNAMENT_STATE_FINISHED, now, event.tournament_id))])
                event.state, event.ended_at = pb.TOURNAMENT_STATE_FINISHED, now
                self._pin()
                log.info("tournament %s is over", event.tournament_id)
                return
            self._write([("INSERT INTO tournament_rounds VALUES (?,?,?)",
                          (event.tournament_id, len(event.rounds), _pairing_json(pairing)))])
            event.rounds.append(pairing)
        self._start_matches(event)

    def _start_matches(self, event: _Event) -> None:
        """Start the current round's matches whose players all have room, each table's first seating first."""
        round_ = len(event.rounds) - 1
        tables = event.rounds[round_].tables
        by_player = {e.player: e for e in event.entrants}
        for seating in range(event.seatings()):
            for t, table in enumerate(tables):
                if (round_, t, seating) in event.played:
                    continue
                entrants = [by_player[p] for p in table]
                if not all(self._room(e.account) for e in entrants):
                    self._log_wait(event, round_, t)
                    continue
                try:
                    self._start_match(event, (round_, t, seating), entrants)
                except ServiceError as exc:
                    if exc.metadata.get("account") not in {e.account for e in entrants}:
                        raise  # not one account's limit (the server's): nothing else can start either
                    self._retry(event, exc)  # one account's limit (its day): the other tables go on

    def _room(self, account: str) -> bool:
        session = self._sessions.by_account.get(account)
        most = self._registry.limits.account_matches
        if session is not None and not session.ending:
            most = min(most, session.max_matches)
        return len(self._registry.seats_of(account)) < most

    def _start_match(self, event: _Event, spot: Spot, table: list[Entrant]) -> None:
        round_, t, seating = spot
        players = len(table)
        seated = table[-seating:] + table[:-seating] if seating else table  # rotation `seating` of the table
        seed = derive_seed(event.spec.seed, round_, t)
        hands = board_hands(event.rules, seed) if event.spec.duplicate else ()
        by_entrant = {e.player: derive_seed(event.spec.seed, round_, t, i) for i, e in enumerate(table)}
        absent = tuple(e.player for e in seated if not self._present(e))
        # A revoked entrant's seat is no account's: the clock plays it (absent), and the event goes on.
        accounts = tuple("" if self._accounts.get(e.account).revoked else e.account for e in seated)
        match_id = secrets.token_hex(8)
        self._registry.create(MatchRequest(
            preset=event.spec.preset, rules=event.rules, seed=seed if event.spec.duplicate else
            derive_seed(event.spec.seed, round_, t, seating, players), hands=hands, clock=event.clock,
            names=tuple(e.player for e in seated), open_seats=False, accounts=accounts,
            kind=MatchKind.TOURNAMENT, bot_seeds=tuple(by_entrant[e.player] for e in seated), match_id=match_id,
            also=(("INSERT INTO tournament_matches (match_id, tournament_id, round, tbl, seating, absent)"
                   " VALUES (?,?,?,?,?,?)", (match_id, event.tournament_id, round_, t, seating, json.dumps(absent))),)))
        event.played[spot] = _Played(match_id=match_id, absent=absent)
        event.refused = ""
        event.logged.pop((round_, t), None)
        self._by_match[match_id] = (event.tournament_id, spot)

    def reserved(self, account: str) -> int:
        """How many match slots of the account the running tournaments' due tables wait for: the arena leaves
        them free (and so holds the account) until those matches have started."""
        if not self._live:
            return 0
        return sum(missing for event in self._events.values() if event.state == pb.TOURNAMENT_STATE_RUNNING
                   for _, table, missing in event.due()
                   for e in event.entrants if e.player in table and e.account == account)

    def _busy(self, account: str) -> str:
        """Why the account has no room for another match now ("" when it has): its matches and its limit."""
        if self._room(account):
            return ""
        session = self._sessions.by_account.get(account)
        most = self._registry.limits.account_matches
        if session is not None and not session.ending:
            most = min(most, session.max_matches)
        kinds = Counter(runner.kind.name.lower() for runner, _ in self._registry.seats_of(account))
        detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        return f"{account} plays {sum(kinds.values())} of its {most} matches at once ({detail})"

    def _waiting(self, event: _Event) -> dict[int, str]:
        """Per table of the current round with a match still to start, why it has not started and for whom."""
        out: dict[int, str] = {}
        if event.state not in (pb.TOURNAMENT_STATE_RUNNING, pb.TOURNAMENT_STATE_PAUSED):
            return out
        by_player = {e.player: e for e in event.entrants}
        for t, table, _ in event.due():
            if event.state == pb.TOURNAMENT_STATE_PAUSED:
                out[t] = "the tournament is paused"
            elif not self._live:
                missing = [e.player for e in (by_player[p] for p in table) if not self._present(e)]
                out[t] = ("the server restarted: waiting for the entrants' bots to reconnect"
                          + (f" ({', '.join(missing)})" if missing else ""))
            elif busy := [why for p in table if (why := self._busy(by_player[p].account))]:
                out[t] = "waiting for room: " + "; ".join(busy) + (
                    " (the arena starts none of theirs meanwhile)" if any("arena" in b for b in busy) else "")
            elif event.refused:
                out[t] = f"the server refused its match: {event.refused}; trying again"
        return out

    def _log_wait(self, event: _Event, round_: int, table: int) -> None:
        """One line when a table starts waiting for room, or waits for other accounts than before."""
        tables = event.rounds[round_].tables
        by_player = {e.player: e for e in event.entrants}
        who = ", ".join(e.account for p in tables[table] if not self._room((e := by_player[p]).account))
        if event.logged.get((round_, table)) != who:
            event.logged[(round_, table)] = who
            log.info("tournament %s round %d table %d waits for room: %s", event.tournament_id, round_ + 1,
                     table + 1, "; ".join(self._busy(by_player[p].account) for p in tables[table]
                                          if not self._room(by_player[p].account)))

    def _present(self, entrant: Entrant) -> bool:
        session = self._sessions.by_account.get(entrant.account)
        return session is not None and not session.ending and session.version == entrant.version

    def _finishing(self, runner: MatchRunner) -> Sequence[Statement]:
        """A tournament match's finishing orders, committed with its result."""
        if runner.match_id not in self._by_match:
            return ()
        conduct = self._finished[runner.match_id] = self._conduct(runner)
        return [("UPDATE tournament_matches SET orders = ?, conduct = ? WHERE match_id = ?",
                 (json.dumps(_orders(runner)), conduct.dumps(), runner.match_id))]

    def _conduct(self, runner: MatchRunner) -> _Conduct:
        """Each seat's forfeited deals, faults and server-played moves in a finished match, from its stored
        actions (replayed to learn each one's deal) and the faults the runner counted."""
        rows = self._store.query("SELECT player, action, source, fault FROM actions WHERE match_id = ?"
                                 " ORDER BY turn", (runner.match_id,))
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
        return _Conduct(forfeits=tuple(frozenset(f) for f in forfeits), faults=tuple(sorted(faults.items())),
                        server_moves=tuple(sorted(server.items())))

    def _over(self, runner: MatchRunner) -> None:
        found = self._by_match.get(runner.match_id)
        if found is None:
            return
        tournament_id, spot = found
        played = self._events[tournament_id].played[spot]
        played.orders = tuple(tuple(o) for o in _orders(runner))
        finished = self._finished.pop(runner.match_id) if runner.match_id in self._finished else None
        played.conduct = finished if finished is not None else self._conduct(runner)
        self.poke()

    # ------------------------------------------------------------------ reading

    def _event(self, tournament_id: str) -> _Event:
        event = self._events.get(tournament_id)
        if event is None:
            raise ServiceError(Reason.UNKNOWN_TOURNAMENT, f"no tournament {shorten(tournament_id)}")
        return event

    def message(self, tournament_id: str, *, full: bool = True) -> pb.Tournament:
        """The tournament as the contract shows it; with `full` its standings and rounds, recomputed only when
        something changed since they were last asked for (a page polling it costs no more than a look-up)."""
        event = self._event(tournament_id)
        waiting = self._waiting(event) if full else {}
        key = (event.state, len(event.rounds), len(event.played), sum(p.orders is not None
                                                                       for p in event.played.values()),
               tuple(sorted(waiting.items())))
        if full and event.shown is not None and event.shown[0] == key:
            return event.shown[1]
        out = pb.Tournament(
            tournament_id=event.tournament_id, spec=event.spec, state=event.state,
            round_count=event.round_count, rounds_begun=len(event.rounds),
            entrants=[pb.TournamentEntrant(account=e.account, player=e.player, version_id=e.version, house=e.house)
                      for e in event.entrants],
            created_at=timestamp(event.created_at),
            started_at=_stamp(event.started_at), ended_at=_stamp(event.ended_at))
        if full:
            history = event.history()
            ranked = standings(event.players, event.rules.players, history, forfeit=event.forfeit)
            if event.plan.format is Format.STAGES:  # the stage reached ranks first
                at = {name: i for i, name in enumerate(stage_order(event.players, event.rules.players, history,
                                                                   forfeit=event.forfeit))}
                ranked = [dataclasses.replace(s, rank=rank) for rank, s in
                          enumerate(sorted(ranked, key=lambda s: at[s.entrant]), 1)]
            for s in ranked:
                out.standings.append(pb.TournamentStanding(
                    rank=s.rank, player=s.entrant, points=s.points, tables=s.tables, deals=s.deals, byes=s.byes,
                    mean_place=s.mean_place.mean, mean_place_low=s.mean_place.low, mean_place_high=s.mean_place.high,
                    mu=s.mu, sigma=s.sigma, ordinal=s.ordinal, head_to_head=s.head_to_head, buchholz=s.buchholz,
                    faults=s.faults, server_moves=s.server_moves, absences=s.absences, forfeits=s.forfeits))
            for r, pairing in enumerate(event.rounds):
                round_message = out.rounds.add(number=r + 1, stage=pairing.stage + 1 if pairing.groups else 0,
                                               byes=pairing.byes)
                for t, table in enumerate(pairing.tables):
                    played = [event.played[(r, t, s)] for s in range(event.seatings()) if (r, t, s) in event.played]
                    round_message.tables.add(
                        players=table, match_ids=[p.match_id for p in played],
                        absent=sorted({a for p in played for a in p.absent}), finished=event.table_done(r, t),
                        waiting=waiting.get(t, "") if r == len(event.rounds) - 1 else "")
            event.shown = (key, out)
        return out

    def listing(self) -> list[pb.Tournament]:
        return [self.message(i, full=False) for i in sorted(self._events, key=lambda i: -self._events[i].created_at)]

    def _write(self, statements: list[Statement]) -> None:
        try:
            self._store.write(statements)
        except Exception as exc:
            raise ServiceError(Reason.STORAGE, f"the tournament could not be saved: {exc}") from None


def check_spec(spec: pb.TournamentSpec) -> None:
    """MALFORMED for a stored spec this server would refuse at CreateTournament: a field it does not know, a
    `start_at` that is not a time (a row stored by a server that did not check it cannot stop this one)."""
    check_message(spec)


def _plan(spec: pb.TournamentSpec, rules: Rules) -> Plan:
    return Plan(format=_FORMATS.get(spec.format, Format.SWISS), players=rules.players, rounds=spec.rounds,
                seed=spec.seed, group_size=spec.group_size, advance=spec.advance,
                forfeit=spec.fault_rule == pb.TOURNAMENT_FAULT_RULE_FORFEIT)


def _copy(spec: pb.TournamentSpec) -> pb.TournamentSpec:
    copy = pb.TournamentSpec()
    copy.CopyFrom(spec)
    return copy


def _orders(runner: MatchRunner) -> list[list[str]]:
    return [[runner.names[p] for p in e.places] for e in runner.match.events if isinstance(e, DealEnded)]


def _entrants_json(entrants: Sequence[Entrant]) -> str:
    return json.dumps([{"account": e.account, "player": e.player, "version": e.version, "house": e.house}
                       for e in entrants])


def _pairing_json(pairing: Pairing) -> str:
    return json.dumps({"tables": pairing.tables, "byes": pairing.byes, "stage": pairing.stage,
                       "groups": pairing.groups})


def _pairing_from_json(text: str) -> Pairing:
    data = json.loads(text)
    return Pairing(tables=tuple(tuple(t) for t in data["tables"]), byes=tuple(data["byes"]), stage=data["stage"],
                   groups=tuple(tuple(g) for g in data["groups"]))


def _state_name(state: pb.TournamentState.ValueType) -> str:
    return pb.TournamentState.Name(state).removeprefix("TOURNAMENT_STATE_").lower()


def _stamp(unix: float | None) -> Timestamp | None:
    return None if unix is None else timestamp(unix)
