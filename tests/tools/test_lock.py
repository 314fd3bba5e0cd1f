"""The lock keeps installs from drifting: uv.lock is what is installed, and a stale lock fails in one line.

The virtual environment `make test` runs in was filled from uv.lock; if a
release came in from elsewhere (an unlocked install, a stub package that
pulled another), these tests see it.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(sys.prefix)
UV = VENV / "uv" / "bin" / "uv"
MEMBERS = ("engine", "protocol", "sdk", "service", "harness", "learn")

needs_uv = pytest.mark.skipif(not UV.exists(), reason=f"no uv at {UV} (make venv installs it)")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _locked() -> dict[str, set[str]]:
    """Every package of uv.lock with its locked versions (a package may have one per Python version)."""
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    versions: dict[str, set[str]] = {}
    for package in lock["package"]:
        versions.setdefault(_normal(package["name"]), set()).add(package["version"])
    return versions


def test_every_installed_release_is_the_locked_one() -> None:
    """Every distribution in the venv's site-packages (not what a package vendors on sys.path, as Ray does)."""
    locked = _locked()
    folders = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    installed = {_normal(d.metadata["Name"]): d.version for d in importlib.metadata.distributions(path=folders)}
    strays = {name: version for name, version in installed.items() if version not in locked.get(name, set())}
    assert not strays, f"installed but not as uv.lock says (name: version): {strays}"
    assert installed.keys() >= {f"president-{member}" for member in MEMBERS}


def test_the_conflicting_stubs_are_not_locked() -> None:
    """grpc-stubs writes into types-grpcio's folder: with both, mypy's verdict depended on install order."""
    locked = _locked()
    assert "types-grpcio" in locked
    assert "grpc-stubs" not in locked


@needs_uv
def test_the_environment_is_exactly_the_lock() -> None:
    """uv's own check: nothing locked is missing, nothing else is there (the full set `make venv` installs), but the
    engine and the SDK as the compiled wheels `make compiled` built from this checkout in place of their editable
    install."""
    result = subprocess.run(
        [str(UV), "sync", "--locked", "--check", "--offline", "--all-packages", "--all-extras"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "UV_PROJECT_ENVIRONMENT": str(VENV), "UV_PYTHON": sys.executable,
             "UV_PYTHON_DOWNLOADS": "never"},
    )
    changes = sorted(re.findall(r"^ ([+-]) ([\w-]+)(?:==\S+)? (?:@ |\(from )(\S+?)\)?$", result.stderr, re.MULTILINE))
    compiled = sorted((sign, name, uri) for name, folder in (("president-engine", "engine"), ("president-sdk", "sdk"))
                      for wheel in (ROOT / "build" / "wheels").glob(f"{name.replace('-', '_')}-*.whl")
                      for sign, uri in (("+", (ROOT / folder).as_uri()), ("-", wheel.as_uri())))
    assert result.returncode == 0 or (len(compiled) == 4 and changes == compiled), result.stderr


def _workspace_copy(path: Path) -> Path:
    """The lock and the seven pyproject.toml files with the Makefile, in a folder of their own."""
    for name in ("Makefile", "pyproject.toml", "uv.lock"):
        shutil.copy(ROOT / name, path / name)
    for member in MEMBERS:
        (path / member).mkdir()
        shutil.copy(ROOT / member / "pyproject.toml", path / member / "pyproject.toml")
    return path


def _check_lock(workspace: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "check-lock", f"UV={UV}", f"PY={sys.executable}"],
        cwd=workspace, capture_output=True, text=True, timeout=120, check=False,
    )


@needs_uv
@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_a_stale_lock_fails_make_in_one_line(tmp_path: Path) -> None:
    workspace = _workspace_copy(tmp_path)
    assert _check_lock(workspace).returncode == 0
    engine = workspace / "engine" / "pyproject.toml"
    engine.write_text(engine.read_text().replace("dependencies = []", 'dependencies = ["six>=1.16"]'))
    result = _check_lock(workspace)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if not line.startswith("make")]
    assert errors == ["error: uv.lock is out of date with the pyproject.toml files: run 'make lock' and commit uv.lock"]
