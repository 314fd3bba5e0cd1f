"""The `president` command's smaller parts: match create, replay, --version, and the ladder server's watchdog."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from president_engine import MatchRecord
from president_harness.child_server import RESTARTS, ChildServer, ServerError
from president_harness.cli.president_cli import main
from president_harness.ladder.progress import Progress
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc


def test_match_create_prints_the_match_and_a_token_per_player(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    with ChildServer(tmp_path / "server.db") as server:
        assert main(["match", "create", "--server", server.address, "--admin-token", server.admin_token,
                     "--preset", "norwegian", "--players", "5", "--deals", "2", "--names", "me,a,b,c,d"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0].startswith("match ") and "norwegian, 5 players, 2 deals" in out[0]
        assert [line.split(":")[0] for line in out[1:6]] == [f"player {p}" for p in range(5)]
        assert main(["match", "create", "--server", server.address, "--admin-token", "wrong"]) == 1
        assert capsys.readouterr().err.startswith("president match: NOT_ADMIN: ")
        assert main(["match", "create", "--server", server.address, "--admin-token", server.admin_token,
                     "--options", '{"jokers": 9}']) == 2
        assert capsys.readouterr().err.strip() == "president match: jokers: 0, 1 or 2 per deck"


def test_match_create_dev_gives_one_token_for_the_name_and_refuses_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--dev NAME: the first match prints the dev seat's token, a second while the first is live is refused in one
    line, the one after it ends says the token is as before; a bot between two matches is told so in one line."""
    with ChildServer(tmp_path / "server.db") as server, grpc.insecure_channel(server.address) as channel:
        create = ["match", "create", "--server", server.address, "--admin-token", server.admin_token, "--deals", "1",
                  "--move-ms", "0", "--dev", "mine"]
        assert main(create) == 0
        out = capsys.readouterr().out.splitlines()
        token = out[1].removeprefix("player 0: ")
        assert len(token) == 64 and "--again" in out[-1]
        others = [line.split(": ")[1] for line in out[2:5]]
        assert main(create) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("president match: SEAT_TAKEN: dev seat 'mine' still plays"), err
        _play_out(pb_grpc.PresidentServiceStub(channel), [token, *others])
        done = subprocess.run([sys.executable, "-m", "president_sdk.bot_cli", "builtin:easy", "--server",
                               server.address, "--token", token], capture_output=True, text=True, timeout=60,
                              check=False)
        assert done.returncode == 1 and done.stderr.startswith("president-bot: no match yet: dev seat 'mine' waits"
                                                               " for its next match"), done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
        assert main(create) == 0
        assert capsys.readouterr().out.splitlines()[1] == "player 0: the dev seat mine: its token, as before"
        revoke = ["match", "revoke-dev", "mine", "--server", server.address, "--admin-token"]
        assert main([*revoke, "wrong"]) == 1
        assert capsys.readouterr().err.startswith("president match: NOT_ADMIN: ")
        assert main([*revoke, server.admin_token]) == 0
        assert capsys.readouterr().out == "dev seat mine: revoked\n"
        auth = (("authorization", f"Bearer {token}"),)
        with pytest.raises(grpc.RpcError) as refused:
            pb_grpc.PresidentServiceStub(channel).GetTurn(pb.GetTurnRequest(), metadata=auth)
        assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
        assert main([*revoke, server.admin_token]) == 0
        assert capsys.readouterr().out == "dev seat mine: none had this name\n"


def _play_out(stub: pb_grpc.PresidentServiceStub, tokens: list[str]) -> None:
    """Every seat plays its first legal action, over the unary calls, until the match is over."""
    while True:
        for token in tokens:
            auth = (("authorization", f"Bearer {token}"),)
            turn = stub.GetTurn(pb.GetTurnRequest(), metadata=auth)
            if turn.status == pb.MATCH_STATUS_OVER:
                return
            if turn.HasField("prompt"):
                stub.SubmitAction(pb.SubmitActionRequest(turn_id=turn.prompt.turn_id,
                                                         action=turn.prompt.legal_actions[0]), metadata=auth)


def test_replay_saves_a_finished_match_as_a_file_and_as_its_record(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with ChildServer(tmp_path / "server.db") as server, grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        created = stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", seed=3, clock=pb.ClockSettings(
            move_time_limit_ms=0)), metadata=(("authorization", f"Bearer {server.admin_token}"),))
        replay = ["replay", created.match_id, "--server", server.address]
        assert main(replay) == 2
        assert capsys.readouterr().err.strip() == "president replay: give --html FILE, --json FILE, or both"
        assert main([*replay, "--json", "-"]) == 1
        assert capsys.readouterr().err.startswith("president replay: MATCH_NOT_OVER: ")
        assert main(["replay", "nope", "--server", server.address, "--json", "-"]) == 1
        assert capsys.readouterr().err.strip() == "president replay: UNKNOWN_MATCH: no match 'nope'"
        _play_out(stub, [seat.token for seat in created.seats])
        page = tmp_path / "replay.html"
        assert main([*replay, "--json", "-", "--html", str(page)]) == 0
        out = capsys.readouterr()
        assert MatchRecord.loads(out.out).replay().is_over
        assert out.err.strip() == f"president replay: wrote {page}"
        assert 'id="replay-data"' in page.read_text(encoding="utf-8")
        assert main([*replay, "--html", str(tmp_path / "missing" / "replay.html")]) == 1
        assert capsys.readouterr().err.startswith("president replay: cannot write ")


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


def test_a_port_out_of_range_is_one_line_for_every_command(tmp_path: Path) -> None:
    """`president serve`, `demo` and `arena` all read a port the same way (bind() would raise OverflowError)."""
    for command, flag, value in (("serve", "--port", "70000"), ("serve", "--http-port", "-5"),
                                 ("demo", "--port", "²"), ("arena", "--http-port", "99999")):
        done = subprocess.run([sys.executable, "-m", "president_harness", command, flag, value,
                               "--db", str(tmp_path / f"{command}.db")],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert f"argument {flag}: {value!r}: a port from 0 to 65535" in done.stderr
