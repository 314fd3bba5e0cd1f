"""Built-in levels on Sessions: the quick levels on this process's loop, each searching account in a worker process
of its own (so that experts of many matches decide on every core), every finished match reported here."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import grpc
from president_harness.builtin_sessions import BuiltinSessions
from president_harness.child_server import ChildServer
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk.session_client import FinishedMatch

LEVELS = {"ex1": "expert", "ex2": "expert", "hard": "hard", "easy": "easy"}


def _accounts(server: ChildServer) -> tuple[pb_grpc.PresidentServiceStub, dict[str, str]]:
    stub = pb_grpc.PresidentServiceStub(grpc.insecure_channel(server.address))
    admin = (("authorization", f"Bearer {server.admin_token}"),)
    return stub, {name: stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="test"), metadata=admin).token
                  for name in LEVELS}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_searching_levels_play_in_worker_processes_and_their_matches_are_reported(tmp_path: Path) -> None:
    with ChildServer(tmp_path / "server.db") as server:
        stub, tokens = _accounts(server)
        finished: list[FinishedMatch] = []
        all_in = threading.Event()

        def over(match: FinishedMatch) -> None:
            finished.append(match)
            if len(finished) == 2 * len(LEVELS):
                all_in.set()

        with BuiltinSessions(server.address, {tokens[name]: level for name, level in LEVELS.items()},
                             on_finished=over, workers=2) as bots:
            workers = bots.worker_pids
            assert len(workers) == 2 and os.getpid() not in workers and all(_alive(pid) for pid in workers)
            admin = (("authorization", f"Bearer {server.admin_token}"),)
            for seating in (list(LEVELS), list(reversed(LEVELS))):
                stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", seat_accounts=seating,
                                                       rules=pb.Rules(deals=1)), metadata=admin)
            assert all_in.wait(120), [(m.bot, m.match_id) for m in finished]
            assert bots.error is None
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers), "a worker outlived close()"
    assert sorted(m.names[m.player] for m in finished) == sorted(2 * list(LEVELS))
    assert all(m.result.last_places for m in finished)


def test_without_workers_every_level_plays_in_this_process(tmp_path: Path) -> None:
    with ChildServer(tmp_path / "server.db") as server:
        _, tokens = _accounts(server)
        with BuiltinSessions(server.address, {tokens[name]: level for name, level in LEVELS.items()},
                             workers=0) as bots:
            assert bots.worker_pids == []
