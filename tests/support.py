"""What tests of every folder share (see conftest.py)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port on the loopback address that nothing listens on now (a test's own server binds it next)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
