"""A finished match as the replay page's frames: every hand face up, and what each seat saw, step by step.

The engine replays the record and builds every frame: the spectator's view
(`Match.public_observation`), every hand, the exchange and the events, and
for each seat the same exchange and events through `visible_to`, the one
place that decides what is hidden.  The page only renders what it is given,
so the rules stay in the engine.

A frame for each deal as dealt and one per action after it.  A frame in which
a trick is won still shows that trick, with its winner; an action that ends a
deal gives one frame for the deal's last moment (places, points, the cards
the last player kept) before the next deal's first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from president_engine import CardSet, Match, MatchRecord, Phase, visible_to
from president_engine.events import (
    CardsGiven,
    DealEnded,
    DealStarted,
    Event,
    MatchEnded,
    Passed,
    Played,
    PlayStarted,
    RevolutionHappened,
    TrickWon,
)
from president_engine.observation import PublicObservation, TrickEntry

from president_protocol import convert
from president_protocol.replay_page.proto_json import proto_json
from president_protocol.v1 import president_pb2 as pb

FORMAT = "president-replay-frames/1"


class FramesError(ValueError):
    """The names do not fit the record (the record itself is checked by replaying it: ReplayError)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class _View:
    """What one frame shows, before it is written as JSON."""

    observation: PublicObservation
    hands: tuple[CardSet, ...]
    events: tuple[Event, ...]
    first_seq: int
    """The match seq of the first of `events`."""
    exchange: tuple[CardsGiven, ...]
    """This deal's exchange with every card."""
    actor: int | None
    trick: int
    """The trick in progress (or just won) in this deal, from 1; 0 during the exchange."""
    won_by: int | None = None
    deal_over: bool = False


def replay_frames(record: MatchRecord, names: Sequence[str], *, match_id: str = "",
                  summaries: Sequence[pb.PlayerSummary] = ()) -> dict[str, Any]:
    """The replay page's data: the match's rules, names and result, and one frame per step.

    `summaries` (the server's summary of each player, when there is one) adds what
    went wrong for each seat: its bot's faults and whether the server took it over.
    """
    players = record.rules.players
    if len(names) != players:
        raise FramesError(f"{len(names)} names for {players} players")
    final = record.replay()  # every action checked first: a record that does not replay raises ReplayError
    assert final.winner is not None
    match = record.start()
    trick = 1 if match.phase is Phase.PLAY else 0
    frames = [_frame(_now(match, 0, actor=None, trick=trick), players)]
    for deal in record.deals:
        for player, action in deal.actions:
            start = len(match.events)
            before = _now(match, start, actor=player, trick=trick)
            match.apply(action)
            events = tuple(match.events[start:])
            ended = next((e for e in events if isinstance(e, DealEnded)), None)
            won = next((e for e in events if isinstance(e, TrickWon)), None)
            if ended is not None:
                cut = events.index(ended) + (2 if match.is_over else 1)  # MatchEnded follows the last DealEnded
                frames.append(_frame(_last_moment(before, events[:cut], ended), players))
                if not match.is_over:
                    trick = 1 if match.phase is Phase.PLAY else 0
                    frames.append(_frame(_now(match, start + cut, actor=None, trick=trick), players))
            elif won is not None:
                frames.append(_frame(_trick_won(_now(match, start, actor=player, trick=trick), before.observation,
                                                events, won), players))
                trick += 1
            else:
                if any(isinstance(e, PlayStarted) for e in events):
                    trick = 1
                frames.append(_frame(_now(match, start, actor=player, trick=trick), players))
    data: dict[str, Any] = {
        "format": FORMAT,
        "match_id": match_id,
        "names": list(names),
        "rules": proto_json(convert.rules_to_proto(record.rules)),
        "result": proto_json(pb.MatchResult(winner=final.winner, totals=final.scores, last_places=final.last_places)),
        "frames": frames,
    }
    if summaries:
        data["faults"] = [proto_json(p.faults) for p in summaries]
        data["taken_over"] = [p.taken_over for p in summaries]
    return data


def _now(match: Match, since: int, *, actor: int | None, trick: int) -> _View:
    """The match as it stands, with the events of its log from index `since` on."""
    log = match.events
    return _View(observation=match.public_observation(),
                 hands=tuple(match.hand(p) for p in range(match.rules.players)),
                 events=tuple(log[since:]), first_seq=since + 1,
                 exchange=_deal_exchange(log), actor=actor, trick=trick)


def _deal_exchange(log: Sequence[Event]) -> tuple[CardsGiven, ...]:
    """The exchange of the deal in progress, every card shown."""
    given: list[CardsGiven] = []
    for event in reversed(log):
        if isinstance(event, DealStarted):
            break
        if isinstance(event, CardsGiven):
            given.append(event)
    return tuple(reversed(given))


def _entries(events: Sequence[Event]) -> tuple[TrickEntry, ...]:
    return tuple(e for e in events if isinstance(e, (Played, Passed)))


def _trick_won(view: _View, before: PublicObservation, events: Sequence[Event], won: TrickWon) -> _View:
    """The frame of the action that ended a trick: the trick as it ended, rather than the empty next one."""
    trick = before.trick + _entries(events[:events.index(won)])
    table = next(e.play for e in reversed(trick) if isinstance(e, Played))
    shown = replace(view.observation, trick=trick, table=table, table_player=won.winner)
    return replace(view, observation=shown, won_by=won.winner)


def _last_moment(before: _View, events: Sequence[Event], ended: DealEnded) -> _View:
    """A deal's last moment, which the engine passes through within one action: the last play made, places
    and points given, before the next deal is dealt."""
    obs = before.observation
    actor = before.actor
    assert actor is not None
    play = next(e.play for e in events if isinstance(e, Played))
    hands = tuple(hand - play.cards if p == actor else hand for p, hand in enumerate(before.hands))
    reversed_now, order, direction = obs.reversed, obs.rank_order, obs.direction
    for event in events:
        if isinstance(event, RevolutionHappened):
            reversed_now, order, direction = event.reversed, tuple(reversed(order)), event.direction
    shown = replace(obs, phase=Phase.OVER if isinstance(events[-1], MatchEnded) else obs.phase, to_act=None,
                    hand_sizes=tuple(len(h) for h in hands), places=ended.places, scores=ended.totals,
                    reversed=reversed_now, rank_order=order, direction=direction,
                    trick=obs.trick + _entries(events), table=play, table_player=actor)
    return replace(before, observation=shown, hands=hands, events=tuple(events), deal_over=True)


def _frame(view: _View, players: int) -> dict[str, Any]:
    observation = convert.public_observation_to_proto(view.observation)
    observation.ClearField("played")  # every hand is shown: the cards played add nothing but bytes
    frame: dict[str, Any] = {
        "observation": proto_json(observation),
        "hands": [str(hand) for hand in view.hands],
        "actor": view.actor,
        "trick": view.trick,
        "won_by": view.won_by,
        "deal_over": view.deal_over,
        "events": [_event_json(e, view.first_seq + i) for i, e in enumerate(view.events)],
        "exchange": [proto_json(convert.cards_given_to_proto(g)) for g in view.exchange],
    }
    seen = [[visible_to(e, p) for e in view.events] for p in range(players)]
    if any(s is not e for row in seen for s, e in zip(row, view.events, strict=True)):
        frame["seat_events"] = [[_event_json(s, view.first_seq + i) for i, s in enumerate(row) if s is not None]
                                for row in seen]
    if view.exchange:
        frame["seat_exchange"] = [[proto_json(convert.cards_given_to_proto(shown)) for g in view.exchange
                                   if (shown := visible_to(g, p)) is not None and isinstance(shown, CardsGiven)]
                                  for p in range(players)]
    return frame


def _event_json(event: Event, seq: int) -> dict[str, Any]:
    return proto_json(convert.event_to_proto(event, seq))

