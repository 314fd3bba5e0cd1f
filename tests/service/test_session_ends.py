"""A Session's client gets the status the contract names when the server ends its Session as the client writes.

grpc's asyncio client reports a write that reaches a call the server has
already ended as ``INTERNAL "Internal error from Core"``, overwriting the
status the server sent (grpc/grpc#36066; the Play stream's case is
tests/service/test_stream_ends.py).  A Session ends from the server's side
with an error status while its client may be writing: the account revoked or
its token rotated, a newer Session of the account, the server draining.

As on the Play stream, the server therefore hears out a Session it ends: while
one of its prompts is unanswered, it reads on (and answers) until the client
settles it, or is quiet for a while.  As in test_stream_ends.py, the client
forces the racing order: it holds its own event loop still (a blocking wait)
while the server ends the Session, then answers its prompt without having
seen the end of the call; before the fix that write was INTERNAL every time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import grpc
import pytest
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, ServerProcess, auth, client, error_info
from session_support import new_account
from support import free_port

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)


async def _prompted(stub: pb_grpc.PresidentServiceAsyncStub, call: Any, name: str) -> pb.MatchUpdate:
    """Seat the account in new matches (its three opponents never connect) until one prompts it; that update."""
    for seed in range(12):
        await stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", seed=seed, seat_accounts=[name],
                                                     clock=NO_CLOCK), metadata=auth(ADMIN))
        with suppress(TimeoutError):
            while True:
                response = await asyncio.wait_for(call.read(), 0.5)
                if response.HasField("match") and any(m.HasField("prompt") for m in response.match.messages):
                    return response.match
    raise AssertionError("no match prompted the account")


async def _answer_late(call: Any, update: pb.MatchUpdate, code: grpc.StatusCode, reason: str) -> None:
    """Answer the update's prompt (the end of the call unseen) and read to the end: the answer is acknowledged,
    and the call ends with `code` and `reason`."""
    prompt = next(m.prompt for m in update.messages if m.HasField("prompt"))
    accepted = []
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call.write(pb.SessionRequest(act=pb.MatchAct(match_id=update.match_id, act=pb.Act(
            turn_id=prompt.turn_id, action=prompt.legal_actions[0]))))
        while (response := await call.read()) is not grpc.aio.EOF:
            if response.HasField("match"):
                accepted += [m.action_accepted.turn_id for m in response.match.messages
                             if m.HasField("action_accepted")]
    assert (raised.value.code(), error_info(raised.value).reason) == (code, reason), raised.value.details()
    assert accepted == [prompt.turn_id]


def _revoke(port: int, name: str, token: str) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        pb_grpc.PresidentServiceStub(channel).RevokeAccount(pb.RevokeAccountRequest(name=name),
                                                            metadata=auth(ADMIN))


def _rotate(port: int, name: str, token: str) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        pb_grpc.PresidentServiceStub(channel).RotateAccountToken(pb.RotateAccountTokenRequest(name=name),
                                                                 metadata=auth(ADMIN))


def _replace(port: int, name: str, token: str) -> None:
    """A second Session of the account, welcomed, then left (its channel closed)."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        responses = pb_grpc.PresidentServiceStub(channel).Session(
            iter([pb.SessionRequest(hello=pb.SessionHello())]), metadata=auth(token))
        assert next(responses).HasField("welcome")
        responses.cancel()


ENDS: dict[str, tuple[Callable[[int, str, str], None], grpc.StatusCode, str]] = {
    "revoked": (_revoke, grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN"),
    "rotated": (_rotate, grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN"),
    "replaced": (_replace, grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS"),
}


@pytest.mark.parametrize("end", sorted(ENDS))
def test_a_session_ended_by_the_server_as_its_client_writes_gets_its_reason(tmp_path: Path, end: str) -> None:
    """The server ends the Session (revoked, rotated, replaced) while the client is answering its prompt: the answer
    is applied and acknowledged, then the client sees the code and reason of the end, not INTERNAL."""
    ending, code, reason = ENDS[end]

    async def main(port: int) -> None:
        async with client(port) as stub:
            token = await new_account(stub, "writer")
            call = stub.Session(metadata=auth(token))
            await call.write(pb.SessionRequest(hello=pb.SessionHello()))
            assert (await call.read()).HasField("welcome")
            update = await _prompted(stub, call, "writer")
            ending(port, "writer", token)  # blocking: this loop reads nothing meanwhile
            time.sleep(0.3)
            await _answer_late(call, update, code, reason)

    server = ServerProcess(tmp_path / "ends.db", free_port())
    try:
        asyncio.run(main(server.port))
    finally:
        server.stop()


def test_a_session_ended_by_the_servers_shutdown_as_its_client_writes_gets_shutting_down(tmp_path: Path) -> None:
    """The server drains (SIGTERM) while the client answers its prompt: the answer is acknowledged, then
    UNAVAILABLE with SHUTTING_DOWN."""
    async def main(server: ServerProcess) -> None:
        async with client(server.port) as stub:
            token = await new_account(stub, "writer")
            call = stub.Session(metadata=auth(token))
            await call.write(pb.SessionRequest(hello=pb.SessionHello()))
            assert (await call.read()).HasField("welcome")
            update = await _prompted(stub, call, "writer")
            server.process.terminate()
            time.sleep(0.3)
            await _answer_late(call, update, grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN")

    server = ServerProcess(tmp_path / "drain.db", free_port())
    try:
        asyncio.run(main(server))
    finally:
        server.stop()
