"""What the tests of `pip install` share (tests/engine/test_wheel.py, tests/sdk/test_wheel.py): wheels built from
the checkout as pip builds them, installed into new virtual environments."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UV = ROOT / ".venv" / "uv" / "bin" / "uv"


def uv() -> str:
    found = str(UV) if UV.exists() else shutil.which("uv")
    if found is None:
        pytest.skip("needs uv (make venv installs it into .venv/uv)")
    return found


def environment(**env: str) -> dict[str, str]:
    """This process's environment without CC and PYTHONPATH (the installed packages run, not a checkout's source),
    then `env`."""
    return {k: v for k, v in os.environ.items() if k not in ("CC", "PYTHONPATH")} | env


def missing_toolchain() -> str | None:
    """Why this machine cannot build C extensions for this Python (engine/setup.py's check), or None."""
    spec = importlib.util.spec_from_file_location("engine_setup", ROOT / "engine" / "setup.py")
    assert spec is not None and spec.loader is not None
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)
    found: str | None = setup.missing_toolchain()
    return found


def build_wheel(project: str, out: Path, **env: str) -> tuple[Path, str]:
    """The wheel of `project` (a folder of the checkout) built with the checkout's build requirements, as uv.lock
    has them; (the wheel, the build's output)."""
    out.mkdir(parents=True, exist_ok=True)
    sources = out.with_name(out.name + "-sources")  # a private copy: setuptools builds in the project's build/
    if not (sources / project).exists():
        shutil.copytree(ROOT / project, sources / project,
                        ignore=shutil.ignore_patterns("build", "__pycache__", "*.egg-info", "*.so"))
    before = set(out.glob("*.whl"))
    built = subprocess.run([uv(), "build", "--wheel", "--no-build-isolation", "--python",
                            sys.executable, "--out-dir", str(out), str(sources / project)],
                           env=environment(**env), capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = set(out.glob("*.whl")) - before
    return wheel, built.stderr


def install(venv: Path, wheels: list[Path], *, locked_dependencies: bool = False,
            dependencies_of: str | None = None) -> Path:
    """A new virtual environment holding `wheels` alone; its Python.  With `locked_dependencies`, it reads the
    packages it lacks (grpcio, protobuf, ...) from the checkout's environment, after its own; with `dependencies_of`
    (a distribution of the workspace), it holds that distribution's dependencies too, installed into it as
    `pip install` installs them, in uv.lock's versions (from uv's cache, offline)."""
    python = venv / "bin" / "python"
    lock = venv.with_name(venv.name + "-lock") / "pylock.toml"
    commands = [[uv(), "venv", "--quiet", "--python", sys.executable, str(venv)]]
    if dependencies_of is not None:
        lock.parent.mkdir(parents=True, exist_ok=True)
        commands += [[uv(), "export", "--quiet", "--offline", "--locked", "--format", "pylock.toml", "--package",
                      dependencies_of, "--no-emit-workspace", "--no-dev", "--project", str(ROOT), "-o", str(lock)],
                     [uv(), "pip", "install", "--quiet", "--offline", "--python", str(python), "-r", str(lock)]]
    commands.append([uv(), "pip", "install", "--quiet", "--offline", "--no-deps", "--python", str(python),
                     *map(str, wheels)])
    for command in commands:
        done = subprocess.run(command, env=environment(), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    if locked_dependencies:
        [site] = (venv / "lib").glob("python*/site-packages")
        [checkout] = (ROOT / ".venv" / "lib").glob("python*/site-packages")
        (site / "checkout_dependencies.pth").write_text(f"{checkout}\n")  # a path, not a site: its .pth files unread
    return python


def run_installed(python: Path, script: str, *args: str, **env: str) -> list[str]:
    """`script` on the installed packages (run outside the checkout); its output's lines."""
    done = subprocess.run([str(python), "-c", script, *args], env=environment(**env), capture_output=True, text=True,
                          timeout=300, cwd=python.parent)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()
