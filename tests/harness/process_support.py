"""Stopping a command the harness tests started, as a person at its terminal would."""

from __future__ import annotations

import signal
import subprocess


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
