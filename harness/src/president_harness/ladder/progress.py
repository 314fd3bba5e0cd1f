"""Progress while a ladder runs: a bar redrawn in place on a terminal, a plain line every few seconds elsewhere (CI)."""

from __future__ import annotations

import time
from typing import TextIO

_WIDTH = 30
LINE_EVERY_S = 5.0
"""Without a terminal, a progress line at most this often (and one at the end)."""


class Progress:
    """Counts finished matches; a bar on a TTY, a line every `LINE_EVERY_S` seconds on anything else."""

    def __init__(self, total: int, done: int, stream: TextIO, *, name: str = "ladder") -> None:
        self.total = total
        self.done = done
        self.name = name
        self._new = 0
        self._stream = stream
        self._tty = stream.isatty()
        self._started = time.monotonic()
        self._last_line = self._started
        self._draw()

    def advance(self) -> None:
        """One more match counted."""
        self.done += 1
        self._new += 1
        self._draw()

    def tick(self) -> None:
        """Time passed (the driver calls this at least once a second): a line when one is due."""
        if not self._tty:
            self._draw()

    def eta(self) -> float | None:
        """Seconds left at the rate of this run so far; None before the first match."""
        if not self._new:
            return None
        return (time.monotonic() - self._started) / self._new * (self.total - self.done)

    def close(self) -> None:
        if self._tty:
            self._stream.write("\n")
        elif self._new:
            self._line()
        self._stream.flush()

    def _left(self) -> str:
        eta = self.eta()
        return "--:--" if eta is None else f"{int(eta) // 60:02d}:{int(eta) % 60:02d}"

    def _draw(self) -> None:
        if not self._tty:
            if time.monotonic() - self._last_line >= LINE_EVERY_S:
                self._line()
            return
        filled = _WIDTH * self.done // max(self.total, 1)
        self._stream.write(f"\r[{'#' * filled}{'.' * (_WIDTH - filled)}] {self.done}/{self.total} matches,"
                           f" {self._left()} left ")
        self._stream.flush()

    def _line(self) -> None:
        elapsed = time.monotonic() - self._started
        rate = self._new / elapsed if elapsed > 0 else 0.0
        self._stream.write(f"{self.name}: {self.done}/{self.total} matches, {rate:.1f} matches/s,"
                           f" {self._left()} left\n")
        self._stream.flush()
        self._last_line = time.monotonic()
