"""`Fault`: why a driver replaced a bot's answer with the fallback (Kaggle's ERROR, TIMEOUT and INVALID)."""

from __future__ import annotations

from collections import Counter
from enum import Enum


class Fault(Enum):
    ERROR = "error"
    """The bot raised."""
    TIMEOUT = "timeout"
    """The bot did not answer before its deadline."""
    INVALID = "invalid"
    """The bot answered with something that is not a legal action now."""


Faults = Counter[Fault]
"""How often each fault happened."""


_WORDS = {Fault.ERROR: ("error", "errors"), Fault.TIMEOUT: ("time-out", "time-outs"),
          Fault.INVALID: ("illegal answer", "illegal answers")}


def describe_faults(faults: Faults) -> str:
    """``3 errors, 1 time-out`` (only the kinds that happened), or ``no faults``."""
    parts = [f"{faults[f]} {_WORDS[f][faults[f] != 1]}" for f in Fault if faults[f]]
    return ", ".join(parts) or "no faults"
