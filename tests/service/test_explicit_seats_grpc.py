"""Explicit seats over gRPC: CreateMatch's `DealHands.seats` seat a given deal, a bad seating is refused as bad
hands are, and a restarted server resumes such a match exactly (also from a database older than the column)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import grpc
import pytest
from president_engine import CardSet, Rules, shuffled_deal
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, SeatLog, action_of, auth, client, error_info, play_seat, running

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)
RULES = Rules.preset("cardverse", deals=3)
HANDS = [tuple(shuffled_deal(RULES, 41, deal, 0)) for deal in (1, 2)]
SEATS = (2, 0, 3, 1)


def _deal(hands: Sequence[CardSet], seats: Sequence[int] = ()) -> pb.DealHands:
    return pb.DealHands(hands=[pb.Hand(cards=convert.cards_to_proto(hand)) for hand in hands], seats=seats)


async def _create(stub: pb_grpc.PresidentServiceAsyncStub, *deals: pb.DealHands) -> pb.CreateMatchResponse:
    request = pb.CreateMatchRequest(preset="cardverse", seed=41, rules=pb.Rules(deals=3), deals=deals, clock=NO_CLOCK)
    response: pb.CreateMatchResponse = await stub.CreateMatch(request, metadata=auth(ADMIN))
    return response


async def _seats_now(stub: pb_grpc.PresidentServiceAsyncStub, match_id: str) -> tuple[int, ...]:
    """The seats of the deal in play, from an admin's Spectate snapshot."""
    call = stub.Spectate(pb.SpectateRequest(match_id=match_id), metadata=auth(ADMIN))
    try:
        first = await call.read()
        assert isinstance(first, pb.SpectateResponse) and first.HasField("snapshot")
        return tuple(first.snapshot.observation.seats)
    finally:
        call.cancel()


async def _play_some(stub: pb_grpc.PresidentServiceAsyncStub, created: pb.CreateMatchResponse,
                     seats: list[SeatLog]) -> None:
    """Every seat plays until one is prompted after its third action; the others' streams are then closed."""
    plays = [asyncio.ensure_future(play_seat(stub, s.token, seats[s.player], stop_after=3)) for s in created.seats]
    done, waiting = await asyncio.wait(plays, return_when=asyncio.FIRST_COMPLETED)
    assert not any(task.result() for task in done), "the match is not over"
    for task in waiting:
        task.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)


async def _play_out(stub: pb_grpc.PresidentServiceAsyncStub, created: pb.CreateMatchResponse,
                    seats: list[SeatLog]) -> pb.Replay:
    assert all(await asyncio.gather(*(play_seat(stub, s.token, seats[s.player], last_seq=seats[s.player].last_seq)
                                      for s in created.seats)))
    replay: pb.Replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id))).replay
    return replay


def _check_replay(replay: pb.Replay, seats: list[SeatLog]) -> None:
    """Deal 1 sat as given, deal 2 as the rules say (fixed seating: the same), every accepted action is in it,
    and the record replays."""
    assert [tuple(deal.seats) for deal in replay.deals] == [SEATS] * 3
    record = convert.replay_from_proto(replay)
    assert [deal.hands for deal in record.deals[:2]] == HANDS
    assert [deal.shuffled for deal in record.deals] == [False, False, True]
    record.replay()
    applied = [(a.player, action_of(a.action)) for deal in replay.deals for a in deal.actions]
    for seat in seats:
        assert all(applied[turn - 1] == (seat.player, action_of(action)) for turn, action in seat.accepted)


@pytest.mark.parametrize(("seats", "message"), [
    ([0, 1, 2], "deal 1: 3 seats for 4 players"),
    ([0, 1, 1, 3], "deal 1: player 1 sits in two seats"),
    ([0, 1, 2, 4], "deal 1: seat 3 holds no player"),
    ([0, 1, 2, 2**32 - 1], "deal 1: seat 3 holds no player"),
])
def test_a_bad_seating_is_refused_as_bad_hands_are(tmp_path: Path, seats: list[int], message: str) -> None:
    async def main() -> None:
        async with running(tmp_path / "s.db") as server, client(server.port) as stub:
            for deals, expected in (([_deal(HANDS[0], seats)], message),
                                    ([_deal(HANDS[0]), _deal(HANDS[1], seats)], message.replace("deal 1", "deal 2")),
                                    ([_deal(HANDS[0][:3], SEATS)], "deal 1: 3 hands for 4 players")):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await _create(stub, *deals)
                assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
                assert error_info(caught.value).reason == "BAD_HANDS"
                assert expected in (caught.value.details() or "")
            listed = await stub.ListMatches(pb.ListMatchesRequest(), metadata=auth(ADMIN))
            assert not listed.matches, "nothing refused is stored"
    asyncio.run(main())


def test_a_restarted_server_resumes_a_match_with_given_seats(tmp_path: Path) -> None:
    db = tmp_path / "restart.db"
    seats = [SeatLog(p) for p in range(4)]

    async def first_run() -> pb.CreateMatchResponse:
        async with running(db) as server, client(server.port) as stub:
            created = await _create(stub, _deal(HANDS[0], SEATS), _deal(HANDS[1]))
            assert await _seats_now(stub, created.match_id) == SEATS
            await _play_some(stub, created, seats)
            return created

    async def second_run(created: pb.CreateMatchResponse) -> None:
        async with running(db) as server, client(server.port) as stub:
            assert await _seats_now(stub, created.match_id) == SEATS
            _check_replay(await _play_out(stub, created, seats), seats)

    created = asyncio.run(first_run())
    assert sum(len(seat.accepted) for seat in seats) >= 3
    asyncio.run(second_run(created))


def test_a_database_from_before_explicit_seats_resumes_its_matches_and_stores_seats(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    seats = [SeatLog(p) for p in range(4)]

    async def first_run() -> pb.CreateMatchResponse:
        async with running(db) as server, client(server.port) as stub:
            created = await _create(stub, _deal(HANDS[0]), _deal(HANDS[1]))
            await _play_some(stub, created, seats)
            return created

    created = asyncio.run(first_run())
    with sqlite3.connect(db) as conn:  # as the table was before explicit seats
        conn.execute("ALTER TABLE matches DROP COLUMN deal_seats")

    async def second_run() -> None:
        async with running(db) as server, client(server.port) as stub:
            assert await _seats_now(stub, created.match_id) == (0, 1, 2, 3)
            replay = await _play_out(stub, created, seats)
            assert [tuple(deal.seats) for deal in replay.deals] == [(0, 1, 2, 3)] * 3
            convert.replay_from_proto(replay).replay()
            seated = await _create(stub, _deal(HANDS[0], SEATS))
            assert await _seats_now(stub, seated.match_id) == SEATS

    asyncio.run(second_run())
    with sqlite3.connect(db) as conn:
        assert "deal_seats" in {row[1] for row in conn.execute("PRAGMA table_info(matches)")}
