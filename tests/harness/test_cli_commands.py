"""The `president` command's smaller parts: match create, --version, and the ladder server's watchdog."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from president_harness.child_server import RESTARTS, ChildServer, ServerError
from president_harness.ladder.progress import Progress
from president_harness.president_cli import main


def test_match_create_prints_the_match_and_a_token_per_player(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    with ChildServer(tmp_path / "server.db") as server:
        assert main(["match", "create", "--server", server.address, "--admin-token", server.admin_token,
                     "--preset", "norwegian", "--players", "5", "--deals", "2", "--names", "me,a,b,c,d"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0].startswith("match ") and "norwegian, 5 players, 2 deal(s)" in out[0]
        assert [line.split(":")[0] for line in out[1:6]] == [f"player {p}" for p in range(5)]
        assert main(["match", "create", "--server", server.address, "--admin-token", "wrong"]) == 1
        assert capsys.readouterr().err.startswith("president match: NOT_ADMIN: ")
        assert main(["match", "create", "--server", server.address, "--admin-token", server.admin_token,
                     "--options", '{"jokers": 9}']) == 2
        assert capsys.readouterr().err.strip() == "president match: jokers: 0, 1 or 2 per deck"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("president 0.")


def test_the_ladders_server_is_started_again_when_it_dies(tmp_path: Path) -> None:
    with ChildServer(tmp_path / "server.db") as server:
        address = server.address
        for _ in range(RESTARTS):
            assert server._proc is not None
            server._proc.kill()
            server._proc.wait()
            server.keep_alive()
            assert server.address == address and server._proc.poll() is None
        server.keep_alive()  # alive: nothing to do
        server._proc.kill()
        server._proc.wait()
        with pytest.raises(ServerError, match="already restarted 3 times"):
            server.keep_alive()


class _Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


def test_progress_without_a_terminal_prints_a_line_every_few_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    out = _Pipe()
    progress = Progress(10, 2, out, name="mine")
    progress.advance()
    clock[0] += 1
    progress.tick()
    assert out.getvalue() == ""  # not yet due
    clock[0] += 5
    progress.tick()
    assert out.getvalue() == "mine: 3/10 matches, 0.2 matches/s, 00:42 left\n"
    progress.advance()
    progress.close()
    assert out.getvalue().splitlines()[-1].startswith("mine: 4/10 matches")
