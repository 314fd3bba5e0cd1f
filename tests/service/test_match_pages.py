"""ListMatches and the match list's JSON in pages: every live match, a page of the finished ones, and how many
finished matches there are in all; over real loopback gRPC and HTTP."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import grpc
from google.protobuf import json_format
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, SeatLog, auth, client, play_seat, refused, running


async def _finished(stub: pb_grpc.PresidentServiceAsyncStub, names: list[str]) -> str:
    created = await stub.CreateMatch(pb.CreateMatchRequest(
        preset="cardverse", rules=pb.Rules(deals=1), seat_names=names, clock=pb.ClockSettings()),
        metadata=auth(ADMIN))
    await asyncio.wait_for(asyncio.gather(*(play_seat(stub, s.token, SeatLog(s.player)) for s in created.seats)), 60)
    return created.match_id


async def _get(port: int, path: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}{path}") as response:
        return response.status, json.loads(await response.read())


def test_finished_matches_come_in_pages_with_their_total_and_live_ones_whole(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running(tmp_path / "pages.db", http_port=0) as server, client(server.port) as stub:
            web = server.http_port
            assert web is not None
            done = [await _finished(stub, ["pat" if i % 2 else "ann", "bob", "cy", "di"]) for i in range(5)]
            newest_first = done[::-1]
            live = await stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", clock=pb.ClockSettings()),
                                          metadata=auth(ADMIN))

            async def page(**asked: Any) -> tuple[list[str], list[str], int]:
                listed = await stub.ListMatches(pb.ListMatchesRequest(**asked))
                over = [m.match_id for m in listed.matches if m.status == pb.MATCH_STATUS_OVER]
                running_now = [m.match_id for m in listed.matches if m.status != pb.MATCH_STATUS_OVER]
                return running_now, over, listed.finished_total

            assert await page() == ([live.match_id], newest_first, 5)
            assert await page(page_size=2) == ([live.match_id], newest_first[:2], 5)
            assert await page(page_size=2, offset=2) == ([live.match_id], newest_first[2:4], 5)
            assert await page(page_size=2, offset=4) == ([live.match_id], newest_first[4:], 5)
            assert await page(page_size=2, offset=9) == ([live.match_id], [], 5)
            assert await page(player="pat") == ([], [done[3], done[1]], 2)
            assert await page(status=pb.MATCH_STATUS_RUNNING, page_size=1) == ([live.match_id], [], 0)
            await refused(stub.ListMatches(pb.ListMatchesRequest(player="x" * 65)),
                          grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED")

            status, body = await _get(web, "/api/matches?offset=2&page_size=2")
            rpc = await stub.ListMatches(pb.ListMatchesRequest(offset=2, page_size=2))
            assert status == 200 and (body["finished_total"], body["offset"]) == (5, 2)
            assert [json_format.ParseDict(m["match"], pb.MatchSummary()) for m in body["matches"]] == list(rpc.matches)
            status, body = await _get(web, "/api/matches?player=pat&page_size=1")
            assert [m["match"]["match_id"] for m in body["matches"]] == [done[3]] and body["finished_total"] == 2
            for bad in ("offset=-1", "page_size=ten", "offset=1e3", "offset=%C2%B2"):
                status, body = await _get(web, f"/api/matches?{bad}")
                assert (status, body["error"]["reason"]) == (400, "MALFORMED"), bad

    asyncio.run(scenario())
