"""Matches as Ray tasks on a local Ray instance; a failed task is retried and counted once."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from ladder_support import builtin_config, in_process
from president_harness.child_server import ChildServer
from president_harness.ladder.backends import RayBackend
from president_harness.ladder.driver import run_ladder
from president_harness.ladder.inprocess import InProcess
from president_harness.ladder.ladder_cli import OWN_SERVER_OPTIONS
from president_harness.ladder.outcome import Outcome
from president_harness.ladder.over_server import OverServer
from president_harness.ladder.report import terminal
from president_harness.ladder.schedule import MatchSpec, schedule
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

ray = pytest.importorskip("ray", reason="ray is not installed: pip install 'president-service[ray]'")
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import test modules
pytestmark = pytest.mark.xdist_group("ray")  # one local Ray instance at a time on the machine


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
    assert "cores busy on average, not counting Ray's own processes)" in terminal(summary)


def test_ray_workers_report_the_cpu_time_they_spent(tmp_path: Path) -> None:
    """The matches are played in the workers' processes: the speed report adds their CPU time to the driver's (it
    read "0.0 of 2 cores busy", the driver's alone)."""
    config = builtin_config(tmp_path, matches=4, parallel=2, seatings="rotations")
    try:
        backend = RayBackend(in_process(config), 2, "local")
        waiting = [backend.submit(spec) for spec in schedule(config)]
        while waiting:
            for handle, outcome in backend.completed(waiting):
                assert isinstance(outcome, Outcome), outcome
                waiting.remove(handle)
        backend.close()
    finally:
        ray.shutdown()
    own, children = backend.cpu_s
    assert own > 0 and children >= 0 and backend.cores == os.cpu_count()


def test_ray_workers_hold_their_bots_connections_for_many_matches(tmp_path: Path) -> None:
    """Over the server: each worker opens its own accounts and Sessions once and plays its matches on them; the
    results are those of the same ladder in-process."""
    config = builtin_config(tmp_path, matches=24, parallel=4)
    with ChildServer(tmp_path / "server.db", OWN_SERVER_OPTIONS) as server:
        recipe = OverServer(server=server.address, admin_token=server.admin_token, preset=config.preset,
                            rules=config.rules, clock=config.clock, bots={b.name: b for b in config.bots},
                            timeout_s=120, base=config.base, runs=config.runs, ladder="ray", parallel=4)
        try:
            summary = run_ladder(config, recipe, ray="local")
        finally:
            ray.shutdown()
        with grpc.insecure_channel(server.address) as channel:
            listed = pb_grpc.PresidentServiceStub(channel).ListAccounts(
                pb.ListAccountsRequest(), metadata=(("authorization", f"Bearer {server.admin_token}"),))
    assert summary.complete and summary.counted == 24
    workers = {a.name.split(".")[1] for a in listed.accounts}
    assert len(listed.accounts) == 4 * len(workers) and len(workers) >= 1  # one account per bot per worker
    fresh = replace(config, db=tmp_path / "inprocess" / "ladder.db")
    assert [s.rating for s in run_ladder(fresh, in_process(fresh)).standings] == [s.rating for s in summary.standings]
