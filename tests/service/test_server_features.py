"""Health checking, reflection, open seats (JoinMatch), ListMatches and TLS, over real loopback gRPC."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, ServerProcess, auth, client, create, error_info, refused, running
from support import free_port


def test_health_and_reflection_name_the_service(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "db.sqlite") as server, grpc.aio.insecure_channel(
                f"127.0.0.1:{server.port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for name in ("", "president.v1.PresidentService"):
                answer = await health.Check(health_pb2.HealthCheckRequest(service=name))
                assert answer.status == health_pb2.HealthCheckResponse.SERVING
            reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
            names: set[str] = set()
            async for reply in reflect.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(
                    list_services="")])):
                names |= {s.name for s in reply.list_services_response.service}
            assert "president.v1.PresidentService" in names

    asyncio.run(scenario())


def test_open_seats_are_claimed_once_each_and_listed(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "db.sqlite") as server, client(server.port) as stub:
            closed = await create(stub)
            await refused(stub.JoinMatch(pb.JoinMatchRequest(match_id=closed.match_id, name="x")),
                          grpc.StatusCode.FAILED_PRECONDITION, "SEATS_NOT_OPEN")
            created: pb.CreateMatchResponse = await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", open_seats=True, seed=3), metadata=auth(ADMIN))
            players = []
            for name in ("ann", "bob", "cy", "di"):
                joined = await stub.JoinMatch(pb.JoinMatchRequest(match_id=created.match_id, name=name))
                players.append(joined.seat.player)
                assert joined.seat.token and joined.match_id == created.match_id
            assert sorted(players) == [0, 1, 2, 3]
            await refused(stub.JoinMatch(pb.JoinMatchRequest(match_id=created.match_id, name="late")),
                          grpc.StatusCode.FAILED_PRECONDITION, "NO_FREE_SEAT")
            await refused(stub.JoinMatch(pb.JoinMatchRequest(match_id="nope", name="x")),
                          grpc.StatusCode.NOT_FOUND, "UNKNOWN_MATCH")
            listed = await stub.ListMatches(pb.ListMatchesRequest())
            ids = {m.match_id for m in listed.matches}
            assert {closed.match_id, created.match_id} <= ids
            summary = next(m for m in listed.matches if m.match_id == created.match_id)
            assert [p.name for p in summary.players] == ["ann", "bob", "cy", "di"]

    asyncio.run(scenario())


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is needed to make a test certificate")
def test_tls_when_a_certificate_and_key_are_given(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)

    async def scenario() -> None:
        async with running(tmp_path / "db.sqlite", tls_cert=cert, tls_key=key) as server:
            credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
            async with grpc.aio.secure_channel(f"localhost:{server.port}", credentials) as channel:
                stub = pb_grpc.PresidentServiceStub(channel)
                created = await stub.CreateMatch(pb.CreateMatchRequest(preset="italian"), metadata=auth(ADMIN))
                assert created.match_id
            async with grpc.aio.insecure_channel(f"localhost:{server.port}") as plain:
                with pytest.raises(grpc.aio.AioRpcError):
                    await pb_grpc.PresidentServiceStub(plain).ListMatches(pb.ListMatchesRequest(), timeout=3)

    asyncio.run(scenario())


def test_the_servicer_implements_every_rpc_of_the_contract() -> None:
    """The generated base class answers UNIMPLEMENTED ('Method not implemented!'); none of it may be reached."""
    from president_service.rpc.servicer import PresidentServicer

    rpcs = pb.DESCRIPTOR.services_by_name["PresidentService"].methods_by_name
    assert len(rpcs) == 31  # the contract's RPCs, submissions, builds, hosting and tournaments included
    for name in rpcs:
        assert getattr(PresidentServicer, name) is not getattr(pb_grpc.PresidentServiceServicer, name), name


def test_shutdown_ends_open_streams_with_shutting_down(tmp_path: Path) -> None:
    """SIGTERM drains: every open stream ends with UNAVAILABLE/SHUTTING_DOWN at once, nothing is cut off."""
    server = ServerProcess(tmp_path / "db.sqlite", free_port())

    async def until_refused(call: Any) -> list[str]:
        kinds = []
        try:
            while (message := await call.read()) is not grpc.aio.EOF:
                kinds.append(message.WhichOneof("kind"))
        except grpc.aio.AioRpcError as exc:
            assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc
            assert error_info(exc).reason == "SHUTTING_DOWN"
            return kinds
        raise AssertionError(f"the stream ended without an error after {kinds}")

    async def scenario() -> None:
        async with client(server.port) as stub:
            created = await create(stub)
            held = asyncio.Event()

            async def hello() -> AsyncIterator[pb.PlayRequest]:
                yield pb.PlayRequest(hello=pb.Hello())
                await held.wait()

            play = stub.Play(hello(), metadata=auth(created.seats[1].token))
            spectate = stub.Spectate(pb.SpectateRequest(match_id=created.match_id))
            assert (await play.read()).WhichOneof("kind") == "welcome"
            assert (await spectate.read()).WhichOneof("kind") == "snapshot"
            server.process.terminate()
            seat_kinds, _ = await asyncio.wait_for(asyncio.gather(until_refused(play), until_refused(spectate)), 5)
            assert "snapshot" in seat_kinds
            held.set()

    try:
        asyncio.run(scenario())
        assert server.process.wait(10) == 0
        assert "Traceback" not in server.output.read_text(), server.output.read_text()
    finally:
        if server.process.poll() is None:
            server.kill()
