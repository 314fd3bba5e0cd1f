"""The leak checker: every card in what a seat or a spectator was sent is a card it may see.

Checked against the match as the engine replays it from its record: events
are compared with `visible_to` for the receiver, hands and legal actions with
every card the player ever held, exchanges with the pair.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from president_engine import CardSet, Match, Request, visible_to
from president_engine.events import CardsGiven, CardsRequested, HandDealt
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb


def cards(messages: Iterable[pb.Card]) -> CardSet:
    return convert.cards_from_proto(messages)


def may_hold(match: Match, player: int) -> CardSet:
    """Every card `player` ever held: dealt hands and cards received in an exchange."""
    held = CardSet()
    for event in match.events:
        if isinstance(event, HandDealt) and event.player == player:
            held = held + event.cards
        if isinstance(event, CardsGiven) and event.receiver == player and event.cards is not None:
            held = held + event.cards
    return held


def check_observation(obs: pb.Observation, match: Match, player: int | None) -> None:
    if player is None:
        assert not obs.HasField("player") and not obs.hand
    else:
        assert obs.player == player
        assert cards(obs.hand) <= may_hold(match, player)
    for given in obs.exchange:
        assert given.HasField("cards") == (player in (given.giver, given.receiver))


def check_event(msg: pb.Event, match: Match, player: int | None) -> None:
    shown = visible_to(match.events[msg.seq - 1], player)
    assert shown is not None, f"seq {msg.seq} is hidden from {player}"
    assert msg == convert.event_to_proto(shown, msg.seq)
    if isinstance(shown, (HandDealt, CardsRequested)):
        assert player in (getattr(shown, "player", None), getattr(shown, "receiver", None),
                          getattr(shown, "giver", None))


def check_seat_messages(messages: Sequence[pb.PlayResponse], match: Match, player: int) -> None:
    """Everything a seat received (one match): only cards it may see, and every event it may see, once."""
    for message in messages:
        kind = message.WhichOneof("kind")
        if kind == "event":
            check_event(message.event, match, player)
        elif kind == "snapshot":
            check_observation(message.snapshot.observation, match, player)
        elif kind == "prompt":
            check_observation(message.prompt.observation, match, player)
            legal = [convert.action_from_proto(a) for a in message.prompt.legal_actions]
            held = may_hold(match, player)
            assert all(isinstance(a, Request) or getattr(a, "cards", CardSet()) <= held for a in legal)
    seen = [m.event.seq for m in messages if m.HasField("event")]
    assert sorted(seen) == sorted(set(seen))
    assert set(seen) == {i + 1 for i, e in enumerate(match.events) if visible_to(e, player) is not None}
