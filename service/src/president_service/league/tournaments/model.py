"""The types a tournament's pairing and its standings share: a round's pairing, a table's results, the history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True, slots=True)
class Pairing:
    """One round: its tables (each a tuple of entrants in seat order) and the entrants sitting out."""

    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...]
    stage: int = 0
    """STAGES: which stage (0-based); 0 otherwise."""
    groups: tuple[tuple[str, ...], ...] = ()
    """STAGES: this stage's groups (empty otherwise)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TableResult:
    """What one table of a round produced: every deal's finishing order (entrant names, first to last), over all
    the table's matches (with duplicate boards a table plays several seatings; all their deals are here)."""

    round: int
    """0-based."""
    table: int
    """Index into that round's `Pairing.tables`."""
    entrants: tuple[str, ...]
    orders: tuple[tuple[str, ...], ...]
    forfeits: tuple[frozenset[str], ...] = ()
    """Per deal (as `orders`), the entrants that forfeited it: a move of their seat the server played or their
    client reported as a fallback (empty: none did, or the results predate the record)."""
    faults: tuple[tuple[str, int], ...] = ()
    """Per entrant with any: its bot's faults at the table (reported fallbacks, answers refused as illegal)."""
    server_moves: tuple[tuple[str, int], ...] = ()
    """Per entrant with any: the moves the server played for its seat at the table."""
    absent: tuple[str, ...] = ()
    """Entrants absent when one of the table's matches started."""


History = Sequence[tuple[Pairing, Sequence[TableResult]]]
"""Every round so far: its pairing and the results of its tables (all of them once the round is over)."""
