"""A game server of the harness's own: ``president serve`` in a child process, with its own db.

The ladder's server (on a free port) and ``president arena``'s.  Its output
goes to a log file beside its db (``<db>.log``), where the harness reads the
port it was given and the address of its web pages.  If it dies, `keep_alive`
starts it again on the same port with the same db (its live matches resume),
a few times at most; after that its owner stops with a clear error instead of
failing everything that is left.  A server that was stopped rather than died
(it drained after SIGINT or SIGTERM, as a Ctrl-C in the terminal sends to the
whole process group) is never started again, nor is one its owner is
stopping.  `cpu_seconds` is the CPU time it has used (a ladder reports it per
move).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

log = logging.getLogger(__name__)
_READY = re.compile(r"serving on (\S+):(\d+)")
_WEB = re.compile(r"web pages on (http://\S+/)")
_START_S = 30.0
RESTARTS = 3
"""How often a server that died is started again."""
_STOPPED = (0, -signal.SIGINT, -signal.SIGTERM)
"""Exit statuses of a server that was asked to stop: drained after a signal, or ended by one before it listened."""


def free_port(preferred: int, host: str = "127.0.0.1") -> int:
    """`preferred` if nothing listens there, else a free port (0 picks a free one too).

    The probe binds as a server does (SO_REUSEADDR, as gRPC and aiohttp set it), so the connections a
    server just stopped left in TIME_WAIT do not make its port look taken.
    """
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, preferred))
        except OSError:
            probe.bind((host, 0))
        return int(probe.getsockname()[1])


class ServerError(RuntimeError):
    """The server did not start, or kept dying."""


class ChildServer:
    """Context manager: starts the server, gives `address` and `admin_token`, stops it on exit.

    `options`: more ``president serve`` options (the arena's, limits); `port` 0 picks a free one.
    """

    def __init__(self, db: Path, options: Sequence[str] = (), *, port: int = 0, admin_token: str = "") -> None:
        self.db = db
        self.admin_token = admin_token or secrets.token_hex(24)  # hex: never starts with "-" on a command line
        self.address = ""
        self.web = ""
        """The web pages' address (``http://host:port/``) when its options serve them (``--http-port``)."""
        self.log = db.with_name(db.name + ".log")
        self.restarts = 0
        self._options = tuple(options)
        self._port = port
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopping = False
        self._cpu_before = 0.0
        """CPU seconds of the server processes that died (as last read: a restart starts from zero)."""
        self._cpu_now = 0.0

    def __enter__(self) -> ChildServer:
        self.db.parent.mkdir(parents=True, exist_ok=True)
        self.log.write_bytes(b"")
        self._start(str(self._port))
        return self

    def cpu_seconds(self) -> float | None:
        """User and system CPU time of the server so far (restarts included); None where /proc cannot tell."""
        if self._proc is None:
            return None
        try:
            fields = Path(f"/proc/{self._proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None if not self._cpu_now else self._cpu_before + self._cpu_now
        self._cpu_now = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return self._cpu_before + self._cpu_now

    def _start(self, port: str) -> None:
        env = dict(os.environ, PRESIDENT_ADMIN_TOKEN=self.admin_token)  # not on the command line
        with self.log.open("ab") as out:
            start = out.tell()
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "president_service", "serve", "--port", port, "--db", str(self.db),
                 *self._options],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + _START_S
        while True:
            with self.log.open("rb") as log:
                log.seek(start)
                text = log.read().decode(errors="replace")
                found = _READY.search(text)
            if found:
                self.address = f"{found.group(1)}:{found.group(2)}"
                web = _WEB.search(text)
                self.web = web.group(1) if web else ""
                return
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise ServerError(f"the game server did not start (see {self.log})")
            time.sleep(0.05)

    def keep_alive(self) -> None:
        """Start the server again if it died (same port, same db); ServerError after `RESTARTS` restarts, or when
        it was stopped rather than died."""
        if self._stopping or self._proc is None or self._proc.poll() is None:
            return
        status = self._proc.returncode
        self._cpu_before, self._cpu_now = self._cpu_before + self._cpu_now, 0.0
        if status in _STOPPED:
            raise ServerError(f"the game server was stopped (SIGINT or SIGTERM reached it), so it is not started"
                              f" again; see {self.log}")
        if self.restarts >= RESTARTS:
            raise ServerError(f"the game server stopped (exit status {status}) and was already restarted"
                              f" {RESTARTS} times; see {self.log}")
        self.restarts += 1
        log.warning("the game server stopped (exit status %s); starting it again (see %s)", status, self.log)
        self._start(self.address.rsplit(":", 1)[1])

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stopping = True
        if self._proc is None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
