"""What hosted bots print: the lines a host reports (`ReportBotOutput`), kept per version, and the part of them
an author may read (`GetBotOutput`).

A hosted bot plays many matches at once in one process, so its output is kept by time, and a match's output
is what the bot printed between the match's creation and its end.  A bot's output may show its own cards, so a
line is shown only once every match the version was playing when it was printed is over and its deal is no
longer in play elsewhere (the rule a replay follows); until then it is held back.  Each version keeps its newest
`KEPT_BYTES` of lines (older rows are deleted as new ones come), so one chatty bot costs a bounded amount of
disk whatever it prints.
"""

from __future__ import annotations

import bisect
import math
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError
from president_service.base.limits import REPORT_LINES
from president_service.play.match_store import MatchStore, Statement
from president_service.play.messages import timestamp

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS bot_output (version_id TEXT NOT NULL, seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " at REAL NOT NULL, text TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS bot_output_by_version ON bot_output (version_id, at)",
)
KEPT_BYTES = 256 * 1024
"""Each version's newest lines kept, in characters."""
ANSWER_BYTES = 64 * 1024
"""The most of a GetBotOutput answer's lines, in characters (the newest of them)."""
LINE_CHARS = 1000
WINDOWS = 1000
"""The most of a version's matches (the newest) whose times an answer looks at: lines older than the oldest of
them are held back when there are more."""


@dataclass(frozen=True, slots=True)
class Window:
    """A match of the version: when it was created and when it ended (None: it is being played)."""

    match_id: str
    start: float
    end: float | None


@dataclass(frozen=True, slots=True)
class Shown:
    lines: list[pb.BotOutputLine]
    held_back: int
    dropped: int


class BotOutput:
    """Every hosted version's output, in the match database."""

    def __init__(self, store: MatchStore) -> None:
        self._store = store
        store.write([(sql, ()) for sql in _SCHEMA])

    def report(self, version_id: str, lines: Sequence[pb.BotOutputLine]) -> None:
        """Keep the lines (MALFORMED past the caps), then forget the version's oldest beyond `KEPT_BYTES`."""
        if len(lines) > REPORT_LINES or any(len(line.text) > LINE_CHARS for line in lines):
            raise ServiceError(Reason.MALFORMED, f"at most {REPORT_LINES} lines a report, each at most {LINE_CHARS}"
                                                 " characters")
        if not lines:
            return
        statements: list[Statement] = [("INSERT INTO bot_output (version_id, at, text) VALUES (?,?,?)",
                                        (version_id, line.at.ToMicroseconds() / 1e6, line.text)) for line in lines]
        statements.append((
            "DELETE FROM bot_output WHERE version_id = ? AND seq <= (SELECT seq FROM (SELECT seq, SUM(LENGTH(text))"
            " OVER (ORDER BY seq DESC) AS newer FROM bot_output WHERE version_id = ?) WHERE newer > ?"
            " ORDER BY seq DESC LIMIT 1)", (version_id, version_id, KEPT_BYTES)))
        try:
            self._store.write(statements)
        except (sqlite3.Error, OSError) as exc:
            raise ServiceError(Reason.STORAGE, f"the output could not be saved: {exc}") from None

    def oldest(self, version_id: str) -> float | None:
        """When the oldest line kept of the version was printed."""
        (at,), = self._store.query("SELECT MIN(at) FROM bot_output WHERE version_id = ?", (version_id,))
        return None if at is None else float(at)

    def shown(self, version_id: str, match: Window | None, windows: Sequence[Window],
              hidden: Callable[[Window], bool]) -> Shown:
        """The lines of `match` (None: those printed outside every one of `windows`, the version's matches),
        less those printed while a match of `windows` that is `hidden` (not over, or its deal in play) was
        being played (and, when `windows` is the newest `WINDOWS` of more, those older than all of them), with
        how many of the same time were held back (printed in a hidden match, or too old) or left out."""
        held = _Spans([w for w in windows if hidden(w)])
        if match is None:
            rows = self._store.query("SELECT at, text FROM bot_output WHERE version_id = ? ORDER BY seq",
                                     (version_id,))
            floor = min(w.start for w in windows) if len(windows) >= WINDOWS else -math.inf
            played = _Spans(windows)
            mine = [(at, text) for at, text in rows if at < floor or not played.covers(at) or held.covers(at)]
        else:
            assert match.end is not None
            mine = self._store.query("SELECT at, text FROM bot_output WHERE version_id = ? AND at >= ? AND at <= ?"
                                     " ORDER BY seq", (version_id, match.start, match.end))
            floor = -math.inf
        kept = [(at, text) for at, text in mine if at >= floor and not held.covers(at)]
        size, first = 0, len(kept)
        while first > 0 and size + len(kept[first - 1][1]) <= ANSWER_BYTES:
            first -= 1
            size += len(kept[first][1])
        return Shown(lines=[pb.BotOutputLine(at=timestamp(at), text=text) for at, text in kept[first:]],
                     held_back=len(mine) - len(kept), dropped=first)


class _Spans:
    """The times some window covers, merged, for a look-up in log time."""

    def __init__(self, windows: Sequence[Window]) -> None:
        self._starts: list[float] = []
        self._ends: list[float] = []
        for start, end in sorted((w.start, math.inf if w.end is None else w.end) for w in windows):
            if self._ends and start <= self._ends[-1]:
                self._ends[-1] = max(self._ends[-1], end)
            else:
                self._starts.append(start)
                self._ends.append(end)

    def covers(self, at: float) -> bool:
        index = bisect.bisect_right(self._starts, at) - 1
        return index >= 0 and at <= self._ends[index]
