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
- Entrants are accounts `entry.Entry` accepts.
- Faults: when a match ends, each deal a seat forfeited is recorded, with
  each entrant's faults and server-played moves (`event.Conduct`), in the
  transaction that stores the orders.
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
import json
import logging
import secrets
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from president_engine import board_hands
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError
from president_service.hosting.versions import Versions
from president_service.league.tournaments.entry import Entry
from president_service.league.tournaments.event import (
    Conduct,
    Entrant,
    Event,
    Played,
    Spot,
    conduct_of,
    entrants_json,
    orders_of,
    pairing_from_json,
    pairing_json,
)
from president_service.league.tournaments.pairing import next_round
from president_service.league.tournaments.plan import derive_seed
from president_service.league.tournaments.spec import checked_spec
from president_service.league.tournaments.view import state_name, tournament_message
from president_service.play.accounts import Accounts
from president_service.play.clock import ClockSettings
from president_service.play.match_request import (
    MatchRequest,
    shorten,
)
from president_service.play.match_runner import MatchRunner
from president_service.play.match_store import MatchKind, MatchStore, Statement
from president_service.play.registry import Registry
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
"""Added since the first schema: each finished match's forfeits, faults and server-played moves (`Conduct`)."""
_RETRY_S = 5.0
"""When a match could not start (a limit without a retry hint), how soon to try again."""
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

class Tournaments:
    def __init__(self, registry: Registry, sessions: Sessions, versions: Versions,
                 default_clock: ClockSettings) -> None:
        self._registry = registry
        self._store: MatchStore = registry.store
        self._accounts: Accounts = registry.accounts
        self._sessions = sessions
        self._versions = versions
        self._entry = Entry(self._accounts, versions)
        self._default_clock = default_clock
        self._events: dict[str, Event] = {}
        self._by_match: dict[str, tuple[str, Spot]] = {}
        self._live = False
        """Whether new matches may start (after the start grace of a restart)."""
        self._filling = False
        self._retrying: asyncio.TimerHandle | None = None
        self._finished: dict[str, Conduct] = {}
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
        event = Event.from_row(row)
        tournament_id = event.tournament_id
        for (pairing,) in self._store.query("SELECT pairing FROM tournament_rounds WHERE tournament_id = ?"
                                            " ORDER BY round", (tournament_id,)):
            event.rounds.append(pairing_from_json(pairing))
        by_match: dict[str, tuple[str, Spot]] = {}
        for match_id, round_, table, seating, absent, orders, conduct in self._store.query(
                "SELECT match_id, round, tbl, seating, absent, orders, conduct FROM tournament_matches"
                " WHERE tournament_id = ?", (tournament_id,)):
            event.played[(round_, table, seating)] = Played(
                match_id=match_id, absent=tuple(json.loads(absent)),
                orders=None if orders is None else tuple(tuple(o) for o in json.loads(orders)),
                conduct=Conduct.loads(conduct, match_id))
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
        spec, rules, clock, plan = checked_spec(spec, self._default_clock, self._accounts)
        self._entry.refuse_unready([name for name in spec.entrants if name not in spec.unchecked])
        event = Event(tournament_id=secrets.token_hex(6), spec=spec, plan=plan, rules=rules, clock=clock,
                      state=pb.TOURNAMENT_STATE_CREATED, created_at=time.time(),
                      entrants=[self._entry.entrant(name, pinned=False) for name in spec.entrants])
        self._write([("INSERT INTO tournaments (id, created_at, spec, state, entrants) VALUES (?,?,?,?,?)",
                      (event.tournament_id, event.created_at, spec.SerializeToString(), event.state,
                       entrants_json(event.entrants)))])
        self._events[event.tournament_id] = event
        self._arm(event)
        return self.message(event.tournament_id)

    def control(self, tournament_id: str, control: pb.TournamentControl.ValueType) -> pb.Tournament:
        event = self._event(tournament_id)
        if control not in _CONTROLS:
            raise ServiceError(Reason.MALFORMED, "control: start, pause, resume or cancel")
        allowed, state = _CONTROLS[control]
        if event.state not in allowed:
            raise ServiceError(Reason.TOURNAMENT_STATE,
                               f"tournament {tournament_id} is {state_name(event.state)}: it cannot be"
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

    def _begin(self, event: Event) -> None:
        """CREATED -> RUNNING: the entrants pinned at their current versions."""
        for name in event.spec.entrants:
            self._accounts.usable(name)
        entrants = [self._entry.entrant(name, pinned=True) for name in event.spec.entrants]
        now = time.time()
        self._write([("UPDATE tournaments SET state = ?, entrants = ?, started_at = ? WHERE id = ?",
                      (pb.TOURNAMENT_STATE_RUNNING, entrants_json(entrants), now, event.tournament_id))])
        event.state, event.entrants, event.started_at = pb.TOURNAMENT_STATE_RUNNING, entrants, now
        self._pin()

    def _arm(self, event: Event) -> None:
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

    def _retry(self, event: Event, exc: ServiceError) -> None:
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

    def _advance(self, event: Event) -> None:
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
                          (event.tournament_id, len(event.rounds), pairing_json(pairing)))])
            event.rounds.append(pairing)
        self._start_matches(event)

    def _start_matches(self, event: Event) -> None:
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

    def _start_match(self, event: Event, spot: Spot, table: list[Entrant]) -> None:
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
        event.played[spot] = Played(match_id=match_id, absent=absent)
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

    def _waiting(self, event: Event) -> dict[int, str]:
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

    def _log_wait(self, event: Event, round_: int, table: int) -> None:
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
                 (json.dumps(orders_of(runner)), conduct.dumps(), runner.match_id))]

    def _conduct(self, runner: MatchRunner) -> Conduct:
        return conduct_of(runner, self._store.query("SELECT player, action, source, fault FROM actions"
                                                    " WHERE match_id = ? ORDER BY turn", (runner.match_id,)))

    def _over(self, runner: MatchRunner) -> None:
        found = self._by_match.get(runner.match_id)
        if found is None:
            return
        tournament_id, spot = found
        played = self._events[tournament_id].played[spot]
        played.orders = tuple(tuple(o) for o in orders_of(runner))
        finished = self._finished.pop(runner.match_id) if runner.match_id in self._finished else None
        played.conduct = finished if finished is not None else self._conduct(runner)
        self.poke()

    # ------------------------------------------------------------------ reading

    def _event(self, tournament_id: str) -> Event:
        event = self._events.get(tournament_id)
        if event is None:
            raise ServiceError(Reason.UNKNOWN_TOURNAMENT, f"no tournament {shorten(tournament_id)}")
        return event

    def message(self, tournament_id: str, *, full: bool = True) -> pb.Tournament:
        """The tournament as the contract shows it; with `full` its standings and rounds, recomputed only when
        something changed since they were last asked for (a page polling it costs no more than a look-up)."""
        event = self._event(tournament_id)
        waiting = self._waiting(event) if full else {}
        return tournament_message(event, waiting, full=full)


    def listing(self) -> list[pb.Tournament]:
        return [self.message(i, full=False) for i in sorted(self._events, key=lambda i: -self._events[i].created_at)]

    def _write(self, statements: list[Statement]) -> None:
        try:
            self._store.write(statements)
        except Exception as exc:
            raise ServiceError(Reason.STORAGE, f"the tournament could not be saved: {exc}") from None

