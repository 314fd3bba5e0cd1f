"""`BotProcess`: a command bot's process, started in the ladder file's folder, its output kept (capped) in files.

Per-seat bots get one per seat of a match, with their output in the match's
folder; Session bots get one for the whole ladder, with their output in the
run folder's ``bots/``.  Each file keeps its first and last `LOG_CAP` // 2
bytes once the process is stopped.
"""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

LOG_CAP = 64 * 1024
"""Bytes of a command bot's stdout or stderr kept: the first and the last half."""


class BotProcess:
    """A command bot's process, its output written to `logs` (.stdout, .stderr); stderr explains a failure."""

    def __init__(self, name: str, argv: list[str], cwd: Path, logs: Path, *, append: bool = False) -> None:
        """`append`: add to the logs (a restarted bot) instead of starting them afresh."""
        self.name = name
        self._argv = argv
        self._out, self._err = logs.with_name(logs.name + ".stdout"), logs.with_name(logs.name + ".stderr")
        mode = "ab" if append else "wb"
        with self._out.open(mode) as out, self._err.open(mode) as err:
            self._proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)

    def finished(self) -> bool:
        return self._proc.poll() is not None

    def exit_status(self) -> int | None:
        return self._proc.poll()

    def failure(self) -> str | None:
        """Why it stopped, when it exited with an error: the status and the last lines of its stderr."""
        code = self._proc.poll()
        if code is None or code == 0:
            return None
        return self.describe_exit()

    def describe_exit(self) -> str:
        tail = self._err.read_bytes()[-4096:].decode(errors="replace").strip().splitlines()[-5:]
        return f"{self.name} ({self._argv[0]}) exited with status {self._proc.poll()}: " + " | ".join(tail)

    def terminate(self) -> None:
        """Ask it to stop (SIGTERM); `stop` waits for it."""
        if self._proc.poll() is None:
            self._proc.terminate()

    def stop(self, grace_s: float = 0.0) -> None:
        """End it (asked to with SIGTERM first when `grace_s`, so it may print a summary) and cap its logs."""
        if self._proc.poll() is None:
            if grace_s:
                self._proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._proc.wait(grace_s)
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
        for path in (self._out, self._err):
            cap_log(path)


def cap_log(path: Path) -> None:
    """Keep the first and the last LOG_CAP // 2 bytes of a log, with a line saying what was cut."""
    size = path.stat().st_size
    if size <= LOG_CAP:
        return
    data = path.read_bytes()
    half = LOG_CAP // 2
    path.write_bytes(data[:half] + f"\n[... {size - 2 * half} bytes cut ...]\n".encode() + data[-half:])
