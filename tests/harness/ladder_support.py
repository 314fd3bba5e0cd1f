"""Shared helpers for the ladder tests: configs of built-in bots, played in-process unless said otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from president_harness.ladder.config import LadderConfig, parse
from president_harness.ladder.inprocess import InProcess


def builtin_config(tmp_path: Path, *, levels: tuple[str, ...] = ("random", "easy", "normal", "hard"),
                   **top: Any) -> LadderConfig:
    """A ladder of built-in levels (each bot named after its level) with a db in tmp_path, two matches at once."""
    data: dict[str, Any] = {"players": 4, "matches": 16, "seed": 7, "format": "duplicate", "db": "ladder.db",
                            "parallel": 2, "bots": [{"builtin": level} for level in levels]}
    data.update(top)
    return parse(data, base=tmp_path)


def in_process(config: LadderConfig) -> InProcess:
    return InProcess(rules=config.rules, levels={b.name: b.builtin or "" for b in config.bots})
