"""A Play stream's client gets the status the contract names, even when its write races the end of the call.

grpc's asyncio client reports a write that reaches a call the server has
already ended as ``INTERNAL "Internal error from Core"``, overwriting the
status the server sent (grpc/grpc#36066).  The server therefore never ends a
Play stream while its client may be writing: a stream refused as it opens
reads the Hello first, and a stream that ends (its match over, the server
draining) while its seat's prompt is unanswered waits for that answer and
answers it first.

The tests force the racing order instead of hoping for it: the server runs in
a child process, and the client holds its own event loop still (a blocking
wait, `_hold_loop`) until the server has ended the call or could have, so that
the client cannot see the end of the call before it writes; before the fix
its write was answered INTERNAL every time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ServerProcess, auth, client, create, error_info
from support import free_port

ABSENCE_S = 0.2
"""The absent seats' limit: each is timed out (and, at one strike, taken over) at once when the clock starts."""
MOVE_MS = 500


@contextmanager
def _server(tmp_path: Path) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path / "ends.db", free_port(), "--absence-limit", str(ABSENCE_S),
                           "--start-grace", "0.2")
    try:
        yield server
    finally:
        server.stop()


def _hold_loop(until: float) -> None:
    """Block this thread's event loop until `until` (time.monotonic): messages and the status that come meanwhile
    wait unread, so the client's next write is issued without its having seen the end of the call."""
    time.sleep(max(0.0, until - time.monotonic()))


def _hold_loop_until_over(port: int, match_id: str) -> None:
    """Block the event loop until the server says the match is over (a blocking call), then 0.3 s more: by then a
    server that ends the streams with the match has ended them."""
    deadline = time.monotonic() + 30
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        while stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).match.status != pb.MATCH_STATUS_OVER:
            assert time.monotonic() < deadline, "the match did not end"
            time.sleep(0.02)
    _hold_loop(time.monotonic() + 0.3)


@pytest.mark.parametrize("strikes", [1, 2])
def test_answers_racing_the_end_of_the_match_are_answered_and_the_stream_ends_ok(tmp_path: Path,
                                                                                 strikes: int) -> None:
    """A seat answers its prompts after their deadlines, while the server's move for it ends the match: each answer
    is refused (STALE_TURN), MatchOver comes last, and the stream ends OK; before, the client's write was INTERNAL.
    With two strikes the seat is prompted twice and answers both after the end, one after the other (a backlog)."""
    async def main(port: int) -> None:
        async with client(port) as stub:
            # Seats 1-3 never connect: timed out at once whenever the clock gets to them, and played by the server
            # once struck out; so seat 0's last timeout hands the server every seat and the server plays the match
            # to its end at once, on a turn seat 0 was prompted for.
            made = await create(stub, deals=1, clock=pb.ClockSettings(
                move_time_limit_ms=MOVE_MS, time_bank_ms=0, strikes_before_takeover=strikes))
            call = stub.Play(metadata=auth(made.seats[0].token))
            await call.write(pb.PlayRequest(hello=pb.Hello()))
            prompt: pb.Prompt | None = None
            while True:
                message = await call.read()
                assert message is not grpc.aio.EOF, "the stream ended before seat 0 had a timed turn"
                if message.HasField("prompt"):
                    prompt = message.prompt
                if prompt is not None and (message.HasField("turn_deadline") or prompt.HasField("deadline")):
                    break
            _hold_loop_until_over(port, made.match_id)
            answered = []
            rest: list[pb.PlayResponse] = []
            while True:  # answer every prompt read (the first one at once), late: the match is over
                if prompt is not None:
                    await call.write(pb.PlayRequest(act=pb.Act(turn_id=prompt.turn_id,
                                                               action=prompt.legal_actions[0])))
                    answered.append(prompt.turn_id)
                if (message := await call.read()) is grpc.aio.EOF:
                    break
                rest.append(message)
                prompt = message.prompt if message.HasField("prompt") else None
            assert await call.code() == grpc.StatusCode.OK, await call.details()
            assert len(answered) == strikes
            refusals = [(m.action_rejected.turn_id, m.action_rejected.error_reason) for m in rest
                        if m.HasField("action_rejected")]
            assert refusals == [(turn, pb.ERROR_REASON_STALE_TURN) for turn in answered]
            assert rest[-1].HasField("match_over") and rest[-2].HasField("action_rejected"), rest[-2:]
            struck = [m.event.strike_recorded.player for m in rest
                      if m.HasField("event") and m.event.HasField("strike_recorded")]
            assert struck.count(0) == strikes, "seat 0's turns were not the ones the server played for it"

    with _server(tmp_path) as server:
        asyncio.run(main(server.port))


def test_an_answer_racing_the_servers_shutdown_is_applied_and_the_stream_ends_shutting_down(tmp_path: Path) -> None:
    """The server drains (SIGTERM) while the seat to act is writing its answer: the answer is applied and
    acknowledged, then the stream ends UNAVAILABLE with SHUTTING_DOWN; before, the client's write was INTERNAL."""
    async def main(server: ServerProcess) -> None:
        async with client(server.port) as stub:
            made = await create(stub)  # no seat but this one connects: the clock waits for the start grace (30 s)
            to_act = (await stub.GetMatch(pb.GetMatchRequest(match_id=made.match_id))).match.to_act
            call = stub.Play(metadata=auth(made.seats[to_act].token))
            await call.write(pb.PlayRequest(hello=pb.Hello()))
            while not (message := await call.read()).HasField("prompt"):
                assert message is not grpc.aio.EOF
            prompt = message.prompt
            server.process.terminate()  # the server drains, and ends this stream at once if it may
            _hold_loop(time.monotonic() + 0.3)
            await call.write(pb.PlayRequest(act=pb.Act(turn_id=prompt.turn_id, action=prompt.legal_actions[0])))
            answers = []
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                while (message := await call.read()) is not grpc.aio.EOF:
                    answers.append(message)
            assert (raised.value.code(), error_info(raised.value).reason) == (
                grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN"), raised.value.details()
            assert [m.action_accepted.turn_id for m in answers if m.HasField("action_accepted")] == [prompt.turn_id]

    server = ServerProcess(tmp_path / "drain.db", free_port())
    try:
        asyncio.run(main(server))
    finally:
        server.stop()


@pytest.mark.parametrize("refusal", ["too_many_streams", "bad_token"])
def test_a_stream_refused_as_it_opens_gets_its_reason_though_its_hello_comes_late(tmp_path: Path,
                                                                                  refusal: str) -> None:
    """The server refuses a Play stream before it has read anything (a third stream of one seat, a token of no
    seat) while the client's Hello is still to come: the client sees the refusal's code and reason; before, the
    third stream's Hello was answered INTERNAL."""
    async def main(port: int) -> None:
        async with client(port) as stub:
            made = await create(stub)
            token = made.seats[0].token
            held = []
            if refusal == "too_many_streams":
                for _ in range(2):  # the seat's limit (Limits.max_streams_per_seat)
                    open_call = stub.Play(metadata=auth(token))
                    await open_call.write(pb.PlayRequest(hello=pb.Hello()))
                    assert (await open_call.read()).HasField("welcome")
                    held.append(open_call)
            else:
                token = "no-such-token"
            call = stub.Play(metadata=auth(token))
            await call.wait_for_connection()
            _hold_loop(time.monotonic() + 0.3)  # the server has the call, and refuses it at once if it may
            await call.write(pb.PlayRequest(hello=pb.Hello()))
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await call.read()
            expected = {"too_many_streams": (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS"),
                        "bad_token": (grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")}[refusal]
            assert (raised.value.code(), error_info(raised.value).reason) == expected, raised.value.details()
            for open_call in held:
                open_call.cancel()

    with _server(tmp_path) as server:
        asyncio.run(main(server.port))

