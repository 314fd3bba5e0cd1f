"""A bot's faults counted (`Fault` is the engine's: why a driver replaced a bot's answer with the fallback)."""

from __future__ import annotations

from collections import Counter

from president_engine import Fault

Faults = Counter[Fault]
"""How often each fault happened."""


_WORDS = {Fault.ERROR: ("error", "errors"), Fault.TIMEOUT: ("time-out", "time-outs"),
          Fault.INVALID: ("illegal answer", "illegal answers")}


def describe_faults(faults: Faults) -> str:
    """``3 errors, 1 time-out`` (only the kinds that happened), or ``no faults``."""
    parts = [f"{faults[f]} {_WORDS[f][faults[f] != 1]}" for f in Fault if faults[f]]
    return ", ".join(parts) or "no faults"
