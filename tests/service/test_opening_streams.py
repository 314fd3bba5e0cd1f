"""Streams that open and say nothing cannot crowd out the others (issue 44 item 5): a client address holds at most
`Limits.max_opening_per_peer` Play streams and Sessions before their hello, the next refused at once with a reason
and a retry hint; each of them is closed with a reason once its hello window has passed; and an honest seat from
another address gets its Welcome meanwhile, though the silent ones are more than the server-wide opening bound."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import grpc
from president_protocol.status import read_refusal
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.base.limits import Limits
from service_support import ADMIN, auth, create, running

WINDOW_S = 4.0
PER_PEER = 4
WAIT_S = 10.0
"""Bound on waiting for the server to take a stream (it takes one in milliseconds here)."""


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.01)


async def _ended(call: grpc.aio.Call) -> tuple[grpc.StatusCode | None, str, float | None, dict[str, str]]:
    try:
        message = await call.read()  # type: ignore[attr-defined]
    except grpc.aio.AioRpcError as exc:
        refusal = read_refusal(exc)
        return refusal.code, refusal.reason, refusal.retry_after_s, dict(refusal.metadata)
    raise AssertionError(f"admitted: {message}")


def test_one_client_cannot_fill_the_opening_streams_and_its_silent_ones_are_closed(tmp_path: Path) -> None:
    limits = Limits(max_opening_streams=PER_PEER + 1, max_opening_per_peer=PER_PEER, hello_window_s=WINDOW_S)

    async def main() -> None:
        async with running(tmp_path / "o.db", host="[::]", limits=limits) as server, \
                grpc.aio.insecure_channel(f"[::1]:{server.port}") as noisy_channel, \
                grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as honest_channel:
            noisy: pb_grpc.PresidentServiceAsyncStub = pb_grpc.PresidentServiceStub(noisy_channel)  # type: ignore[assignment]
            honest: pb_grpc.PresidentServiceAsyncStub = pb_grpc.PresidentServiceStub(honest_channel)  # type: ignore[assignment]
            made = [await create(honest, seed=seed) for seed in range(PER_PEER + 1)]
            account = await honest.CreateAccount(pb.CreateAccountRequest(name="quiet", owner="o"), metadata=auth(ADMIN))
            # The noisy client: seats' streams and a Session that open and send nothing.
            silent = [noisy.Play(metadata=auth(m.seats[0].token)) for m in made[:PER_PEER - 1]]
            silent.append(noisy.Session(metadata=auth(account.token)))
            opened_at = time.monotonic()
            peer = "ipv6:[::1]:1"
            await asyncio.wait_for(_until(lambda: server.servicer.opening_from(peer) == PER_PEER), WAIT_S)
            more = [noisy.Play(metadata=auth(made[-1].seats[1].token)), noisy.Play()]  # beyond its cap
            for code, reason, retry, metadata in await asyncio.gather(*map(_ended, more)):
                assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS"), (code, reason)
                assert retry == WINDOW_S and metadata["peer"] == "::/64", (retry, metadata)
            # An honest seat from another address is welcomed meanwhile.
            seat = honest.Play(metadata=auth(made[-1].seats[0].token))
            await seat.write(pb.PlayRequest(hello=pb.Hello()))
            welcome = await asyncio.wait_for(seat.read(), WAIT_S)
            assert welcome is not grpc.aio.EOF and welcome.HasField("welcome"), welcome
            assert server.servicer.opening_from(peer) == PER_PEER
            # The silent ones end with the reason once their window has passed.
            for call in silent:
                code, reason, _, metadata = await _ended(call)
                assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED"), (code, reason)
                assert metadata == {"expected": "hello", "window_s": f"{WINDOW_S:g}"}, metadata
            assert time.monotonic() - opened_at >= WINDOW_S
            await asyncio.wait_for(_until(lambda: server.servicer.opening_from(peer) == 0), WAIT_S)
            assert server.servicer.opening_streams == 0
            again = noisy.Play(metadata=auth(made[0].seats[0].token))  # and the address may open streams again
            await again.write(pb.PlayRequest(hello=pb.Hello()))
            welcome = await asyncio.wait_for(again.read(), WAIT_S)
            assert welcome is not grpc.aio.EOF and welcome.HasField("welcome"), welcome
            session = noisy.Session(metadata=auth(account.token))  # a Session is opening until its hello only
            await session.write(pb.SessionRequest(hello=pb.SessionHello()))
            first = await asyncio.wait_for(session.read(), WAIT_S)
            assert first is not grpc.aio.EOF and first.HasField("welcome"), first
            assert server.servicer.opening_from(peer) == 0
            for call in (seat, again, session):
                call.cancel()
    asyncio.run(main())
