"""Stopping a command the harness tests started, as a person at its terminal would."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

PRESIDENT = Path(sys.executable).parent / "president"


def stop_with_ctrl_c(proc: subprocess.Popen[str]) -> None:
    """Ctrl-C (SIGINT) and up to 30 s to exit; killed after that, so no test leaves it running."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def president(*args: str, ok: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`president ARGS` run to its end; its exit status must say success (`ok`) or failure."""
    done = subprocess.run([str(PRESIDENT), *args], capture_output=True, text=True, timeout=timeout, check=False)
    assert (done.returncode == 0) == ok, done.stdout + done.stderr
    return done


def wait_for_text(out: Path, process: subprocess.Popen[str], text: str, *, timeout: float = 60,
                  times: int = 1) -> str:
    """The output file of `process` once `text` is in it `times` times (the process must not end before)."""
    deadline = time.monotonic() + timeout
    while (seen := out.read_text()).count(text) < times:
        assert process.poll() is None and time.monotonic() < deadline, seen
        time.sleep(0.1)
    return seen
