"""Helpers for the browser tests: the system's chromium under Playwright, a server in a thread, paced bots."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import re
import shutil
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from playwright.sync_api import BrowserContext, ViewportSize, sync_playwright
from president_engine import Play, fallback_action
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.server.grpc_server import RunningServer, ServerConfig, start

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
"""Where each browser test leaves its pictures (build/ is not committed)."""
ADMIN = "web-admin"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
"""Without the networking flags chromium's own connections are refused on a closed network, and it stalls."""
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
CARD_TEXT = re.compile(r"\b(?:10|[2-9JQKA])[CDHS]\b|\bJK\b")
"""A card as text: what a page must not show where the card is hidden."""

_T = TypeVar("_T")


def chromium() -> str:
    """The system's chromium; outside CI a machine without it skips the browser tests, in CI they must run."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        message = "the browser tests need Debian's chromium package: apt-get install -y chromium"
        if os.environ.get("CI"):
            pytest.fail(f"{message} (.ci/run installs it)")
        pytest.skip(message)
    return found


@contextlib.contextmanager
def browser_context(profile: Path) -> Iterator[BrowserContext]:
    """The system's chromium with a fresh profile (skipped, or in CI failed, first when there is none)."""
    executable = chromium()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            profile, executable_path=executable, args=CHROMIUM_FLAGS, headless=True, viewport=DESKTOP)
        yield context
        context.close()


class BackgroundServer:
    """A real server (gRPC and web pages) on its own event loop in a thread, beside Playwright's."""

    def __init__(self, db: Path, **config: Any) -> None:
        """`config`: more of the server's settings (`ServerConfig`), e.g. its arena."""
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="president-server", daemon=True)
        self._thread.start()
        # A seat that never connects is played by the clock soon (the matches without a clock never wait).
        self.server: RunningServer = self.run(start(ServerConfig(db=str(db), admin_token=ADMIN, port=0, http_port=0,
                                                                 start_grace_s=0.05, **config)))
        self._channel: grpc.aio.Channel = self.run(self._open())
        self.stub = pb_grpc.PresidentServiceStub(self._channel)
        self.base = f"http://127.0.0.1:{self.server.http_port}"
        self.address = f"127.0.0.1:{self.server.port}"

    async def _open(self) -> grpc.aio.Channel:
        return grpc.aio.insecure_channel(f"127.0.0.1:{self.server.port}")

    def run(self, work: Coroutine[Any, Any, _T], timeout: float = 120) -> _T:
        """Run `work` on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout)

    def spawn(self, work: Coroutine[Any, Any, _T]) -> concurrent.futures.Future[_T]:
        """Start `work` on the server's loop without waiting."""
        return asyncio.run_coroutine_threadsafe(work, self.loop)

    def create(self, *, seed: int, deals: int, names: list[str],
               clock: pb.ClockSettings | None = None) -> pb.CreateMatchResponse:
        """A cardverse match; without a clock unless one is given."""
        async def create() -> pb.CreateMatchResponse:
            response: pb.CreateMatchResponse = await self.stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", rules=pb.Rules(deals=deals), seed=seed, seat_names=names,
                clock=clock or pb.ClockSettings(move_time_limit_ms=0)),
                metadata=(("authorization", f"Bearer {ADMIN}"),))
            return response
        return self.run(create())

    def play(self, created: pb.CreateMatchResponse, pace: float,
             absent: frozenset[int] = frozenset()) -> concurrent.futures.Future[list[None]]:
        """Start every seat's bot (`largest`) but the absent ones', each thinking `pace` seconds a move."""
        async def everyone() -> list[None]:
            return list(await asyncio.gather(*(_paced_seat(self.stub, s.token, pace) for s in created.seats
                                               if s.player not in absent)))
        return self.spawn(everyone())

    def replay(self, match_id: str) -> pb.Replay:
        async def get() -> pb.Replay:
            found: pb.GetReplayResponse = await self.stub.GetReplay(pb.GetReplayRequest(match_id=match_id))
            return found.replay
        return self.run(get())

    def close(self) -> None:
        async def stop() -> None:
            await self.server.stop(0.5)
            await self._channel.close()
        self.run(stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)


def largest(prompt: pb.Prompt) -> pb.Action:
    """The biggest play, weakest first (so a four of a kind goes down and sets off a revolution); else the
    easy move."""
    legal = [convert.action_from_proto(a) for a in prompt.legal_actions]
    plays = [a for a in legal if isinstance(a, Play)]
    chosen = max(plays, key=lambda a: (a.size, -legal.index(a))) if plays else fallback_action(legal)
    return prompt.legal_actions[legal.index(chosen)]


async def _paced_seat(stub: pb_grpc.PresidentServiceAsyncStub, token: str, pace: float) -> None:
    outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
    await outbox.put(pb.PlayRequest(hello=pb.Hello()))

    async def requests() -> AsyncIterator[pb.PlayRequest]:
        while (item := await outbox.get()) is not None:
            yield item

    call = stub.Play(requests(), metadata=(("authorization", f"Bearer {token}"),))
    try:
        async for message in call:
            if message.HasField("match_over"):
                return
            if message.HasField("prompt"):
                await asyncio.sleep(pace)
                await outbox.put(pb.PlayRequest(act=pb.Act(turn_id=message.prompt.turn_id,
                                                           action=largest(message.prompt))))
    finally:
        await outbox.put(None)
        call.cancel()
