"""How long a newcomer waits: from `make run` on a fresh clone to the first deal shown (`make bench-install`).

Each run clones the repository into a temporary folder, runs `make run` with
every download cache off (as on a fresh machine), and times the moment the
live match's first deal is printed; then it times the same packages installed
the plain way (`python -m venv` and pip, caches off), for comparison.  Medians
of several runs; the network and the machine's load move these figures, so
read them side by side from one sitting.

    python benchmarks/first_match_bench.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NO_CACHE = {"UV_NO_CACHE": "1", "PIP_NO_CACHE_DIR": "1"}
PACKAGES = ["-e", "engine", "-e", "protocol", "-e", "sdk", "-e", "service", "-e", "harness"]


def _clone(into: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(ROOT), str(into)], check=True)
    return into


def make_run_to_first_deal(workdir: Path) -> float:
    clone = _clone(workdir / "make-run")
    env = dict(os.environ, **NO_CACHE)
    start = time.perf_counter()
    process = subprocess.Popen(["make", "run"], cwd=clone, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("== deal 1:"):
                return time.perf_counter() - start
        raise RuntimeError(f"make run ended (status {process.wait()}) without showing a deal")
    finally:
        os.killpg(process.pid, signal.SIGINT)
        process.wait(30)


def pip_install(workdir: Path) -> float:
    clone = _clone(workdir / "pip")
    env = dict(os.environ, **NO_CACHE)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(clone / ".venv")], check=True, env=env)
    subprocess.run([str(clone / ".venv/bin/python"), "-m", "pip", "install", "--quiet", *PACKAGES], cwd=clone,
                   check=True, env=env, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    first, plain = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            first.append(make_run_to_first_deal(Path(tmp)))
            plain.append(pip_install(Path(tmp)))
    print(f"make run on a fresh clone, caches off: first deal shown after {statistics.median(first):.1f} s"
          f" (runs {', '.join(f'{t:.1f}' for t in first)}); the same packages with venv + pip alone take"
          f" {statistics.median(plain):.1f} s to install (runs {', '.join(f'{t:.1f}' for t in plain)})")


if __name__ == "__main__":
    main()
