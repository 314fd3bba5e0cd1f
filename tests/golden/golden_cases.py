"""The golden transcripts: which records exist, and how a record is narrated."""

from __future__ import annotations

from dataclasses import dataclass

from president_engine import MatchRecord
from president_engine.narrate import describe


@dataclass(frozen=True, kw_only=True)
class Case:
    name: str
    preset: str
    seed: int
    deals: int = 3


CASES = (
    Case(name="cardverse-seed10", preset="cardverse", seed=10),  # has a revolution
    Case(name="norwegian-seed3", preset="norwegian", seed=3),
    Case(name="italian-seed5", preset="italian", seed=5),
    Case(name="daifugo-seed7", preset="daifugo", seed=7, deals=4),  # deal 4 reseats
)


def narrate_record(text: str) -> list[str]:
    """Replay a record and describe every event, players named P0..Pn."""
    match = MatchRecord.loads(text).replay()
    names = [f"P{p}" for p in range(match.rules.players)]
    return [line for line in (describe(e, names) for e in match.events) if line is not None]
