"""A one-line progress bar with the time left, for terminals only (never in CI logs)."""

from __future__ import annotations

import time
from typing import TextIO

_WIDTH = 30


class Progress:
    """Counts finished matches; draws on `stream` only when it is a TTY."""

    def __init__(self, total: int, done: int, stream: TextIO) -> None:
        self.total = total
        self.done = done
        self._new = 0
        self._stream = stream
        self._tty = stream.isatty()
        self._started = time.monotonic()
        self._draw()

    def advance(self) -> None:
        """One more match counted."""
        self.done += 1
        self._new += 1
        self._draw()

    def eta(self) -> float | None:
        """Seconds left at the rate of this run so far; None before the first match."""
        if not self._new:
            return None
        return (time.monotonic() - self._started) / self._new * (self.total - self.done)

    def close(self) -> None:
        if self._tty:
            self._stream.write("\n")
            self._stream.flush()

    def _draw(self) -> None:
        if not self._tty:
            return
        filled = _WIDTH * self.done // max(self.total, 1)
        eta = self.eta()
        left = "--:--" if eta is None else f"{int(eta) // 60:02d}:{int(eta) % 60:02d}"
        self._stream.write(f"\r[{'#' * filled}{'.' * (_WIDTH - filled)}] {self.done}/{self.total} matches,"
                           f" {left} left ")
        self._stream.flush()
