"""`president serve` as a person meets it: one clear line for every mistake, never a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ENV = dict(os.environ, PRESIDENT_ADMIN_TOKEN="secret")


def serve(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "president_service", *args], capture_output=True, text=True,
                          timeout=timeout, env=ENV, check=False)


def test_a_taken_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve("serve", "--port", str(port), "--db", str(tmp_path / "p.db"))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    line = [x for x in done.stderr.splitlines() if x.startswith("president serve:")]
    assert line == [f"president serve: cannot listen on 127.0.0.1:{port}: the port is in use or the address is"
                    " not this machine's (try another --port, or --port 0 for a free one)"], done.stderr


def test_a_missing_database_folder_is_created(tmp_path: Path) -> None:
    db = tmp_path / "new" / "folder" / "president.db"
    process = subprocess.Popen([sys.executable, "-m", "president_service", "serve", "--port", "0", "--db", str(db)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV)
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 30
        for line in process.stdout:
            if "serving on" in line or time.monotonic() > deadline:
                break
        assert db.exists()
    finally:
        process.terminate()
        process.wait(15)


def test_bad_flags_are_one_line(tmp_path: Path) -> None:
    done = serve("serve", "--port", "0", "--db", str(tmp_path / "c.db"), "--move-ms", "-5")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "president serve: --move-ms: a whole number from 0 to 86400000" in done.stderr
    done = serve("serve", "--port", "0", "--db", str(tmp_path / "c.db"), "--arena-queue", "chess:4")
    assert done.returncode == 2 and "'chess:4': write PRESET:PLAYERS" in done.stderr
    version = serve("--version")
    assert version.returncode == 0 and version.stdout.startswith("president-service 0.")

