"""`make run` on a machine with a C compiler: the compiled engine is built in the background, once, under a lock, and
taken only when whole (tools/compile_engine.py --background)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from president_engine import build

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "compile_engine.py"

pytestmark = [pytest.mark.xdist_group("engine-builds"),
              pytest.mark.skipif(build.missing_toolchain() is not None, reason="needs a C compiler and Python headers")]


def _tool(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != build.ENVIRONMENT} | env
    return subprocess.run([sys.executable, str(TOOL), *args], env=environment, capture_output=True, text=True,
                          timeout=600, cwd=ROOT)


def test_a_missing_build_is_made_in_the_background_once_and_taken_when_whole(tmp_path: Path) -> None:
    out = tmp_path / "engine-compiled"
    started = _tool(str(out), "--background")
    assert started.returncode == 0 and started.stderr == ""
    assert started.stdout == (f"president: compiling the engine in the background ({out}.log); commands started"
                              " after it use it\n")
    assert build.building(out)
    assert build.choose(out, ROOT).why.startswith("the compiled build is being made, see ")
    again = _tool(str(out), "--background")
    assert (again.returncode, again.stdout) == (0, "")  # one build at a time
    waited = _tool(str(out))  # a build by hand waits for it, then finds nothing to do
    assert waited.returncode == 0 and waited.stdout == f"compiled engine: {out} is up to date\n", waited.stderr
    deadline = time.monotonic() + 300
    while build.building(out) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert "modules compiled into" in (tmp_path / "engine-compiled.log").read_text()
    assert build.choose(out, ROOT) == build.Choice(True, str(out))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["engine-compiled", "engine-compiled.lock",
                                                         "engine-compiled.log"]
    fresh = _tool(str(out), "--background")
    assert (fresh.returncode, fresh.stdout) == (0, "")


def test_no_background_build_when_the_source_is_asked_for(tmp_path: Path) -> None:
    out = tmp_path / "engine-compiled"
    asked = _tool(str(out), "--background", PRESIDENT_ENGINE_BUILD="source")
    assert (asked.returncode, asked.stdout, asked.stderr) == (0, "", "")
    assert not tmp_path.joinpath("engine-compiled.lock").exists() and not out.exists()
