"""Equal CPU and a memory cap for every jail where no cgroup holds it (`jail_cgroup` finds none): a jail given a
CPU cap, `cores`, may use that on average (past that it is stopped, SIGSTOP, until its share has caught up, then
continued, SIGCONT), and at most `memory_bytes` of memory in all its processes together (past that it is killed).

It is cgroup v2's ``cpu.max`` and ``memory.max`` in user space, for machines (and containers) that give no cgroup
controllers. One thread samples every watched jail each `PERIOD_S`: the process tree under the jail's first
process, read from /proc, so threads and children count.  A jail in a cgroup of its own is only watched for the
kernel's memory kills (`JailCgroup.oom_kills`), so that the rest of it is killed too.

* CPU: the CPU time of the tree (a reaped child's time lives on in its reaper's), against a budget that grows by
  ``cores * PERIOD_S`` a period and holds at most `BURST_S` seconds of it, so a bot that was idle may think at
  full speed for a moment, and no bot averages more than its share over any second. A busy-looping bot, however
  many threads it runs, gets its share and no more, and so cannot think on the others' time.  Its start-up, the
  first `START_CPU_S` of its CPU, is never stopped: the runtime's connection to the server counts wall time, and
  would time out while the jail is stopped.  A jail with no cap is never stopped: the kernel shares the CPU
  between the jails, each in a session of its own (a scheduling group of its own where the kernel groups by
  session, ``kernel.sched_autogroup_enabled``).
* Memory: the tree's resident anonymous and shared memory and its swap (RssAnon + RssShmem + VmSwap: what its
  processes allocated, shared memory and memfds included; not the program and library files mapped, which the
  page cache shares with every other jail running the same runtime). Between two samples only the per-process
  address-space limit bounds it, so a jail may briefly hold more, at most its processes times that limit.

Signals go through pidfds checked against each process's start time, so a pid reused by another process is
never signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from president_harness.hosting.jail_cgroup import JailCgroup

PERIOD_S = 0.1
BURST_S = 1.0
"""Seconds of a jail's share it may save up while idle and spend at once."""
START_CPU_S = 2.0
"""CPU seconds of a jail's start-up, never stopped for its share."""
_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")
_CHARGED = (b"RssAnon:", b"RssShmem:", b"VmSwap:")
"""The lines of /proc/PID/status a jail's memory is the sum of (in kB)."""


@dataclass(frozen=True, slots=True)
class _Process:
    parent: int
    cpu_s: float
    """Its CPU time and its reaped children's."""
    started: int
    """Its start time (clock ticks after boot): with the pid, which process this is."""


def _read(pid: int | str) -> _Process | None:
    """The process, from /proc/PID/stat; None once it has ended."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            data = stat.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2:].split()
    # fields from the state on: ppid 1, utime 11, stime 12, cutime 13, cstime 14, starttime 19
    return _Process(parent=int(fields[1]), started=int(fields[19]),
                    cpu_s=sum(int(f) for f in fields[11:15]) * _TICK_S)


def _memory_bytes(pid: int) -> int:
    """The process's charged memory (`_CHARGED`); 0 once it has ended (or for a kernel thread)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            lines = status.read().splitlines()
    except OSError:
        return 0
    return sum(int(line.split()[1]) for line in lines if line.startswith(_CHARGED)) * 1024


def _processes() -> dict[int, _Process]:
    return {int(entry.name): process for entry in os.scandir("/proc")
            if entry.name.isdigit() and (process := _read(entry.name)) is not None}


def _tree(root: int, processes: dict[int, _Process]) -> dict[int, _Process]:
    children: dict[int, list[int]] = {}
    for pid, process in processes.items():
        children.setdefault(process.parent, []).append(pid)
    tree, todo = {}, [root] if root in processes else []
    while todo:
        pid = todo.pop()
        tree[pid] = processes[pid]
        todo.extend(children.get(pid, ()))
    return tree


def tree_cpu_s(root: int) -> float:
    """CPU seconds of the process `root` and every process under it now, reaped children's included."""
    return sum(process.cpu_s for process in _tree(root, _processes()).values())


def tree_memory_bytes(root: int) -> int:
    """The charged memory of the process `root` and every process under it now (what `memory_bytes` caps)."""
    return sum(_memory_bytes(pid) for pid in _tree(root, _processes()))


@dataclass(frozen=True)
class Held:
    """What the quota saw of a jail, once it is forgotten."""

    throttled_s: float = 0.0
    """Time it spent stopped for using more than its CPU share."""
    peak_memory_bytes: int = 0
    """The most charged memory it held at a sample."""


@dataclass(eq=False)
class _Jail:
    root: int
    started: int
    cores: float | None
    memory_bytes: int | None
    over_memory: Callable[[int], object]
    cgroup: JailCgroup | None
    budget_s: float
    """CPU seconds it may still use now."""
    used_s: float = 0.0
    stopped: dict[int, int] = field(default_factory=dict)
    """Pid -> start time of the processes it stopped."""
    throttled_s: float = 0.0
    """Time it spent stopped."""
    peak_memory_bytes: int = 0


class JailQuota:
    """The thread that holds each watched jail to its share and its memory (one for the whole host: `QUOTA`)."""

    def __init__(self, period_s: float = PERIOD_S) -> None:
        self._period_s = period_s
        self._jails: dict[int, _Jail] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def watch(self, pid: int, *, cores: float | None = None, memory_bytes: int | None = None,
              over_memory: Callable[[int], object] = lambda used: None, cgroup: JailCgroup | None = None) -> None:
        """Hold the process `pid` and everything it starts to `cores` of CPU on average (None: any) and measure
        their memory, until `forget`; past `memory_bytes` (None: no cap) `over_memory` is called, once, with the
        memory measured (it kills the jail).  In a `cgroup`, which holds both, `over_memory` is called once the
        kernel has killed one of its processes for its memory."""
        started = _read(pid)
        with self._lock:
            self._jails[pid] = _Jail(root=pid, started=started.started if started else -1, cores=cores,
                                     memory_bytes=memory_bytes, over_memory=over_memory,
                                     cgroup=cgroup, budget_s=BURST_S * (cores or 0.0))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="jail-quota", daemon=True)
                self._thread.start()

    def forget(self, pid: int) -> Held:
        """Stop watching `pid` (its jail ended, or is ending: what was stopped is continued); what was seen."""
        with self._lock:
            jail = self._jails.pop(pid, None)
        if jail is None:
            return Held()
        _signal(jail.stopped, signal.SIGCONT)
        return Held(jail.throttled_s, jail.peak_memory_bytes)

    def _run(self) -> None:
        last = time.monotonic()
        while True:
            time.sleep(self._period_s)
            now = time.monotonic()
            elapsed, last = now - last, now
            with self._lock:
                jails = list(self._jails.values())
            if jails:
                # a jail in a cgroup needs no process tree: /proc is read only for the others
                processes = _processes() if any(jail.cgroup is None for jail in jails) else {}
                for jail in jails:
                    self._hold(jail, processes, elapsed)

    def _hold(self, jail: _Jail, processes: dict[int, _Process], elapsed: float) -> None:
        if jail.cgroup is not None:
            if jail.memory_bytes is not None and jail.cgroup.oom_kills():
                jail.memory_bytes = None  # told once
                jail.over_memory(jail.cgroup.peak_memory_bytes())
            return
        root = processes.get(jail.root)
        if root is None or root.started != jail.started:
            return  # it ended: `forget` comes
        tree = _tree(jail.root, processes)
        memory = sum(_memory_bytes(pid) for pid in tree)
        jail.peak_memory_bytes = max(jail.peak_memory_bytes, memory)
        if jail.memory_bytes is not None and memory > jail.memory_bytes:
            jail.memory_bytes = None  # told once
            jail.over_memory(memory)
        if jail.cores is None:
            return
        if jail.stopped:
            jail.throttled_s += elapsed
        used = max(jail.used_s, sum(p.cpu_s for p in tree.values()))
        spent = used - jail.used_s if used > START_CPU_S else 0.0
        jail.budget_s = min(BURST_S * jail.cores, jail.budget_s + jail.cores * elapsed) - spent
        jail.used_s = used
        with self._lock:
            if jail.root not in self._jails:
                return
            if jail.budget_s < 0:
                if not jail.stopped:
                    self._stop(jail, tree)
            elif jail.stopped:
                _signal(jail.stopped, signal.SIGCONT)
                jail.stopped = {}

    @staticmethod
    def _stop(jail: _Jail, tree: dict[int, _Process]) -> None:
        """Stop every process of the jail; again for any a process started before it was stopped itself."""
        while todo := {pid: p.started for pid, p in tree.items() if pid not in jail.stopped}:
            _signal(todo, signal.SIGSTOP)
            jail.stopped.update(todo)
            tree = _tree(jail.root, _processes())


def _signal(processes: dict[int, int], signum: int) -> None:
    """Send `signum` to each process (pid -> start time) that is still the one seen."""
    for pid, started in processes.items():
        with contextlib.suppress(OSError):
            fd = os.pidfd_open(pid)
            try:
                seen = _read(pid)
                if seen is not None and seen.started == started:
                    signal.pidfd_send_signal(fd, signum)
            finally:
                os.close(fd)


QUOTA = JailQuota()
"""The host's one quota thread: every jail registers here."""
