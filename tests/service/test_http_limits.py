"""The HTTP port's bounds over real loopback connections: half-sent requests closed, a connection cap with a
503 that says why, a malformed Last-Event-ID refused, and malformed requests logged as a few throttled lines."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from president_service.web.http_limits import HttpLimits
from president_service.web.http_server import WebServer, start_web
from service_support import running

WEB_LOGGERS = ("aiohttp", "president_service.web")
"""Where the HTTP port logs: aiohttp's own loggers, and the server's web package."""


@asynccontextmanager
async def web_within(tmp_path: Path, limits: HttpLimits) -> AsyncIterator[WebServer]:
    """The pages of a running server on a port of their own, within `limits`."""
    async with running(tmp_path / "web.db") as server:
        web = await start_web(server.servicer, "127.0.0.1", 0, limits=limits)
        try:
            yield web
        finally:
            await web.stop()


async def connect(port: int, sent: bytes = b"") -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(sent)
    await writer.drain()
    return reader, writer


async def exchange(port: int, sent: bytes) -> tuple[int, bytes]:
    """Send `sent` on a new connection and read until the server closes it: the answer's status and body."""
    reader, writer = await connect(port, sent)
    try:
        answer = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def web_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith(WEB_LOGGERS)]


def test_a_request_that_stops_half_sent_is_closed_within_the_head_timeout(tmp_path: Path) -> None:
    async def closed_unanswered(port: int, sent: bytes) -> None:
        reader, writer = await connect(port, sent)
        try:
            assert await asyncio.wait_for(reader.read(), 10) == b"", sent
        finally:
            writer.close()

    async def scenario() -> None:
        async with web_within(tmp_path, HttpLimits(head_timeout_s=0.5)) as web:
            for sent in (b"", b"GET /api/leader", b"GET /api/leaderboards HTTP/1.1\r\nHost: x\r\n"):
                await closed_unanswered(web.port, sent)
            # a head trickled a byte at a time, that would take 20 s, is closed at the same deadline
            reader, writer = await connect(web.port)

            async def trickle() -> None:
                for byte in b"GET /api/leaderboards HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 400:
                    writer.write(bytes([byte]))
                    await asyncio.sleep(0.05)

            trickling = asyncio.get_running_loop().create_task(trickle())
            try:
                assert await asyncio.wait_for(reader.read(), 10) == b""
            finally:
                trickling.cancel()
                writer.close()

    asyncio.run(scenario())


def test_a_body_that_stops_half_sent_is_closed_within_the_body_timeout(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_within(tmp_path, HttpLimits(body_timeout_s=0.5)) as web:
            reader, writer = await connect(
                web.port, b"GET /api/leaderboards HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nthe start")
            try:
                answer = await asyncio.wait_for(reader.read(), 5)  # aiohttp's own bound is 10 s
            finally:
                writer.close()
            assert answer.startswith(b"HTTP/1.1 200 ")

    asyncio.run(scenario())


def test_connections_over_the_cap_are_refused_with_a_reason_and_the_port_serves_again_after(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    get = b"GET /api/leaderboards HTTP/1.1\r\nHost: x\r\n\r\n"

    async def refusals_logged(count: int) -> None:
        while sum("refused" in r.getMessage() for r in web_records(caplog)) < count:
            await asyncio.sleep(0.01)

    async def scenario() -> None:
        limits = HttpLimits(max_connections=2, max_refusing=1, refusal_timeout_s=30, log_every_s=0)
        async with web_within(tmp_path, limits) as web, aiohttp.ClientSession() as session:
            url = f"http://127.0.0.1:{web.port}/api/leaderboards"
            holders = [await connect(web.port, get) for _ in range(limits.max_connections)]
            for reader, _ in holders:  # answered, and kept open
                assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200 ")
            async with session.get(url) as refused:
                assert refused.status == 503 and refused.headers["Retry-After"] == "5"
                assert "at most 2 HTTP connections at once" in await refused.text()
            await asyncio.wait_for(refusals_logged(1), 10)

            # one refusal under way (a client that says nothing): the next is closed without a word
            silent = await connect(web.port)
            await asyncio.wait_for(refusals_logged(2), 10)
            reader, writer = await connect(web.port)  # no request unread, so the close is a FIN, not a reset
            assert await asyncio.wait_for(reader.read(), 10) == b""
            writer.close()
            silent[1].close()

            holders.pop()[1].close()
            for _ in range(200):
                async with session.get(url) as response:
                    if response.status == 200:
                        break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("a closed connection kept its place")
            for _, writer in holders:
                writer.close()

    asyncio.run(scenario())


def test_a_malformed_last_event_id_is_a_400_and_no_traceback(tmp_path: Path,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "web.db", http_port=0) as server:
            assert server.http_port is not None
            for last in ("²".encode(), b"9" * 5000, b"-1", b"1e3"):
                status, body = await exchange(server.http_port, b"GET /api/matches/nope/live HTTP/1.1\r\nHost: x\r\n"
                                              b"Connection: close\r\nLast-Event-ID: " + last + b"\r\n\r\n")
                assert (status, json.loads(body)["error"]["reason"]) == (400, "MALFORMED"), last[:10]

    asyncio.run(scenario())
    assert not [r for r in web_records(caplog) if r.exc_info or r.levelno >= logging.ERROR]


def test_malformed_requests_cost_a_few_throttled_lines_and_no_traceback(tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    every_s = 0.25
    malformed = (b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", b"GE\x00T / HTTP/1.1\r\n\r\n",
                 b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n", b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n")
    sent = 201

    async def scenario() -> float:
        async with web_within(tmp_path, HttpLimits(log_every_s=every_s)) as web:
            started = time.monotonic()
            for i in range(sent - 1):
                status, _ = await exchange(web.port, malformed[i % len(malformed)])
                assert status == 400
            await asyncio.sleep(2 * every_s)  # the last one is let through, with the count of those held back
            assert (await exchange(web.port, malformed[0]))[0] == 400
            return time.monotonic() - started

    elapsed = asyncio.run(scenario())
    records = web_records(caplog)
    assert records and all(r.exc_info is None and r.levelno == logging.WARNING for r in records)
    assert all("malformed" in r.getMessage() for r in records)
    assert len(records) <= math.ceil(elapsed / every_s) + 1
    held = [re.search(r"\((\d+) more since the last report\)", r.getMessage()) for r in records]
    assert sum(1 + (int(h.group(1)) if h else 0) for h in held) == sent

