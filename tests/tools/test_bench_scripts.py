"""The engine and bot benchmarks run as `make bench` runs them, on workloads small enough for a test.

Their figures are not checked (speed is never asserted in a test); what is
checked is that every table and line they promise is printed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)


def test_engine_bench_prints_games_search_and_profile() -> None:
    done = _bench("engine_bench.py", "--seconds", "0.1", "--runs", "1", "--preset", "norwegian")
    assert done.returncode == 0, done.stderr
    assert "source (pure Python)" in done.stdout
    assert [line.split()[0] for line in done.stdout.splitlines() if line.startswith("norwegian")] == ["norwegian"] * 2
    profiled = _bench("engine_bench.py", "--profile")  # as docs/engine-speed.md shows it
    assert profiled.returncode == 0, profiled.stderr
    for preset in ("cardverse", "italian", "norwegian"):
        assert f"{preset}: 300 games" in profiled.stdout
    assert "legal_actions (match.py:" in profiled.stdout


def test_bots_bench_reports_every_step_and_the_experts_timing() -> None:
    done = _bench("bots_bench.py", "--preset", "italian", "--deals", "10", "--per-match", "1",
                  "--expert-boards", "1", "--expert-playouts", "4")
    assert done.returncode in (0, 1), done.stderr  # 1: a step is not significant on so few boards
    out = done.stdout
    for step in ("random -> easy", "easy -> normal", "normal -> hard", "hard -> expert"):
        assert step in out
    assert "italian: all five levels, 5 players" in out
    assert "hard -> expert, the presets at 4 players pooled" in out
    assert "decisions/s" in out and "ms per decision" in out
