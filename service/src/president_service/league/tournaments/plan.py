"""A tournament's plan (its format, fixed at creation) and what every format's pairing shares."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from president_service.league.tournaments.model import Pairing


class Format(StrEnum):
    ROUND_ROBIN = "round-robin"
    SWISS = "swiss"
    STAGES = "stages"


class PairingError(ValueError):
    """An impossible format for these entrants: the message is one line a person reads."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Plan:
    """The format of an event, fixed at its creation."""

    format: Format
    players: int
    """Table size, 3..6."""
    rounds: int
    """SWISS: the number of rounds; ROUND_ROBIN: cycles (times through every table); STAGES: cycles of each
    group's round robin."""
    seed: int
    group_size: int = 0
    """STAGES: entrants per group in the first stage (at least `players`); unused otherwise."""
    advance: int = 0
    """STAGES: the top `advance` of each group go on to the next stage; unused otherwise."""
    forfeit: bool = False
    """A deal an entrant forfeited scores it last (`standings`, the fault rule FORFEIT)."""



def derive_seed(*parts: int | str) -> int:
    """A 63-bit seed from a tournament's seed and a position (its pairings', its matches' shuffles and bots'),
    stable across processes and Python versions."""
    digest = hashlib.sha256(("tournament/" + "/".join(map(str, parts))).encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def shuffled(names: Sequence[str], seed: int) -> list[str]:
    """`names` in a seeded order that does not depend on the order they were given in."""
    order = sorted(names)
    random.Random(seed).shuffle(order)
    return order


def pairing_of(tables: Sequence[tuple[str, ...]], field: Sequence[str], *, stage: int = 0,
             groups: tuple[tuple[str, ...], ...] = ()) -> Pairing:
    seated = {name for table in tables for name in table}
    return Pairing(tables=tuple(tables), byes=tuple(sorted(name for name in field if name not in seated)),
                   stage=stage, groups=groups)
