"""Time control: each move has a limit, then draws on a bank per seat that only shrinks.

A seat that runs out of time gets a strike and an empty bank, so its later
moves have only the move limit; after `max_strikes` strikes the server plays
the seat to the end (`taken_over`).  A move limit of 0 means no clock at all.
A seat with no client connected runs out of time sooner, at the server's
absence limit, with or without a clock (`MatchRunner._arm`): the same strike.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

_MOST = {"move_ms": 24 * 3600 * 1000, "bank_ms": 24 * 3600 * 1000, "max_strikes": 1000}
ABSENCE_S = 60.0
"""The server's default absence limit: seconds a started match waits on a seat with no client before it acts."""


class ClockError(ValueError):
    """A clock setting out of range; `option` names it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"{option}: {message}")
        self.option = option


@dataclass(frozen=True, kw_only=True, slots=True)
class ClockSettings:
    move_ms: int = 10_000
    """Time for each move; 0: no clock."""
    bank_ms: int = 60_000
    """Extra time per seat for the whole match, spent when a move takes longer than move_ms."""
    max_strikes: int = 3
    """Timeouts after which the server plays the seat to the end; 0: never."""

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            most = _MOST[field.name]
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
                raise ClockError(field.name, f"a whole number from 0 to {most}")

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClockSettings:
        return cls(**data)


class Clock:
    def __init__(self, settings: ClockSettings, players: int) -> None:
        self.settings = settings
        self.banks = [settings.bank_ms] * players
        self.strikes = [0] * players

    @property
    def enabled(self) -> bool:
        return self.settings.move_ms > 0

    def allowance_ms(self, player: int) -> int:
        """How long `player` may take over the move that starts now."""
        return self.settings.move_ms + self.banks[player]

    def charge(self, player: int, spent_ms: int) -> None:
        """Take the time beyond the move limit out of the bank."""
        if self.enabled:
            self.banks[player] = max(0, self.banks[player] - max(0, spent_ms - self.settings.move_ms))

    def strike(self, player: int) -> int:
        """Record a timeout; returns the seat's strike count."""
        self.banks[player] = 0
        self.strikes[player] += 1
        return self.strikes[player]

    def taken_over(self, player: int) -> bool:
        return 0 < self.settings.max_strikes <= self.strikes[player]
