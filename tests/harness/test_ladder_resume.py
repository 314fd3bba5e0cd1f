"""An interrupted ladder resumes without playing or counting any match twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from ladder_support import builtin_config, in_process
from president_harness.ladder.config import LadderConfig
from president_harness.ladder.driver import run_ladder
from president_harness.ladder.ladder_store import LadderMismatchError, LadderStore
from president_harness.ladder.outcome import Outcome
from president_harness.ladder.schedule import MatchSpec


class Recorder:
    """Plays in-process, remembers what it played, and interrupts the run after `stop_after` matches."""

    def __init__(self, config: LadderConfig, stop_after: int | None = None) -> None:
        self.play = in_process(config)
        self.played: list[int] = []
        self.stop_after = stop_after
        self.lock = threading.Lock()

    def __call__(self, spec: MatchSpec) -> Outcome:
        with self.lock:
            if self.stop_after is not None and len(self.played) >= self.stop_after:
                raise KeyboardInterrupt
            self.played.append(spec.index)
        return self.play(spec)


def counted(config: LadderConfig) -> list[int]:
    store = LadderStore(config.db, config.fingerprint())
    try:
        return [o.index for o in store.outcomes()]
    finally:
        store.close()


def test_interrupted_ladder_resumes_without_double_counting(tmp_path: Path) -> None:
    deterministic: dict[str, Any] = {"levels": ("easy", "normal", "hard"), "players": 3, "matches": 24}
    config = builtin_config(tmp_path, **deterministic)
    first = Recorder(config, stop_after=9)
    with pytest.raises(KeyboardInterrupt):
        run_ladder(config, first)
    before = counted(config)
    assert 0 < len(before) <= 9 and len(set(before)) == len(before)

    second = Recorder(config)
    summary = run_ladder(config, second)
    assert not set(second.played) & set(before)
    assert sorted(counted(config)) == list(range(24)) and summary.counted == 24

    fresh = builtin_config(tmp_path / "fresh", **deterministic)
    assert run_ladder(fresh, in_process(fresh)).standings == summary.standings  # as if never interrupted
    third = Recorder(config)
    assert run_ladder(config, third).counted == 24 and third.played == []


def test_a_db_refuses_another_ladder(tmp_path: Path) -> None:
    run_ladder(builtin_config(tmp_path, matches=4), in_process(builtin_config(tmp_path, matches=4)))
    with pytest.raises(LadderMismatchError):
        LadderStore(builtin_config(tmp_path, matches=8).db, builtin_config(tmp_path, matches=8).fingerprint())


_KILLED_RUN = """
import sys, time
sys.path.insert(0, {here!r})
from ladder_support import builtin_config, in_process
from president_harness.ladder.driver import run_ladder
from pathlib import Path
config = builtin_config(Path({tmp!r}), matches=48, parallel=1)
play = in_process(config)
def slow(spec):
    time.sleep(0.1)
    return play(spec)
run_ladder(config, slow)
"""


def test_killed_process_resumes_without_double_counting(tmp_path: Path) -> None:
    script = _KILLED_RUN.format(here=str(Path(__file__).parent), tmp=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-c", script])
    config = builtin_config(tmp_path, matches=48, parallel=1)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not config.db.exists() or len(counted(config)) < 5):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = counted(config)
    assert 5 <= len(before) < 48
    resumed = Recorder(config)
    run_ladder(config, resumed)
    assert not set(resumed.played) & set(before)
    assert sorted(counted(config)) == list(range(48))
