"""A jail's start-up under the user-space CPU quota (no cgroups): never stopped, however small the jail's cap, so a
runtime's connection to the server, whose timeouts count wall time, never times out while the host has the jail
stopped (issue 44).  In a real jail; skipped without a sandbox here, failed in CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from president_harness.hosting import sandbox as sandbox_module
from president_harness.hosting.jail_quota import START_CPU_S
from president_harness.hosting.sandbox import Sandbox, stage
from sandbox_support import require_sandbox

START = """
import time
while time.process_time() < {cpu_s}:
    pass
print("started", flush=True)
"""


def test_a_jails_start_up_runs_unstopped_under_the_smallest_cap(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A second and a half of CPU at start: at 0.01 cores the quota would stop it for two and a half minutes."""
    require_sandbox()
    monkeypatch.setattr(sandbox_module, "cgroups", lambda: None)
    source = tmp_path / "source"
    source.mkdir()
    (source / "start.py").write_text(START.format(cpu_s=1.5))
    staged = tmp_path / "staged"
    staged.mkdir()
    os.chmod(tmp_path, 0o755)
    jail = Sandbox(folder=stage(source, staged), slot=60, cpu_cores=0.01, wall_s=60)
    ended = jail.run(["python", "start.py"], log=tmp_path / "start.log")
    assert START_CPU_S > 1.5
    assert (ended.status, ended.throttled_s) == (0, 0.0), (ended, (tmp_path / "start.log").read_text())
    assert (tmp_path / "start.log").read_text() == "started\n"
