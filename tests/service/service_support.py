"""Helpers for the service tests: a real server on a loopback port, clients on the generated stubs."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import grpc
from google.protobuf import json_format
from google.rpc.error_details_pb2 import ErrorInfo
from grpc_status import rpc_status
from president_engine import Action
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.server.grpc_server import RunningServer, ServerConfig, start

ADMIN = "admin-secret"


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@asynccontextmanager
async def running(db: Path, **config: Any) -> AsyncIterator[RunningServer]:
    server = await start(ServerConfig(db=str(db), admin_token=ADMIN, port=0, **config))
    try:
        yield server
    finally:
        await server.stop(0.5)


@asynccontextmanager
async def client(port: int) -> AsyncIterator[pb_grpc.PresidentServiceAsyncStub]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield pb_grpc.PresidentServiceStub(channel)  # type: ignore[return-value]


async def create(stub: pb_grpc.PresidentServiceAsyncStub, preset: str = "cardverse", *, seed: int = 7,
                 clock: pb.ClockSettings | None = None, **rules: Any) -> pb.CreateMatchResponse:
    request = pb.CreateMatchRequest(preset=preset, rules=pb.Rules(**rules), seed=seed, clock=clock)
    response: pb.CreateMatchResponse = await stub.CreateMatch(request, metadata=auth(ADMIN))
    return response


def error_info(exc: grpc.aio.AioRpcError) -> ErrorInfo:
    """The ErrorInfo inside a refusal's google.rpc.Status."""
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    assert status is not None, exc
    info = ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "president.v1"
    return info


async def refused(call: Any, code: grpc.StatusCode, reason: str) -> ErrorInfo:
    try:
        await call
    except grpc.aio.AioRpcError as exc:
        assert exc.code() == code, (exc.code(), exc.details())
        info = error_info(exc)
        assert info.reason == reason, (info.reason, exc.details())
        return info
    raise AssertionError(f"expected {reason}")


Policy = Callable[[pb.Prompt], pb.Action]


def lowest(prompt: pb.Prompt) -> pb.Action:
    return prompt.legal_actions[0]


@dataclass
class SeatLog:
    """Everything one seat received on its Play streams."""

    player: int
    messages: list[pb.PlayResponse] = field(default_factory=list)
    sent: dict[int, pb.Action] = field(default_factory=dict)
    accepted: list[tuple[int, pb.Action]] = field(default_factory=list)

    @property
    def last_seq(self) -> int:
        seqs = [m.event.seq for m in self.messages if m.HasField("event")]
        return max(seqs, default=0)


async def play_seat(stub: pb_grpc.PresidentServiceAsyncStub, token: str, seat: SeatLog, *,
                    policy: Policy = lowest, stop_after: int | None = None, last_seq: int = 0) -> bool:
    """Play one seat on a Play stream until MatchOver (True) or `stop_after` actions (False)."""
    outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
    await outbox.put(pb.PlayRequest(hello=pb.Hello(last_seq=last_seq)))

    async def requests() -> AsyncIterator[pb.PlayRequest]:
        while (item := await outbox.get()) is not None:
            yield item

    call = stub.Play(requests(), metadata=auth(token))
    acted = 0
    try:
        async for message in call:
            seat.messages.append(message)
            if message.HasField("match_over"):
                return True
            if message.HasField("action_accepted"):
                turn = message.action_accepted.turn_id
                seat.accepted.append((turn, seat.sent[turn]))
            if message.HasField("prompt"):
                if stop_after is not None and acted >= stop_after:
                    return False
                acted += 1
                action = seat.sent[message.prompt.turn_id] = policy(message.prompt)
                await outbox.put(pb.PlayRequest(act=pb.Act(turn_id=message.prompt.turn_id, action=action)))
        return False
    finally:
        await outbox.put(None)
        call.cancel()


def action_of(msg: pb.Action) -> Action:
    return convert.action_from_proto(msg)


class ServerProcess:
    """`python -m president_service serve` as a child process (for kill -9 and the benchmark)."""

    def __init__(self, db: Path, port: int, *extra: str) -> None:
        self.port = port
        env = dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN)
        self.output = db.with_suffix(f".{port}.{time.monotonic_ns()}.log")
        with self.output.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "president_service", "serve", "--port", str(port), "--db", str(db), *extra],
                env=env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while "serving on" not in self.output.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start: {self.output.read_text()}")
            time.sleep(0.02)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)



@dataclass(frozen=True)
class Sent:
    """One server-sent event of the web's live stream."""

    id: str | None
    event: str
    data: dict[str, Any]

    def message(self) -> pb.SpectateResponse:
        """The data as the SpectateResponse it is the JSON of."""
        return json_format.ParseDict(self.data, pb.SpectateResponse())


async def read_sent(response: aiohttp.ClientResponse) -> AsyncIterator[Sent]:
    """The events of a text/event-stream response, as a browser's EventSource splits them."""
    assert response.status == 200, await response.text()
    assert response.headers["Content-Type"].startswith("text/event-stream")
    fields: dict[str, list[str]] = {}
    async for raw in response.content:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if "data" in fields:
                yield Sent(id=fields.get("id", [None])[-1], event=fields.get("event", ["message"])[-1],
                           data=json.loads("\n".join(fields["data"])))
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))


async def live_messages(http_port: int, match_id: str, *, last_event_id: int | None = None,
                        opened: asyncio.Event | None = None) -> list[Sent]:
    """Everything the web's live stream of a match sends until it ends."""
    headers = {} if last_event_id is None else {"Last-Event-ID": str(last_event_id)}
    async with aiohttp.ClientSession() as session, session.get(
            f"http://127.0.0.1:{http_port}/api/matches/{match_id}/live", headers=headers) as response:
        out = []
        async for sent in read_sent(response):
            out.append(sent)
            if opened is not None:
                opened.set()
        return out
