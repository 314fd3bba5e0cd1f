"""No result of a duplicate board's seating is seen while another seating of the board is live (issue 44 item 5):
GetMatch, ListMatches and the web's JSON API leave out how a hidden match's deals went (its result, scores, roles,
seats, hand sizes), GetReplay and Spectate refuse it; the admin token sees all; once the twin ends, all is shown."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import grpc
from president_engine import CardSet
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, SeatLog, auth, client, play_seat, refused, running

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)
HANDS = ["3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C", "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D",
         "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 2H", "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S"]


def _request() -> pb.CreateMatchRequest:
    deal = pb.DealHands(hands=[pb.Hand(cards=convert.cards_to_proto(CardSet(h))) for h in HANDS])
    return pb.CreateMatchRequest(preset="cardverse", seed=5, deals=[deal], clock=NO_CLOCK, rules=pb.Rules(deals=1))


def _tells_nothing(summary: pb.MatchSummary) -> None:
    assert not summary.HasField("result"), summary
    assert all(p.score == 0 and p.role == 0 and p.hand_size == 0 and p.seat == 0 for p in summary.players), summary


async def _api(http: aiohttp.ClientSession, port: int, path: str) -> Any:
    async with http.get(f"http://127.0.0.1:{port}{path}") as response:
        assert response.status == 200, await response.text()
        return await response.json()


async def _listed(stub: pb_grpc.PresidentServiceAsyncStub, match_id: str, admin: bool = False) -> pb.MatchSummary:
    listed = await stub.ListMatches(pb.ListMatchesRequest(), metadata=auth(ADMIN) if admin else None)
    return next(m for m in listed.matches if m.match_id == match_id)


def test_a_finished_seating_shows_no_result_while_its_twin_is_live(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "d.db", http_port=0) as server, client(server.port) as stub, \
                aiohttp.ClientSession() as http:
            first = await stub.CreateMatch(_request(), metadata=auth(ADMIN))
            second = await stub.CreateMatch(_request(), metadata=auth(ADMIN))
            await asyncio.gather(*(play_seat(stub, s.token, SeatLog(s.player)) for s in first.seats))
            seen = await stub.GetMatch(pb.GetMatchRequest(match_id=first.match_id), metadata=auth(ADMIN))
            assert seen.match.status == pb.MATCH_STATUS_OVER and seen.match.HasField("result")

            got = await stub.GetMatch(pb.GetMatchRequest(match_id=first.match_id))
            assert got.match.status == pb.MATCH_STATUS_OVER
            _tells_nothing(got.match)
            _tells_nothing(await _listed(stub, first.match_id))
            assert (await _listed(stub, first.match_id, admin=True)).HasField("result")
            live = await stub.GetMatch(pb.GetMatchRequest(match_id=second.match_id))  # no other live match deals it
            assert [p.hand_size for p in live.match.players] == [13] * 4, live
            await refused(stub.GetReplay(pb.GetReplayRequest(match_id=first.match_id)),
                          grpc.StatusCode.PERMISSION_DENIED, "DEAL_IN_PLAY")
            await refused(stub.Spectate(pb.SpectateRequest(match_id=first.match_id)).read(),
                          grpc.StatusCode.PERMISSION_DENIED, "DEAL_IN_PLAY")
            page = await _api(http, server.http_port, f"/api/matches/{first.match_id}")
            assert page["shown"] is False and "result" not in page["match"], page
            listing = await _api(http, server.http_port, "/api/matches")
            entry = next(e for e in listing["matches"] if e["match"]["match_id"] == first.match_id)
            assert entry["shown"] is False and "result" not in entry["match"], entry
            async with http.get(f"http://127.0.0.1:{server.http_port}/api/matches/{first.match_id}/replay") as r:
                assert r.status == 403

            await asyncio.gather(*(play_seat(stub, s.token, SeatLog(s.player)) for s in second.seats))
            got = await stub.GetMatch(pb.GetMatchRequest(match_id=first.match_id))
            assert got.match == seen.match
            assert (await _listed(stub, first.match_id)).HasField("result")
            page = await _api(http, server.http_port, f"/api/matches/{first.match_id}")
            assert page["shown"] is True and page["match"]["result"], page
            await stub.GetReplay(pb.GetReplayRequest(match_id=first.match_id))
    asyncio.run(main())
