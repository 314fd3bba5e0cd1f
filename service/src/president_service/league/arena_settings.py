"""The arena's settings, on their own so that ``president serve``'s options read them without loading the arena."""

from __future__ import annotations

from dataclasses import dataclass, field

from president_service.play.clock import ClockSettings


@dataclass(frozen=True, kw_only=True, slots=True)
class ArenaSettings:
    enabled: bool = False
    """Form matches from willing accounts (challenges work either way)."""
    queues: tuple[tuple[str, int], ...] = (("cardverse", 4), ("norwegian", 4), ("italian", 5))
    deals: int = 1
    """Deals in an arena match."""
    duplicate: bool = False
    """Each table plays every rotation of one deal (as many matches as players) instead of one match."""
    clock: ClockSettings = field(default_factory=lambda: ClockSettings(move_ms=5_000, bank_ms=20_000, max_strikes=3))
    challenge_timeout_s: float = 60.0
    check_retry_s: float = 5.0
    """Wait before the check match that follows a failed one; doubled after each further failure."""
    check_retry_max_s: float = 300.0
    """The longest wait between check matches."""
