"""`make run` on a fresh checkout with a C compiler: the demo starts on the editable source at once, the compiled
wheels are built and installed into the venv in the background, in their own session (a Ctrl-C of the demo lets
them finish), and the commands started after the install run the compiled build."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from wheel_support import missing_toolchain

ROOT = Path(__file__).resolve().parents[2]
UV = Path(sys.prefix) / "uv" / "bin" / "uv"
DESCRIBE = "from president_engine import compiled; print(compiled.describe())"

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("engine-builds"),
              pytest.mark.skipif(missing_toolchain() is not None, reason="needs a C compiler and the Python headers"),
              pytest.mark.skipif(not UV.exists(), reason=f"no uv at {UV} (make venv installs it)")]


def _checkout(target: Path) -> Path:
    """The repository's files as git lists them, with a venv of its own holding only this machine's uv."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    for name in listed:
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    subprocess.run([str(UV), "venv", "--quiet", "--python", sys.base_prefix + "/bin/python3", str(target / ".venv")],
                   check=True, timeout=60)
    (target / ".venv" / "uv" / "bin").mkdir(parents=True)
    (target / ".venv" / "uv" / "bin" / "uv").symlink_to(UV)
    return target


def _describe(checkout: Path) -> str:
    done = subprocess.run([str(checkout / ".venv" / "bin" / "python"), "-c", DESCRIBE], capture_output=True,
                          text=True, timeout=60, cwd=checkout, env=_env())
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "MAKEFLAGS", "MFLAGS")}


def test_make_run_installs_the_compiled_wheels_in_the_background(tmp_path: Path) -> None:
    checkout = _checkout(tmp_path / "checkout")
    demo = subprocess.Popen(["make", "run"], cwd=checkout, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    assert demo.stdout is not None
    shown: list[str] = []
    try:
        for line in demo.stdout:
            shown.append(line)
            if line.startswith("president: engine: "):
                break
    finally:
        os.killpg(demo.pid, signal.SIGINT)  # the reader's Ctrl-C: the demo ends, the build goes on
        demo.wait(timeout=60)
    text = "".join(shown)
    assert ("president: compiling the engine in the background (build/compiled.log); commands started after it use"
            " it") in text, text
    assert f"president: engine: the pure-Python source ({checkout / 'engine/src/president_engine'})" in text, text
    stamp = checkout / ".venv" / ".installed-compiled"
    deadline = time.monotonic() + 900
    while not stamp.exists():
        assert time.monotonic() < deadline, (checkout / "build" / "compiled.log").read_text()
        time.sleep(1)
    assert stamp.read_text() == "compiled\n"
    log = (checkout / "build" / "compiled.log").read_text()
    assert "installed the compiled engine and SDK into .venv" in log, log
    assert _describe(checkout) == "engine: the compiled build"
    # nothing left to build: make venv's compiled step has nothing to do, and no .so sits beside the source
    again = subprocess.run(["make", "--no-print-directory", ".venv/.installed-compiled"], cwd=checkout, env=_env(),
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "compiling" not in again.stdout, again.stdout + again.stderr
    assert not list((checkout / "engine" / "src").rglob("*.so")) and not list((checkout / "sdk" / "src").rglob("*.so"))
