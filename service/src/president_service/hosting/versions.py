"""Bot versions: submitted archives, stored immutably by content hash, and the state of their builds.

The server only stores and serves an archive: it never unpacks or runs one.  A builder (a client of the server,
run by the organiser: ``president builder``) leases a queued version with the admin token, fetches its archive,
builds it in its sandbox and reports READY or FAILED with the log.  A lease that ends unreported lets another
builder take the version, so a lost builder's work is done elsewhere.

A builder uploads its built folder, as a gzipped tar, under its lease before it reports the version READY
(`upload_built`); the server stores that archive as it stores a submitted one, by its SHA-256, and serves it to
any host (FetchVersion with ``built``), so a version is built once, on one machine, whichever host runs it.

A READY version plays once a host (also the organiser's client) leases it: the lease carries a token of the
version's own, which opens a Session that plays as the version, under the player name ``account@version``
(`player_name`): its seats, records and ratings name it, and it has a check match of its own.  An account's
current version is the one its author chose last (`choose`: a READY one, or a RETIRED one brought back), or
else its newest READY one, whichever came later; the arena seats that one only, and at most
`account_active_versions` stay READY (older ones are RETIRED: they no longer play, their records stay).  A
lease left unrenewed expires and another host may take the version; the old lease's token then stops working.

A version is the account, its manifest and the archive's SHA-256: the same three again are the same version.
Archives, submitted and built, are kept in 64 KB rows (so that fetching one never loads it whole), once per
hash.  Every look-up is a small indexed query, run inline like the match store's writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from president_protocol.v1 import president_pb2 as pb

from president_service.base.auth import new_token, token_hash
from president_service.base.errors import Reason, ServiceError
from president_service.base.limits import RETRY_BUILD_S, RETRY_FULL_S, Limits
from president_service.hosting.uploads import NAME_CHARS, too_large
from president_service.play.match_store import MatchStore, Statement
from president_service.play.messages import timestamp

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS versions (id TEXT PRIMARY KEY, account TEXT NOT NULL, created_at REAL NOT NULL,"
    " name TEXT NOT NULL, runtime INTEGER NOT NULL, build TEXT NOT NULL, run TEXT NOT NULL, sha256 TEXT NOT NULL,"
    " archive_bytes INTEGER NOT NULL, state INTEGER NOT NULL, reason TEXT NOT NULL, log TEXT NOT NULL,"
    " lease_hash BLOB, lease_until REAL, builder TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS versions_by_account ON versions (account, created_at)",
    "CREATE INDEX IF NOT EXISTS versions_by_state ON versions (state, created_at)",
    "CREATE TABLE IF NOT EXISTS version_archives (sha256 TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL,"
    " PRIMARY KEY (sha256, seq))",
    "CREATE TABLE IF NOT EXISTS version_choices (account TEXT PRIMARY KEY, version_id TEXT NOT NULL,"
    " chosen_at REAL NOT NULL)",
)
CHUNK_BYTES = 64 * 1024
"""An archive's rows in the database, and FetchVersion's messages."""
LOG_BYTES = 48 * 1024
"""The most of a build's log kept (a ReportBuild must fit the server's 64 KB message cap)."""
REASON_CHARS = 200
LIST_LIMIT = 200
ALL_LIST_LIMIT = 1000
"""The most versions the organiser's listing (every account's) holds, the newest."""
DAY_S = 24 * 3600.0
_WAITING = (pb.VERSION_STATE_QUEUED, pb.VERSION_STATE_BUILDING)
_COLUMNS = ("id, account, created_at, name, runtime, build, run, sha256, archive_bytes, state, reason, checked,"
            " built_sha256, built_bytes")
_LAST_TIME = 253_402_300_800
"""The first second of year 10000: a stored time at or past it is no google.protobuf.Timestamp."""
_HOSTING_COLUMNS = (("checked", "INTEGER NOT NULL DEFAULT 0"), ("host", "TEXT NOT NULL DEFAULT ''"),
                    ("host_until", "REAL"), ("host_token_hash", "BLOB"))
"""Added with hosting: a database from before gets them (no version of it was ever checked or hosted)."""
_BUILT_COLUMNS = (("built_sha256", "TEXT NOT NULL DEFAULT ''"), ("built_bytes", "INTEGER NOT NULL DEFAULT 0"))
"""Added with built archives: a database from before gets them (none of its versions has a built archive, so a
host cannot fetch one of them built until it is submitted and built again)."""
MAX_HOSTED = 1000
"""The most versions one LeaseHosting call names or leases."""


def player_name(account: str, version_id: str) -> str:
    """The name a hosted version plays under: its seats', its records' and its ratings' (an account name holds no
    '@', so `account_of` reads it back)."""
    return f"{account}@{version_id}"


def account_of(player: str) -> tuple[str, str]:
    """(account, version id) of a player name; the version id is empty for an account's own bot."""
    account, _, version_id = player.partition("@")
    return account, version_id


@dataclass(frozen=True, kw_only=True, slots=True)
class Version:
    version_id: str
    account: str
    created_at: float
    manifest: pb.BotManifest
    sha256: str
    archive_bytes: int
    state: pb.VersionState.ValueType
    reason: str
    checked: bool = False
    """Passed its check match: the arena rates it."""
    built_sha256: str = ""
    """Its built folder's archive's SHA-256 (UploadBuild); empty while none is uploaded."""
    built_bytes: int = 0
    """That archive's size."""

    @property
    def player(self) -> str:
        return player_name(self.account, self.version_id)


class Versions:
    """Every account's versions, in the match database."""

    def __init__(self, store: MatchStore, limits: Limits, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._limits = limits
        self._clock = clock
        store.write([(sql, ()) for sql in _SCHEMA])
        have = {row[1] for row in store.query("PRAGMA table_info(versions)")}
        store.write([(f"ALTER TABLE versions ADD COLUMN {name} {kind}", ())
                     for name, kind in (*_HOSTING_COLUMNS, *_BUILT_COLUMNS) if name not in have]
                    + [("CREATE INDEX IF NOT EXISTS versions_by_host_token ON versions (host_token_hash)", ())])
        self._uploads: set[str] = set()
        """Who has a SubmitBot or UploadBuild call reading now (one each; at most `max_uploads` in all)."""
        self.current: dict[str, str] = {}
        """Account -> its current version (the one a running tournament pinned, else the one its author chose,
        else its newest READY one), for accounts that have one."""
        self._pins: dict[str, str] = {}
        """Account -> the version running tournaments hold it at (`pin`)."""
        for (account,) in store.query("SELECT DISTINCT account FROM versions WHERE state = ?",
                                      (pb.VERSION_STATE_READY,)):
            self._recount(account)

    @contextlib.contextmanager
    def uploading(self, who: str) -> Iterator[None]:
        """Hold one of the server's upload slots, one per `who` (an account's submissions, a version's build), for
        the block."""
        if len(self._uploads) >= self._limits.max_uploads:
            raise ServiceError(Reason.TOO_MANY_STREAMS, f"this server takes {self._limits.max_uploads} uploads at"
                                                        " once", retry_after_s=RETRY_FULL_S)
        if who in self._uploads:
            raise ServiceError(Reason.TOO_MANY_STREAMS, f"{who} is uploading already", retry_after_s=RETRY_FULL_S)
        self._uploads.add(who)
        try:
            yield
        finally:
            self._uploads.discard(who)

    def submit(self, account: str, manifest: pb.BotManifest, archive: bytes) -> tuple[Version, bool]:
        """The version of this content (True: it existed already), stored as QUEUED if new."""
        sha = hashlib.sha256(archive).hexdigest()
        fields = [manifest.name, manifest.runtime, manifest.build, manifest.run]
        version_id = hashlib.sha256(json.dumps([account, *fields, sha]).encode()).hexdigest()[:16]
        with contextlib.suppress(ServiceError):
            return self.get(version_id, account), True
        self._admit(account)
        now = self._clock()
        statements: list[Statement] = [(
            f"INSERT INTO versions ({_COLUMNS}, log, builder) VALUES (?,?,?,?,?,?,?,?,?,?,?,0,'',0,'','')",
            (version_id, account, now, *fields, sha, len(archive), pb.VERSION_STATE_QUEUED, ""))]
        self._write(statements + _archive_rows(sha, archive))
        return self.get(version_id, account), False

    def _admit(self, account: str) -> None:
        """ACCOUNT_LIMIT, with a retry hint, when the account may not add a version now."""
        limits, now = self._limits, self._clock()
        (waiting,), = self._store.query(
            "SELECT COUNT(*) FROM versions WHERE account = ? AND state IN (?,?)", (account, *_WAITING))
        if waiting >= limits.account_queued_builds:
            raise ServiceError(Reason.ACCOUNT_LIMIT, f"{waiting} versions of {account} wait for their builds, the"
                                                     " most at once", retry_after_s=RETRY_BUILD_S)
        (today, oldest), = self._store.query(
            "SELECT COUNT(*), MIN(created_at) FROM versions WHERE account = ? AND created_at > ?",
            (account, now - DAY_S))
        if today >= limits.account_versions_per_day:
            raise ServiceError(Reason.ACCOUNT_LIMIT, f"{account} submitted {today} versions in 24 hours, the most",
                               retry_after_s=max(1.0, oldest + DAY_S - now))

    def get(self, version_id: str, account: str | None) -> Version:
        """The version; UNKNOWN_VERSION when there is none, or (`account` given) it is another account's."""
        found = self._read(self._store.query(f"SELECT {_COLUMNS} FROM versions WHERE id = ?", (version_id[:64],)))
        if not found or (account is not None and found[0].account != account):
            raise ServiceError(Reason.UNKNOWN_VERSION, f"no version {version_id[:64]!r} of this account")
        return found[0]

    def _read(self, rows: Iterable[tuple[Any, ...]]) -> list[Version]:
        """The versions of `rows` (each `_COLUMNS`) but those this server cannot read, which are marked unreadable
        (`MatchStore.load_each`): one never fails a call for the others."""
        read: list[Version] = []
        self._store.load_each("version", rows, lambda row: str(row[0]), lambda row: read.append(_version(row)))
        return read

    def listing(self, account: str | None) -> list[pb.BotVersion]:
        """The account's versions (None: every account's, for the organiser), newest first."""
        rows = (self._store.query(f"SELECT {_COLUMNS} FROM versions WHERE account = ? ORDER BY created_at DESC"
                                  " LIMIT ?", (account, LIST_LIMIT)) if account is not None else
                self._store.query(f"SELECT {_COLUMNS} FROM versions ORDER BY created_at DESC LIMIT ?",
                                  (ALL_LIST_LIMIT,)))
        return [self.message(version) for version in self._read(rows)]

    def message(self, version: Version) -> pb.BotVersion:
        played = version.state in (pb.VERSION_STATE_READY, pb.VERSION_STATE_RETIRED)
        return pb.BotVersion(version_id=version.version_id, account=version.account, manifest=version.manifest,
                             state=version.state, reason=version.reason, created_at=timestamp(version.created_at),
                             sha256=version.sha256, archive_bytes=version.archive_bytes,
                             built_sha256=version.built_sha256, built_bytes=version.built_bytes,
                             current=self.current.get(version.account) == version.version_id,
                             checked=version.checked, player=version.player if played else "")

    def log(self, version_id: str) -> str:
        (text,), = self._store.query("SELECT log FROM versions WHERE id = ?", (version_id,))
        return str(text)

    def lease(self, builder: str) -> tuple[Version, str, float] | None:
        """The oldest version waiting for a builder (queued, or building under an ended lease), now BUILDING
        under a new lease: (version, lease id, when the lease ends); None when there is none."""
        if len(builder) > NAME_CHARS or not builder.isprintable():
            raise ServiceError(Reason.MALFORMED, f"the builder's name: at most {NAME_CHARS} printable characters")
        now = self._clock()
        while True:  # past the unreadable ones, each marked the first time it is met
            limit = self._store.marked("version") + 1
            rows = self._store.query(
                f"SELECT {_COLUMNS} FROM versions WHERE state = ? OR (state = ? AND lease_until < ?)"
                " ORDER BY created_at LIMIT ?", (pb.VERSION_STATE_QUEUED, pb.VERSION_STATE_BUILDING, now, limit))
            if found := self._read(rows):
                break
            if len(rows) < limit:
                return None
        lease, until = new_token(), now + self._limits.build_lease_s
        self._write([("UPDATE versions SET state = ?, lease_hash = ?, lease_until = ?, builder = ?, built_sha256 = '',"
                      " built_bytes = 0 WHERE id = ?",  # a lost builder's upload is not this build's
                      (pb.VERSION_STATE_BUILDING, token_hash(lease), until, builder, found[0].version_id))])
        return self.get(found[0].version_id, None), lease, until

    def archive(self, version_id: str, *, built: bool = False) -> Iterator[bytes]:
        """The version's archive, a row at a time, exactly as it was submitted (or, `built`, as its builder uploaded
        its built folder: VERSION_STATE when there is none)."""
        version = self.get(version_id, None)
        sha, size = (version.built_sha256, version.built_bytes) if built else (version.sha256, version.archive_bytes)
        if not sha:
            name = _state_name(version.state)
            raise ServiceError(Reason.VERSION_STATE, f"the version {version.version_id} ({name}) has no built archive:"
                                                     " its builder uploads one before reporting it READY (a version"
                                                     " built before built archives were kept has none)",
                               {"state": name})
        for seq in range(math.ceil(size / CHUNK_BYTES)):
            (data,), = self._store.query("SELECT data FROM version_archives WHERE sha256 = ? AND seq = ?",
                                         (sha, seq))
            yield bytes(data)

    def check_lease(self, version_id: str, lease: str) -> Version:
        """The version, while `lease` is its builder's lease (BUILDING, not reported; after the lease's end too,
        while no other builder has leased it); else UNKNOWN_VERSION or LEASE_EXPIRED."""
        version = self.get(version_id, None)
        rows = self._store.query("SELECT lease_hash FROM versions WHERE id = ? AND state = ?",
                                 (version.version_id, pb.VERSION_STATE_BUILDING))
        if not rows or rows[0][0] is None or bytes(rows[0][0]) != token_hash(lease):
            raise ServiceError(Reason.LEASE_EXPIRED, f"the version {version_id} is no longer leased with this lease"
                                                     " (it expired and was leased again, or it was reported)")
        return version

    def upload_built(self, version_id: str, lease: str, archive: bytes) -> Version:
        """Store a builder's built folder (a gzipped tar, never unpacked here) under its lease, by its SHA-256, in
        place of an earlier upload under the lease; the same bytes again change nothing."""
        self.check_lease(version_id, lease)
        sha = hashlib.sha256(archive).hexdigest()
        self._write([("UPDATE versions SET built_sha256 = ?, built_bytes = ? WHERE id = ?",
                      (sha, len(archive), version_id)), *_archive_rows(sha, archive)])
        return self.get(version_id, None)

    def report(self, version_id: str, lease: str, *, ready: bool, reason: str, log: str) -> Version:
        """A builder's result under its lease: READY, or FAILED with `reason`.  A report after the lease's end is
        still taken while no other builder has leased the version."""
        if len(reason) > REASON_CHARS or not reason.isprintable() or (not ready and not reason):
            raise ServiceError(Reason.MALFORMED, f"a failed build's reason: one line of 1 to {REASON_CHARS}"
                                                 " printable characters")
        if len(log.encode()) > LOG_BYTES:
            raise too_large("the build log", LOG_BYTES)
        version = self.check_lease(version_id, lease)
        if ready and not version.built_sha256:  # so that every READY version can be fetched built, by any host
            raise ServiceError(Reason.VERSION_STATE, f"the version {version_id} has no built archive: UploadBuild its"
                                                     " built folder before reporting it READY", {"state": "BUILDING"})
        state = pb.VERSION_STATE_READY if ready else pb.VERSION_STATE_FAILED
        statements: list[Statement] = [(
            "UPDATE versions SET state = ?, reason = ?, log = ?, lease_hash = NULL, lease_until = NULL WHERE id = ?",
            (state, "" if ready else reason, log, version_id))]
        if ready:  # the newest act wins: a version ready after the author's choice is current instead
            statements += [*self._retiring(version), ("DELETE FROM version_choices WHERE account = ?",
                                                      (version.account,))]
        self._write(statements)
        self._recount(version.account)
        return self.get(version.version_id, None)

    def choose(self, account: str, version_id: str) -> Version:
        """Make the account's version its current one, stored (a restart keeps it) until the author chooses
        again or a newer version becomes READY.  A RETIRED version is READY again (and the oldest other one
        retires if the account is at its limit); while a running tournament pins the account, the choice waits
        for the pin to end.  UNKNOWN_VERSION for another account's version, VERSION_STATE for one never built."""
        version = self.get(version_id, account)
        if version.state not in (pb.VERSION_STATE_READY, pb.VERSION_STATE_RETIRED):
            name = _state_name(version.state)
            raise ServiceError(Reason.VERSION_STATE, f"the version {version.version_id} is {name}; only a READY or"
                                                     " RETIRED version can be current", {"state": name})
        statements: list[Statement] = [
            ("INSERT OR REPLACE INTO version_choices VALUES (?,?,?)", (account, version.version_id, self._clock()))]
        if version.state == pb.VERSION_STATE_RETIRED:
            statements += [("UPDATE versions SET state = ? WHERE id = ?", (pb.VERSION_STATE_READY,
                                                                            version.version_id)),
                           *self._retiring(version)]
        self._write(statements)
        self._recount(account)
        return self.get(version.version_id, None)

    def _retiring(self, newest: Version) -> list[Statement]:
        """Statements retiring the account's READY versions beyond the newest `account_active_versions`, `newest`
        (becoming READY, or chosen) counted; never a pinned one."""
        rows = self._store.query("SELECT id FROM versions WHERE account = ? AND state = ? AND id != ?"
                                 " ORDER BY created_at DESC", (newest.account, pb.VERSION_STATE_READY,
                                                               newest.version_id))
        return [("UPDATE versions SET state = ?, host = '', host_until = NULL, host_token_hash = NULL WHERE id = ?",
                 (pb.VERSION_STATE_RETIRED, version_id))
                for (version_id,) in rows[self._limits.account_active_versions - 1:]
                if version_id != self._pins.get(newest.account)]

    def pin(self, pins: Mapping[str, str]) -> None:
        """Hold these accounts at these versions (a running tournament's entrants, pinned when it started): each
        stays its account's current version, the one hosts run and the arena seats, and is not retired, until it
        is no longer pinned.  A later submission is built and checked meanwhile, and becomes current then."""
        changed = set(self._pins) | set(pins)
        self._pins = dict(pins)
        for account in changed:
            self._recount(account)

    def _recount(self, account: str) -> None:
        if account in self._pins:
            self.current[account] = self._pins[account]
            return
        chosen = self._store.query("SELECT version_id FROM version_choices WHERE account = ?", (account,))
        ready = [version for version in self._read(self._store.query(
            f"SELECT {_COLUMNS} FROM versions WHERE account = ? AND state = ? ORDER BY created_at DESC",
            (account, pb.VERSION_STATE_READY)))]
        ready = [version for version in ready if chosen and version.version_id == chosen[0][0]] or ready
        if ready:
            self.current[account] = ready[0].version_id
        else:
            self.current.pop(account, None)

    def mark_checked(self, version_id: str) -> None:
        self._write([("UPDATE versions SET checked = 1 WHERE id = ?", (version_id,))])

    def checked(self, version_id: str) -> bool:
        rows = self._store.query("SELECT checked FROM versions WHERE id = ?", (version_id,))
        return bool(rows and rows[0][0])

    # ------------------------------------------------------------------ hosting

    def host(self, host: str, capacity: int, running: list[str],
             playable: Callable[[str], bool]) -> tuple[list[tuple[Version, str]], list[str], list[str], float]:
        """A host's LeaseHosting: (versions newly leased to it, each with its token; those of `running` renewed;
        those of `running` to stop; when the leases end).  `playable`: whether an account may play (not revoked).

        A version of `running` is renewed while it is its account's current version and no other host has
        leased it (even after its lease expired, as a late build report is taken): a host that was slow to renew
        keeps its bot.  New leases go to current versions that no host holds (or whose lease expired).
        """
        if len(host) > NAME_CHARS or not host.isprintable():
            raise ServiceError(Reason.MALFORMED, f"the host's name: at most {NAME_CHARS} printable characters")
        if capacity > MAX_HOSTED or len(running) > MAX_HOSTED:
            raise ServiceError(Reason.MALFORMED, f"a host runs at most {MAX_HOSTED} versions")
        now = self._clock()
        until = now + self._limits.host_lease_s
        keep: list[str] = []
        stop: list[str] = []
        statements: list[Statement] = []
        for version_id in dict.fromkeys(running):
            rows = self._store.query("SELECT account, host FROM versions WHERE id = ?", (version_id[:64],))
            if (rows and rows[0][1] == host and self.current.get(rows[0][0]) == version_id and playable(rows[0][0])
                    and len(keep) < capacity):
                keep.append(version_id)
                statements.append(("UPDATE versions SET host_until = ? WHERE id = ?", (until, version_id)))
            else:
                stop.append(version_id[:64])
                if rows and rows[0][1] == host:
                    statements.append(("UPDATE versions SET host = '', host_until = NULL, host_token_hash = NULL"
                                       " WHERE id = ?", (version_id,)))
        start: list[tuple[Version, str]] = []
        for account, version_id in self.current.items():
            if len(keep) + len(start) >= capacity:
                break
            if version_id in keep or not playable(account):
                continue
            rows = self._store.query("SELECT host, host_until FROM versions WHERE id = ?", (version_id,))
            if rows and rows[0][0] and rows[0][0] != host and (rows[0][1] or 0) >= now:
                continue  # another host's, its lease holding
            if not (version := self._read(self._store.query(f"SELECT {_COLUMNS} FROM versions WHERE id = ?",
                                                            (version_id,)))):
                continue  # a pinned version this server cannot read
            token = new_token()
            statements.append(("UPDATE versions SET host = ?, host_until = ?, host_token_hash = ? WHERE id = ?",
                               (host, until, token_hash(token), version_id)))
            start.append((version[0], token))
        self._write(statements)
        return start, keep, stop, until

    def hosted(self, token: str) -> Version | None:
        """The version whose current lease `token` is, while it holds and the version is current."""
        rows = self._store.query(f"SELECT {_COLUMNS}, host_until FROM versions WHERE host_token_hash = ?",
                                 (token_hash(token),))
        if not rows or (rows[0][-1] or 0) < self._clock() or not (read := self._read([rows[0][:-1]])):
            return None
        version = read[0]
        return version if self.current.get(version.account) == version.version_id else None

    def _write(self, statements: list[Statement]) -> None:
        try:
            self._store.write(statements)
        except (sqlite3.Error, OSError) as exc:
            raise ServiceError(Reason.STORAGE, f"the version could not be saved: {exc}") from None


def _archive_rows(sha: str, archive: bytes) -> list[Statement]:
    """An archive's rows, each stored once whichever versions (or builds) hold it."""
    return [("INSERT OR IGNORE INTO version_archives VALUES (?,?,?)", (sha, seq, archive[at:at + CHUNK_BYTES]))
            for seq, at in enumerate(range(0, len(archive), CHUNK_BYTES))]


def _state_name(state: pb.VersionState.ValueType) -> str:
    return pb.VersionState.Name(state).removeprefix("VERSION_STATE_")


def _version(row: tuple[Any, ...]) -> Version:
    """The version a stored row holds; ValueError when the row is not one this server can read."""
    (version_id, account, created_at, name, runtime, build, run, sha, size, state, reason, checked, built_sha,
     built_size) = row
    texts = (version_id, account, name, build, run, sha, reason, built_sha)
    if (not all(isinstance(text, str) for text in texts) or not all(type(n) is int and n >= 0
                                                                   for n in (size, checked, built_size))
            or type(created_at) not in (int, float) or not 0 <= created_at < _LAST_TIME
            or runtime not in pb.Runtime.values() or state not in pb.VersionState.values()):
        raise ValueError("a column holds a value of the wrong kind, or out of its range")
    return Version(version_id=version_id, account=account, created_at=created_at,
                   manifest=pb.BotManifest(name=name, runtime=runtime, build=build, run=run),
                   sha256=sha, archive_bytes=size, state=state, reason=reason, checked=bool(checked),
                   built_sha256=built_sha, built_bytes=built_size)
