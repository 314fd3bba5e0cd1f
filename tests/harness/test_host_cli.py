"""``president host``: a bot folder's bot in a sandbox plays its account's matches on a real server (a Unix socket),
is started again when it dies with a line saying why, and the host refuses to run without a sandbox unless told."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from process_support import stop_with_ctrl_c
from sandbox_support import FIRST_BOT, Host, require_sandbox


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    require_sandbox()
    running = Host(tmp_path_factory.mktemp("host"))
    yield running
    running.close()


def _start(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], Path]:
    out = tmp_path / f"host.{time.monotonic_ns()}.out"
    with out.open("w") as sink:
        process = subprocess.Popen([sys.executable, "-m", "president_harness", "host", *args], text=True,
                                   stdout=sink, stderr=subprocess.STDOUT, env=env)
    return process, out


def _wait_for(out: Path, process: subprocess.Popen[str], done: Callable[[str], bool], timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while not done(text := out.read_text()):
        assert process.poll() is None and time.monotonic() < deadline, text
        time.sleep(0.05)
    return text


def _folder(parent: Path, name: str, files: dict[str, str]) -> Path:
    folder = parent / name
    folder.mkdir()
    for file, code in files.items():
        (folder / file).write_text(code)
    return folder


def test_the_host_plays_its_accounts_match_in_a_sandbox_and_stops_on_ctrl_c(host: Host, tmp_path: Path) -> None:
    (_, token), *others = host.accounts(4)
    folder = _folder(tmp_path, "firstbot", {"bot.py": FIRST_BOT.read_text()})
    process, out = _start(tmp_path, "--server", host.target, "--bot", str(folder), "--log-dir", str(tmp_path / "logs"),
                          "--slot", "20", env=dict(os.environ, PRESIDENT_ACCOUNT_TOKEN=token))
    try:
        _wait_for(out, process, lambda text: "run 1 started" in text)
        host.match_with(token, others, lambda: None if process.poll() is None else out.read_text())
    finally:
        stop_with_ctrl_c(process)
    lines = out.read_text().splitlines()
    assert lines[0] == ("president host: firstbot: run 1 started in its sandbox (uid 100020; 1024 MB and 3600 CPU s"
                        " a process, 64 processes, 512 MB in all, an equal share of the CPU)"), lines
    assert lines[-1] == "president host: firstbot: stopped" and process.returncode == 0, (lines, process.returncode)
    assert "FirstBot (player 0)" in (tmp_path / "logs" / "firstbot.log").read_text()


def test_a_bot_that_dies_is_started_again_after_a_line_saying_why(host: Host, tmp_path: Path) -> None:
    folder = _folder(tmp_path, "sleeper", {"sleep.py": "import time\nprint('boom', flush=True)\ntime.sleep(30)\n"})
    logs = tmp_path / "logs"
    (_, token), = host.accounts(1)
    process, out = _start(tmp_path, "--server", host.target, "--account-token", token, "--bot", str(folder),
                          "--log-dir", str(logs), "--slot", "21", "--wall-clock", "2", "--run", "python sleep.py")
    try:
        text = _wait_for(out, process, lambda text: "run 3 started" in text)
    finally:
        stop_with_ctrl_c(process)
    lines = text.splitlines()
    log = re.escape(str(logs / "sleeper.log"))
    for run, (ended, delay) in enumerate(((lines[1], 1), (lines[3], 2)), 1):
        assert re.fullmatch(rf"president host: sleeper: run {run} killed at the wall clock \(2 s\) after [\d.]+ s"
                            rf" \(log {log}\); starting again in {delay} s", ended), lines
    assert (logs / "sleeper.previous.log").read_text() == "boom\n"


def test_the_host_refuses_to_start_where_no_sandbox_can(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "mybot", {"bot.py": FIRST_BOT.read_text()})
    process, out = _start(tmp_path, "--server", "unix:/nowhere.sock", "--account-token", "t", "--bot", str(folder),
                          env=dict(os.environ, PATH=str(tmp_path)))  # no bwrap on this PATH
    assert process.wait(30) == 1
    assert out.read_text() == ("president host: the sandbox cannot start: bwrap is not installed (apt-get install"
                               f" bubblewrap); not running {folder} (--no-sandbox would run it with this user's"
                               " rights)\n")


def test_without_a_sandbox_every_start_says_so(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "trusted", {"quick.py": "print('ran')\n"})
    process, out = _start(tmp_path, "--server", "unix:/nowhere.sock", "--account-token", "t", "--bot", str(folder),
                          "--log-dir", str(tmp_path / "logs"), "--run", f"{sys.executable} quick.py", "--no-sandbox",
                          env=dict(os.environ, PATH=str(tmp_path)))
    try:
        text = _wait_for(out, process, lambda text: "run 2 started" in text)
    finally:
        stop_with_ctrl_c(process)
    starts = [line for line in text.splitlines() if " started " in line]
    assert starts == [f"president host: trusted: run {run} started WITHOUT A SANDBOX (--no-sandbox): it can read,"
                      " write and reach whatever this user can" for run in (1, 2)], text
    assert "run 1 exited with status 0" in text


@pytest.mark.parametrize(("command", "option", "value", "words"), [
    ("host", "--memory-mb", "0", "a whole number, 1 or more"),
    ("host", "--processes", "-1", "a whole number, 1 or more"),
    ("host", "--wall-clock", "-2", "a number of seconds, more than 0"),
    ("host", "--slot", "900000", "a slot from 0 to 899999"),
    ("builder", "--slot", "-3", "a slot from 0 to 899999"),
    ("builder", "--build-seconds", "nan", "a number of seconds, more than 0"),
    ("builder", "--folder-mb", "0", "a whole number, 1 or more"),
])
def test_a_limit_out_of_range_is_one_line_before_anything_runs(tmp_path: Path, command: str, option: str,
                                                               value: str, words: str) -> None:
    """A limit no jail could hold (a bot killed at once, run again and again) is refused as the command starts."""
    where = ["--bot", str(tmp_path)] if command == "host" else ["--work", str(tmp_path / "builds")]
    done = subprocess.run([sys.executable, "-m", "president_harness", command, "--server", "unix:/nowhere.sock",
                           "--account-token" if command == "host" else "--admin-token", "t", *where, option, value],
                          capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.splitlines()[-1] == f"president {command}: error: argument {option}: {value!r}: {words}"
    assert not (tmp_path / "builds").exists() and not (tmp_path / "host-logs").exists()


def test_what_the_organisers_commands_write_goes_under_run() -> None:
    """hosting.md's commands left builds/ and host-logs/ in the project root (`uecda serve` keeps no database:
    without --server it plays on the engine, with it the server keeps the match)."""
    from president_harness.cli.president_cli import _parser

    parser = _parser()
    host = parser.parse_args(["host", "--server", "unix:x", "--versions"])
    builder = parser.parse_args(["builder", "--server", "unix:x"])
    assert (host.work, host.log_dir, builder.work) == (Path("run/builds"), Path("run/host-logs"), Path("run/builds"))
    assert not hasattr(parser.parse_args(["uecda", "serve"]), "db")
