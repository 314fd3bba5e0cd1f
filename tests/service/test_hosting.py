"""Hosted versions on the server (issue 23): a host leases each account's current READY version with a token of
the version's own; a Session opened with it plays as ``account@version`` (its check match, ratings, records and
leaderboard row name the version); the arena seats only the current version; a newer READY version takes over,
the oldest beyond the account's few active ones retire; an unrenewed lease passes to another host and its token
stops working."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from arena_support import ARENA, arena_settings, house_bots
from president_protocol.status import read_refusal
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.base.limits import Limits
from service_support import ADMIN, auth, client, running
from session_support import SessionBot, new_account
from version_support import ready_version


async def _host(stub: pb_grpc.PresidentServiceAsyncStub, host: str, running: tuple[str, ...] = (),
                capacity: int = 8) -> pb.LeaseHostingResponse:
    leased: pb.LeaseHostingResponse = await stub.LeaseHosting(
        pb.LeaseHostingRequest(host=host, capacity=capacity, running=list(running)), metadata=auth(ADMIN))
    return leased


async def _refusal(stub: pb_grpc.PresidentServiceAsyncStub, token: str) -> str:
    bot = SessionBot(stub, token)
    await asyncio.wait_for(bot.run(), 30)
    assert bot.error is not None, bot.other
    return read_refusal(bot.error).reason


async def _welcome(stub: pb_grpc.PresidentServiceAsyncStub, token: str) -> pb.SessionWelcome:
    bot = SessionBot(stub, token)
    task = asyncio.create_task(bot.run())
    while not bot.other and not task.done():
        await asyncio.sleep(0.02)
    bot.outbox.put_nowait(None)
    await task
    assert bot.other, bot.error
    return bot.other[0].welcome


def test_a_host_leases_the_current_version_and_its_token_plays_as_the_version(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "h.db") as server, client(server.port) as stub:
            token = await new_account(stub, "ada")
            version = await ready_version(stub, token, b"first")
            assert version.current and not version.checked and version.player == f"ada@{version.version_id}"
            leased = await _host(stub, "host-a")
            [hosted] = leased.start
            assert hosted.version.version_id == version.version_id and hosted.token
            assert not (await _host(stub, "host-b")).start, "one host at a time"
            renewed = await _host(stub, "host-a", (version.version_id,))
            assert list(renewed.keep) == [version.version_id] and not renewed.start and not renewed.stop
            welcome = await _welcome(stub, hosted.token)
            assert welcome.account == "ada" and welcome.check_pending
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.LeaseHosting(pb.LeaseHostingRequest(host="h"), metadata=auth(token))
            assert read_refusal(refused.value).reason == "NOT_ADMIN"
    asyncio.run(main())


def test_a_newer_version_takes_over_and_the_oldest_beyond_the_active_ones_retire(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "h.db", limits=Limits(account_active_versions=2)) as server, \
                client(server.port) as stub:
            token = await new_account(stub, "ada")
            first = await ready_version(stub, token, b"first")
            [hosted] = (await _host(stub, "host-a")).start
            second = await ready_version(stub, token, b"second")
            moved = await _host(stub, "host-a", (first.version_id,))
            assert list(moved.stop) == [first.version_id]
            assert [h.version.version_id for h in moved.start] == [second.version_id]
            assert await _refusal(stub, hosted.token) == "BAD_TOKEN", "a replaced version's token stops working"
            third = await ready_version(stub, token, b"third")
            listed = {v.version_id: v for v in (await stub.ListVersions(pb.ListVersionsRequest(),
                                                                        metadata=auth(token))).versions}
            assert listed[first.version_id].state == pb.VERSION_STATE_RETIRED
            assert listed[first.version_id].player == f"ada@{first.version_id}", "its records still name it"
            assert listed[second.version_id].state == pb.VERSION_STATE_READY and not listed[second.version_id].current
            assert listed[third.version_id].current
    asyncio.run(main())


def test_an_unrenewed_lease_passes_to_another_host_and_its_token_stops_working(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "h.db", limits=Limits(host_lease_s=0.3)) as server, \
                client(server.port) as stub:
            token = await new_account(stub, "ada")
            version = await ready_version(stub, token, b"first")
            [lost] = (await _host(stub, "host-a")).start
            await asyncio.sleep(0.5)
            [taken] = (await _host(stub, "host-b")).start
            assert taken.version.version_id == version.version_id and taken.token != lost.token
            assert await _refusal(stub, lost.token) == "BAD_TOKEN"
            back = await _host(stub, "host-a", (version.version_id,))
            assert list(back.stop) == [version.version_id] and not back.keep
            await stub.RevokeAccount(pb.RevokeAccountRequest(name="ada"), metadata=auth(ADMIN))
            assert list((await _host(stub, "host-b", (version.version_id,))).stop) == [version.version_id]
    asyncio.run(main())


def test_the_arena_checks_rates_and_lists_the_version_and_seats_only_the_current_one(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "h.db", arena=arena_settings()) as server, client(server.port) as stub:
            _, tasks = await house_bots(stub)
            token = await new_account(stub, "ada")
            others = [SessionBot(stub, await new_account(stub, name), accepts=ARENA) for name in ("bob", "cy")]
            version = await ready_version(stub, token, b"first")
            [hosted] = (await _host(stub, "host-a")).start
            own = SessionBot(stub, token, accepts=ARENA)  # the author's own connection, beside the hosted version
            tasks.append(asyncio.create_task(own.run()))
            await asyncio.sleep(1.0)
            assert not own.messages, "an account with a current version is seated in the arena by that version only"
            own.outbox.put_nowait(None)
            playing = SessionBot(stub, hosted.token, accepts=ARENA)
            tasks += [asyncio.create_task(b.run()) for b in (playing, *others)]

            def rated() -> list[pb.LeaderboardEntry]:
                return [e for e in board.entries if e.account == "ada"]
            while True:
                board = await stub.GetLeaderboard(pb.GetLeaderboardRequest(preset="cardverse", players=4))
                if rated():
                    break
                await asyncio.sleep(0.1)
            [entry] = rated()
            assert entry.version_id == version.version_id
            passed = playing.notices("CHECK_PASSED")
            assert passed and passed[0].message.endswith(f"the arena rates version {version.version_id} now")
            check = await stub.GetMatch(pb.GetMatchRequest(match_id=passed[0].match_id))
            assert f"ada@{version.version_id}" in [p.name for p in check.match.players]
            [listed] = (await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(token))).versions
            assert listed.checked
            assert (await _welcome(stub, token)).check_pending, "the version passed, not the account's own bot"
            for task in tasks:
                task.cancel()
    asyncio.run(main())
