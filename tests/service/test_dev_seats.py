"""A development seat (CreateMatchRequest.dev_seat) over real loopback gRPC: one token plays player 0 of each new
match created for its name, across a restart, and only that seat; JoinMatch cannot take it; revoked, it is refused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, SeatLog, auth, client, play_seat, refused, running


async def create_dev(stub: pb_grpc.PresidentServiceAsyncStub, name: str, seed: int,
                     **fields: object) -> pb.CreateMatchResponse:
    response: pb.CreateMatchResponse = await stub.CreateMatch(pb.CreateMatchRequest(
        preset="cardverse", rules=pb.Rules(deals=1), seed=seed, clock=pb.ClockSettings(), dev_seat=name,
        **fields), metadata=auth(ADMIN))  # type: ignore[arg-type]
    return response


async def play_match(stub: pb_grpc.PresidentServiceAsyncStub, created: pb.CreateMatchResponse,
                     dev_token: str) -> SeatLog:
    """Every seat played to the end, player 0 by the dev token; returns what player 0 received."""
    dev = SeatLog(0)
    tokens = [dev_token] + [s.token for s in created.seats[1:]]
    logs = [dev] + [SeatLog(p) for p in range(1, len(tokens))]
    done = await asyncio.wait_for(asyncio.gather(*(play_seat(stub, t, log) for t, log in zip(tokens, logs,
                                                                                              strict=True))), 60)
    assert all(done)
    return dev


def test_one_dev_token_plays_each_next_match_of_its_name_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "dev.db"

    async def first_run() -> tuple[str, pb.CreateMatchResponse]:
        async with running(db) as server, client(server.port) as stub:
            first = await create_dev(stub, "mine", 1)
            token = first.seats[0].token
            assert len(token) == 64 and token not in (s.token for s in first.seats[1:])
            # the name's match is live: no second one for it, in one line that says why
            info = await refused(create_dev(stub, "mine", 2), grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN")
            assert info.reason == "SEAT_TAKEN"
            played = await play_match(stub, first, token)
            welcome = next(m.welcome for m in played.messages if m.HasField("welcome"))
            assert (welcome.match_id, welcome.player) == (first.match_id, 0)
            # between two matches a stream waits for the next (its name said); GetTurn sees the last one over
            waiting = await refused(play_seat(stub, token, SeatLog(0)), grpc.StatusCode.FAILED_PRECONDITION,
                                    "DEV_SEAT_WAITING")
            assert waiting.metadata["dev_seat"] == "mine"
            last = await stub.GetTurn(pb.GetTurnRequest(), metadata=auth(token))
            assert last.status == pb.MATCH_STATUS_OVER and not last.HasField("prompt")
            second = await create_dev(stub, "mine", 2, open_seats=True, reserved_seats=[1, 2, 3])
            assert second.seats[0].token == ""  # the server keeps only its hash: the maker has it from the first
            # an open match's dev seat is not JoinMatch's to give, asked by number or not
            await refused(stub.JoinMatch(pb.JoinMatchRequest(match_id=second.match_id, player=0)),
                          grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN")
            await refused(stub.JoinMatch(pb.JoinMatchRequest(match_id=second.match_id)),
                          grpc.StatusCode.FAILED_PRECONDITION, "NO_FREE_SEAT")
            other = await create_dev(stub, "theirs", 3)
            assert other.seats[0].token not in ("", token)
            return token, second

    async def second_run(token: str, second: pb.CreateMatchResponse) -> None:
        async with running(db) as server, client(server.port) as stub:
            waiting = await stub.GetMatch(pb.GetMatchRequest(match_id=second.match_id))
            assert waiting.match.status == pb.MATCH_STATUS_WAITING  # for its dev seat
            turn = await stub.GetTurn(pb.GetTurnRequest(), metadata=auth(token))  # kept by the restart, and claims it
            assert turn.status != pb.MATCH_STATUS_OVER
            played = await play_match(stub, second, token)
            welcome = next(m.welcome for m in played.messages if m.HasField("welcome"))
            assert (welcome.match_id, welcome.player) == (second.match_id, 0)
            assert server.registry.dev_seats.revoke("mine")
            await refused(stub.GetTurn(pb.GetTurnRequest(), metadata=auth(token)),
                          grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")

    token, second_id = asyncio.run(first_run())
    asyncio.run(second_run(token, second_id))

