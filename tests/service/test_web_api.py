"""The web pages' server side over real HTTP: pages and assets, the JSON of the RPCs, the live stream, refusals."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import aiohttp
from google.protobuf import json_format
from president_protocol.v1 import president_pb2 as pb
from president_service.base.limits import Limits
from president_service.server.grpc_server import ServerConfig, start
from president_service.web import assets
from service_support import (
    ADMIN,
    SeatLog,
    ServerProcess,
    auth,
    client,
    create,
    live_messages,
    play_seat,
    read_sent,
    running,
)
from session_support import new_account
from support import free_port
from version_support import lease, report, submit

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)


async def _get(port: int, path: str, **headers: str) -> tuple[int, str, Any]:
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}{path}",
                                                               headers=headers) as response:
        body = await response.read()
        kind = response.headers.get("Content-Type", "")
        return response.status, kind, (await response.json()) if kind.startswith("application/json") else body


async def _play_out(stub: Any, created: pb.CreateMatchResponse) -> None:
    await asyncio.wait_for(asyncio.gather(*(play_seat(stub, s.token, SeatLog(s.player)) for s in created.seats)), 60)


def test_pages_and_their_api_answer_as_the_rpcs_do(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "web.db", http_port=0) as server, client(server.port) as stub:
            web = server.http_port
            assert web is not None
            created = await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", rules=pb.Rules(deals=2), seed=7, clock=NO_CLOCK,
                seat_names=["ann", "bob", "cy", "di"]), metadata=auth(ADMIN))
            match_id = created.match_id
            for path, script in (("/", "list.js"), (f"/matches/{match_id}", "live.js"),
                                 (f"/matches/{match_id}/replay", "replay.js")):
                status, kind, body = await _get(web, path)
                assert status == 200 and kind.startswith("text/html") and f"/assets/{script}".encode() in body
            status, kind, _ = await _get(web, "/assets/style.css")
            assert status == 200 and kind.startswith("text/css")

            status, _, listed = await _get(web, "/api/matches")
            rpc = await stub.ListMatches(pb.ListMatchesRequest())
            assert status == 200
            summaries = [json_format.ParseDict(m["match"], pb.MatchSummary()) for m in listed["matches"]]
            assert summaries == list(rpc.matches)
            assert all(m["shown"] for m in listed["matches"])
            status, _, found = await _get(web, f"/api/matches/{match_id}")
            assert status == 200 and found["shown"]
            assert json_format.ParseDict(found["match"], pb.MatchSummary()) == (
                await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))).match
            status, _, mine = await _get(web, "/api/matches?player=cy")
            assert [m["match"]["match_id"] for m in mine["matches"]] == [match_id]
            status, _, none = await _get(web, "/api/matches?player=nobody")
            assert none["matches"] == []

            status, _, refused = await _get(web, f"/api/matches/{match_id}/replay")
            assert (status, refused["error"]["reason"]) == (409, "MATCH_NOT_OVER")
            await _play_out(stub, created)
            status, _, frames = await _get(web, f"/api/matches/{match_id}/replay", **{"Accept-Encoding": "gzip"})
            assert status == 200 and frames["format"] == "president-replay-frames/1"
            assert frames["names"] == ["ann", "bob", "cy", "di"] and frames["match_id"] == match_id
            replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=match_id))).replay
            actions = sum(len(deal.actions) for deal in replay.deals)
            assert len(frames["frames"]) == 1 + actions + len(replay.deals) - 1
            assert frames["result"] == json_format.MessageToDict(
                replay.result, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)

            for path in ("/api/matches/nope", "/api/matches/nope/live", "/api/matches/nope/replay"):
                status, _, missing = await _get(web, path)
                assert (status, missing["error"]["reason"]) == (404, "UNKNOWN_MATCH"), path

    asyncio.run(scenario())


def test_an_authors_versions_and_build_logs_answer_as_the_rpcs_do_for_the_headers_token_only(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "web.db", http_port=0) as server, client(server.port) as stub:
            web = server.http_port
            assert web is not None
            ada, bob = await new_account(stub, "ada"), await new_account(stub, "bob")
            await submit(stub, ada)
            built = (await report(stub, await lease(stub), log="<b>built</b>\n")).version
            queued = (await submit(stub, ada, b"another archive")).version
            board = ("cardverse", 4)
            arena = server.servicer.arena
            server.registry.store.write(arena.ratings.update(board, [[built.player, "bob"]]))
            arena.ratings.reload(board, [built.player, "bob"])

            status, kind, body = await _get(web, "/versions")
            assert status == 200 and kind.startswith("text/html") and b"/assets/versions.js" in body
            status, _, listed = await _get(web, "/api/versions", Authorization=f"Bearer {ada}")
            rpc = await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(ada))
            assert status == 200
            assert [json_format.ParseDict(v["version"], pb.BotVersion()) for v in listed["versions"]] == list(
                rpc.versions)
            assert (listed["without_arena"], listed["every_account"]) == (True, False)
            ratings = {v["version"]["version_id"]: v["ratings"] for v in listed["versions"]}
            assert ratings[queued.version_id] == []
            (rating,) = ratings[built.version_id]
            entry = next(e for e in arena.leaderboard(board).entries if e.version_id == built.version_id)
            assert rating == {"preset": "cardverse", "players": 4, "rank": 1, "of": 2, "ordinal": entry.ordinal,
                              "matches": 1, "deals": 1, "mean_place": 1.0, "mean_place_low": entry.mean_place_low,
                              "mean_place_high": entry.mean_place_high, "provisional": entry.provisional}
            log_path = f"/api/versions/{built.version_id}/log"
            for token in (ada, ADMIN):  # the owner's token, or the admin's
                status, _, found = await _get(web, log_path, Authorization=f"Bearer {token}")
                assert status == 200 and found["log"] == "<b>built</b>\n"
                assert found["version"]["version_id"] == built.version_id

            for path, headers, want in (
                    ("/api/versions", {}, (401, "MISSING_TOKEN")),
                    (f"/api/versions?token={ada}", {}, (401, "MISSING_TOKEN")),  # never read from the query
                    ("/api/versions", {"Authorization": f"Basic {ada}"}, (401, "BAD_TOKEN")),
                    ("/api/versions", {"Authorization": "Bearer nope"}, (401, "BAD_TOKEN")),
                    (log_path, {}, (401, "MISSING_TOKEN")),
                    (log_path, {"Authorization": f"Bearer {bob}"}, (404, "UNKNOWN_VERSION")),
                    ("/api/versions/0123456789abcdef/log", {"Authorization": f"Bearer {ada}"},
                     (404, "UNKNOWN_VERSION"))):
                status, _, refused = await _get(web, path, **headers)
                assert (status, refused["error"]["reason"]) == want, path
            status, _, every = await _get(web, "/api/versions", Authorization=f"Bearer {ADMIN}")  # the organiser's
            everyone = await stub.ListVersions(pb.ListVersionsRequest(), metadata=auth(ADMIN))
            assert status == 200 and every["every_account"] and everyone.every_account
            assert [json_format.ParseDict(v["version"], pb.BotVersion()) for v in every["versions"]] == list(
                everyone.versions) == list(rpc.versions)  # bob has none
            assert {v["version"]["version_id"]: v["ratings"] for v in every["versions"]} == ratings
            async with aiohttp.ClientSession() as session, session.get(
                    f"http://127.0.0.1:{web}/api/versions", headers={"Authorization": f"Bearer {bob}"}) as answer:
                assert await answer.json() == {"versions": [], "without_arena": True, "every_account": False}
                assert answer.headers["Cache-Control"] == "no-store"  # an account's own answers: no cache keeps them

    asyncio.run(scenario())


def test_the_live_stream_resumes_after_the_last_event_id_the_browser_saw(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "web.db", http_port=0) as server, client(server.port) as stub:
            assert server.http_port is not None
            created = await create(stub, clock=NO_CLOCK)
            await _play_out(stub, created)
            whole = await live_messages(server.http_port, created.match_id)
            assert whole[0].message().HasField("snapshot") and whole[-1].message().HasField("match_over")
            resumed = await live_messages(server.http_port, created.match_id, last_event_id=5)
            spectated = [m async for m in stub.Spectate(pb.SpectateRequest(match_id=created.match_id, from_seq=6))]
            assert [s.message() for s in resumed] == spectated
            assert resumed[0].id == "6"
            status, _, beyond = await _get(server.http_port, f"/api/matches/{created.match_id}/live",
                                           **{"Last-Event-ID": "100000"})
            assert (status, beyond["error"]["reason"]) == (400, "BAD_SEQ")

    asyncio.run(scenario())


def test_a_duplicate_board_in_play_is_hidden_from_the_pages(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "web.db", http_port=0) as server, client(server.port) as stub:
            web = server.http_port
            assert web is not None
            first = await create(stub, seed=11, clock=NO_CLOCK)
            twin = await create(stub, seed=11, clock=NO_CLOCK)
            status, _, listed = await _get(web, "/api/matches")
            assert [m["shown"] for m in listed["matches"]] == [False, False]
            status, _, hidden = await _get(web, f"/api/matches/{first.match_id}/live")
            assert (status, hidden["error"]["reason"]) == (403, "DEAL_IN_PLAY")
            await _play_out(stub, first)
            status, _, hidden = await _get(web, f"/api/matches/{first.match_id}/replay")
            assert (status, hidden["error"]["reason"]) == (403, "DEAL_IN_PLAY")
            await _play_out(stub, twin)
            status, _, frames = await _get(web, f"/api/matches/{first.match_id}/replay")
            assert status == 200 and frames["frames"]

    asyncio.run(scenario())


def test_page_streams_count_against_the_limits_free_their_place_and_end_when_the_server_drains(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        server = await start(ServerConfig(db=str(tmp_path / "web.db"), admin_token=ADMIN, port=0, http_port=0,
                                          limits=Limits(max_spectators=1)))
        stopping: asyncio.Task[None] | None = None
        try:
            async with client(server.port) as stub, aiohttp.ClientSession() as session:
                web = server.http_port
                created = await create(stub, clock=NO_CLOCK)
                url = f"http://127.0.0.1:{web}/api/matches/{created.match_id}/live"
                opened = asyncio.Event()
                page = asyncio.get_running_loop().create_task(live_messages(web or 0, created.match_id, opened=opened))
                await asyncio.wait_for(opened.wait(), 5)
                async with session.get(url) as full:
                    assert (full.status, (await full.json())["error"]["reason"]) == (429, "TOO_MANY_STREAMS")
                page.cancel()  # the page is closed: its place is free again
                for _ in range(100):
                    response = await session.get(url)
                    if response.status == 200:
                        break
                    response.release()
                    await asyncio.sleep(0.05)
                else:
                    raise AssertionError("a closed page kept its place")
                async with response:
                    stream = read_sent(response)
                    assert (await anext(stream)).message().HasField("snapshot")
                    stopping = asyncio.get_running_loop().create_task(server.stop(1.0))
                    last = [sent async for sent in stream]
                assert [(s.event, s.data["error"]["reason"]) for s in last] == [("refused", "SHUTTING_DOWN")]
                await stopping
        finally:
            if stopping is None:
                await server.stop(0.5)

    asyncio.run(scenario())


def test_president_serve_serves_the_pages_on_http_port(tmp_path: Path) -> None:
    async def fetch(port: int) -> tuple[int, str, Any]:
        return await _get(port, "/")

    process = ServerProcess(tmp_path / "serve.db", free_port(), "--http-port", "0")
    try:
        found = re.search(r"web pages on http://127\.0\.0\.1:(\d+)/", process.output.read_text())
        assert found, process.output.read_text()
        status, _, body = asyncio.run(fetch(int(found.group(1))))
        assert status == 200 and b"/assets/list.js" in body
    finally:
        process.stop()


def test_the_pages_fetch_nothing_from_outside_the_package() -> None:
    for path in assets().values():
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".html":
            for link in re.findall(r'(?:src|href)="([^"]*)"', text):
                assert link.startswith(("/assets/", "data:")), f"{path.name}: {link}"
        else:
            assert not re.search(r"https?://|@import|url\(", text), path.name


def test_the_replay_shows_what_went_wrong_for_each_seat(tmp_path: Path) -> None:
    """A seat whose bot never comes is played by the server's clock: its strikes and take-over are in the replay."""
    async def scenario() -> None:
        async with running(tmp_path / "web.db", http_port=0, start_grace_s=0.05) as server, \
                client(server.port) as stub:
            assert server.http_port is not None
            # long enough for the connected bots on a loaded machine; the absent seat is taken over at its first
            created = await create(stub, clock=pb.ClockSettings(move_time_limit_ms=400, time_bank_ms=0,
                                                                strikes_before_takeover=1))
            await asyncio.wait_for(asyncio.gather(
                *(play_seat(stub, s.token, SeatLog(s.player)) for s in created.seats[1:])), 60)
            status, _, frames = await _get(server.http_port, f"/api/matches/{created.match_id}/replay")
            assert status == 200
            assert frames["taken_over"] == [True, False, False, False]
            assert frames["faults"][0]["strikes"] == 1 and frames["faults"][1] == {
                "errors": 0, "timeouts": 0, "invalid": 0, "strikes": 0}

    asyncio.run(scenario())
