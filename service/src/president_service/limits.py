"""Server-wide limits, so that no client can make the server grow without bound."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True, slots=True)
class Limits:
    max_matches: int = 1000
    """Matches being played at once (finished ones do not count)."""
    max_streams_per_seat: int = 2
    """Two, so that a reconnecting seat is not refused while its dead stream is not yet noticed."""
    max_spectators: int = 64
    """Spectator streams per match."""
    max_receive_bytes: int = 64 * 1024
    """Largest message a client may send; an action or a match request is far smaller."""
