"""SIGINT and SIGTERM both as Ctrl-C, for commands that own child processes (a server, bots) and must stop them.

Python raises KeyboardInterrupt on SIGINT only when SIGINT was not ignored at
its start: under ``trap '' INT`` (some shells' background jobs, scripts) it
would stay ignored, while the children install their own handlers and stop
on it, and a supervisor would start again what it did not know was meant to
stop.  So both signals are handled here, whatever was inherited.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGINT or SIGTERM raises KeyboardInterrupt in the main thread (so `with` blocks clean
    up), even where SIGINT was inherited ignored."""
    previous = {sig: signal.signal(sig, _interrupt) for sig in _SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
