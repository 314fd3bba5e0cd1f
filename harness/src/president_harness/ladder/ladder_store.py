"""`LadderStore`: the ladder db — one row per counted match, one row per failed attempt.

A match is counted by inserting its row, keyed by its schedule index, in one
transaction; a match that was interrupted or failed has no row and is simply
played again, and a second result for a counted match is refused.  So a
resumed ladder never plays a counted match again and never counts one twice.
Commits are durable once the process has made them (WAL, synchronous
NORMAL): a power cut may lose the last few, which are then played again.
The db remembers the ladder's fingerprint and refuses to mix ladders; it also
remembers each bot's identity, and a bot that changed (its files, its
command, its version) is a new entrant: its earlier matches are dropped and
played again.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from president_harness.ladder.outcome import Outcome

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    idx INTEGER PRIMARY KEY, board INTEGER NOT NULL, seating INTEGER NOT NULL, bots TEXT NOT NULL,
    result TEXT NOT NULL, match_id TEXT NOT NULL, seconds REAL NOT NULL, attempts INTEGER NOT NULL,
    finished_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS failures (
    idx INTEGER NOT NULL, attempt INTEGER NOT NULL, error TEXT NOT NULL, at REAL NOT NULL,
    bot TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS bots (name TEXT PRIMARY KEY, identity TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS crashes (bot TEXT NOT NULL, error TEXT NOT NULL, at REAL NOT NULL);
"""


class LadderMismatchError(ValueError):
    """The db holds another ladder (other bots, rules, format, size or seed)."""


class LadderStore:
    """The SQLite file of one ladder (used from one thread: the driver)."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        if "bot" not in {row[1] for row in self._db.execute("PRAGMA table_info(failures)")}:
            self._db.execute("ALTER TABLE failures ADD COLUMN bot TEXT NOT NULL DEFAULT ''")
        row = self._db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
        elif row[0] != fingerprint:
            raise LadderMismatchError(f"{path} holds a different ladder (the bots' names, rules, format, size,"
                                      " seed or clock changed); use another db to start afresh")

    def entrants(self, identities: dict[str, str]) -> dict[str, int]:
        """Remember each bot's identity; for a bot that changed, drop its counted matches.

        Returns the changed bots with how many of their matches were dropped (to be played again).
        """
        known = dict(self._db.execute("SELECT name, identity FROM bots").fetchall())
        changed: dict[str, int] = {}
        rows = self._db.execute("SELECT idx, bots FROM matches").fetchall()
        self._db.execute("BEGIN")
        for name, identity in identities.items():
            if known.get(name, identity) != identity:
                stale = [idx for idx, bots in rows if name in json.loads(bots)]
                self._db.executemany("DELETE FROM matches WHERE idx = ?", [(i,) for i in stale])
                self._db.executemany("DELETE FROM failures WHERE idx = ?", [(i,) for i in stale])
                changed[name] = len(stale)
            self._db.execute("INSERT OR REPLACE INTO bots VALUES (?, ?)", (name, identity))
        self._db.execute("COMMIT")
        return changed

    def record(self, outcome: Outcome) -> bool:
        """Count a finished match; False (and nothing changes) when it was already counted."""
        try:
            self._db.execute(
                "INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (outcome.index, outcome.board, outcome.seating, json.dumps(outcome.bots), outcome.to_json(),
                 outcome.match_id, outcome.seconds, outcome.attempts, time.time()))
        except sqlite3.IntegrityError:
            return False
        return True

    def record_failure(self, index: int, attempt: int, error: str, bot: str = "") -> None:
        """Keep a failed attempt for the report (`bot`: the bot whose program crashed); it counts for nothing."""
        self._db.execute("INSERT INTO failures VALUES (?, ?, ?, ?, ?)", (index, attempt, error, time.time(), bot))

    def record_crash(self, bot: str, error: str) -> None:
        """A Session bot's process exited during the ladder (its matches played on; it was started again)."""
        self._db.execute("INSERT INTO crashes VALUES (?, ?, ?)", (bot, error, time.time()))

    def crashes(self) -> dict[str, int]:
        """Each bot's crashes over every run: failed attempts of a per-seat bot, exits of a Session bot."""
        counts: dict[str, int] = {}
        for bot, n in self._db.execute(
                "SELECT bot, COUNT(*) FROM failures WHERE bot != '' GROUP BY bot"
                " UNION ALL SELECT bot, COUNT(*) FROM crashes GROUP BY bot").fetchall():
            counts[bot] = counts.get(bot, 0) + n
        return counts

    def done(self) -> set[int]:
        """The schedule indices already counted."""
        return {row[0] for row in self._db.execute("SELECT idx FROM matches")}

    def failures(self, index: int) -> int:
        """Failed attempts of a match so far (over every run)."""
        row = self._db.execute("SELECT COUNT(*) FROM failures WHERE idx = ?", (index,)).fetchone()
        return int(row[0])

    def outcomes(self) -> list[Outcome]:
        """Every counted match, in schedule order."""
        rows = self._db.execute(
            "SELECT idx, board, seating, bots, result, match_id, seconds, attempts FROM matches ORDER BY idx")
        return [Outcome.from_row(index=r[0], board=r[1], seating=r[2], bots=r[3], result=r[4], match_id=r[5],
                                 seconds=r[6], attempts=r[7]) for r in rows]

    def close(self) -> None:
        self._db.close()
