"""Log lines a flood could multiply (malformed requests on either port, refused connections), at most one per
interval, each saying how many were held back since the one before."""

from __future__ import annotations

import math
import time

LOG_EVERY_S = 10.0
"""At most one line of each kind per this many seconds."""


class Throttle:
    """Lets one line through per `every_s`, counting the ones held back in between."""

    def __init__(self, every_s: float = LOG_EVERY_S) -> None:
        self._every_s = every_s
        self._last = -math.inf
        self._held = 0

    def admit(self) -> int | None:
        """How many lines were held back since the last one let through; None: hold this one back too."""
        now = time.monotonic()
        if now - self._last < self._every_s:
            self._held += 1
            return None
        held, self._last, self._held = self._held, now, 0
        return held


def held_back(held: int) -> str:
    """The end of a line let through: how many were held back before it."""
    return f" ({held} more since the last report)" if held else ""
