"""`president account` against a real server, and `president arena` briefly in a subprocess with a newcomer."""

from __future__ import annotations

import asyncio
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from president_harness.child_server import ChildServer
from president_harness.cli.president_cli import main
from president_sdk import RunnerError, builtin_bot
from president_sdk.session_client import Appetite, SessionClient
from process_support import stop_with_ctrl_c


def account(*args: str) -> list[str]:
    return ["account", *args]


def test_accounts_are_created_listed_rotated_and_revoked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ChildServer(tmp_path / "server.db") as server:
        where = ["--server", server.address, "--admin-token", server.admin_token]
        assert main(account("create", "mybot", "--owner", "Ada", *where)) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0] == "account mybot created" and out[1].startswith("token: ")
        first = out[1].removeprefix("token: ")
        assert f"--server {server.address} --account-token {first}" in out[2]
        assert main(account("create", "house-x", "--house", *where)) == 0
        capsys.readouterr()
        assert main(account("create", "mybot", *where)) == 1
        assert capsys.readouterr().err.strip() == "president account: ACCOUNT_EXISTS: an account named mybot exists" \
                                                  " already"
        assert main(account("rotate", "mybot", *where)) == 0
        second = capsys.readouterr().out.splitlines()[1].removeprefix("token: ")
        assert second != first
        with pytest.raises(RunnerError, match="bad account token"):
            asyncio.run(SessionClient(lambda _s: builtin_bot("easy"), first, server=server.address).run())
        assert main(account("revoke", "mybot", *where)) == 0
        assert capsys.readouterr().out.strip() == "account mybot revoked: its token no longer works"
        with pytest.raises(RunnerError, match="revoked"):
            asyncio.run(SessionClient(lambda _s: builtin_bot("easy"), second, server=server.address).run())
        assert main(account("list", *where)) == 0
        listed = capsys.readouterr().out.splitlines()
        assert [line.split()[0] for line in listed] == ["house-x", "mybot"]
        assert listed[0].endswith("(house)") and listed[1].endswith("Ada  (revoked)")
        assert main(account("list", "--server", server.address, "--admin-token", "wrong")) == 1
        assert capsys.readouterr().err.startswith("president account: NOT_ADMIN: ")


def test_account_errors_are_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRESIDENT_ADMIN_TOKEN", raising=False)
    assert main(account("list", "--server", "127.0.0.1:1")) == 2
    assert capsys.readouterr().err == "president account: give --admin-token or set PRESIDENT_ADMIN_TOKEN\n"
    assert main(account("list", "--server", "127.0.0.1:1", "--admin-token", "x")) == 1
    assert capsys.readouterr().err == ("president account: cannot reach 127.0.0.1:1: is the server running, and is"
                                       " the address right?\n")


def test_the_arena_serves_house_bots_and_prints_the_leaderboard_once_a_newcomer_plays(tmp_path: Path) -> None:
    arena = subprocess.Popen([sys.executable, "-m", "president_harness", "arena", "--port", "0", "--http-port", "0",
                              "--db", str(tmp_path / "arena.db"), "--every", "0.3"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    lines: queue.Queue[str] = queue.Queue()
    assert arena.stdout is not None
    threading.Thread(target=lambda: [lines.put(line) for line in arena.stdout], daemon=True).start()  # type: ignore[union-attr]
    seen: list[str] = []

    def until(pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                assert arena.poll() is None, "".join(seen) + (arena.stderr.read() if arena.stderr else "")
                continue
            seen.append(line)
            found = re.search(pattern, line)
            if found:
                return found
        raise AssertionError(f"no {pattern!r} in:\n{''.join(seen)}")

    try:
        joined = until(r"--server (\S+) --account-token (\S+) --arena", 60)
        assert any("house bots house-hard, house-normal, house-easy, house-random" in line for line in seen)
        server, token = joined.group(1), joined.group(2)
        newcomer = SessionClient(lambda seed: builtin_bot("normal", seed=seed), token, server=server,
                                 appetite=Appetite(arena=True, max_matches=2))

        async def play() -> None:
            task = asyncio.create_task(newcomer.run())
            try:
                await asyncio.to_thread(until, r"^\s+\d+\s+newcomer\s+rating\s+-?\d+\.\d\d\s+mean place", 120)
                await asyncio.to_thread(until, r"^\s+\d+\s+house-\w+\s+rating.*mean place.*\(house", 30)
            finally:
                task.cancel()
        asyncio.run(play())
        assert any(line.startswith("leaderboard cardverse:4:") for line in seen)
        assert len(newcomer.stats.finished) >= 2  # the check match, then at least one rated match
    finally:
        stop_with_ctrl_c(arena)
    assert arena.returncode == 0
    assert arena.stderr is not None and "Traceback" not in arena.stderr.read()
