"""Each jail in a cgroup of its own where the host can make one (issue 44): every process of the jail starts in
it, it has the same CPU weight as every other jail and no cap unless one is asked for, the kernel holds its
memory, the jails' folder weighs as much as its jails, and the cgroup is gone once the jail has ended.  In real
jails; skipped where this machine gives the host no cgroups, and without a sandbox (failed in CI)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from president_harness.hosting.jail_cgroup import cgroups
from president_harness.hosting.sandbox import MB, Jailed, Sandbox, stage
from sandbox_support import require_sandbox

SHOW = """
import time
print(open("/proc/self/cgroup").read(), flush=True)
time.sleep(30)
"""


def _setting(jailed: Jailed, v2: str, v1: str) -> str:
    assert jailed.cgroup is not None
    name = v2 if jailed.cgroup.version == 2 else v1
    return next((f / name).read_text().strip() for f in jailed.cgroup.folders if (f / name).exists())


def test_each_jail_has_a_cgroup_of_its_own_with_an_equal_weight_and_its_memory(tmp_path: Path) -> None:
    require_sandbox()
    found = cgroups()
    if found is None:
        pytest.skip("this machine gives the host no cgroups: jail_quota holds the jails")
    source, staged = tmp_path / "source", tmp_path / "staged"
    source.mkdir()
    staged.mkdir()
    (source / "show.py").write_text(SHOW)
    os.chmod(tmp_path, 0o755)
    folder = stage(source, staged)
    free = Sandbox(folder=folder, slot=61, jail_memory_bytes=200 * MB, wall_s=60)
    capped = Sandbox(folder=folder, slot=62, jail_memory_bytes=300 * MB, cpu_cores=0.5, wall_s=60)
    jails = [sandbox.start(["python", "show.py"], log=tmp_path / f"{sandbox.slot}.log") for sandbox in (free, capped)]
    try:
        deadline = time.monotonic() + 30
        while not all(jailed.log.is_file() and "0::/" in jailed.log.read_text() for jailed in jails):
            assert time.monotonic() < deadline, [jailed.log.is_file() and jailed.log.read_text() for jailed in jails]
            time.sleep(0.05)
        for jailed in jails:
            assert jailed.cgroup is not None
            assert "president-jails" not in jailed.log.read_text()  # its own cgroup namespace: it sees only "/"
            for cgroup in jailed.cgroup.folders:  # its first process and the bot, in each hierarchy
                procs = {int(pid) for pid in (cgroup / "cgroup.procs").read_text().split()}
                assert jailed.process.pid in procs, (procs, jailed.process.pid)
                assert any(b"show.py" in Path(f"/proc/{pid}/cmdline").read_bytes() for pid in procs), procs
            assert _setting(jailed, "cpu.weight", "cpu.shares") == ("100" if found.version == 2 else "1024")
        assert _setting(jails[0], "cpu.max", "cpu.cfs_quota_us") in ("max 100000", "-1")
        assert _setting(jails[1], "cpu.max", "cpu.cfs_quota_us") in ("50000 100000", "50000")
        assert [int(_setting(j, "memory.max", "memory.limit_in_bytes")) for j in jails] == [200 * MB, 300 * MB]
        weight = (found.cpu / ("cpu.weight" if found.version == 2 else "cpu.shares")).read_text().strip()
        assert int(weight) >= 2 * (100 if found.version == 2 else 1024), weight
    finally:
        for jailed in jails:
            jailed.stop()
        ended = [jailed.wait() for jailed in jails]
    assert all(ended_.reason == "stopped by the host" for ended_ in ended), ended
    assert not any(folder.exists() for jailed in jails if jailed.cgroup for folder in jailed.cgroup.folders)
