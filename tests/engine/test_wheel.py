"""`pip install` of the engine: a wheel compiled by mypyc where a C compiler is present, the pure-Python one where
it is not (engine/build_backend.py), each saying which it is; both play the same matches as the source here."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from president_engine import PRESETS, Match, Rules, build, fallback_action
from wheel_support import ROOT, build_wheel, install, run_installed

PLAY = """
import hashlib, sys
from president_engine import Match, Rules, build, fallback_action
print(build.describe())
for preset in sys.argv[1:]:
    match = Match(Rules.preset(preset), seed=11)
    while not match.is_over:
        match.apply(fallback_action(match.legal_actions()))
    print(preset, hashlib.sha256(repr(match.events).encode()).hexdigest(), match.scores)
"""

pytestmark = pytest.mark.xdist_group("engine-builds")


def _played_here() -> list[str]:
    lines = []
    for preset in PRESETS:
        match = Match(Rules.preset(preset), seed=11)
        while not match.is_over:
            match.apply(fallback_action(match.legal_actions()))
        lines.append(f"{preset} {hashlib.sha256(repr(match.events).encode()).hexdigest()} {match.scores}")
    return lines


def _install(tmp_path: Path, **env: str) -> tuple[Path, str, Path]:
    """The engine's wheel (the checkout's setuptools and mypy), installed into a new virtual environment; (its
    Python, the build's output, the wheel)."""
    wheel, output = build_wheel("engine", tmp_path / "wheels", **env)
    return install(tmp_path / "venv", [wheel]), output, wheel


def _play(python: Path, **env: str) -> list[str]:
    return run_installed(python, PLAY, *PRESETS, **env)


def test_the_wheels_mypyc_is_the_locked_mypy() -> None:
    """The wheel's build requirement is pinned to uv.lock's mypy, so a wheel compiles as the checkout does."""
    locked = re.search(r'name = "mypy"\nversion = "([^"]+)"', (ROOT / "uv.lock").read_text())
    assert locked is not None
    backend = (ROOT / "engine" / "build_backend.py").read_text()
    assert f'MYPYC = "mypy=={locked.group(1)}"' in backend


@pytest.mark.skipif(build.missing_toolchain() is not None, reason="needs a C compiler and the Python headers")
def test_pip_install_compiles_the_engine_where_it_can(tmp_path: Path) -> None:
    python, output, wheel = _install(tmp_path)
    assert "president-engine: the compiled engine: 17 modules compiled by mypyc" in output
    assert not wheel.name.endswith("-none-any.whl")
    installed = _play(python)
    assert installed[0] == "engine: the compiled build"
    assert installed[1:] == _played_here()
    source = _play(python, PRESIDENT_ENGINE_BUILD="source")
    assert source == ["engine: the pure-Python source (PRESIDENT_ENGINE_BUILD=source)", *installed[1:]]
    # An installed source edited after the build runs as the source, never shadowed by the older build.
    [match] = (python.parents[1] / "lib").glob("python*/site-packages/president_engine/match.py")
    match.write_text(match.read_text() + "\n# edited\n")
    edited = _play(python)
    assert edited[0] == ("engine: the pure-Python source (the compiled build is older than president_engine/match.py;"
                         " reinstall president-engine to rebuild it)")
    assert edited[1:] == installed[1:]


def test_without_a_compiler_pip_install_gives_the_source_and_says_so(tmp_path: Path) -> None:
    python, output, wheel = _install(tmp_path, CC="/nonexistent/cc")
    assert wheel.name.endswith("-py3-none-any.whl")
    notes = [line for line in output.splitlines() if line.startswith("president-engine:")]
    assert notes == ["president-engine: the pure-Python engine (no C compiler (/nonexistent/cc); the compiled build "
                     "needs a C compiler and the Python headers)"]
    installed = _play(python)
    assert installed[0] == ("engine: the pure-Python source (installed without a compiled build: no C compiler and"
                            " Python headers, or PRESIDENT_ENGINE_BUILD=source, when it was installed)")
    assert installed[1:] == _played_here()
