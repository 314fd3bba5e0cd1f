"""The jail a hosted bot runs in: bubblewrap, resource limits, and one Unix socket to the server as its only way out.

Submitted code is hostile until proven otherwise. It runs only in the sandbox, with equal resources for every bot.

A `Sandbox` runs one command in two nested bubblewrap jails:

* the outer one builds what the bot can see: a fresh root holding read-only binds of the Python runtime (the
  interpreter, its standard library, the virtualenv and the SDK's source), the bot's own folder at /bot, the
  socket at /run/president.sock, and nothing else (no /etc, /var, /home, no neighbour's folder, no database
  or token file); a build's jail (`Sandbox.writable`) has the folder read-write, the one place it may write;
  it has its own pid namespace and /proc, so the bot sees only its own jail's processes;
* run by root, the outer jail then drops to the sandbox's own user id (100000 + slot, see `Sandbox.uid`)
  before starting the inner one: the kernel never applies the process limit to root, and a user namespace made
  by root maps its user to root outside, so one made inside the jail would not help;
* the inner one, run by that uid, adds a user namespace in which further user namespaces are disabled (no
  mount or chroot powers for the bot), no network but its own loopback, private IPC and hostname, private
  tmpfs home and /tmp with a size, the rest of the tree read-only, and a new session (no typing into the
  host's terminal);
* the bot's command then runs under ``prlimit`` (util-linux) with the limits of address space, CPU seconds,
  processes, open files, file size and no core files.  ``prlimit`` sets them inside the inner jail, after the
  namespaces are made: set on bwrap from outside, the process limit would count every process of a non-root
  host's user and stop bwrap itself, and Python's ``preexec_fn`` is unsafe in a threaded host.

A runtime whose gRPC cannot dial a Unix socket (Debian's grpc-java) gets the server on the jail's own loopback
instead (`Sandbox.loopback`): this module, run with the jail's Python as the jail's first process, relays
127.0.0.1 to the socket with the host's own `SocketRelay` and runs the bot as its child, under the same limits.

Where the machine lets the host make cgroups (`jail_cgroup`), each jail runs in one of its own: the kernel gives
the jails equal CPU weights (the idle machine's cores to one that runs alone) and holds the jail's memory, all its
processes together, at `Sandbox.jail_memory_bytes`; elsewhere `jail_quota` holds them in user space.

Output and the wall clock are not the jail's to limit: `Jailed` reads the output (keeping the first
`Sandbox.output_bytes` in the log, counting the rest) and kills the jail at the wall clock.  The command's
environment is exactly what `Sandbox.environment` gives: it is passed as the jails' own environment, not with
bwrap's --setenv, so the account token never shows in a command line (which every local user can read).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from president_harness.hosting.jail_cgroup import CgroupError, JailCgroup, cgroups
from president_harness.hosting.jail_quota import QUOTA
from president_harness.hosting.seccomp_filter import SeccompError, program_fd
from president_harness.hosting.socket_relay import SocketRelay

FIRST_UID = 100_000
"""The user id of slot 0; slot N runs as FIRST_UID + N, inside the jail and (when the host is root) outside."""
BOT_DIR = "/bot"
HOME = "/home/bot"
SOCKET = "/run/president.sock"
SERVER = f"unix:{SOCKET}"
"""The gRPC target of the server inside the jail."""
SDK_PACKAGES = ("president_sdk", "president_engine", "president_protocol")
"""What ``president-bot`` imports from this repository; their folders are bound where the host has them."""
RELAY_PACKAGES = ("president_harness",)
"""What the jail's own relay (`Sandbox.loopback`) imports besides: this module."""
LOOPBACK_PORT = 50051
"""The port of the server on the jail's own loopback (`Sandbox.loopback`): private to the jail's network
namespace, so every jail may use the same one."""
TAIL_BYTES = 4096
"""The end of a run's output kept to tell why it ended (a MemoryError's traceback)."""
MB = 1 << 20


def python_runtime(packages: Sequence[str] = SDK_PACKAGES) -> tuple[Path, ...]:
    """The folders the jail needs to run this Python with the SDK: the interpreter and its standard library,
    the virtualenv (its site-packages: grpcio, protobuf, and the engine and the SDK where their wheels are
    installed, compiled or not), and the folders of the SDK's own packages, or `packages` (editable installs and
    PYTHONPATH's sources live outside both): the jail imports the build this process imports."""
    found = [Path(sys.base_prefix), Path(sys.prefix)]
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None or not spec.submodule_search_locations:
            raise RuntimeError(f"{name} is not installed")
        found.append(Path(spec.origin).parent.parent)
    return tuple(found)


def _outermost(paths: Sequence[Path]) -> list[Path]:
    """`paths` resolved, without those inside another (one bind covers them), in order."""
    resolved = list(dict.fromkeys(p.resolve() for p in paths))
    return [p for p in resolved if not any(p != q and p.is_relative_to(q) for q in resolved)]


def _tool(name: str) -> Path:
    found = shutil.which(name)
    if found is None:
        raise SandboxError(f"{name} is not installed" + (" (apt-get install bubblewrap)" if name == "bwrap"
                                                         else " (Debian's util-linux package has it)"))
    return Path(found).resolve()


class SandboxError(RuntimeError):
    """The sandbox cannot start on this machine (the message says why, in one line)."""


MAX_SLOT = 899_999
"""The last slot: its user id stays below 1,000,000, clear of root's and the system users'."""


def slot_number(text: str) -> int:
    """An argparse type for a sandbox's slot (``--slot``), 0 to `MAX_SLOT`."""
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_SLOT:
        raise argparse.ArgumentTypeError(f"{text!r}: a slot from 0 to {MAX_SLOT}")
    return int(text)


def whole_limit(text: str) -> int:
    """An argparse type for a limit counted in whole units (megabytes, seconds, processes): 1 or more."""
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a whole number, 1 or more")
    return int(text)


def seconds_limit(text: str) -> float:
    """An argparse type for a wall clock in seconds: more than 0."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(f"{text!r}: a number of seconds, more than 0")
    return seconds


@dataclass(frozen=True, kw_only=True)
class Sandbox:
    """The limits of one bot's jail, and the folder it runs in (bound read-only at /bot)."""

    folder: Path
    slot: int = 0
    """Which of the machine's sandboxes this is: its user id is FIRST_UID + slot. Give each one its own."""
    memory_bytes: int = 1024 * MB
    """Address space of each process (RLIMIT_AS): an allocation past it fails (Python's MemoryError)."""
    cpu_s: int = 3600
    """CPU seconds of each process: SIGXCPU at this, SIGKILL a second later."""
    processes: int = 64
    """Processes and threads of the jail's user at once (a hosted president-bot ran 9 threads in a match)."""
    open_files: int = 256
    file_bytes: int = 16 * MB
    """Largest file the bot may write (in its tmpfs home or /tmp)."""
    tmpfs_bytes: int = 64 * MB
    """Size of each of its tmpfs folders, home and /tmp (their pages are memory outside the address space)."""
    output_bytes: int = 1 * MB
    """Output (stdout and stderr together) kept in the log per run; the rest is counted and dropped."""
    wall_s: float | None = None
    """The jail is killed after this long; None: it runs until stopped."""
    writable: bool = False
    """The folder is bound read-write (a build writes its output there), not read-only; a host running as root
    must give it to the sandbox's user first."""
    runtime: tuple[Path, ...] = ()
    """More files or folders bound read-only where the host has them: another runtime (Node's ``node``). One named
    by a symbolic link (``/usr/bin/java``, through /etc/alternatives) is bound where the link leads, with a link
    to it at its name."""
    loopback: bool = False
    """The server is reached at 127.0.0.1:LOOPBACK_PORT in the jail, not at its Unix socket, for a runtime whose
    gRPC has no ``unix:`` target (Debian's grpc-java): a relay started in the jail, under its limits, listens
    there, relays each connection to the jail's socket and nowhere else, and runs the command as its child; it
    ends with it, and the command with it (the jail's pid namespace ends when the relay does)."""
    cpu_cores: float | None = None
    """A cap on its CPU, in cores on average, all its processes and threads together (its cgroup's ``cpu.max``, or
    `jail_quota`, which stops it while it is over); None: no cap, an equal weight beside the other jails (the whole
    machine when they are idle)."""
    jail_memory_bytes: int | None = None
    """Memory of all its processes together (its cgroup's ``memory.max``, which the kernel holds; without cgroups,
    resident anonymous and shared memory and swap, sampled by `jail_quota`): past it the jail is killed; None:
    only `memory_bytes` (each process's) bounds it."""

    @property
    def uid(self) -> int:
        return FIRST_UID + self.slot

    def environment(self, extra: Mapping[str, str] = {}) -> dict[str, str]:
        """The command's whole environment: what running Python needs, the server's address, and `extra` (the
        bot's own token).  MALLOC_ARENA_MAX: glibc reserves 64 MB of address space for each arena, up to 8 a core,
        one more for each thread that finds the others busy, so under `memory_bytes` a process of many threads (a
        JVM: 15 in a hosted match) would run out of address space with 60 MB in use."""
        roots = python_runtime(self._packages)
        server = f"127.0.0.1:{LOOPBACK_PORT}" if self.loopback else SERVER
        return {"PATH": f"{sys.prefix}/bin:{sys.base_prefix}/bin:/usr/bin:/bin", "HOME": HOME, "TMPDIR": "/tmp",
                "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "MALLOC_ARENA_MAX": "2",
                "PYTHONPATH": os.pathsep.join(str(p) for p in roots[2:]), "PRESIDENT_SERVER": server, **extra}

    @property
    def _packages(self) -> tuple[str, ...]:
        return SDK_PACKAGES + RELAY_PACKAGES if self.loopback else SDK_PACKAGES

    def command(self, argv: Sequence[str], *, socket: Path | None = None, seccomp_fd: int | None = None) -> list[str]:
        """The command line that runs `argv` in the jail (at /bot), with `socket` (a Unix socket that leads to
        the server) at /run/president.sock."""
        bwrap, prlimit = _tool("bwrap"), _tool("prlimit")
        root = os.geteuid() == 0
        setpriv = _tool("setpriv") if root else None
        tools = [bwrap, prlimit, *([setpriv] if setpriv else [])]
        view = self._view(tools, socket)
        # The runtime found under /tmp (a checkout there) would be hidden by the private /tmp: bound again on top.
        shadowed = [item for path in self._runtime(tools) if path.is_relative_to("/tmp")
                    for item in ("--ro-bind", str(path), str(path))]
        jail = [*(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
                "--unshare-user", "--disable-userns", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--uid", str(self.uid), "--gid", str(self.uid),
                "--die-with-parent", "--new-session",
                "--ro-bind", "/", "/", *(["--bind", BOT_DIR, BOT_DIR] if self.writable else []),
                "--dev", "/dev", "--remount-ro", "/dev",
                "--size", str(self.tmpfs_bytes), "--tmpfs", "/tmp",
                "--size", str(self.tmpfs_bytes), "--tmpfs", HOME, *shadowed, "--chdir", BOT_DIR]
        limits = [f"--as={self.memory_bytes}", f"--cpu={self.cpu_s}:{self.cpu_s + 1}",
                  f"--nproc={self.processes}", f"--nofile={self.open_files}", f"--fsize={self.file_bytes}",
                  "--core=0"]
        # -P: the relay's imports never come from the bot's folder (its working directory).
        relay = [sys.executable, "-P", "-m", __name__] if self.loopback else []
        inner = [str(bwrap), *jail, "--", str(prlimit), *limits, "--", *relay, *argv]
        if setpriv is not None:
            return [str(bwrap), *view, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--",
                    str(setpriv), f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", "--", *inner]
        return [str(bwrap), "--unshare-user", *view, "--", *inner]

    def _runtime(self, tools: Sequence[Path]) -> list[Path]:
        """The folders bound read-only at their own paths: the Python runtime, the system's libraries, the
        tools and `runtime`."""
        system = [Path(p) for p in ("/usr/lib", "/usr/lib64") if Path(p).is_dir()]
        return _outermost([*python_runtime(self._packages), *system, *tools, *self.runtime])

    def _view(self, tools: Sequence[Path], socket: Path | None) -> list[str]:
        """The outer jail's options: a root with only the runtime, the tools, the bot's folder and the socket."""
        made: set[Path] = set()
        options: list[str] = []

        def directory(path: Path, mode: str = "0755") -> None:
            for parent in [*reversed(path.parents[:-1]), path] if path.parent != path else []:
                if parent not in made:
                    made.add(parent)
                    options.extend(["--perms", mode if parent == path else "0755", "--dir", str(parent)])

        def bind(source: Path, dest: Path) -> None:
            directory(dest.parent)
            options.extend(["--ro-bind", str(source), str(dest)])

        for path in self._runtime(tools):
            bind(path, path)
        for link in self.runtime:
            if link.is_symlink():
                directory(link.parent)
                options.extend(["--symlink", str(link.resolve()), str(link)])
        for link in (Path("/lib"), Path("/lib64")):  # the dynamic loader's paths, merged into /usr or not
            if link.is_symlink():
                options.extend(["--symlink", os.readlink(link), str(link)])
            elif link.is_dir():
                bind(link, link)
        directory(Path(BOT_DIR))
        options.extend(["--bind" if self.writable else "--ro-bind", str(self.folder.resolve()), BOT_DIR])
        directory(Path("/tmp"), "01777")  # mount points of the inner jail's tmpfs folders
        directory(Path(HOME))
        if socket is not None:
            bind(socket, Path(SOCKET))
        options.extend(["--unshare-pid", "--proc", "/proc", "--dev", "/dev", "--die-with-parent"])
        return options

    def start(self, argv: Sequence[str], *, log: Path, socket: Path | None = None, env: Mapping[str, str] = {},
              jailed: bool = True, on_output: Callable[[bytes], None] | None = None) -> Jailed:
        """`argv` running in the jail, its output going to `log` (capped) and, uncapped, to `on_output` chunk by
        chunk. With ``jailed=False`` it runs as a plain child in the bot's folder instead, with the same output
        cap and wall clock (``--no-sandbox``)."""
        if not jailed:
            environment = {"PATH": f"{sys.prefix}/bin:{os.environ.get('PATH', '')}", **env}
            return Jailed(self, list(argv), cwd=self.folder, env=environment, log=log, on_output=on_output)
        try:
            seccomp_fd = program_fd()
        except SeccompError as exc:
            raise SandboxError(str(exc)) from None
        cgroup = None
        try:
            command = self.command(argv, socket=socket, seccomp_fd=seccomp_fd)
            if (found := cgroups()) is not None:
                cgroup = found.make(cores=self.cpu_cores, memory_bytes=self.jail_memory_bytes)
            return Jailed(self, command, cwd=None, env=self.environment(env), log=log, on_output=on_output,
                          pass_fds=(seccomp_fd,), cgroup=cgroup)
        except CgroupError as exc:
            raise SandboxError(str(exc)) from None
        except BaseException:
            if cgroup is not None:
                cgroup.remove()
            raise
        finally:
            os.close(seccomp_fd)  # the inner bwrap has its copy

    def run(self, argv: Sequence[str], *, log: Path, socket: Path | None = None,
            env: Mapping[str, str] = {}) -> Exit:
        """`start`, then wait for the end."""
        return self.start(argv, log=log, socket=socket, env=env).wait()

    def check(self) -> str | None:
        """Why a jail cannot start here, in one line (no bubblewrap, no user namespaces, a runtime the jail's user
        cannot read), or None when it can: it runs the SDK's import in a real jail."""
        with tempfile.TemporaryDirectory(prefix="president-sandbox-check-") as scratch:
            log, folder = Path(scratch) / "check.log", Path(scratch) / "bot"
            folder.mkdir(mode=0o755)
            trial = Sandbox(folder=folder, slot=self.slot, wall_s=60)
            try:
                ended = trial.run([sys.executable, "-c", "import president_sdk.bot_cli"], log=log)
            except (SandboxError, RuntimeError, OSError) as exc:
                return f"the sandbox cannot start: {exc}"
            if ended.status == 0:
                return None
            said = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
            return f"the sandbox cannot start: {said[-1] if said else ended.reason}"


@dataclass(frozen=True)
class Exit:
    """How a jail's run ended."""

    status: int
    """The command's exit status; above 128, it was killed by signal status-128; negative: the host killed it."""
    reason: str
    """For the organiser, in one line: e.g. "killed at the wall clock (5 s)", "exited with status 1"."""
    output_bytes: int
    """Bytes of output, all of them (the log holds at most the sandbox's output_bytes)."""
    throttled_s: float = 0.0
    """Time it was held back for using more than its CPU cap (`Sandbox.cpu_cores`)."""
    peak_memory_bytes: int = 0
    """The most memory its processes held together, as `Sandbox.jail_memory_bytes` counts it (its cgroup's own
    peak; without cgroups, sampled)."""


class Jailed:
    """A command running in a sandbox: its output goes to a log, capped, and it is killed at the wall clock."""

    def __init__(self, sandbox: Sandbox, command: Sequence[str], *, cwd: Path | None, env: Mapping[str, str],
                 log: Path, on_output: Callable[[bytes], None] | None = None, pass_fds: Sequence[int] = (),
                 cgroup: JailCgroup | None = None) -> None:
        self.sandbox = sandbox
        self.cgroup = cgroup
        """The jail's cgroup, which every process of it starts in (None: `jail_quota` holds it)."""
        self.log = log
        self._on_output = on_output
        self._stopped = threading.Event()
        self._timed_out = False
        self._memory_seen: int | None = None
        """The memory measured past `Sandbox.jail_memory_bytes`, when that is why it was killed."""
        self._tail = b""
        self._output = 0
        self.process = subprocess.Popen(cgroup.command(command) if cgroup else command, cwd=cwd, env=dict(env),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        start_new_session=True, pass_fds=pass_fds)
        self._pidfd: int | None = os.pidfd_open(self.process.pid)
        """Signals go through it, so never to a process given the pid after this one's end; None once reaped."""
        self._signalling = threading.Lock()
        self._ending = threading.Lock()
        self._ended: Exit | None = None
        QUOTA.watch(self.process.pid, cores=None if cgroup else sandbox.cpu_cores,
                    memory_bytes=sandbox.jail_memory_bytes, over_memory=self._over_memory, cgroup=cgroup)
        self._reader = threading.Thread(target=self._read, name=f"sandbox-{sandbox.slot}-output", daemon=True)
        self._reader.start()
        self._timer = None
        if sandbox.wall_s is not None:
            self._timer = threading.Timer(sandbox.wall_s, self._wall_clock)
            self._timer.daemon = True
            self._timer.start()

    def _read(self) -> None:
        """Copy the output to the log until `output_bytes`, then count and drop the rest (the bot never blocks on
        a full pipe, and its flood costs it its own CPU seconds)."""
        assert self.process.stdout is not None
        cap = self.sandbox.output_bytes
        with self.log.open("wb") as out:
            while chunk := os.read(self.process.stdout.fileno(), 65536):
                if self._on_output is not None:
                    self._on_output(chunk)
                if self._output < cap:
                    out.write(chunk[:cap - self._output])
                    out.flush()
                self._output += len(chunk)
                self._tail = (self._tail + chunk)[-TAIL_BYTES:]
            if self._output > cap:
                out.write(f"\n[president host: output cut at {cap // 1024} KB; {self._output - cap} more bytes"
                          f" dropped]\n".encode())
        self.process.stdout.close()

    def _wall_clock(self) -> None:
        self._timed_out = True
        self.stop()

    def _over_memory(self, used: int) -> None:
        self._memory_seen = used
        self.stop()

    def stop(self) -> None:
        """Kill the jail: its outer bwrap, whose end ends its pid namespace and so every process in it (and,
        unsandboxed, the command's process group)."""
        self._stopped.set()
        with self._signalling, contextlib.suppress(ProcessLookupError):
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
                os.killpg(self.process.pid, signal.SIGKILL)

    def wait(self) -> Exit:
        """Wait for the end and say why it came (the same `Exit` to every caller)."""
        self.process.wait()
        with self._ending:
            if self._ended is None:
                self._ended = self._end()
            return self._ended

    def _end(self) -> Exit:
        held = QUOTA.forget(self.process.pid)
        throttled_s, peak_memory_bytes = held.throttled_s, held.peak_memory_bytes
        if self.cgroup is not None:
            throttled_s, peak_memory_bytes = self.cgroup.throttled_s(), self.cgroup.peak_memory_bytes()
            if self.cgroup.oom_kills() and self.sandbox.jail_memory_bytes is not None and self._memory_seen is None:
                self._memory_seen = peak_memory_bytes  # killed by the kernel before the quota's thread saw it
            self.cgroup.remove()
        if self._timer is not None:
            self._timer.cancel()
        with self._signalling:
            if self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None
        self._reader.join(10)
        return Exit(self.process.returncode, self._reason(self.process.returncode), self._output, throttled_s,
                    peak_memory_bytes)

    def _reason(self, status: int) -> str:
        sandbox = self.sandbox
        if self._timed_out:
            return f"killed at the wall clock ({sandbox.wall_s:g} s)"
        if self._memory_seen is not None and sandbox.jail_memory_bytes is not None:
            return (f"killed for using {self._memory_seen / MB:.0f} MB of memory in all its processes (the limit is"
                    f" {sandbox.jail_memory_bytes // MB} MB a jail)")
        if self._stopped.is_set():
            return "stopped by the host"
        if b"MemoryError" in self._tail or b"Cannot allocate memory" in self._tail:
            return f"out of memory (the limit is {sandbox.memory_bytes // MB} MB a process), status {status}"
        signum = -status if status < 0 else status - 128  # the jail gives a signal's death as 128 + its number
        if signum == signal.SIGXCPU:
            return f"killed by the CPU limit ({sandbox.cpu_s} s a process)"
        if signum == signal.SIGKILL:
            return ("killed by SIGKILL, not from the host: by the bot itself, the CPU limit's hard stop (a bot that"
                    " ignores SIGXCPU) or the kernel, out of memory")
        if signum == signal.SIGXFSZ:
            return f"killed by the file size limit ({sandbox.file_bytes // MB} MB)"
        if signum in signal.valid_signals():
            return f"killed by {signal.Signals(signum).name}"
        return f"exited with status {status}"


def stage(folder: Path, into: Path) -> Path:
    """A snapshot of a bot's folder under `into`, which the jail's user can read: what runs is what was given,
    whatever the organiser's file modes or later edits. Symbolic links are copied as links (resolved inside the
    jail, they lead nowhere outside it), never followed here, where they could copy the host's files in."""
    copy = into / "bot"
    shutil.copytree(folder, copy, symlinks=True)
    for path in [copy, *copy.rglob("*")]:
        if not path.is_symlink():
            executable = path.is_dir() or path.stat().st_mode & 0o111
            path.chmod(0o755 if executable else 0o644)
    return copy


def _relay_in_jail(argv: Sequence[str]) -> int:
    """``python -m president_harness.hosting.sandbox COMMAND...``, in a jail (`Sandbox.loopback`): the server on the
    jail's loopback, relayed to its socket, while COMMAND runs; its status (128 + N for signal N, as bwrap gives it)."""
    with SocketRelay(SERVER, Path(SOCKET), os.getuid(), port=LOOPBACK_PORT):
        try:
            status = subprocess.run(argv, check=False).returncode
        except OSError as exc:  # as prlimit says it when it cannot start a command
            print(f"president relay: failed to execute {argv[0] if argv else ''}: {exc.strerror}", file=sys.stderr)
            return 127
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(_relay_in_jail(sys.argv[1:]))
