"""The match log in SQLite: what a match was created with, and every action applied, in order.

A match is rebuilt after a crash by replaying its stored actions on a fresh
engine `Match` (the rules, seed and any explicit hands and seats are stored
at creation), so the per-move write is one small INSERT.  WAL mode with
synchronous=NORMAL: a committed move survives the process being killed (not
necessarily a power cut).  Such a commit only appends to the WAL file (no
fsync), so writes run inline on the caller's thread: cheaper than a
hop to another thread and back, and the write is durable when the call
returns.  What can take milliseconds runs on one background thread with its
own connection: reads (WAL readers see committed data only) and checkpoints
(the writer's automatic checkpoint, which fsyncs, is off).

A checkpoint that only copies (PASSIVE) never lets the WAL start over while
moves keep coming: the WAL is rewound only by a write that finds every frame
already copied, and writes land during each copy.  So each checkpoint copies
first, then copies the rest and empties the WAL with writers held for that
short part (TRUNCATE), and a checkpoint is never started while the last one
still runs, so the WAL holds at most two checkpoints' worth of commits.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from enum import Enum, IntEnum
from pathlib import Path
from typing import Any, TypeVar

from president_engine import CardSet, Fault, Match, Rules
from president_protocol import convert

from president_service.play.clock import ClockSettings
from president_service.play.match_schema import create_or_migrate

_T = TypeVar("_T")
_R = TypeVar("_R")
_CHECKPOINT_EVERY = 500
"""Commits between two checkpoints (SQLite's automatic one comes after about 1000 pages)."""

log = logging.getLogger(__name__)


class MatchKind(Enum):
    """Who made a match (stored as its value)."""

    ORGANISED = ""
    """An organiser's, by CreateMatch."""
    ARENA = "arena"
    """A rated arena match."""
    CHECK = "check"
    """A new account's check match against the house bots."""
    CHALLENGE = "challenge"
    """One account's challenge to others."""
    TOURNAMENT = "tournament"
    """A match of a tournament's round."""


class Source(IntEnum):
    """Who chose a stored action."""

    SEAT = 0
    TIMEOUT = 1
    """The server, because the seat ran out of time or had no client for the absence limit (a strike)."""
    AUTOPILOT = 2
    """The server, playing a seat that has used up its strikes."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ActionRow:
    turn: int
    player: int
    action: str
    """The engine's text form (president_engine.parse_action reads it back)."""
    source: Source
    spent_ms: int
    fault: Fault | None = None
    """What the seat's client reported this action a fallback for (stored as the contract's BotFault number)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class StoredMatch:
    match_id: str
    created_at: float
    preset: str
    rules: Rules
    seed: int
    hands: tuple[tuple[CardSet, ...], ...] | None
    seats: tuple[tuple[int, ...] | None, ...] | None = None
    """For the deals given hands, the players by seat (None: the rules' seating); None when no deal has them."""
    pass_orders: tuple[tuple[int, ...] | None, ...] = ()
    """For the deals given hands, the order of the pass limit's places (None: drawn); empty when none has one."""
    clock: ClockSettings
    names: tuple[str, ...]
    open_seats: bool
    token_hashes: tuple[bytes, ...]
    claimed: tuple[bool, ...]
    named: tuple[bool, ...]
    """By player: whether the seat has its name (from CreateMatch, its account, JoinMatch or its bot's Hello);
    a seat without one shows a default and takes the first name its bot gives."""
    actions: tuple[ActionRow, ...] = ()
    finished: bool = False
    accounts: tuple[str, ...] = ()
    """The account holding each player's seat ("" for none); empty when no seat is an account's."""
    kind: MatchKind = MatchKind.ORGANISED
    bot_seeds: tuple[int | None, ...] = ()
    """The seed the creator chose for each player's bot (None: none); empty when none was chosen."""


@dataclass(frozen=True, kw_only=True, slots=True)
class FinishedSummary:
    """What a list of matches shows of a finished match, without replaying it."""

    match_id: str
    created_at: float
    preset: str
    rules: Rules
    names: tuple[str, ...]
    result: MatchResult
    ended_at: float
    """When its result was stored (its creation for a match stored before the server kept that)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class MatchResult:
    """How an ended match came out, as the store keeps it (JSON in `matches.result`)."""

    winner: int
    totals: tuple[int, ...]
    """Points by player."""
    last_places: tuple[int, ...]
    """The last deal's players in finishing order."""

    @classmethod
    def of(cls, match: Match) -> MatchResult:
        assert match.winner is not None, "the match is not over"
        return cls(winner=match.winner, totals=tuple(match.scores), last_places=tuple(match.last_places))

    def dumps(self) -> str:
        return json.dumps({"winner": self.winner, "totals": list(self.totals), "last_places": list(self.last_places)})

    @classmethod
    def loads(cls, text: str) -> MatchResult:
        stored = json.loads(text)
        return cls(winner=int(stored["winner"]), totals=tuple(stored["totals"]),
                   last_places=tuple(stored["last_places"]))


Statement = tuple[str, tuple[Any, ...]]


class MatchStore:
    def __init__(self, path: str) -> None:
        """Open (or create, with its folder) the database at `path`."""
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA wal_autocheckpoint=0")
        create_or_migrate(self._db)
        self._reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="president-db")
        self._commits = 0
        self._checkpointing: Future[None] | None = None
        self._unreadable: dict[str, set[str]] = {}
        for kind, row_id in self._db.execute("SELECT kind, id FROM unreadable"):
            self._unreadable.setdefault(kind, set()).add(row_id)
        if marked := sum(map(len, self._unreadable.values())):
            log.warning("%d stored %s marked unreadable and not loaded (SELECT * FROM unreadable): repair or delete"
                        " each, then delete its mark", marked, "row is" if marked == 1 else "rows are")

    # ------------------------------------------------------------------ rows the server cannot load

    def load_each(self, kind: str, rows: Iterable[_R], row_id: Callable[[_R], str],
                  load: Callable[[_R], object]) -> None:
        """Run `load` on each of `rows` (the stored `kind` of row, e.g. "tournament"), skipping those marked
        unreadable; a row whose `load` raises is marked (`mark_unreadable`) and the others go on.

        Any exception: a stored row the server cannot read (edited by hand, or stored by an older server that
        checked less) never stops it."""
        for row in rows:
            key = str(row_id(row))
            if not self.is_unreadable(kind, key):
                try:
                    load(row)
                except Exception as exc:
                    self.mark_unreadable(kind, key, exc)

    def is_unreadable(self, kind: str, row_id: str) -> bool:
        return row_id in self._unreadable.get(kind, ())

    def marked(self, kind: str) -> int:
        """How many stored rows of `kind` are marked unreadable."""
        return len(self._unreadable.get(kind, ()))

    def unmarking(self, kind: str, row_id: str) -> Statement:
        """The statement deleting a row's mark, for a transaction that writes the row anew; loads read it again."""
        self._unreadable.get(kind, set()).discard(row_id)
        return "DELETE FROM unreadable WHERE kind = ? AND id = ?", (kind, row_id)

    def mark_unreadable(self, kind: str, row_id: str, exc: BaseException) -> None:
        """Keep a stored row the server cannot load out of its loads from now on, in the table `unreadable` (where
        an organiser sees it), and log it once."""
        error = f"{type(exc).__name__}: {exc}"[:500]
        self._unreadable.setdefault(kind, set()).add(row_id)
        log.error("the stored %s %s cannot be loaded (%s): skipped, and marked in the table unreadable so it is"
                  " not loaded again; repair or delete it, then delete its mark", kind, row_id[:64], error)
        try:
            self.write([("INSERT OR REPLACE INTO unreadable (kind, id, error, marked_at) VALUES (?,?,?,?)",
                         (kind, row_id, error, time.time()))])
        except sqlite3.Error:
            log.exception("the mark of the stored %s %s could not be saved", kind, row_id[:64])

    # ------------------------------------------------------------------ writes (inline, one transaction each)

    def create(self, stored: StoredMatch, also: Sequence[Statement] = ()) -> None:
        """Store a new match; `also`: statements committed in the same transaction."""
        hands = None if stored.hands is None else json.dumps([[str(h) for h in deal] for deal in stored.hands])
        seats = None if stored.seats is None else json.dumps(stored.seats)
        orders = json.dumps(stored.pass_orders) if stored.pass_orders else None
        statements: list[Statement] = [(
            "INSERT INTO matches (id, created_at, preset, rules, seed, hands, deal_seats, pass_orders, clock, names,"
            " open_seats, kind) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (stored.match_id, stored.created_at, stored.preset, json.dumps(stored.rules.to_dict()), stored.seed,
             hands, seats, orders, json.dumps(stored.clock.to_dict()), json.dumps(stored.names),
             int(stored.open_seats), stored.kind.value))]
        players = len(stored.token_hashes)
        accounts = stored.accounts or ("",) * players
        seeds = stored.bot_seeds or (None,) * players
        statements += [("INSERT INTO seats (token_hash, match_id, player, claimed, account, bot_seed, named)"
                        " VALUES (?,?,?,?,?,?,?)",
                        (h, stored.match_id, player, int(claimed), account, seed, int(named)))
                       for player, (h, claimed, account, seed, named) in enumerate(
                           zip(stored.token_hashes, stored.claimed, accounts, seeds, stored.named, strict=True))]
        self.write([*statements, *also])

    def append(self, match_id: str, row: ActionRow) -> None:
        """Durably add one applied action; returns once it is committed."""
        self.write([("INSERT INTO actions VALUES (?,?,?,?,?,?,?)",
                      (match_id, row.turn, row.player, row.action, int(row.source), row.spent_ms,
                       convert.fault_to_proto(row.fault)))])

    def finish(self, match_id: str, result: MatchResult, record: str, also: Sequence[Statement] = ()) -> None:
        """Keep the result and full record of a match that has ended; it is then never restored.

        `also`: statements committed in the same transaction (the arena's rating update), so that a
        crash can never keep one without the other.
        """
        self.write([("UPDATE matches SET result = ?, record = ?, ended_at = ? WHERE id = ?",
                     (result.dumps(), record, time.time(), match_id)), *also])

    def claim(self, match_id: str, old_hash: bytes, new_hash: bytes, names: tuple[str, ...], *, named: bool) -> None:
        """A seat claimed by JoinMatch: its new token replaces the one given at creation (`named`: with a name)."""
        self.write([
            ("UPDATE seats SET token_hash = ?, claimed = 1, named = MAX(named, ?) WHERE token_hash = ?",
             (new_hash, int(named), old_hash)),
            ("UPDATE matches SET names = ? WHERE id = ?", (json.dumps(names), match_id)),
        ])

    def name_seat(self, match_id: str, player: int, names: tuple[str, ...]) -> None:
        """A seat created without a name named by its bot (Hello.name): `names` holds it."""
        self.write([
            ("UPDATE seats SET named = 1 WHERE match_id = ? AND player = ?", (match_id, player)),
            ("UPDATE matches SET names = ? WHERE id = ?", (json.dumps(names), match_id)),
        ])

    def mark_claimed(self, token_hash: bytes) -> None:
        """An open seat claimed by using the token given at creation."""
        self.write([("UPDATE seats SET claimed = 1 WHERE token_hash = ?", (token_hash,))])

    def write(self, statements: list[Statement]) -> None:
        """Run `statements` as one transaction, inline: committed when this returns."""
        db = self._db
        if len(statements) == 1:
            db.execute(*statements[0])  # one statement is its own transaction: a third of the calls (a move's path)
        else:
            db.execute("BEGIN")
            try:
                for sql, params in statements:
                    db.execute(sql, params)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        self._commits += 1
        if self._commits % _CHECKPOINT_EVERY == 0:
            if self._checkpointing is not None:
                wait([self._checkpointing])  # the last one still runs: hold the writer, so the WAL stays bounded
            self._checkpointing = self._thread.submit(self._checkpoint)
            self._checkpointing.add_done_callback(_log_failure)

    def _checkpoint(self) -> None:
        """Copy the WAL into the database file and empty it, off the event loop; writers wait for the tail only."""
        self._reader.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        self._reader.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    # ------------------------------------------------------------------ reads

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read, right away on the caller's thread (at start, and for small indexed look-ups)."""
        return self._db.execute(sql, params).fetchall()  # the writer's connection: the loop's thread only

    def unfinished(self) -> list[StoredMatch]:
        """Every match without a final record, with its actions (read once, at start)."""
        ids = [row[0] for row in self._reader.execute(
            "SELECT id FROM matches WHERE record IS NULL ORDER BY created_at")]
        loaded: list[StoredMatch] = []

        def load(match_id: str) -> None:
            if (stored := self._load(match_id)) is not None:
                loaded.append(stored)
        self.load_each("match", ids, str, load)
        return loaded

    async def load(self, match_id: str) -> StoredMatch | None:
        return await self._read(lambda: self._load(match_id))

    async def seat_of(self, token_hash: bytes) -> tuple[str, int] | None:
        """The match and player of a token hash, for matches no longer in memory."""
        def read() -> tuple[str, int] | None:
            row = self._reader.execute("SELECT match_id, player FROM seats WHERE token_hash = ?",
                                       (token_hash,)).fetchone()
            return None if row is None else (row[0], row[1])
        return await self._read(read)

    async def finished(self, limit: int, offset: int = 0, player: str = "") -> tuple[list[FinishedSummary], int]:
        """A page of the finished matches, newest first (`player`: only those with a player of that name), and
        how many there are in all."""
        where = "record IS NOT NULL"
        params: tuple[Any, ...] = ()
        if player:
            where += " AND EXISTS (SELECT 1 FROM json_each(matches.names) WHERE json_each.value = ?)"
            params = (player,)

        def read() -> tuple[list[FinishedSummary], int]:
            rows = self._reader.execute(f"SELECT id, created_at, preset, rules, names, result, ended_at FROM matches"
                                        f" WHERE {where} ORDER BY created_at DESC LIMIT ? OFFSET ?",
                                        (*params, limit, offset))
            page = [summary for row in rows if (summary := _finished_summary(row)) is not None]
            total: int = self._reader.execute(f"SELECT COUNT(*) FROM matches WHERE {where}", params).fetchone()[0]
            return page, total
        return await self._read(read)

    async def windows(self, player: str, since: float, limit: int,
                      match_id: str = "") -> list[tuple[str, float, float | None]]:
        """(match id, created at, ended at: None while it is played) of the newest `limit` matches with a player
        of that name that were not over before `since` (`match_id`: of that match only)."""
        where, params = ("id = ?", (match_id,)) if match_id else ("(ended_at IS NULL OR ended_at >= ?)", (since,))

        def read() -> list[tuple[str, float, float | None]]:
            return [(i, c, None if live else e if e is not None else c) for i, c, e, live in self._reader.execute(
                f"SELECT id, created_at, ended_at, record IS NULL FROM matches WHERE {where} AND EXISTS (SELECT 1"
                " FROM json_each(matches.names) WHERE json_each.value = ?) ORDER BY created_at DESC LIMIT ?",
                (*params, player, limit))]
        return await self._read(read)

    async def _read(self, read: Callable[[], _T]) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, read)

    def _load(self, match_id: str) -> StoredMatch | None:
        db = self._reader
        row = db.execute("SELECT created_at, preset, rules, seed, hands, deal_seats, pass_orders, clock, names,"
                         " open_seats, record, kind FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            return None
        created_at, preset, rules, seed, hands, deal_seats, orders, clock, names, open_seats, record, kind = row
        seats = db.execute("SELECT token_hash, claimed, account, bot_seed, named FROM seats WHERE match_id = ?"
                           " ORDER BY player", (match_id,)).fetchall()
        actions = tuple(
            ActionRow(turn=t, player=p, action=a, source=Source(s), spent_ms=ms, fault=convert.fault_from_proto(f))
            for t, p, a, s, ms, f in db.execute(
                "SELECT turn, player, action, source, spent_ms, fault FROM actions WHERE match_id = ? ORDER BY turn",
                (match_id,)))
        return StoredMatch(
            match_id=match_id,
            created_at=created_at,
            preset=preset,
            rules=Rules.from_dict(json.loads(rules)),
            seed=seed,
            hands=None if hands is None else tuple(tuple(CardSet(h) for h in deal) for deal in json.loads(hands)),
            seats=None if deal_seats is None else tuple(
                None if deal is None else tuple(deal) for deal in json.loads(deal_seats)),
            pass_orders=() if orders is None else tuple(
                None if order is None else tuple(order) for order in json.loads(orders)),
            clock=ClockSettings.from_dict(json.loads(clock)),
            names=tuple(json.loads(names)),
            open_seats=bool(open_seats),
            token_hashes=tuple(bytes(h) for h, _, _, _, _ in seats),
            claimed=tuple(bool(c) for _, c, _, _, _ in seats),
            named=tuple(bool(n) for _, _, _, _, n in seats),
            actions=actions,
            finished=record is not None,
            accounts=tuple(a for _, _, a, _, _ in seats) if any(a for _, _, a, _, _ in seats) else (),
            kind=MatchKind(kind),
            bot_seeds=tuple(s for _, _, _, s, _ in seats) if any(s is not None for _, _, _, s, _ in seats) else (),
        )

    def close(self) -> None:
        self._thread.shutdown(wait=True)
        self._reader.close()
        self._db.close()


def _finished_summary(row: tuple[Any, ...]) -> FinishedSummary | None:
    """A finished match's row as a list shows it; None for one that cannot be read (left out of the list)."""
    match_id, created_at, preset, rules, names, result, ended_at = row
    try:
        return FinishedSummary(match_id=match_id, created_at=float(created_at), preset=str(preset),
                               rules=Rules.from_dict(json.loads(rules)), names=tuple(map(str, json.loads(names))),
                               result=MatchResult.loads(result),
                               ended_at=float(created_at if ended_at is None else ended_at))
    except Exception:
        return None


def _log_failure(done: Future[None]) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.error("WAL checkpoint failed (SQLite retries at the next one)", exc_info=done.exception())
