"""`president doctor`: real checks on this machine, and each failure forced (no bubblewrap on PATH, a read-only
database folder, a file that is not SQLite, a taken port) with its one-line fix."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from president_harness.cli.doctor import check_database, check_port
from president_service.play.match_store import MatchStore
from sandbox_support import require_sandbox

ROOT = Path(__file__).resolve().parents[2]

PRESIDENT = Path(sys.executable).parent / "president"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def doctor(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PRESIDENT), "doctor", *args], capture_output=True, text=True, timeout=120,
                          env=env if env is not None else dict(os.environ))


def test_every_check_passes_on_a_machine_that_can_host(tmp_path: Path) -> None:
    require_sandbox()
    db = tmp_path / "run" / "event.db"
    db.parent.mkdir()
    MatchStore(str(db)).close()
    done = doctor("--db", str(db), "--port", str(free_port()), "--slot", "3")
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split(":")[0] for line in lines] == [
        "ok    bubblewrap", "ok    user namespaces", "ok    seccomp", "ok    engine build", "ok    jail",
        lines[5].split(":")[0], "ok    database"], lines
    assert lines[5].startswith("ok    port ") and "is free" in lines[5]
    assert "uid 100003" in lines[4] and "matches among them" in lines[6], lines


def test_the_jail_gets_the_source_when_the_host_runs_it(tmp_path: Path) -> None:
    require_sandbox()
    source = ROOT / "engine" / "src"
    done = doctor("--db", str(tmp_path / "new.db"), "--port", str(free_port()),
                  env=dict(os.environ, PYTHONPATH=f"{source}{os.pathsep}{ROOT / 'sdk' / 'src'}"))
    assert done.returncode == 0, done.stdout + done.stderr
    build, jail = done.stdout.splitlines()[3:5]
    line = f"the pure-Python source ({source / 'president_engine'})"
    assert build == f"ok    engine build: {line}; the jail gets the same"
    assert jail.startswith("ok    jail: ") and jail.endswith(line)
    assert done.stdout.splitlines()[-1] == f"ok    database: {tmp_path / 'new.db'} will be created"


def test_without_bubblewrap_on_path_each_check_that_needs_it_fails_with_the_fix(tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    done = doctor("--db", str(tmp_path / "a.db"), "--port", str(free_port()), env=dict(os.environ, PATH=str(bare)))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == "FAIL  bubblewrap: bwrap is not on PATH; fix: apt-get install bubblewrap"
    assert lines[1].startswith("FAIL  user namespaces: not tried") and lines[4].startswith("FAIL  jail: not tried")
    assert lines[2].startswith("ok    seccomp: ") and lines[-1].startswith("ok    database: ")
    assert done.stderr == "president doctor: 3 of 7 checks failed (bubblewrap, user namespaces, jail)\n"
    assert "Traceback" not in done.stdout + done.stderr


def test_a_taken_port_fails_and_a_free_one_passes() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        check = check_port("127.0.0.1", port)
        assert not check.ok and check.line() == (
            f"FAIL  port {port}: 127.0.0.1:{port} is in use; fix: stop what listens there"
            f" (ss -ltnp 'sport = :{port}' names it), or serve on another port")
    assert check_port("127.0.0.1", port).ok


def test_a_read_only_database_folder_fails(tmp_path: Path) -> None:
    """The folder bound read-only by bubblewrap (chmod would not stop root)."""
    require_sandbox()
    folder = tmp_path / "run"
    folder.mkdir()
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    code = f"from pathlib import Path; from president_harness.cli.doctor import check_database; " \
           f"print(check_database(Path({str(folder / 'event.db')!r})).line())"
    jail = [bwrap, *([] if os.geteuid() == 0 else ["--unshare-user"]), "--dev-bind", "/", "/",
            "--ro-bind", str(folder), str(folder), "--", sys.executable, "-c", code]
    done = subprocess.run(jail, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == (
        f"FAIL  database: {folder} is not writable (Read-only file system); fix: give this user write access to"
        f" {folder}, or --db a path in a writable folder"), done.stderr
    assert check_database(folder / "event.db").ok  # the same folder, writable outside the jail
    assert list(folder.iterdir()) == []


def test_a_file_that_is_not_sqlite_and_a_folder_under_a_file_fail(tmp_path: Path) -> None:
    garbage = tmp_path / "event.db"
    garbage.write_bytes(b"not a database, " * 100)
    check = check_database(garbage)
    assert not check.ok and check.said == f"{garbage} does not open as SQLite: file is not a database", check
    assert check.fix == f"move {garbage} aside and let the server create a new one"
    under = check_database(garbage / "run" / "x.db")
    assert not under.ok and under.said == f"{garbage} is a file, so {garbage / 'run'} cannot be made", under
    assert garbage.read_bytes() == b"not a database, " * 100
