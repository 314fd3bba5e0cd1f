"""Matches as Ray tasks on a local Ray instance; a failed task is retried and counted once."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ladder_support import builtin_config, in_process
from president_harness.ladder.driver import run_ladder
from president_harness.ladder.inprocess import InProcess
from president_harness.ladder.outcome import Outcome
from president_harness.ladder.schedule import MatchSpec

ray = pytest.importorskip("ray", reason="ray is not installed: pip install 'president-service[ray]'")
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import test modules


class FailsFirstTry:
    """Fails match 2 on its first attempt; picklable, so it travels to the Ray workers."""

    def __init__(self, play: InProcess, marker: Path) -> None:
        self.play, self.marker = play, marker

    def __call__(self, spec: MatchSpec) -> Outcome:
        if spec.index == 2 and not self.marker.exists():
            self.marker.touch()
            raise ConnectionError("worker lost the server")
        return self.play(spec)


def test_ladder_on_local_ray(tmp_path: Path) -> None:
    config = builtin_config(tmp_path, matches=8, parallel=2, retries=1, seatings="rotations")
    try:
        summary = run_ladder(config, FailsFirstTry(in_process(config), tmp_path / "failed-once"), ray="local")
    finally:
        ray.shutdown()
    assert summary.complete and summary.counted == 8 and summary.units == 2
    assert (tmp_path / "failed-once").exists()
