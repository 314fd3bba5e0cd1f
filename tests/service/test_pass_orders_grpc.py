"""A given pass-limit order over gRPC: CreateMatch's `DealHands.pass_order` ranks the players a pass-limit end
finds holding cards, the replay carries it, a restarted server keeps it, and anything but every player once is
refused as MALFORMED with nothing stored."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import grpc
import pytest
from president_engine import Rules, shuffled_deal
from president_engine.events import DealEnded
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, SeatLog, auth, client, error_info, play_seat, running

RULES = Rules.preset("daifugo", deals=2)
HANDS = shuffled_deal(RULES, 23, 1, 0)
ORDER = (3, 0, 4, 1, 2)


def _passes(prompt: pb.Prompt) -> pb.Action:
    """Every turn a pass (the daifugo leader may pass), so the pass limit ends each deal; a give-back as the
    first legal one."""
    return next((a for a in prompt.legal_actions if a.HasField("pass_turn")), prompt.legal_actions[0])


async def _create(stub: pb_grpc.PresidentServiceAsyncStub, order: list[int]) -> pb.CreateMatchResponse:
    request = pb.CreateMatchRequest(
        preset="daifugo", seed=23, rules=pb.Rules(deals=2), clock=pb.ClockSettings(move_time_limit_ms=0),
        deals=[pb.DealHands(hands=[pb.Hand(cards=convert.cards_to_proto(h)) for h in HANDS], pass_order=order)])
    response: pb.CreateMatchResponse = await stub.CreateMatch(request, metadata=auth(ADMIN))
    return response


async def _play(stub: pb_grpc.PresidentServiceAsyncStub, created: pb.CreateMatchResponse, seats: list[SeatLog],
                stop_after: int | None = None) -> None:
    plays = [asyncio.ensure_future(play_seat(stub, s.token, seats[s.player], policy=_passes, stop_after=stop_after,
                                             last_seq=seats[s.player].last_seq)) for s in created.seats]
    if stop_after is None:
        assert all(await asyncio.gather(*plays))
        return
    await asyncio.wait(plays, return_when=asyncio.FIRST_COMPLETED)
    for task in plays:
        task.cancel()
    await asyncio.gather(*plays, return_exceptions=True)


def test_the_given_order_ranks_the_pass_limits_players_through_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "orders.db"
    seats = [SeatLog(p) for p in range(5)]

    async def first_run() -> pb.CreateMatchResponse:
        async with running(db) as server, client(server.port) as stub:
            created = await _create(stub, list(ORDER))
            await _play(stub, created, seats, stop_after=2)
            return created

    async def second_run(created: pb.CreateMatchResponse) -> pb.Replay:
        async with running(db) as server, client(server.port) as stub:
            await _play(stub, created, seats)
            replay: pb.Replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id),
                                                      metadata=auth(ADMIN))).replay
            return replay

    created = asyncio.run(first_run())
    assert 0 < sum(len(seat.accepted) for seat in seats) < 20, "the restart comes before the pass limit"
    replay = asyncio.run(second_run(created))
    assert [tuple(deal.pass_order) for deal in replay.deals] == [ORDER, ()]
    match = convert.replay_from_proto(replay).replay()
    places = [e.places for e in match.events if isinstance(e, DealEnded)]
    assert places[0] == ORDER, "nobody went out: the given order is the whole finishing order"
    assert len(places) == 2 and places[1] != ORDER, "deal 2 has none: drawn from the seed"


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [0, 1, 2, 3, 3], [0, 1, 2, 3, 5], [0, 1, 2, 3, 4, 0]])
def test_a_pass_order_not_naming_every_player_once_is_malformed(tmp_path: Path, order: list[int]) -> None:
    async def main() -> None:
        async with running(tmp_path / "bad.db") as server, client(server.port) as stub:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await _create(stub, order)
            assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
            assert error_info(caught.value).reason == "MALFORMED"
            assert "deals[0].pass_order: every player of the match once (0 to 4), or empty" in (
                caught.value.details() or "")
            assert not (await stub.ListMatches(pb.ListMatchesRequest(), metadata=auth(ADMIN))).matches
    asyncio.run(main())


def test_a_database_from_before_pass_orders_takes_the_column(tmp_path: Path) -> None:
    db = tmp_path / "old.db"

    async def create() -> None:
        async with running(db) as server, client(server.port) as stub:
            await _create(stub, [])
    asyncio.run(create())
    with sqlite3.connect(db) as conn:  # as the table was before pass orders
        conn.execute("ALTER TABLE matches DROP COLUMN pass_orders")
    seats = [SeatLog(p) for p in range(5)]

    async def second() -> tuple[int, ...]:
        async with running(db) as server, client(server.port) as stub:
            created = await _create(stub, list(ORDER))
            await _play(stub, created, seats)
            replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id),
                                           metadata=auth(ADMIN))).replay
            return tuple(replay.deals[0].pass_order)
    assert asyncio.run(second()) == ORDER
