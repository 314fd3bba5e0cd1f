"""The build of the engine under test: `make test` runs the rules tests on the source, then on the compiled build."""

from __future__ import annotations

import os

import president_engine.match


def test_the_build_under_test_is_the_one_asked_for() -> None:
    """PRESIDENT_ENGINE_BUILD=compiled (set by `make pytest-compiled`) must mean mypyc's modules are the ones loaded."""
    compiled = president_engine.match.__file__.endswith((".so", ".pyd"))
    assert compiled == (os.environ.get("PRESIDENT_ENGINE_BUILD") == "compiled"), president_engine.match.__file__
