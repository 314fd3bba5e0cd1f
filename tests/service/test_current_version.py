"""An author chooses the account's current version (issue 23): SetCurrentVersion makes an older READY version,
or a RETIRED one brought back, the one hosts run and the arena seats; the choice survives a restart and lasts
until a newer version becomes READY; a version never built, another account's, or no token is refused and
changes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from president_protocol.status import read_refusal
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.base.limits import Limits
from service_support import ADMIN, auth, client, running
from session_support import new_account
from version_support import ready_version, submit, versions


async def _choose(stub: pb_grpc.PresidentServiceAsyncStub, token: str, version_id: str) -> pb.BotVersion:
    chosen: pb.SetCurrentVersionResponse = await stub.SetCurrentVersion(
        pb.SetCurrentVersionRequest(version_id=version_id), metadata=auth(token))
    return chosen.version


async def _current(stub: pb_grpc.PresidentServiceAsyncStub, token: str) -> list[str]:
    return [v.version_id for v in await versions(stub, token) if v.current]


async def _lease(stub: pb_grpc.PresidentServiceAsyncStub, running: tuple[str, ...] = ()) -> pb.LeaseHostingResponse:
    leased: pb.LeaseHostingResponse = await stub.LeaseHosting(
        pb.LeaseHostingRequest(host="host-a", capacity=4, running=list(running)), metadata=auth(ADMIN))
    return leased


def test_a_chosen_version_is_hosted_survives_a_restart_and_yields_to_a_newer_one(tmp_path: Path) -> None:
    async def main() -> None:
        db = tmp_path / "c.db"
        async with running(db) as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            first = await ready_version(stub, token, b"first")
            second = await ready_version(stub, token, b"second")
            [hosted] = (await _lease(stub)).start
            assert hosted.version.version_id == second.version_id
            chosen = await _choose(stub, token, first.version_id)
            assert chosen.current and chosen.state == pb.VERSION_STATE_READY
            assert await _current(stub, token) == [first.version_id]
            moved = await _lease(stub, (second.version_id,))
            assert list(moved.stop) == [second.version_id], "the host stops the version no longer current"
            assert [h.version.version_id for h in moved.start] == [first.version_id]
            again = await _choose(stub, token, first.version_id)
            assert again.current, "choosing the current version again changes nothing"
        async with running(db) as server, client(server.port) as stub:
            assert await _current(stub, token) == [first.version_id], "a restarted server keeps the choice"
            third = await ready_version(stub, token, b"third")
            assert third.current, "a version READY after the choice is current: the newest act wins"
            assert await _current(stub, token) == [third.version_id]
        async with running(db) as server, client(server.port) as stub:
            assert await _current(stub, token) == [third.version_id]
    asyncio.run(main())


def test_a_retired_version_chosen_plays_again_and_the_oldest_other_retires(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "c.db", limits=Limits(account_active_versions=2)) as server, \
                client(server.port) as stub:
            token = await new_account(stub, "ada")
            first = await ready_version(stub, token, b"first")
            second = await ready_version(stub, token, b"second")
            third = await ready_version(stub, token, b"third")
            states = {v.version_id: v.state for v in await versions(stub, token)}
            assert states[first.version_id] == pb.VERSION_STATE_RETIRED
            chosen = await _choose(stub, token, first.version_id)
            assert chosen.current and chosen.state == pb.VERSION_STATE_READY
            states = {v.version_id: v.state for v in await versions(stub, token)}
            assert states == {first.version_id: pb.VERSION_STATE_READY, second.version_id: pb.VERSION_STATE_RETIRED,
                              third.version_id: pb.VERSION_STATE_READY}
            assert await _current(stub, token) == [first.version_id]
    asyncio.run(main())


def test_choices_that_cannot_be_made_are_refused_and_change_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "c.db") as server, client(server.port) as stub:
            ada = await new_account(stub, "ada")
            bob = await new_account(stub, "bob")
            built = await ready_version(stub, ada, b"built")
            bobs = await ready_version(stub, bob, b"bob's")
            queued = (await submit(stub, ada, b"queued")).version
            before = await versions(stub, ada)

            async def refused(token: str | None, version_id: str) -> tuple[grpc.StatusCode | None, str, dict[str, str]]:
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub.SetCurrentVersion(pb.SetCurrentVersionRequest(version_id=version_id),
                                                 metadata=auth(token) if token else ())
                refusal = read_refusal(caught.value)
                return refusal.code, refusal.reason, dict(refusal.metadata)

            assert await refused(ada, queued.version_id) == (
                grpc.StatusCode.FAILED_PRECONDITION, "VERSION_STATE", {"state": "QUEUED"})
            assert (await refused(ada, bobs.version_id))[:2] == (grpc.StatusCode.NOT_FOUND, "UNKNOWN_VERSION")
            assert (await refused(ada, "no-such-version"))[1] == "UNKNOWN_VERSION"
            assert (await refused(None, built.version_id))[1] == "MISSING_TOKEN"
            assert (await refused("not-a-token", built.version_id))[1] == "BAD_TOKEN"
            assert (await refused(ADMIN, built.version_id))[1] == "BAD_TOKEN", "an author's choice, not the admin's"
            assert await versions(stub, ada) == before
            assert await _current(stub, bob) == [bobs.version_id]
    asyncio.run(main())
