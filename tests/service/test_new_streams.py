"""New Play streams past the server's bounds are refused at once, with a reason and a retry hint (issue 27 item 10).

Under load a new stream used to wait seconds for its Welcome, or end CANCELLED after 30 s with no ErrorInfo. A
server holds at most `Limits.max_opening_streams` Play streams in their opening (taken, Welcome not yet sent), and
takes none while its loop runs more than `Limits.max_loop_lag_s` behind: a stream beyond either is refused at once,
RESOURCE_EXHAUSTED TOO_MANY_STREAMS with a retry hint, and the next one is admitted once the bound is met again.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from president_protocol.status import read_refusal
from president_protocol.v1 import president_pb2 as pb
from president_service.base.limits import RETRY_FULL_S, Limits
from service_support import auth, client, create, running

WAIT_S = 10.0
"""Bound on waiting for the server to take a stream (it takes one in milliseconds here)."""


async def _welcomed(stub: object, token: str) -> grpc.aio.StreamStreamCall[pb.PlayRequest, pb.PlayResponse]:
    call = stub.Play(metadata=auth(token))  # type: ignore[attr-defined]
    await call.write(pb.PlayRequest(hello=pb.Hello()))
    first = await call.read()
    assert first is not grpc.aio.EOF and first.HasField("welcome"), first
    return call  # type: ignore[no-any-return]


async def _refused_at_once(stub: object, token: str) -> None:
    call = stub.Play(metadata=auth(token))  # type: ignore[attr-defined]
    try:
        await call.write(pb.PlayRequest(hello=pb.Hello()))
        first = await call.read()
    except grpc.aio.AioRpcError as exc:
        refusal = read_refusal(exc)
    else:
        raise AssertionError(f"admitted: {first}")
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS"), refusal
    assert refusal.retry_after_s == RETRY_FULL_S


def test_play_streams_beyond_the_opening_bound_are_refused_with_a_retry_hint(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "o.db", limits=Limits(max_opening_streams=1)) as server, \
                client(server.port) as stub:
            first, second = await create(stub, seed=1), await create(stub, seed=2)
            silent = stub.Play(metadata=auth(first.seats[0].token))  # opens, says nothing yet: it is opening
            await asyncio.wait_for(_until(lambda: server.servicer.opening_streams == 1), WAIT_S)
            await _refused_at_once(stub, second.seats[0].token)
            await silent.write(pb.PlayRequest(hello=pb.Hello()))
            welcome = await silent.read()
            assert welcome is not grpc.aio.EOF and welcome.HasField("welcome")
            assert server.servicer.opening_streams == 0
            admitted = await _welcomed(stub, second.seats[0].token)  # the bound is met again: admitted
            for call in (silent, admitted):
                call.cancel()
    asyncio.run(main())


def test_play_streams_are_refused_while_the_loop_runs_behind_its_bound(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "l.db", limits=Limits(max_loop_lag_s=0.2)) as server, \
                client(server.port) as stub:
            made = await create(stub)
            lag = server.servicer.loop_lag
            lag.stop()  # the lag is set by hand below, not measured
            lag.seen(1.0)
            await _refused_at_once(stub, made.seats[0].token)
            lag.lag = 0.0
            call = await _welcomed(stub, made.seats[0].token)
            call.cancel()
    asyncio.run(main())


async def _until(condition: object) -> None:
    while not condition():  # type: ignore[operator]
        await asyncio.sleep(0.01)
