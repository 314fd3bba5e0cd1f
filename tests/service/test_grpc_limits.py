"""The gRPC port's connection bounds: a connection that never finishes its handshake, or never makes a call, is
closed; connections beyond the cap are closed as they come; normal calls go on meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from president_protocol.v1 import president_pb2 as pb
from president_service.server.grpc_server import ConnectionLimits
from service_support import client, create, running

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS = bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""An empty HTTP/2 SETTINGS frame: with the preface, a finished handshake."""
CLOSED_WITHIN_S = 10.0
"""How long a test waits for the server to close a connection it bounds to a second or two."""


async def _connect(port: int, sent: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(sent)
    await writer.drain()
    return reader, writer


async def _closed_by_server(reader: asyncio.StreamReader, within_s: float) -> bool:
    """Whether the server closes the connection within `within_s` (whatever it sends before)."""
    async def until_closed() -> None:
        with contextlib.suppress(ConnectionResetError):
            while await reader.read(4096):
                pass
    try:
        await asyncio.wait_for(until_closed(), within_s)
    except TimeoutError:
        return False
    return True


async def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    with contextlib.suppress(ConnectionResetError, BrokenPipeError):
        await writer.wait_closed()


def test_connections_that_send_nothing_or_only_the_preface_are_closed(tmp_path: Path) -> None:
    async def main() -> None:
        bounds = ConnectionLimits(handshake_s=1.0)
        async with running(tmp_path / "g.db", connections=bounds) as server, client(server.port) as stub:
            half_open = [await _connect(server.port, sent) for sent in (b"", PREFACE) for _ in range(20)]
            await create(stub)  # a normal call still works beside them
            closed = await asyncio.gather(*(_closed_by_server(reader, CLOSED_WITHIN_S) for reader, _ in half_open))
            assert all(closed), f"{closed.count(False)} of {len(closed)} half-open connections still open"
            await create(stub)
            for _, writer in half_open:
                await _close(writer)
    asyncio.run(main())


def test_a_connection_that_makes_no_call_is_closed(tmp_path: Path) -> None:
    async def main() -> None:
        bounds = ConnectionLimits(idle_s=1.0)
        async with running(tmp_path / "g.db", connections=bounds) as server:
            reader, writer = await _connect(server.port, PREFACE + SETTINGS)
            assert await _closed_by_server(reader, CLOSED_WITHIN_S)
            await _close(writer)
    asyncio.run(main())


def test_connections_beyond_the_cap_are_closed_as_they_come(tmp_path: Path) -> None:
    async def main() -> None:
        bounds = ConnectionLimits(max_connections=4)
        async with running(tmp_path / "g.db", connections=bounds) as server:
            held = [await _connect(server.port, PREFACE + SETTINGS) for _ in range(4)]
            for reader, _ in held:
                assert await reader.read(1)  # the server's settings: it holds the connection
            reader, writer = await _connect(server.port, PREFACE + SETTINGS)
            assert await _closed_by_server(reader, CLOSED_WITHIN_S)  # made and unused, it would stay 60 s
            await _close(writer)
            assert not any(await asyncio.gather(*(_closed_by_server(r, 0.5) for r, _ in held)))
            for _, held_writer in held:
                await _close(held_writer)
            async with client(server.port) as stub:  # gRPC retries the connection until the server has room
                await stub.ListMatches(pb.ListMatchesRequest(), wait_for_ready=True, timeout=CLOSED_WITHIN_S)
    asyncio.run(main())
