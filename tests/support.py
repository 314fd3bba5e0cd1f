"""What tests of every folder share (see conftest.py)."""

from __future__ import annotations

import fcntl
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def free_port() -> int:
    """A TCP port on the loopback address that nothing listens on now (a test's own server binds it next)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


NODE_DIR = Path(__file__).resolve().parents[1] / "examples" / "node"


def node_packages() -> Path:
    """examples/node's npm packages, installed (`npm ci`) when missing; returns the Node bot.  Test workers run in
    parallel: one installs under a file lock while the others wait, since `npm ci` first empties node_modules and a
    bot started meanwhile would crash."""
    with open(Path(tempfile.gettempdir()) / "president-npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
            npm = shutil.which("npm")
            assert npm is not None, "node is installed but npm is not: cannot install examples/node's packages"
            result = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, capture_output=True,
                                    text=True, timeout=600, check=False)
            assert result.returncode == 0, f"npm ci failed in examples/node:\n{result.stdout}{result.stderr}"
    return NODE_DIR / "bot.js"
