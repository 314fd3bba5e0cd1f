"""The SDK against a real server over loopback: `python -m president_service serve` in a child process."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from president_engine import PASS, CardSet, Play
from president_engine.events import MatchEnded
from president_protocol.v1 import president_pb2 as pb
from president_sdk import Bot, RunnerError, builtin_bot, run
from sdk_support import Server
from support import free_port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("sdk") / "server.db", free_port())
    yield running
    running.stop()


def _play_all(bots: list[Bot], address: str, tokens: list[str], **kwargs: Any) -> list[MatchEnded | BaseException]:
    results: list[MatchEnded | BaseException] = [RuntimeError("did not finish")] * len(bots)

    def seat(i: int) -> None:
        try:
            results[i] = run(bots[i], address, tokens[i], **kwargs)
        except BaseException as exc:
            results[i] = exc

    threads = [threading.Thread(target=seat, args=(i,), daemon=True) for i in range(len(bots))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


def test_builtin_bots_play_a_match_over_grpc(server: Server) -> None:
    tokens = server.create("norwegian", deals=3)
    bots = [builtin_bot(level) for level in ("random", "easy", "normal", "hard")]
    results = _play_all(bots, server.address, tokens)
    assert all(isinstance(r, MatchEnded) for r in results), results
    assert len({(r.winner, r.totals) for r in results if isinstance(r, MatchEnded)}) == 1
    assert [b.player for b in bots] == [0, 1, 2, 3]
    assert bots[0].raw is not None  # the last protobuf message stays reachable


class Raises(Bot):
    def play(self, obs):
        raise RuntimeError("bot bug")


class Illegal(Bot):
    def play(self, obs):
        return Play(CardSet("JK"))


class Hangs(Bot):
    def __init__(self) -> None:
        self.hung = 0

    def play(self, obs):
        if self.hung < 2:
            self.hung += 1
            time.sleep(3)
        return PASS if obs.table is not None else obs.legal_actions[0]


def test_faulty_bots_get_clear_errors_and_the_match_goes_on(server: Server,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    tokens = server.create("cardverse", deals=1, clock=pb.ClockSettings(
        move_time_limit_ms=1500, time_bank_ms=0, strikes_before_takeover=0))
    bots: list[Bot] = [Raises(), Illegal(), Hangs(), builtin_bot("hard")]
    with caplog.at_level(logging.ERROR):
        results = _play_all(bots, server.address, tokens)
    assert all(isinstance(r, MatchEnded) for r in results), results
    text = caplog.text
    assert "Raises (player 0, deal 1) raised RuntimeError: bot bug; playing" in text
    assert "Illegal (player 1, deal 1) returned an illegal action JK" in text
    assert "Hangs (player 2, deal 1) did not answer within" in text


def _runner_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name in ("president-play-reader", "president-cancel")]


def test_cancel_leaves_the_match_and_no_runner_thread_outlives_its_stream(server: Server) -> None:
    """A seat whose table never fills waits until `cancel`; a finished match given a `cancel` it never set leaves no
    reader or watcher behind (a reader left inside gRPC's call lock can deadlock the interpreter's exit)."""
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    with pytest.raises(RunnerError, match="left the match: cancelled") as caught:
        run(builtin_bot("easy"), server.address, server.create("cardverse", deals=1)[0], cancel=cancel)
    assert caught.value.reason == "CANCELLED"

    never = threading.Event()
    results = _play_all([builtin_bot("easy") for _ in range(4)], server.address, server.create("cardverse", deals=1),
                        cancel=never)
    assert all(isinstance(r, MatchEnded) for r in results), results
    deadline = time.monotonic() + 10
    while _runner_threads() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _runner_threads() == []


def test_bad_token_is_a_clear_error(server: Server) -> None:
    with pytest.raises(RunnerError, match="bad token") as caught:
        run(builtin_bot("easy"), server.address, "not-a-token")
    assert caught.value.reason == "BAD_TOKEN"


def test_missing_token_is_refused_before_connecting() -> None:
    with pytest.raises(RunnerError, match="no seat token"):
        run(builtin_bot("easy"), "127.0.0.1:1", "")


def test_a_server_never_reached_fails_at_once() -> None:
    """No retries for a connection that never existed: the address is wrong or the server is not running."""
    started = time.monotonic()
    with pytest.raises(RunnerError, match=r"cannot reach .*is the server running") as caught:
        run(builtin_bot("easy"), f"127.0.0.1:{free_port()}", "token", retry_delays=(5.0, 5.0))
    assert caught.value.reason == "UNREACHABLE"
    assert time.monotonic() - started < 4


def test_reconnects_after_the_server_restarts(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "restart.db"
    port = free_port()
    first = Server(db, port)
    tokens = first.create("cardverse", deals=3)

    class Slow(Bot):
        """Easy play, slowly, so the match is still running when the server goes away."""

        def play(self, obs):
            time.sleep(0.05)
            return builtin_bot("easy").play(obs)

    bots: list[Bot] = [Slow() for _ in range(4)]
    outcome: list[Any] = []
    worker = threading.Thread(target=lambda: outcome.append(
        _play_all(bots, first.address, tokens, retry_delays=(0.5, 1, 1, 2, 2, 4))), daemon=True)
    with caplog.at_level(logging.WARNING, logger="president.runner"):
        worker.start()
        time.sleep(1.5)
        first.kill()
        second = Server(db, port)
        try:
            worker.join(120)
        finally:
            second.stop()
    results = outcome[0]
    assert all(isinstance(r, MatchEnded) for r in results), results
    assert "reconnecting in" in caplog.text
