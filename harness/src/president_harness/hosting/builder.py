"""``president builder``: build submitted bot versions in the sandbox, one at a time, and report each to the server.

    president builder --server unix:run/president.sock --admin-token SECRET --work run/builds/ --slot 2
    president builder --server localhost:50051 --once          # what is queued now, then exit

Submitted code is hostile until proven otherwise: its archive is checked before anything is written (no
absolute path, no '..', no link out of its folder, no device file, at most 64 MB and 10,000 entries unpacked),
and its build command runs only in the sandbox, in its own folder (the one place it may write, up to a cap),
with no network and time, memory and process limits.  The builder leases the oldest queued version with the
admin token, fetches the archive, checks its SHA-256, builds, and reports READY or FAILED with a one-line reason
and the log; a version whose lease ends unreported (a lost builder) is leased again by another.  A READY build's
folder is packed (checked by the same rules as an archive it unpacks) and uploaded to the server before it is
reported, so that a host on any machine fetches it instead of building it again; it also stays in
WORK/built/VERSION.  There is no --no-sandbox: where a sandbox cannot start, the builder refuses.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gzip
import hashlib
import io
import os
import shlex
import shutil
import sys
import tarfile
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_harness.admin_token import ADMIN_TOKEN_ENV, admin_metadata
from president_harness.hosting.bot_folder import CHUNK_BYTES, ManifestError, pack
from president_harness.hosting.sandbox import MB, Exit, Sandbox, SandboxError, seconds_limit, slot_number, whole_limit
from president_harness.hosting.tar_bounds import DEPTH, NAME_BYTES, RefusedArchiveError, Within, scan
from president_harness.interrupts import terminate_as_interrupt
from president_harness.rpc_errors import describe_rpc_error, error_reason

UNPACKED_BYTES = 64 * MB
"""The most an archive may hold unpacked (the sizes its entries declare)."""
ENTRIES = 10_000
"""The most entries an archive may hold, and files and folders a build may leave in its folder."""
LOG_BYTES = 48 * 1024
"""The most of a build's log reported (the server's cap)."""
REASON_CHARS = 200
POLL_S = 2.0
"""How long the builder waits before asking again when no version is queued."""
WATCH_S = 0.25
"""How often a running build's folder is measured against its cap."""
LEASE_MARGIN_S = 30.0
"""A build is killed this long before its lease ends, so that its report comes while the lease holds."""
FAILED_CALL_S = 5.0
"""How long the builder waits after a failed call before it tries again."""
FATAL = ("NOT_ADMIN", "MISSING_TOKEN", "BAD_TOKEN")
"""Refusals that trying again cannot mend: the builder stops."""
TRANSFER_S = 300.0
"""The most a built folder's upload or download may take (the server's cap on an upload)."""


class UnbuildableError(Exception):
    """A version that cannot be built; the message is its one-line reason."""


@dataclass(frozen=True)
class Built:
    ready: bool
    reason: str
    log: str


def add_builder_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    builder = commands.add_parser("builder", help="build submitted bot versions in a sandbox and report them",
                                  description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    builder.add_argument("--server", required=True, help="the server: unix:PATH or HOST:PORT")
    builder.add_argument("--admin-token", help=f"the server's admin token (or set {ADMIN_TOKEN_ENV})")
    builder.add_argument("--work", type=Path, default=Path("run/builds"),
                         help="where built folders are kept, as WORK/built/VERSION (default run/builds)")
    builder.add_argument("--slot", type=slot_number, default=0,
                         help="which sandbox of this machine: its user id is 100000 + SLOT (default 0)")
    builder.add_argument("--name", default=os.uname().nodename, help="this builder's name, for the organiser")
    builder.add_argument("--once", action="store_true", help="build what is queued now, then exit")
    builder.add_argument("--build-seconds", type=seconds_limit, default=600.0,
                         help="a build's wall clock, then it is killed (default 600)")
    builder.add_argument("--memory-mb", type=whole_limit, default=1024,
                         help="address space of each process (default 1024)")
    builder.add_argument("--jail-memory-mb", type=whole_limit, default=2048,
                         help="memory of a build's processes together, measured every 0.1 s: past it the build is"
                              " killed (default 2048)")
    builder.add_argument("--folder-mb", type=whole_limit, default=256,
                         help="the most a build may leave in its folder (default 256)")
    builder.set_defaults(handler=builder_command)


def _say(line: str) -> None:
    print(f"president builder: {line}", flush=True)


def builder_command(args: argparse.Namespace) -> int:
    if (admin := admin_metadata(args.admin_token, "builder")) is None:
        return 2
    if (problem := Sandbox(folder=Path(), slot=args.slot).check()) is not None:
        print(f"president builder: {problem}; not building (builds run only in a sandbox)", file=sys.stderr)
        return 1
    builder = Builder(args.work, slot=args.slot, wall_s=args.build_seconds, memory_bytes=args.memory_mb * MB,
                      jail_memory_bytes=args.jail_memory_mb * MB, folder_bytes=args.folder_mb * MB)
    with grpc.insecure_channel(args.server) as channel, terminate_as_interrupt():
        stub = pb_grpc.PresidentServiceStub(channel)
        try:
            while True:
                try:
                    leased = stub.LeaseBuild(pb.LeaseBuildRequest(builder=args.name[:64]), metadata=admin, timeout=30)
                    if not leased.HasField("version"):
                        if args.once:
                            return 0
                        time.sleep(POLL_S)
                        continue
                    builder.serve(stub, admin, leased)
                except grpc.RpcError as exc:
                    _say(describe_rpc_error(exc, args.server))
                    if args.once or error_reason(exc) in FATAL:
                        return 1
                    time.sleep(FAILED_CALL_S)
        except KeyboardInterrupt:
            _say("stopped")
    return 0


class Builder:
    """Builds one leased version at a time in WORK/built/VERSION."""

    def __init__(self, work: Path, *, slot: int, wall_s: float, memory_bytes: int, jail_memory_bytes: int,
                 folder_bytes: int) -> None:
        self.work = work
        self.slot = slot
        self.wall_s = wall_s
        self.memory_bytes = memory_bytes
        self.jail_memory_bytes = jail_memory_bytes
        self.folder_bytes = folder_bytes

    def serve(self, stub: pb_grpc.PresidentServiceStub, admin: tuple[tuple[str, str], ...],
              leased: pb.LeaseBuildResponse) -> None:
        """Fetch, build and report one leased version."""
        version = leased.version
        what = f"{version.version_id} ({version.account}: {version.manifest.name})"
        _say(f"{what}: building")
        started = time.monotonic()
        archive = fetch(stub, admin, version.version_id)
        lease_left = leased.lease_expires_at.ToNanoseconds() / 1e9 - time.time() - LEASE_MARGIN_S
        built = self.build(version, archive, wall_s=max(1.0, min(self.wall_s, lease_left)))
        if built.ready:
            built = self.ship(stub, admin, leased, built)
        stub.ReportBuild(pb.ReportBuildRequest(version_id=version.version_id, lease_id=leased.lease_id,
                                               ready=built.ready, reason=built.reason, log=built.log),
                         metadata=admin, timeout=30)
        _say(f"{what}: {'READY' if built.ready else 'FAILED: ' + built.reason} after"
             f" {time.monotonic() - started:.1f} s")

    def ship(self, stub: pb_grpc.PresidentServiceStub, admin: tuple[tuple[str, str], ...],
             leased: pb.LeaseBuildResponse, built: Built) -> Built:
        """Pack a READY build's folder and upload it under the lease (UploadBuild): `built` once the server has it,
        FAILED when the folder cannot be shipped (by unpack's rules, or past the server's cap)."""
        version_id = leased.version.version_id
        try:
            archive = pack_built(self.work / "built" / version_id)
            stub.UploadBuild(_upload_requests(pb.BuildLease(version_id=version_id, lease_id=leased.lease_id),
                                              archive), metadata=admin, timeout=TRANSFER_S)
        except UnbuildableError as exc:
            return _failed(str(exc), built.log)
        except grpc.RpcError as exc:
            if error_reason(exc) != "TOO_LARGE":
                raise  # the lease lapses unreported, and the version is built again
            return _failed(f"the built folder packs to {len(archive)} bytes, over the server's cap for a built"
                           " archive", built.log)
        return built

    def build(self, version: pb.BotVersion, archive: bytes, *, wall_s: float) -> Built:
        """Check, unpack and build `archive` in the sandbox: READY, or FAILED with why."""
        manifest = version.manifest
        folder = self.work / "built" / version.version_id
        try:
            if hashlib.sha256(archive).hexdigest() != version.sha256:
                raise UnbuildableError("the archive fetched does not match its SHA-256")
            argv = shlex.split(manifest.build)
            sandbox = with_runtime(Sandbox(folder=folder, slot=self.slot, memory_bytes=self.memory_bytes,
                                           jail_memory_bytes=self.jail_memory_bytes, cpu_s=int(wall_s) + 1,
                                           file_bytes=min(64 * MB, self.folder_bytes),
                                           output_bytes=LOG_BYTES - 1024, wall_s=wall_s, writable=True),
                                   manifest.runtime)
            _fresh(folder)
            unpack(archive, folder)
        except ValueError as exc:
            return _failed(f"the build command cannot be read: {exc}", "")
        except UnbuildableError as exc:
            shutil.rmtree(folder, ignore_errors=True)  # nothing of a refused archive is kept
            return _failed(str(exc), "")
        if not argv:
            return Built(True, "", "president builder: nothing to build (no build command)\n")
        _give(folder, sandbox.uid)
        log = self.work / "logs" / f"{version.version_id}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        try:
            running = sandbox.start(argv, log=log)
        except SandboxError as exc:
            return _failed(f"the sandbox cannot start: {exc}", "")
        overflow = _watch(folder, self.folder_bytes, running.stop, running.process.poll)
        ended = running.wait()
        output = log.read_text(errors="replace")
        if overflow.is_set() or _over(folder, self.folder_bytes):
            return _failed(f"the build left more than {self.folder_bytes // MB} MB or {ENTRIES} entries in its"
                           " folder (or one the builder cannot read)", output)
        if ended.status == 0:
            return Built(True, "", _capped(output))
        return _failed(_reason(ended, output), output)


def with_runtime(sandbox: Sandbox, runtime: pb.Runtime.ValueType) -> Sandbox:
    """`sandbox` with what a manifest's runtime adds to the jail, the same for its build and its runs: Node's
    ``node``; for Java, the JDK and Debian's jars, and the server on the jail's loopback (Debian's grpc-java has no
    ``unix:`` target)."""
    if runtime == pb.RUNTIME_NODE:
        return dataclasses.replace(sandbox, runtime=(node_path(),))
    if runtime == pb.RUNTIME_JAVA:
        return dataclasses.replace(sandbox, runtime=java_paths(), loopback=True)
    return sandbox


def node_path() -> Path:
    found = shutil.which("node")
    if found is None:
        raise UnbuildableError("this builder has no Node runtime (node is not installed)")
    return Path(found)


JARS = Path("/usr/share/java")
"""Debian's jars, which the Java kit's class path names."""


def java_paths() -> tuple[Path, ...]:
    """The ``java`` launcher on PATH (a link to the JDK, which is under /usr/lib and so bound already), the JDK's
    configuration that Debian keeps in /etc and links to from the JDK (jvm.cfg, security; found through that link),
    and Debian's jars."""
    found = shutil.which("java")
    if found is None or not JARS.is_dir():
        raise UnbuildableError(f"this builder has no Java runtime ({'java' if found is None else JARS} is not"
                               " installed)")
    launcher = Path(found)
    config = (launcher.resolve().parents[1] / "lib" / "jvm.cfg").resolve().parent
    return (launcher, *([config] if config.is_dir() else []), JARS)


def _failed(reason: str, output: str) -> Built:
    line = "".join(c if c.isprintable() else " " for c in reason)[:REASON_CHARS]
    return Built(False, line, _capped(output + f"\npresident builder: FAILED: {line}\n"))


def _capped(log: str) -> str:
    """At most LOG_BYTES of UTF-8, cut at a character."""
    return log.encode()[:LOG_BYTES].decode(errors="ignore")


def _reason(ended: Exit, output: str) -> str:
    said = [line.strip() for line in output.splitlines() if line.strip() and not line.startswith("[president ")]
    return f"the build command {ended.reason}" + (f": {said[-1]}" if said else "")


def fetch(stub: pb_grpc.PresidentServiceStub, admin: tuple[tuple[str, str], ...], version_id: str, *,
          built: bool = False) -> bytes:
    """A version's archive from the server (FetchVersion): as submitted, or (`built`) its built folder's."""
    return b"".join(m.chunk for m in stub.FetchVersion(pb.FetchVersionRequest(version_id=version_id, built=built),
                                                       metadata=admin, timeout=TRANSFER_S))


def pack_built(folder: Path) -> bytes:
    """A built folder as a gzipped tar, packed as ``president submit`` packs (the same folder, the same bytes), with
    nothing left out, each entry checked by `unpack`'s rules as it is packed (its own and tarfile's 'data' filter):
    what a host unpacks is what passed them, and a build that left a link out of its folder, a hard link or a
    special file is refused."""
    refused = "the built folder cannot be shipped"

    def shippable(infos: Iterable[tarfile.TarInfo]) -> Iterator[tarfile.TarInfo]:
        for info in checked(infos, refused):
            tarfile.data_filter(info, str(folder))  # a chain of links that leads out, as unpack's filter finds it
            yield info
    try:
        return pack(folder, skipped=(), checked=shippable)
    except tarfile.FilterError as exc:
        raise UnbuildableError(f"{refused}: {exc}") from None
    except (ManifestError, OSError) as exc:
        raise UnbuildableError(f"the built folder cannot be packed: {exc}") from None


def _upload_requests(lease: pb.BuildLease, archive: bytes) -> Iterator[pb.UploadBuildRequest]:
    """The lease with the archive's size and SHA-256 (the server stores nothing else), then its chunks."""
    yield pb.UploadBuildRequest(lease=lease, archive_bytes=len(archive),
                                archive_sha256=hashlib.sha256(archive).hexdigest())
    for at in range(0, len(archive), CHUNK_BYTES):
        yield pb.UploadBuildRequest(chunk=archive[at:at + CHUNK_BYTES])


def checked(members: Iterable[tarfile.TarInfo], refused: str) -> Iterator[tarfile.TarInfo]:
    """Each of an archive's entries, in order, once it passes the rules an archive is unpacked by (else
    UnbuildableError, its reason opened by `refused`): no absolute path, no '..', no path through a link, no link
    out of the folder, no hard link, device or other special file, no name or link over NAME_BYTES or DEPTH
    folders deep, at most ENTRIES entries and UNPACKED_BYTES in all.  One entry at a time, so a gzip bomb stops at
    the cap."""
    links: set[PurePosixPath] = set()
    total = 0
    for count, member in enumerate(members, 1):
        total += member.size
        if (why := _refusal(member, links)) is not None:
            raise UnbuildableError(f"{refused}: {member.name[:80]!r} {why}")
        if count > ENTRIES or total > UNPACKED_BYTES:
            raise UnbuildableError(f"{refused}: more than {ENTRIES} entries or {UNPACKED_BYTES // MB} MB unpacked")
        yield member


def unpack(archive: bytes, into: Path) -> None:
    """Unpack a gzipped tar into the folder `into`, or refuse it (UnbuildableError) by `checked`'s rules.  Its
    headers are walked and bounded first (`scan`: names, extended headers, entries and sizes), before tarfile reads
    any, and tarfile is given only what passed; every entry is checked before anything is written; tarfile's 'data'
    filter then checks each path again as it writes (a chain of links that leads out is found only then: the
    caller removes what was written)."""
    try:
        end = scan(archive, entries=ENTRIES, unpacked_bytes=UNPACKED_BYTES)
        with gzip.GzipFile(fileobj=io.BytesIO(archive)) as stream, \
                tarfile.open(fileobj=Within(stream, end), mode="r:") as tar:
            members = list(checked(tar, "the archive is refused"))
            tar.extractall(into, members=members, filter="data")
    except RefusedArchiveError as exc:
        raise UnbuildableError(f"the archive is refused: {exc}") from None
    except tarfile.FilterError as exc:
        raise UnbuildableError(f"the archive is refused: {exc}") from None
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise UnbuildableError(f"the archive is refused: not a gzipped tar that unpacks here: {exc}") from None


def _refusal(member: tarfile.TarInfo, links: set[PurePosixPath]) -> str | None:
    """Why an entry may not be unpacked, or None; a link allowed is added to `links` (the links before it)."""
    path = PurePosixPath(member.name)
    parts = [p for p in path.parts if p != "."]
    if max(len(member.name.encode(errors="surrogateescape")),
           len(member.linkname.encode(errors="surrogateescape"))) > NAME_BYTES:
        return f"has a name or link over {NAME_BYTES} bytes"
    if len(parts) - 1 > DEPTH:
        return f"is more than {DEPTH} folders deep"
    if path.is_absolute():
        return "is an absolute path"
    if ".." in parts:
        return "has a '..'"
    if any(PurePosixPath(*parts[:i]) in links for i in range(1, len(parts))):
        return "is inside a symbolic link"
    if member.issym():
        if _escapes(parts[:-1], member.linkname):
            return f"is a symbolic link out of its folder (to {member.linkname[:80]!r})"
        links.add(PurePosixPath(*parts))
        return None
    if member.islnk():
        return "is a hard link"
    if not (member.isreg() or member.isdir()) or member.issparse():
        return "is a device or other special file"
    return None


def _escapes(folder: list[str], target: str) -> bool:
    """Whether a link in `folder` (parts from the root) to `target` leads above the root."""
    if target.startswith("/"):
        return True
    depth = len(folder)
    for part in PurePosixPath(target).parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return True
    return False


def _give(folder: Path, uid: int) -> None:
    """Make the folder the sandbox user's (a host running as root), its links untouched."""
    if os.geteuid() != 0:
        return
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, uid, uid)


def _fresh(folder: Path) -> None:
    """An empty folder for a build (an attempt under a lost lease may have left one)."""
    try:
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True, mode=0o755)
    except OSError as exc:
        raise UnbuildableError(f"the builder cannot prepare the version's folder: {exc.strerror or exc}") from None


def _over(folder: Path, cap: int) -> bool:
    """Whether a folder takes more than `cap` bytes of disk (allocated blocks) or holds more than ENTRIES
    entries, never following a link; True for one that cannot be read (the build may hide its files so)."""
    used = entries = 0
    pending = [folder]
    while pending:
        try:
            with os.scandir(pending.pop()) as scan:
                for entry in scan:
                    entries += 1
                    with contextlib.suppress(FileNotFoundError):  # a file the build has just removed
                        used += entry.stat(follow_symlinks=False).st_blocks * 512
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(Path(entry.path))
                    if used > cap or entries > ENTRIES:
                        return True
        except FileNotFoundError:
            continue  # a folder the build has just removed
        except OSError:
            return True
    return False


def _watch(folder: Path, cap: int, stop: Callable[[], object], running: Callable[[], object]) -> threading.Event:
    """Measure the folder every WATCH_S while the build runs, and stop the build past its cap (the kernel
    bounds each file, not their sum)."""
    over = threading.Event()

    def watch() -> None:
        while running() is None:
            if _over(folder, cap):
                over.set()
                stop()
                return
            time.sleep(WATCH_S)

    threading.Thread(target=watch, name="build-folder-watch", daemon=True).start()
    return over
