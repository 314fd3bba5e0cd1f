"""Duplicate boards: a match shows nothing of its play while another live match deals the same hands, whatever
the seats they sit at, the seed, the number of deals, whether the hands were given or shuffled, or at which deal
number the other match will shuffle them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import grpc
from president_engine import CardSet, Rules, shuffled_deal
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from service_support import ADMIN, SeatLog, auth, client, error_info, lowest, play_seat, refused, running

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)
RULES = Rules.preset("cardverse", players=4)
HANDS = tuple(shuffled_deal(RULES, 1001, 1, 0))
OTHER_HANDS = tuple(shuffled_deal(RULES, 1002, 1, 0))


def _rotated(hands: Sequence[CardSet]) -> tuple[CardSet, ...]:
    """The same hands, each one seat further on."""
    return (hands[-1], *hands[:-1])


def _deal(hands: Sequence[CardSet]) -> pb.DealHands:
    return pb.DealHands(hands=[pb.Hand(cards=convert.cards_to_proto(hand)) for hand in hands])


async def _seats(stub: pb_grpc.PresidentServiceAsyncStub, *deals: Sequence[CardSet], seed: int | None = None,
                 deal_count: int | None = None) -> tuple[str, list[str]]:
    """A new match's id and its seats' tokens."""
    request = pb.CreateMatchRequest(preset="cardverse", seed=seed, deals=[_deal(d) for d in deals], clock=NO_CLOCK,
                                    rules=pb.Rules(deals=deal_count))
    response: pb.CreateMatchResponse = await stub.CreateMatch(request, metadata=auth(ADMIN))
    return response.match_id, [seat.token for seat in response.seats]


async def _create(stub: pb_grpc.PresidentServiceAsyncStub, *deals: Sequence[CardSet], seed: int | None = None,
                  deal_count: int | None = None) -> str:
    match_id, _ = await _seats(stub, *deals, seed=seed, deal_count=deal_count)
    return match_id


async def _hidden(stub: pb_grpc.PresidentServiceAsyncStub, match_id: str) -> bool:
    """Whether a spectator without the admin token is refused the match as a deal in play."""
    call = stub.Spectate(pb.SpectateRequest(match_id=match_id))
    try:
        first = await call.read()
        assert isinstance(first, pb.SpectateResponse) and first.HasField("snapshot")
        return False
    except grpc.aio.AioRpcError as exc:
        assert exc.code() == grpc.StatusCode.PERMISSION_DENIED, exc
        assert error_info(exc).reason == "DEAL_IN_PLAY"
        return True
    finally:
        call.cancel()


async def _play_out(stub: pb_grpc.PresidentServiceAsyncStub, tokens: list[str]) -> None:
    assert all(await asyncio.gather(*(play_seat(stub, token, SeatLog(player)) for player, token in enumerate(tokens))))


async def _play_until_deal(stub: pb_grpc.PresidentServiceAsyncStub, token: str, deal: int) -> None:
    """Play one seat (its lowest legal action) until deal `deal` starts."""
    outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
    outbox.put_nowait(pb.PlayRequest(hello=pb.Hello()))

    async def requests() -> AsyncIterator[pb.PlayRequest]:
        while (item := await outbox.get()) is not None:
            yield item

    call = stub.Play(requests(), metadata=auth(token))
    try:
        async for message in call:
            if message.event.deal_started.deal == deal:
                return
            if message.HasField("prompt"):
                action = lowest(message.prompt)
                outbox.put_nowait(pb.PlayRequest(act=pb.Act(turn_id=message.prompt.turn_id, action=action)))
        raise AssertionError(f"the stream ended before deal {deal}")
    finally:
        outbox.put_nowait(None)
        call.cancel()


def test_the_same_hands_rotated_one_seat_are_one_deal(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            first = await _create(stub, HANDS, seed=5)
            second = await _create(stub, _rotated(HANDS), seed=5)
            assert await _hidden(stub, first)
            assert await _hidden(stub, second)
    asyncio.run(main())


def test_the_same_hands_under_another_seed_or_none_are_one_deal(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            first = await _create(stub, HANDS, seed=5)
            reseeded = await _create(stub, HANDS, seed=6)
            assert await _hidden(stub, first)
            assert await _hidden(stub, reseeded)
            unseeded = await _create(stub, _rotated(HANDS))
            assert await _hidden(stub, unseeded)
    asyncio.run(main())


def test_the_same_deal_under_another_deal_count_is_one_deal(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            given = await _create(stub, HANDS, seed=5, deal_count=1)
            longer = await _create(stub, HANDS, seed=5, deal_count=3)
            assert await _hidden(stub, given)
            assert await _hidden(stub, longer)
            shuffled = await _create(stub, seed=9, deal_count=1)
            shuffled_longer = await _create(stub, seed=9, deal_count=3)  # deals 1..3 of seed 9's shuffle
            assert await _hidden(stub, shuffled)
            assert await _hidden(stub, shuffled_longer)
    asyncio.run(main())


def test_a_shuffled_deal_and_the_same_hands_given_are_one_deal(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            shuffled = await _create(stub, seed=11)
            given = await _create(stub, _rotated(shuffled_deal(RULES, 11, 1, 0)))
            assert await _hidden(stub, shuffled)
            assert await _hidden(stub, given)
    asyncio.run(main())


def test_a_later_shuffled_deal_hides_the_match_given_its_hands(tmp_path: Path) -> None:
    """Deal 2 of a seeded match is the only deal of another: both are hidden once it is dealt."""
    async def main() -> None:
        async with running(tmp_path / "d.db", absence_s=3600.0) as server, client(server.port) as stub:
            tiny = tuple(CardSet(card) for card in ("3C", "4C", "5C", "6C"))  # deal 1 plays out in a few moves
            two_deals, tokens = await _seats(stub, tiny, seed=13, deal_count=2)
            given = await _create(stub, _rotated(shuffled_deal(RULES, 13, 2, 0)))
            await asyncio.gather(*(_play_until_deal(stub, token, 2) for token in tokens))
            assert await _hidden(stub, given)
            assert await _hidden(stub, two_deals)
    asyncio.run(main())


def test_a_deal_given_to_one_match_that_another_shuffles_later_hides_both_before_it_is_dealt(tmp_path: Path) -> None:
    """Deal 3 of a seeded match, given to another match as its only deal: both are hidden while the seeded match
    is still in deal 1, whichever was created first and whichever is watched first."""
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            seeded = await _create(stub, seed=17, deal_count=5)
            given = await _create(stub, _rotated(shuffled_deal(RULES, 17, 3, 0)))
            assert await _hidden(stub, given)
            assert await _hidden(stub, seeded)
            given_first = await _create(stub, shuffled_deal(RULES, 19, 4, 0))
            seeded_later = await _create(stub, seed=19, deal_count=4)
            assert await _hidden(stub, seeded_later)
            assert await _hidden(stub, given_first)
            unrelated = await _create(stub, seed=23, deal_count=5)
            assert not await _hidden(stub, unrelated)
    asyncio.run(main())


def test_the_replay_of_a_finished_match_is_hidden_while_a_later_match_will_shuffle_its_deal(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            finished, tokens = await _seats(stub, shuffled_deal(RULES, 29, 2, 0))
            await _play_out(stub, tokens)
            assert (await stub.GetReplay(pb.GetReplayRequest(match_id=finished))).replay.deals
            await _create(stub, seed=29, deal_count=2)  # in deal 1: deals the finished match's cards next
            await refused(stub.GetReplay(pb.GetReplayRequest(match_id=finished)), grpc.StatusCode.PERMISSION_DENIED,
                          "DEAL_IN_PLAY")
    asyncio.run(main())


def test_a_match_with_other_hands_is_shown(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            first = await _create(stub, HANDS, seed=5)
            other = await _create(stub, OTHER_HANDS, seed=6)
            shuffled = await _create(stub, seed=7)
            for match_id in (first, other, shuffled):
                assert not await _hidden(stub, match_id)
    asyncio.run(main())


def test_the_hiding_ends_when_the_twin_ends(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "d.db") as server, client(server.port) as stub:
            first, first_tokens = await _seats(stub, HANDS, seed=5)
            second, second_tokens = await _seats(stub, _rotated(HANDS))
            assert await _hidden(stub, second)
            await _play_out(stub, first_tokens)
            assert not await _hidden(stub, second)
            await refused(stub.GetReplay(pb.GetReplayRequest(match_id=first)), grpc.StatusCode.PERMISSION_DENIED,
                          "DEAL_IN_PLAY")
            await _play_out(stub, second_tokens)
            assert (await stub.GetReplay(pb.GetReplayRequest(match_id=first))).replay.deals
    asyncio.run(main())
