"""Keeping hosted bots running in their sandboxes: one bot folder (`Keeper`), or every version a server leases to
this host (`Hosting`, ``president host --versions``).

A host is the organiser's client of the server, trusted like the builder: it runs outside any jail, and each bot
it starts runs only inside one (`president_harness.hosting.sandbox`), with its own user id (one slot each), its own
relayed socket to the server, and the token of its own lease in its environment (never on a command line).
What a hosted version's bot prints goes, line by line, to the server too (`OutputLines`, ReportBotOutput at
each lease renewal), where its author reads it per match (GetBotOutput).  A host never builds: a version's
folder is the one its builder uploaded, fetched from the server by its hash when this machine lacks it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import shlex
import shutil
import tempfile
import threading
import time
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.base.limits import REPORT_LINES, Limits

from president_harness.hosting.builder import UnbuildableError, fetch, unpack, with_runtime
from president_harness.hosting.sandbox import MB, Jailed, Sandbox, SandboxError, stage
from president_harness.hosting.socket_relay import relay_to
from president_harness.rpc_errors import describe_rpc_error

ACCOUNT_TOKEN_ENV = "PRESIDENT_ACCOUNT_TOKEN"
REPORT_CHARS = 60 * 1000
"""A version's output sent at most between two renewals, in characters (in as many ReportBotOutput messages as
the server's message cap needs); the rest is counted and dropped."""
REPORT_BYTES = Limits().max_receive_bytes - 1024
"""The most bytes of one ReportBotOutput, encoded: under the server's message cap."""
LINE_CHARS = 1000
"""A line's most characters: a longer one is cut into lines of this length (the server's cap)."""
FIRST_DELAY_S = 1.0
LAST_DELAY_S = 60.0
"""Restarts wait FIRST_DELAY_S, twice as long after each quick death, at most LAST_DELAY_S."""
STEADY_S = 60.0
"""A run that lasted this long was not a crash loop: the next restart waits FIRST_DELAY_S again."""


def say(line: str) -> None:
    print(f"president host: {line}", flush=True)


class OutputLines:
    """A bot's output as lines, each with when it was read, kept until `take` (at most `REPORT_CHARS` of them;
    past that they are counted, and `take` adds a line saying how many were dropped)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._partial = b""
        self._lines: list[pb.BotOutputLine] = []
        self._chars = 0
        self._dropped = 0

    def feed(self, chunk: bytes) -> None:
        """Some of the output, from the jail's output reader."""
        now = time.time_ns()
        with self._lock:
            *complete, self._partial = (self._partial + chunk).split(b"\n")
            while len(self._partial) > 4 * LINE_CHARS:  # no newline coming: cut it
                complete.append(self._partial[:4 * LINE_CHARS])
                self._partial = self._partial[4 * LINE_CHARS:]
            for raw in complete:
                text = raw.decode(errors="replace").rstrip("\r")
                for at in range(0, max(len(text), 1), LINE_CHARS):
                    self._add(now, text[at:at + LINE_CHARS])

    def _add(self, now: int, text: str) -> None:
        if self._chars + len(text) > REPORT_CHARS:
            self._dropped += 1
            return
        line = pb.BotOutputLine(text=text)
        line.at.FromNanoseconds(now)
        self._lines.append(line)
        self._chars += len(text)

    def take(self) -> list[pb.BotOutputLine]:
        """The lines since the last `take`."""
        with self._lock:
            lines, dropped = self._lines, self._dropped
            self._lines, self._chars, self._dropped = [], 0, 0
        if dropped:
            note = pb.BotOutputLine(text=f"[president host: {dropped} more lines dropped: at most {REPORT_CHARS}"
                                         " characters are sent between two lease renewals]")
            note.at.GetCurrentTime()
            lines.append(note)
        return lines


def reports(version_id: str, lines: list[pb.BotOutputLine]) -> list[pb.ReportBotOutputRequest]:
    """The lines, in order, as ReportBotOutput messages each within `REPORT_BYTES` encoded and `REPORT_LINES` lines."""
    made: list[pb.ReportBotOutputRequest] = []
    size = 0
    for line in lines:
        cost = pb.ReportBotOutputRequest(lines=[line]).ByteSize()  # its tag, its length and itself
        if not made or len(made[-1].lines) >= REPORT_LINES or size + cost > REPORT_BYTES:
            made.append(pb.ReportBotOutputRequest(version_id=version_id))
            size = made[-1].ByteSize()
        made[-1].lines.append(line)
        size += cost
    return made


class Keeper:
    """One bot kept running in its sandbox: started again after each end (1 s, 2 s, 4 s ... up to LAST_DELAY_S
    after quick deaths), a line for each start and each end, until `stop`."""

    def __init__(self, sandbox: Sandbox, argv: list[str], name: str, log_dir: Path, *, socket: Path | None,
                 env: dict[str, str], jailed: bool, output: OutputLines | None = None) -> None:
        self.sandbox, self.argv, self.name = sandbox, argv, name
        self.socket, self.env, self.jailed, self.output = socket, env, jailed, output
        self.log, self.previous = log_dir / f"{name}.log", log_dir / f"{name}.previous.log"
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._running: Jailed | None = None
        self.ended = threading.Event()
        """Set when it has stopped (waited on, not joined: a join that Ctrl-C interrupts breaks the thread's
        state in Python 3.11, and the process would then exit without waiting for it)."""

    def start(self) -> None:
        threading.Thread(target=self._run, name=f"keeper {self.name}").start()

    def _run(self) -> None:
        try:
            self._keep()
        finally:
            self.ended.set()

    def _keep(self) -> None:
        sandbox = self.sandbox
        share = (", an equal share of the CPU" if sandbox.cpu_cores is None
                 else f", at most {sandbox.cpu_cores:.2f} cores of CPU")
        memory = "" if sandbox.jail_memory_bytes is None else f", {sandbox.jail_memory_bytes // MB} MB in all"
        how = (f"in its sandbox (uid {sandbox.uid}; {sandbox.memory_bytes // MB} MB and {sandbox.cpu_s} CPU s a"
               f" process, {sandbox.processes} processes{memory}{share})" if self.jailed else
               "WITHOUT A SANDBOX (--no-sandbox): it can read, write and reach whatever this user can")
        delay = FIRST_DELAY_S
        for run in itertools.count(1):
            with self._lock:
                if self._stopping.is_set():
                    break
                if self.log.exists():
                    self.log.replace(self.previous)
                running = self._running = sandbox.start(self.argv, log=self.log, socket=self.socket, env=self.env,
                                                        jailed=self.jailed,
                                                        on_output=self.output.feed if self.output else None)
            started = time.monotonic()
            say(f"{self.name}: run {run} started {how}")
            ended = running.wait()
            lasted = time.monotonic() - started
            if self._stopping.is_set():
                break
            if lasted >= STEADY_S:
                delay = FIRST_DELAY_S
            cut = (f", its output cut at {sandbox.output_bytes // 1024} KB of {ended.output_bytes // 1024} KB"
                   if ended.output_bytes > sandbox.output_bytes else "")
            if ended.throttled_s >= 0.05:
                cut += f", held back {ended.throttled_s:.1f} s in all for using more than its CPU cap"
            say(f"{self.name}: run {run} {ended.reason} after {lasted:.1f} s{cut} (log {self.log});"
                 f" starting again in {delay:g} s")
            if self._stopping.wait(delay):
                break
            delay = min(2 * delay, LAST_DELAY_S)
        say(f"{self.name}: stopped")

    def stop(self) -> None:
        """End the run in progress and start no other (from any thread)."""
        with self._lock:
            self._stopping.set()
            if self._running is not None:
                self._running.stop()


class Hosting:
    """The versions a server leases to this host, each kept running by a `Keeper` in a sandbox slot of its own
    (`first_slot` up to `first_slot + capacity - 1`), its folder WORK/built/VERSION as the builder left it
    (fetched from the server, as its builder uploaded it, when this machine has not got it)."""

    def __init__(self, *, server: str, name: str, work: Path, log_dir: Path, sandbox: Sandbox, capacity: int,
                 jailed: bool) -> None:
        self.server, self.name, self.work, self.log_dir = server, name, work, log_dir
        self.sandbox, self.capacity, self.jailed = sandbox, capacity, jailed
        self.running: dict[str, tuple[Keeper, contextlib.ExitStack, int]] = {}
        """Version id -> its keeper, what to close after it, its slot."""
        self.unbuildable: set[str] = set()
        """Versions this host cannot run (no built archive, one that does not match its hash or unpack, a bad run
        command): not started again (their lease lapses and another host may try)."""

    def renew(self, stub: pb_grpc.PresidentServiceStub, admin: tuple[tuple[str, str], ...]) -> None:
        """Renew this host's leases; stop what is no longer its, start what is newly leased to it."""
        leased = stub.LeaseHosting(pb.LeaseHostingRequest(host=self.name, capacity=self.capacity,
                                                          running=list(self.running)), metadata=admin, timeout=30)
        for version_id in leased.stop:
            self._stop(version_id, "no longer this host's (retired, replaced, revoked or leased elsewhere)")
        for hosted in leased.start:
            if hosted.version.version_id not in self.running and hosted.version.version_id not in self.unbuildable:
                self._start(stub, admin, hosted)
        self._report_output(stub, admin)

    def _report_output(self, stub: pb_grpc.PresidentServiceStub, admin: tuple[tuple[str, str], ...]) -> None:
        """Send each running version's output since the last renewal (a refused report loses only its lines)."""
        for version_id, (keeper, _, _) in list(self.running.items()):
            if keeper.output is None:
                continue
            for report in reports(version_id, keeper.output.take()):
                try:
                    stub.ReportBotOutput(report, metadata=admin, timeout=30)
                except grpc.RpcError as exc:
                    say(f"{keeper.name}: {len(report.lines)} lines of its output not sent:"
                        f" {describe_rpc_error(exc, self.server)}")

    def _start(self, stub: pb_grpc.PresidentServiceStub, admin: tuple[tuple[str, str], ...],
               hosted: pb.HostedVersion) -> None:
        version = hosted.version
        slot = next(s for s in itertools.count(self.sandbox.slot) if s not in {v[2] for v in self.running.values()})
        folder = self.work / "built" / version.version_id
        try:
            argv = shlex.split(version.manifest.run)
            sandbox = with_runtime(dataclasses.replace(self.sandbox, folder=folder, slot=slot),
                                   version.manifest.runtime)
            if not folder.is_dir():
                fetch_built(stub, admin, version, folder)
                say(f"{version.player}: fetched its built folder ({version.built_bytes} bytes, SHA-256"
                    f" {version.built_sha256[:12]}...) into {folder}")
        except grpc.RpcError as exc:
            say(f"{version.player}: not started: its built folder could not be fetched:"
                f" {describe_rpc_error(exc, self.server)}; trying again at the next renewal")
            return
        except (ValueError, OSError, SandboxError, UnbuildableError) as exc:
            say(f"{version.player}: not started: {exc}")
            self.unbuildable.add(version.version_id)
            return
        stack = contextlib.ExitStack()
        try:
            if self.jailed:
                snapshot = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="president-host-")))
                sandbox = dataclasses.replace(sandbox, folder=stage(folder, snapshot))
                socket = stack.enter_context(relay_to(self.server, sandbox.uid))
                env = {ACCOUNT_TOKEN_ENV: hosted.token}
            else:
                socket, env = None, {ACCOUNT_TOKEN_ENV: hosted.token, "PRESIDENT_SERVER": self.server}
        except (OSError, SandboxError) as exc:
            stack.close()
            say(f"{version.player}: not started: {exc}")
            return
        keeper = Keeper(sandbox, argv, version.player, self.log_dir, socket=socket, env=env, jailed=self.jailed,
                        output=OutputLines())
        self.running[version.version_id] = (keeper, stack, slot)
        keeper.start()

    def _stop(self, version_id: str, why: str) -> None:
        found = self.running.pop(version_id, None)
        if found is None:
            return
        keeper, stack, _ = found
        say(f"{keeper.name}: stopping: {why}")
        keeper.stop()
        keeper.ended.wait()
        stack.close()

    def stop_all(self) -> None:
        for version_id in list(self.running):
            self._stop(version_id, "the host is stopping")


def fetch_built(stub: pb_grpc.PresidentServiceStub, admin: tuple[tuple[str, str], ...], version: pb.BotVersion,
                folder: Path) -> None:
    """The version's built folder, as its builder uploaded it, at `folder`: fetched, checked against its SHA-256,
    unpacked by the builder's rules into a fresh folder beside it and renamed into place once whole, so that a
    half-unpacked folder is never run.  UnbuildableError when there is none or it is not what was uploaded."""
    if not version.built_sha256:
        raise UnbuildableError("the server has no built archive of it (built before built folders were uploaded)")
    archive = fetch(stub, admin, version.version_id, built=True)
    if hashlib.sha256(archive).hexdigest() != version.built_sha256:
        raise UnbuildableError("its built archive does not match its SHA-256")
    folder.parent.mkdir(parents=True, exist_ok=True)
    unpacking = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        unpack(archive, unpacking)
        unpacking.chmod(0o755)
        unpacking.rename(folder)
    except BaseException:
        shutil.rmtree(unpacking, ignore_errors=True)
        raise
