"""The ladder's own game server: ``president serve`` in a child process, on a free port, with its own db.

Its output goes to a log file beside its db (``<db>.log``), where the
ladder reads the port it was given.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

_READY = re.compile(r"serving on (\S+):(\d+)")
_START_S = 30.0


class ServerError(RuntimeError):
    """The server did not start."""


class ChildServer:
    """Context manager: starts the server, gives `address` and `admin_token`, stops it on exit."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.admin_token = secrets.token_urlsafe(24)
        self.address = ""
        self.log = db.with_name(db.name + ".log")
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ChildServer:
        env = dict(os.environ, PRESIDENT_ADMIN_TOKEN=self.admin_token)  # not on the command line
        with self.log.open("wb") as out:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "president_service", "serve", "--port", "0", "--db", str(self.db)],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + _START_S
        while not self.address:
            found = _READY.search(self.log.read_text(errors="replace"))
            if found:
                self.address = f"{found.group(1)}:{found.group(2)}"
            elif self._proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise ServerError(f"the game server did not start (see {self.log})")
            else:
                time.sleep(0.05)
        return self

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
