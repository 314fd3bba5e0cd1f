"""Each jail in a cgroup of its own, where this machine lets the host make one: the kernel then shares the CPU and
holds the memory, exactly and with no sampling.

* CPU: every jail has the same weight (cgroup v2 ``cpu.weight``, v1 ``cpu.shares``) and no cap, so the jails that
  compete for the CPU get equal shares of it, however many threads each runs, and one that runs alone gets the
  idle machine's cores; their folder weighs as much as all of them (`_reweigh`), so that each jail weighs as much
  against the machine's other work (the server) as it would in a folder of its own beside it.  A cap is set only
  when one is asked for (``cpu.max``, v1 ``cpu.cfs_quota_us``).  Nothing is ever stopped: a capped jail is
  throttled by the kernel, period by period.
* Memory: ``memory.max`` with no swap (v1 ``memory.limit_in_bytes`` and ``memory.memsw.limit_in_bytes``): past it
  the kernel reclaims, then kills, so the jail never holds more; v2 kills the whole jail at once
  (``memory.oom.group``), and on v1 the host kills the rest once it sees the kernel's kill (`JailCgroup.oom_kills`).

The jails' cgroups live in one folder, ``president-jails``, made in the host's own cgroup (the host's own limits
then hold its jails too) or, for a host run by root on cgroup v2, in the tree's root when the host's own cgroup
cannot have children with controllers (it holds processes).  `cgroups` finds where, once; None where neither
version lets the host make them (no root, no delegation), and `jail_quota` then holds the jails in user space.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PARENT = "president-jails"
PERIOD_US = 100_000
"""The period of a CPU cap: a capped jail gets cores * PERIOD_US of CPU in each."""
_ENTER = ('for procs; do [ "$procs" = -- ] && break; echo 0 > "$procs" || { echo "president: cannot enter the'
          ' jail\'s cgroup ($procs)" >&2; exit 125; }; shift; done; shift; exec "$@"')
"""A shell that moves itself into the jail's cgroup (one cgroup.procs per hierarchy) and then becomes the jail, so
that every process of the jail starts inside it."""
_names = itertools.count()


class CgroupError(OSError):
    """A jail's cgroup cannot be made or set."""


@dataclass(frozen=True)
class JailCgroup:
    """One jail's cgroup: one folder (v2), or one in the cpu and one in the memory hierarchy (v1)."""

    version: int
    folders: tuple[Path, ...]

    def command(self, argv: Sequence[str]) -> list[str]:
        """`argv`, started inside this cgroup."""
        return ["/bin/sh", "-c", _ENTER, "president-cgroup", *(str(f / "cgroup.procs") for f in self.folders), "--",
                *argv]

    def _read(self, name: str) -> str:
        for folder in self.folders:
            with contextlib.suppress(OSError):
                return (folder / name).read_text()
        return ""

    def _field(self, name: str, key: str) -> int:
        """The value of `key` in the flat-keyed file `name` (0 if absent)."""
        for line in self._read(name).splitlines():
            found, _, value = line.partition(" ")
            if found == key and value.strip().isdigit():
                return int(value)
        return 0

    def peak_memory_bytes(self) -> int:
        """The most memory the kernel charged to it (0 where the kernel does not keep it)."""
        text = self._read("memory.peak" if self.version == 2 else "memory.max_usage_in_bytes").strip()
        return int(text) if text.isdigit() else 0

    def oom_kills(self) -> int:
        """Processes the kernel killed for its memory."""
        return self._field("memory.events" if self.version == 2 else "memory.oom_control", "oom_kill")

    def throttled_s(self) -> float:
        """Time it was held back by its CPU cap."""
        if self.version == 2:
            return self._field("cpu.stat", "throttled_usec") / 1e6
        return self._field("cpu.stat", "throttled_time") / 1e9

    def remove(self) -> None:
        """Remove its folders once the processes in them have ended (a second at most for the last to go)."""
        deadline = time.monotonic() + 1.0
        for folder in self.folders:
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.01)
        _reweigh(self.version, self.folders[0].parent)


@dataclass(frozen=True)
class Cgroups:
    """Where the host makes its jails' cgroups: the ``president-jails`` folder of each hierarchy."""

    version: int
    cpu: Path
    memory: Path

    def make(self, *, cores: float | None, memory_bytes: int | None) -> JailCgroup:
        """A new jail's cgroup: an equal CPU weight, `cores` as a cap if given, `memory_bytes` with no swap."""
        name = f"jail-{os.getpid()}-{next(_names)}"
        folders = tuple(dict.fromkeys((self.cpu / name, self.memory / name)))
        made = JailCgroup(self.version, folders)
        try:
            for folder in folders:
                folder.mkdir()
            self._limit(made, cores, memory_bytes)
            _reweigh(self.version, self.cpu)
        except OSError as exc:
            made.remove()
            raise CgroupError(f"cannot set up a jail's cgroup in {folders[0].parent}: {exc}") from None
        return made

    def _limit(self, made: JailCgroup, cores: float | None, memory_bytes: int | None) -> None:
        cpu, memory = made.folders[0], made.folders[-1]
        quota = max(1000, round(cores * PERIOD_US)) if cores is not None else None
        if self.version == 2:
            (cpu / "cpu.weight").write_text("100")
            (cpu / "cpu.max").write_text(f"{quota if quota is not None else 'max'} {PERIOD_US}")
            if memory_bytes is not None:
                (memory / "memory.max").write_text(str(memory_bytes))
                _write_if_there(memory / "memory.swap.max", "0")
                _write_if_there(memory / "memory.oom.group", "1")
            return
        (cpu / "cpu.shares").write_text("1024")
        (cpu / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (cpu / "cpu.cfs_quota_us").write_text(str(quota if quota is not None else -1))
        if memory_bytes is not None:
            (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
            _write_if_there(memory / "memory.memsw.limit_in_bytes", str(memory_bytes))


def _reweigh(version: int, parent: Path) -> None:
    """Give the jails' folder the weight of all the jails in it (at least one's, at most the kernel's most)."""
    jails = max(1, sum(1 for entry in os.scandir(parent) if entry.is_dir() and entry.name.startswith("jail-")))
    with contextlib.suppress(OSError):
        if version == 2:
            (parent / "cpu.weight").write_text(str(min(10_000, 100 * jails)))
        else:
            (parent / "cpu.shares").write_text(str(min(262_144, 1024 * jails)))


def _write_if_there(path: Path, value: str) -> None:
    if path.exists():
        path.write_text(value)


def _mounts() -> list[tuple[str, Path, set[str]]]:
    """(filesystem type, mount point, super options) of each cgroup mount this process sees."""
    found = []
    with open("/proc/self/mountinfo") as mountinfo:
        for line in mountinfo:
            left, _, right = line.partition(" - ")
            kind, _, options = right.split()[:3]
            if kind in ("cgroup", "cgroup2"):
                found.append((kind, Path(left.split()[4]), set(options.split(","))))
    return found


def _own() -> dict[str, str]:
    """This process's cgroup in each hierarchy: controller (or "" for v2) -> path."""
    paths = {}
    with open("/proc/self/cgroup") as cgroup:
        for line in cgroup:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(","):
                paths[controller] = path
    return paths


def _inside(mount: Path, path: str) -> Path:
    return mount / path.lstrip("/")


def _v2(mounts: list[tuple[str, Path, set[str]]], own: dict[str, str]) -> Cgroups | None:
    mount = next((point for kind, point, _ in mounts if kind == "cgroup2"), None)
    if mount is None or "" not in own:
        return None
    candidates = dict.fromkeys([_inside(mount, own[""]), *([mount] if os.geteuid() == 0 else [])])
    for base in candidates:
        try:
            if not {"cpu", "memory"} <= set((base / "cgroup.controllers").read_text().split()):
                continue
            (base / "cgroup.subtree_control").write_text("+cpu +memory")
            parent = base / PARENT
            parent.mkdir(exist_ok=True)
            (parent / "cgroup.subtree_control").write_text("+cpu +memory")
            found = Cgroups(2, parent, parent)
            _probe(found)
            return found
        except OSError:
            continue
    return None


def _v1(mounts: list[tuple[str, Path, set[str]]], own: dict[str, str]) -> Cgroups | None:
    points = {controller: point for kind, point, options in mounts if kind == "cgroup"
              for controller in ("cpu", "memory") if controller in options}
    if set(points) != {"cpu", "memory"} or not {"cpu", "memory"} <= set(own):
        return None
    try:
        cpu, memory = (_inside(points[c], own[c]) / PARENT for c in ("cpu", "memory"))
        cpu.mkdir(exist_ok=True)
        memory.mkdir(exist_ok=True)
        found = Cgroups(1, cpu, memory)
        _probe(found)
        return found
    except OSError:
        return None


def _probe(found: Cgroups) -> None:
    """OSError unless a jail's cgroup can be made there, limited, and entered."""
    trial = found.make(cores=0.5, memory_bytes=64 << 20)
    try:
        subprocess.run(trial.command(["true"]), check=True, timeout=10, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    except (subprocess.SubprocessError, OSError) as exc:
        raise CgroupError(str(exc)) from None
    finally:
        trial.remove()


@functools.cache
def cgroups() -> Cgroups | None:
    """Where this host makes its jails' cgroups (v2 first, then v1); None where it cannot."""
    if os.environ.get("PRESIDENT_SANDBOX_CGROUPS") == "off":
        return None
    try:
        mounts, own = _mounts(), _own()
    except (OSError, ValueError):
        return None
    return _v2(mounts, own) or _v1(mounts, own)
