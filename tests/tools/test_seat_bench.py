"""The seat protocol benchmark runs as `make bench-seat` runs it, on a workload small enough for a test (`--quick`).

Its figures are not checked (speed is never asserted in a test); what is
checked is that every row and bar it promises is printed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_seat_bench_prints_every_transport_memory_and_bar() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "seat_bench.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for row in ("floor: grpc.aio ping-pong", "floor, sync client", "Play, raw", "Play, SDK", "Session, raw",
                "Session, raw, no defer", "Session, SDK", "Session, SDK threaded=False",
                "Play (every seat connected)", "Session (every seat connected)",
                "Session, no defer (every seat connected)", "Play: of which the matches alone",
                "floor: echo server, 4 open streams"):
        assert f"  {row} " in out, row
    assert "Session round trip at most Play's" in out
    assert "Play at most 1.3x the floor" in out
    assert "under 15 KB per match over Sessions" in out and "under 100 KB over Play streams" in out
    assert "Traceback" not in done.stderr
