"""The ladder's own game server: ``president serve`` in a child process, on a free port, with its own db.

Its output goes to a log file beside its db (``<db>.log``), where the
ladder reads the port it was given.  If it dies during the ladder,
`keep_alive` starts it again on the same port with the same db (its live
matches resume), a few times at most; after that the ladder stops with a
clear error instead of failing every match that is left.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

log = logging.getLogger(__name__)
_READY = re.compile(r"serving on (\S+):(\d+)")
_START_S = 30.0
RESTARTS = 3
"""How often the ladder starts its server again after it died."""


class ServerError(RuntimeError):
    """The server did not start, or kept dying."""


class ChildServer:
    """Context manager: starts the server, gives `address` and `admin_token`, stops it on exit."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.admin_token = secrets.token_urlsafe(24)
        self.address = ""
        self.log = db.with_name(db.name + ".log")
        self.restarts = 0
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ChildServer:
        self.log.write_bytes(b"")
        self._start("0")
        return self

    def _start(self, port: str) -> None:
        env = dict(os.environ, PRESIDENT_ADMIN_TOKEN=self.admin_token)  # not on the command line
        with self.log.open("ab") as out:
            start = out.tell()
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "president_service", "serve", "--port", port, "--db", str(self.db)],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + _START_S
        while True:
            with self.log.open("rb") as log:
                log.seek(start)
                found = _READY.search(log.read().decode(errors="replace"))
            if found:
                self.address = f"{found.group(1)}:{found.group(2)}"
                return
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise ServerError(f"the game server did not start (see {self.log})")
            time.sleep(0.05)

    def keep_alive(self) -> None:
        """Start the server again if it died (same port, same db); ServerError after `RESTARTS` restarts."""
        if self._proc is None or self._proc.poll() is None:
            return
        status = self._proc.returncode
        if self.restarts >= RESTARTS:
            raise ServerError(f"the ladder's game server stopped (exit status {status}) and was already restarted"
                              f" {RESTARTS} times; see {self.log}. Run the ladder again to resume.")
        self.restarts += 1
        log.warning("the ladder's game server stopped (exit status %s); starting it again (see %s)", status, self.log)
        self._start(self.address.rsplit(":", 1)[1])

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._proc is None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
