"""`pip install` of the engine: a wheel compiled by mypyc where a C compiler is present, the pure-Python one where
it is not (engine/setup.py), each saying which it is; both play the same matches as the source here."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from president_engine import PRESETS, Match, Rules, fallback_action
from wheel_support import ROOT, build_wheel, install, missing_toolchain, run_installed

PLAY = """
import hashlib, sys
from president_engine import Match, Rules, compiled, fallback_action
print(compiled.describe())
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
    """The wheels' build requirement is pinned to uv.lock's mypy, so a wheel compiles as the checkout does."""
    locked = re.search(r'name = "mypy"\nversion = "([^"]+)"', (ROOT / "uv.lock").read_text())
    assert locked is not None
    for project in ("engine", "sdk"):
        assert f'"mypy=={locked.group(1)}"' in (ROOT / project / "pyproject.toml").read_text(), project


def test_the_wheels_setuptools_is_the_locked_setuptools() -> None:
    """An isolated build (`pip install ./engine ./sdk`) takes uv.lock's setuptools, the one `make venv` builds with."""
    locked = re.search(r'name = "setuptools"\nversion = "([^"]+)"', (ROOT / "uv.lock").read_text())
    assert locked is not None
    for project in ("engine", "sdk"):
        assert f'"setuptools=={locked.group(1)}"' in (ROOT / project / "pyproject.toml").read_text(), project


@pytest.mark.skipif(missing_toolchain() is not None, reason="needs a C compiler and the Python headers")
def test_pip_install_compiles_the_engine_where_it_can(tmp_path: Path) -> None:
    python, output, wheel = _install(tmp_path)
    assert "president-engine: the compiled engine: 16 modules compiled by mypyc" in output
    assert not wheel.name.endswith("-none-any.whl")
    installed = _play(python)
    assert installed[0] == "engine: the compiled build"
    assert installed[1:] == _played_here()
    [site] = (python.parents[1] / "lib").glob("python*/site-packages")
    assert sorted(path.name.split(".")[0] for path in (site / "president_engine").glob("*.so")) == sorted(
        ("cards", "actions", "tables", "movegen", "legality", "match", "deal_flow", "exchange", "worlds", "playout",
         "events", "deal", "observation", "phase", "roles", "fallback"))


def test_without_a_compiler_pip_install_gives_the_source_and_says_so(tmp_path: Path) -> None:
    python, output, wheel = _install(tmp_path, CC="/nonexistent/cc")
    assert wheel.name.endswith("-py3-none-any.whl")
    notes = [line for line in output.splitlines() if line.startswith("president-engine:")]
    assert notes == ["president-engine: the pure-Python engine (no C compiler (/nonexistent/cc); the compiled build "
                     "needs a C compiler and the Python headers)"]
    installed = _play(python)
    [site] = (python.parents[1] / "lib").glob("python*/site-packages")
    assert installed[0] == f"engine: the pure-Python source ({site / 'president_engine'})"
    assert installed[1:] == _played_here()


def test_an_editable_install_compiles_nothing(tmp_path: Path) -> None:
    """The editable wheel (what `uv sync` installs) points at the source: nothing compiled in it or beside the
    source, whatever the toolchain."""
    project, out = tmp_path / "engine", tmp_path / "out"
    shutil.copytree(ROOT / "engine", project, ignore=shutil.ignore_patterns("build", "__pycache__", "*.egg-info"))
    out.mkdir()
    built = subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta;"
                            " print(build_meta.build_editable(sys.argv[1]))", str(out)],
                           cwd=project, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr[-2000:]
    assert "president-engine:" not in built.stdout + built.stderr
    [wheel] = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as editable:
        assert not [name for name in editable.namelist() if name.endswith((".so", ".pyd"))]
    assert not list(project.rglob("*.so"))
