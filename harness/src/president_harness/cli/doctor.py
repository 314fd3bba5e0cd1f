"""``president doctor``: whether this machine can host an event, one line per check, with the fix for each failure.

    president doctor --db run/event.db --port 50051 --port 8080

It checks bubblewrap (installed, and able to start a jail), user namespaces, the sandbox's seccomp filter, the
engine's build the jail will be given and that a real jail imports it, the ports a server would listen on, and the
database (its folder writable, the file a SQLite database whose schema reads).  Nothing is changed: the ports are
only bound and released, the database is opened read-only, and a probe file is removed at once.  Exit status 1
when any check fails.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from president_harness.hosting.sandbox import slot_number

DEFAULT_DB = Path("run/president.db")
"""The database hosting.md serves."""
DEFAULT_PORTS = (50051, 8080)
"""The gRPC and web ports `president serve`, `arena` and `demo` default to."""
TRIAL_S = 60.0
"""The wall clock of the trial jail."""
USERNS_SETTINGS = (
    ("/proc/sys/kernel/unprivileged_userns_clone", "0", "sysctl -w kernel.unprivileged_userns_clone=1"),
    ("/proc/sys/user/max_user_namespaces", "0", "sysctl -w user.max_user_namespaces=15000"),
    ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1",
     "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor profile for bwrap)"),
)
"""Kernel settings that forbid user namespaces: (file, forbidding value, the fix)."""
JAIL_IMPORT = ("import president_engine, president_sdk; from president_engine import compiled; "
               "print(compiled.describe())")


@dataclass(frozen=True, slots=True)
class Check:
    """One check's outcome: what it found, and for a failure the fix."""

    name: str
    ok: bool
    said: str
    fix: str = ""

    def line(self) -> str:
        if self.ok:
            return f"ok    {self.name}: {self.said}"
        return f"FAIL  {self.name}: {self.said}; fix: {self.fix}"


def add_doctor_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    doctor = commands.add_parser("doctor", help="check that this machine can host bots and serve an event",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    doctor.add_argument("--db", type=Path, default=DEFAULT_DB,
                        help=f"the SQLite database the server will use (default {DEFAULT_DB})")
    doctor.add_argument("--host", default="127.0.0.1", help="the address the server will listen on (default 127.0.0.1)")
    doctor.add_argument("--port", type=_port, action="append", default=None,
                        help="a port the server will listen on (repeatable; default "
                             f"{' and '.join(map(str, DEFAULT_PORTS))})")
    doctor.add_argument("--slot", type=slot_number, default=0, help="the sandbox slot of the trial jail (default 0)")
    doctor.set_defaults(handler=doctor_command)


def _port(text: str) -> int:
    """An argparse type for a port to check: 1 to 65535."""
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: a port from 1 to 65535")
    return int(text)


def doctor_command(args: argparse.Namespace) -> int:
    """Run every check, print one line each; 1 when any failed."""
    checks = run_checks(db=args.db, host=args.host, ports=args.port or list(DEFAULT_PORTS), slot=args.slot)
    for check in checks:
        print(check.line(), flush=True)
    failed = [check.name for check in checks if not check.ok]
    if failed:
        print(f"president doctor: {len(failed)} of {len(checks)} checks failed ({', '.join(failed)})",
              file=sys.stderr)
        return 1
    return 0


def run_checks(*, db: Path, host: str, ports: Sequence[int], slot: int) -> list[Check]:
    """Every check, in the order they depend on each other."""
    bwrap = shutil.which("bwrap")
    checks = [check_bubblewrap(bwrap), check_user_namespaces(bwrap), check_seccomp(), check_engine_build(),
              check_jail(bwrap, slot)]
    checks += [check_port(host, port) for port in dict.fromkeys(ports)]
    checks.append(check_database(db))
    return checks


def _guarded(name: str, check: Callable[[], Check]) -> Check:
    """`check`, or its unexpected error as a failure of `name` (the doctor never ends in a traceback)."""
    try:
        return check()
    except Exception as exc:
        return Check(name, False, f"{type(exc).__name__}: {exc}", "report this error with the output above")


def _trial(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=TRIAL_S, stdin=subprocess.DEVNULL)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def check_bubblewrap(bwrap: str | None) -> Check:
    """bwrap is on PATH and starts a jail of the root folder read-only."""
    name = "bubblewrap"
    if bwrap is None:
        return Check(name, False, "bwrap is not on PATH", "apt-get install bubblewrap")

    def run() -> Check:
        version = _trial([bwrap, "--version"]).stdout.strip() or "bwrap"
        started = _trial([bwrap, *([] if os.geteuid() == 0 else ["--unshare-user"]), "--ro-bind", "/", "/",
                          "--dev", "/dev", "--", "true"])
        if started.returncode != 0:
            return Check(name, False, f"{version} ({bwrap}) cannot start a jail: {_last_line(started.stderr)}",
                         "see user namespaces below; inside a container, run it with --privileged or on the host")
        return Check(name, True, f"{version} ({bwrap}) starts a jail")
    return _guarded(name, run)


def check_user_namespaces(bwrap: str | None) -> Check:
    """A jail can make a user namespace (the sandbox's inner jail always does)."""
    name = "user namespaces"
    if bwrap is None:
        return Check(name, False, "not tried: no bubblewrap", "apt-get install bubblewrap")

    def run() -> Check:
        made = _trial([bwrap, "--unshare-user", "--ro-bind", "/", "/", "--dev", "/dev", "--", "true"])
        if made.returncode == 0:
            return Check(name, True, "a jail makes its own")
        for path, forbidding, fix in USERNS_SETTINGS:
            try:
                value = Path(path).read_text().strip()
            except OSError:
                continue
            if value == forbidding:
                return Check(name, False, f"{path} is {value}", fix)
        return Check(name, False, f"bwrap --unshare-user failed: {_last_line(made.stderr)}",
                     "a container's seccomp profile may forbid them: run it with --security-opt seccomp=unconfined,"
                     " or host on the machine itself")
    return _guarded(name, run)


def check_seccomp() -> Check:
    """The jail's seccomp filter compiles (libseccomp)."""
    name = "seccomp"

    def run() -> Check:
        from president_harness.hosting.seccomp_filter import DENIED, SeccompError, program

        try:
            compiled = program()
        except SeccompError as exc:
            return Check(name, False, f"the jail's filter cannot be made: {exc}", "apt-get install libseccomp2")
        return Check(name, True, f"the jail's filter compiles ({len(DENIED)} calls refused, {len(compiled)} bytes)")
    return _guarded(name, run)


def check_engine_build() -> Check:
    """Which build of the engine this Python runs, and so the jail is given."""
    name = "engine build"

    def run() -> Check:
        from president_engine import compiled

        return Check(name, True, f"{compiled.describe().removeprefix('engine: ')}; the jail gets the same")
    return _guarded(name, run)


def check_jail(bwrap: str | None, slot: int) -> Check:
    """A real jail (the host's and the builder's) starts and imports the engine and the SDK, on the host's build."""
    name = "jail"
    if bwrap is None:
        return Check(name, False, "not tried: no bubblewrap", "apt-get install bubblewrap")

    def run() -> Check:
        from president_engine import compiled

        from president_harness.hosting.sandbox import Sandbox, SandboxError

        with tempfile.TemporaryDirectory(prefix="president-doctor-") as scratch:
            folder, log = Path(scratch) / "bot", Path(scratch) / "jail.log"
            folder.mkdir(mode=0o755)
            try:
                ended = Sandbox(folder=folder, slot=slot, wall_s=TRIAL_S).run(
                    [sys.executable, "-c", JAIL_IMPORT], log=log)
            except (SandboxError, RuntimeError, OSError) as exc:
                missing = "is not installed" in str(exc)
                return Check(name, False, f"cannot start: {exc}",
                             "install what it names" if missing else "fix the checks above")
            said = _last_line(log.read_text(errors="replace"))
        if ended.status != 0:
            return Check(name, False, f"import president_engine, president_sdk failed: {said}",
                         "make venv (reinstalls the engine and the SDK)")
        if said != compiled.describe():
            return Check(name, False, f"the jail runs another build than this host ({said})",
                         "make venv (reinstalls the engine and the SDK)")
        return Check(name, True, f"imports president_engine and president_sdk on its slot's user (uid"
                                 f" {Sandbox(folder=Path(), slot=slot).uid}): {said.removeprefix('engine: ')}")
    return _guarded(name, run)


def check_port(host: str, port: int) -> Check:
    """Nothing listens on `host`:`port` (the port is bound, then released)."""
    name = f"port {port}"
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return Check(name, False, f"{host}:{port} is in use",
                         f"stop what listens there (ss -ltnp 'sport = :{port}' names it), or serve on another port")
        if exc.errno == errno.EACCES:
            return Check(name, False, f"{host}:{port} needs privileges to bind", "serve on a port above 1023")
        return Check(name, False, f"{host}:{port} cannot be bound: {exc.strerror or exc}",
                     "give --host an address of this machine")
    return Check(name, True, f"{host}:{port} is free")


def check_database(path: Path) -> Check:
    """The database's folder is writable (or can be made), and an existing file is SQLite whose schema reads."""
    name = "database"
    folder = path.parent if str(path.parent) else Path(".")
    existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("/"))
    if not existing.is_dir():
        return Check(name, False, f"{existing} is a file, so {folder} cannot be made", "give --db another path")
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".president-doctor-"):
            pass
    except OSError as exc:
        return Check(name, False, f"{existing} is not writable ({exc.strerror or exc})",
                     f"give this user write access to {existing}, or --db a path in a writable folder")
    if not path.exists():
        made = "" if existing == folder else f", with its folder {folder}"
        return Check(name, True, f"{path} will be created{made}")
    if not path.is_file():
        return Check(name, False, f"{path} is not a file", "give --db the path of a file")
    if not os.access(path, os.W_OK):
        return Check(name, False, f"{path} is read-only", f"chmod u+w {path}, or --db another file")
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                db.execute(f'PRAGMA table_info("{table}")').fetchall()
    except sqlite3.Error as exc:
        return Check(name, False, f"{path} does not open as SQLite: {exc}",
                     f"move {path} aside and let the server create a new one")
    return Check(name, True, f"{path} opens, {len(tables)} tables" + (
        ", matches among them" if "matches" in tables else ""))
