"""Which build of the engine this process runs: a compiled wheel's modules (mypyc, `make venv`) or the source."""

from __future__ import annotations

from pathlib import Path

import president_engine.match


def is_compiled() -> bool:
    """The engine's modules were loaded from mypyc's extensions, not from their Python source."""
    return str(president_engine.match.__file__).endswith((".so", ".pyd"))


def describe() -> str:
    """One line on the build in use, for the command line's notes."""
    if is_compiled():
        return "engine: the compiled build"
    return f"engine: the pure-Python source ({Path(president_engine.match.__file__).parent})"
