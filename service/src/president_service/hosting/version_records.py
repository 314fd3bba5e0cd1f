"""What each player's finished matches showed: its check matches (passed, failed) and its faults per move.

A player is a seat's name in an account's match: a hosted version's `account@version`, or an account's own bot.
Its record is added to as each of its matches ends, in the transaction of the match's result (`finishing`), so
a restart counts no match twice.  The faults are the runner's: what the seat's client reported as fallbacks,
the actions the server refused, and the clock's strikes; a check match fails on any of them (as the arena's
verdict does).  Matches that ended before this record was kept are not in it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from president_engine import Fault
from president_engine.narrate import counted
from president_protocol.v1 import president_pb2 as pb

from president_service.play.match_runner import MatchRunner
from president_service.play.match_store import MatchKind, MatchStore, Statement
from president_service.play.messages import timestamp

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS player_records (player TEXT PRIMARY KEY, matches INTEGER NOT NULL,"
    " moves INTEGER NOT NULL, errors INTEGER NOT NULL, timeouts INTEGER NOT NULL, invalid INTEGER NOT NULL,"
    " strikes INTEGER NOT NULL, check_matches INTEGER NOT NULL, checks_failed INTEGER NOT NULL,"
    " last_check TEXT NOT NULL, last_check_failed INTEGER NOT NULL, last_fault TEXT NOT NULL, last_fault_at REAL)"
)
_ADD = (
    "INSERT INTO player_records VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (player) DO UPDATE SET"
    " matches = matches + excluded.matches, moves = moves + excluded.moves, errors = errors + excluded.errors,"
    " timeouts = timeouts + excluded.timeouts, invalid = invalid + excluded.invalid,"
    " strikes = strikes + excluded.strikes, check_matches = check_matches + excluded.check_matches,"
    " checks_failed = checks_failed + excluded.checks_failed,"
    " last_check = CASE WHEN excluded.check_matches THEN excluded.last_check ELSE last_check END,"
    " last_check_failed = CASE WHEN excluded.check_matches THEN excluded.last_check_failed"
    " ELSE last_check_failed END,"
    " last_fault = CASE WHEN excluded.last_fault != '' THEN excluded.last_fault ELSE last_fault END,"
    " last_fault_at = CASE WHEN excluded.last_fault != '' THEN excluded.last_fault_at ELSE last_fault_at END"
)
_COLUMNS = ("player, matches, moves, errors, timeouts, invalid, strikes, check_matches, checks_failed, last_check,"
            " last_check_failed, last_fault, last_fault_at")
_KINDS = {MatchKind.ORGANISED: "organised", MatchKind.ARENA: "arena", MatchKind.CHECK: "check",
          MatchKind.CHALLENGE: "challenge", MatchKind.TOURNAMENT: "tournament"}


def fault_counts(runner: MatchRunner, player: int) -> dict[str, int]:
    """The player's faults in the match, by what people call them (the check match's verdict counts these)."""
    faults = runner.faults[player]
    return {"error": faults[Fault.ERROR], "time-out": faults[Fault.TIMEOUT] + runner.clock.strikes[player],
            "illegal answer": faults[Fault.INVALID]}


class PlayerRecords:
    """Every player's record, in the match database."""

    def __init__(self, store: MatchStore) -> None:
        self._store = store
        store.write([(_SCHEMA, ())])

    def finishing(self, runner: MatchRunner) -> Sequence[Statement]:
        """Statements adding the match to the record of each of its account seats, committed with its result."""
        if not any(runner.accounts):
            return ()
        moves = dict(self._store.query("SELECT player, COUNT(*) FROM actions WHERE match_id = ? GROUP BY player",
                                       (runner.match_id,)))
        check = runner.kind is MatchKind.CHECK
        ended = time.time()
        statements: list[Statement] = []
        for player, account in enumerate(runner.accounts):
            if not account:
                continue
            faults = runner.faults[player]
            counts = fault_counts(runner, player)
            wrong = ", ".join(counted(n, what) for what, n in counts.items() if n)
            fault = f"{_KINDS[runner.kind]} match {runner.match_id}: {wrong}" if wrong else ""
            statements.append((_ADD, (
                runner.names[player], 1, moves.get(player, 0), faults[Fault.ERROR], faults[Fault.TIMEOUT],
                faults[Fault.INVALID], runner.clock.strikes[player], int(check), int(check and bool(wrong)),
                runner.match_id if check else "", int(check and bool(wrong)), fault, ended if fault else None)))
        return statements

    def of(self, players: Iterable[str]) -> dict[str, pb.VersionRecord]:
        """The records of these players (those with one)."""
        found: dict[str, pb.VersionRecord] = {}
        wanted = list(dict.fromkeys(players))
        for at in range(0, len(wanted), 500):  # SQLite's bound on a statement's parameters
            part = wanted[at:at + 500]
            rows = self._store.query(f"SELECT {_COLUMNS} FROM player_records WHERE player IN"
                                     f" ({','.join('?' * len(part))})", tuple(part))
            for (player, matches, moves, errors, timeouts, invalid, strikes, checks, failed, last_check,
                 last_failed, last_fault, last_fault_at) in rows:
                found[player] = pb.VersionRecord(
                    matches=matches, moves=moves, faults=pb.FaultCounts(errors=errors, timeouts=timeouts,
                                                                        invalid=invalid, strikes=strikes),
                    check_matches=checks, checks_failed=failed, last_check_id=last_check,
                    last_check_failed=bool(last_failed), last_fault=last_fault,
                    last_fault_at=timestamp(last_fault_at) if last_fault_at is not None else None)
        return found
