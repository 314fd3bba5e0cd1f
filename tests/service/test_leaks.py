"""No message to a seat or spectator carries a card it may not see, checked card by card over several matches.

The web's live page is a spectator too: its stream (server-sent events) is checked the same way, and must be
the very messages a gRPC spectator gets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from president_engine import CardSet, Match, visible_to
from president_engine.events import CardsGiven, CardsRequested, HandDealt
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from service_helpers import SeatLog, client, create, live_messages, play_seat, running

NO_CLOCK = pb.ClockSettings(move_time_limit_ms=0)


def _cards(messages: Iterable[pb.Card]) -> CardSet:
    return convert.cards_from_proto(messages)


def _may_hold(match: Match, player: int) -> CardSet:
    """Every card `player` ever held: dealt hands and cards received in an exchange."""
    held = CardSet()
    for event in match.events:
        if isinstance(event, HandDealt) and event.player == player:
            held = held + event.cards
        if isinstance(event, CardsGiven) and event.receiver == player and event.cards is not None:
            held = held + event.cards
    return held


def _check_observation(obs: pb.Observation, match: Match, player: int | None) -> None:
    if player is None:
        assert not obs.HasField("player") and not obs.hand
    else:
        assert obs.player == player
        assert _cards(obs.hand) <= _may_hold(match, player)
    for given in obs.exchange:
        assert given.HasField("cards") == (player in (given.giver, given.receiver))


def _check_event(msg: pb.Event, match: Match, player: int | None) -> None:
    shown = visible_to(match.events[msg.seq - 1], player)
    assert shown is not None, f"seq {msg.seq} is hidden from {player}"
    assert msg == convert.event_to_proto(shown, msg.seq)
    if isinstance(shown, (HandDealt, CardsRequested)):
        assert player in (getattr(shown, "player", None), getattr(shown, "receiver", None),
                          getattr(shown, "giver", None))


def test_no_leaks(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path / "leak.db", http_port=0) as server, client(server.port) as stub:
            assert server.http_port is not None
            for preset, deals in (("norwegian", 3), ("cardverse", 3), ("italian", 2)):
                created = await create(stub, preset, deals=deals, clock=NO_CLOCK, exchange=True)
                seats = [SeatLog(s.player) for s in created.seats]
                watched: list[pb.SpectateResponse] = []

                async def watch(match_id: str = created.match_id, out: list[pb.SpectateResponse] = watched) -> None:
                    async for message in stub.Spectate(pb.SpectateRequest(match_id=match_id)):
                        out.append(message)

                spectator = asyncio.get_running_loop().create_task(watch())
                page = asyncio.get_running_loop().create_task(live_messages(server.http_port, created.match_id))
                await asyncio.sleep(0.05)
                await asyncio.wait_for(asyncio.gather(
                    *(play_seat(stub, s.token, log) for s, log in zip(created.seats, seats, strict=True))), 60)
                await asyncio.wait_for(spectator, 10)
                sent = await asyncio.wait_for(page, 10)
                replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id))).replay
                match = convert.replay_from_proto(replay).replay()
                for seat in seats:
                    for message in seat.messages:
                        kind = message.WhichOneof("kind")
                        if kind == "event":
                            _check_event(message.event, match, seat.player)
                        elif kind == "snapshot":
                            _check_observation(message.snapshot.observation, match, seat.player)
                        elif kind == "prompt":
                            _check_observation(message.prompt.observation, match, seat.player)
                            legal = [convert.action_from_proto(a) for a in message.prompt.legal_actions]
                            held = _may_hold(match, seat.player)
                            assert all(getattr(a, "cards", CardSet()) <= held or type(a).__name__ == "Request"
                                       for a in legal)
                    seen = {m.event.seq for m in seat.messages if m.HasField("event")}
                    assert seen == {i + 1 for i, e in enumerate(match.events)
                                    if visible_to(e, seat.player) is not None}
                assert watched[0].HasField("snapshot") and watched[-1].HasField("match_over")
                _check_observation(watched[0].snapshot.observation, match, None)
                for message in watched:
                    if message.HasField("event"):
                        _check_event(message.event, match, None)
                assert [s.message() for s in sent] == watched
                assert all(s.id == str(s.message().event.seq) for s in sent if s.message().HasField("event"))
    asyncio.run(main())
