"""GetReplay's finished_deals (issue 45): the organiser reads a live match's finished deals as they end (bridge
A's log on a server); anyone else, seat or spectator, is refused while the match is live and sees no card."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, auth, client, create, lowest, refused, running

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)
FAILED = grpc.StatusCode.FAILED_PRECONDITION


async def play_until(stub: pb_grpc.PresidentServiceAsyncStub, match_id: str, tokens: list[str],
                     deal: int | None) -> None:
    """Each player to act plays its lowest legal action until deal `deal` is in play (None: the match's end)."""
    while True:
        summary = (await stub.GetMatch(pb.GetMatchRequest(match_id=match_id))).match
        if summary.status == pb.MATCH_STATUS_OVER or (deal is not None and summary.deal >= deal):
            return
        turn = await stub.GetTurn(pb.GetTurnRequest(), metadata=auth(tokens[summary.to_act]))
        await stub.SubmitAction(pb.SubmitActionRequest(turn_id=turn.prompt.turn_id, action=lowest(turn.prompt)),
                                metadata=auth(tokens[summary.to_act]))


def test_the_admin_reads_a_live_matchs_finished_deals_and_no_one_else(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "f.db") as server, client(server.port) as stub:
            created = await create(stub, players=4, deals=5, clock=NO_CLOCK)
            mid, tokens = created.match_id, [seat.token for seat in created.seats]

            def finished(from_deal: int = 0, token: str | None = ADMIN) -> object:
                return stub.GetReplay(pb.GetReplayRequest(match_id=mid, finished_deals=True, from_deal=from_deal),
                                      metadata=auth(token) if token else None)

            none_yet = (await finished()).replay  # type: ignore[misc]
            assert list(none_yet.deals) == [] and not none_yet.HasField("result") and none_yet.seed == 7
            await play_until(stub, mid, tokens, 3)
            live = (await finished()).replay  # type: ignore[misc]
            assert len(live.deals) == 2 and not live.HasField("result")
            assert list((await finished(2)).replay.deals) == list(live.deals[1:])  # type: ignore[misc]
            assert list((await finished(3)).replay.deals) == []  # type: ignore[misc]
            dealt = {str(card) for deal in convert.replay_from_proto(live).deals for hand in deal.hands
                     for card in hand}
            for token in (None, *tokens):  # a spectator and every seat
                metadata = auth(token) if token else None
                for request in (pb.GetReplayRequest(match_id=mid, finished_deals=True),
                                pb.GetReplayRequest(match_id=mid, finished_deals=True, from_deal=2),
                                pb.GetReplayRequest(match_id=mid)):
                    info = await refused(stub.GetReplay(request, metadata=metadata), FAILED, "MATCH_NOT_OVER")
                    said = " ".join([*info.metadata.values(), info.reason]).split()
                    assert not dealt & set(said), said
            await refused(stub.GetReplay(pb.GetReplayRequest(match_id="nope", finished_deals=True),
                                         metadata=auth(ADMIN)), grpc.StatusCode.NOT_FOUND, "UNKNOWN_MATCH")

            await play_until(stub, mid, tokens, None)
            whole = (await stub.GetReplay(pb.GetReplayRequest(match_id=mid))).replay
            assert len(whole.deals) == 5 and whole.HasField("result")
            assert list(live.deals) == list(whole.deals[:2]), "the live record's deals are the match's"
            assert (await finished(token=None)).replay == whole  # type: ignore[misc]  # over: public, every deal
            assert list((await finished(4, token=None)).replay.deals) == list(whole.deals[3:])  # type: ignore[misc]
    asyncio.run(main())
