"""The Bot base class: the one method, the hooks and their defaults."""

from __future__ import annotations

import pytest
from president_engine import PASS, GiveBack, Match, Phase, Request, Rules, shuffled_deal
from president_engine.events import DealEnded, DealStarted, MatchEnded, Played
from president_sdk import Bot, builtin_bot, lowest_play, play_local


class Lowest(Bot):
    def play(self, obs):
        return lowest_play(obs) or PASS


class Recorder(Lowest):
    def __init__(self) -> None:
        self.events: list[object] = []
        self.deals: list[DealEnded] = []
        self.results: list[MatchEnded] = []

    def on_event(self, event):
        self.events.append(event)

    def on_deal_end(self, result):
        self.deals.append(result)

    def on_match_end(self, result):
        self.results.append(result)


def _match_at(phase: Phase, preset: str) -> Match:
    """A match of lowest-play bots run until the given exchange phase (deal 2)."""
    match = Match(Rules.preset(preset, deals=3), seed=5)
    while match.phase is not phase:
        match.apply(match.legal_actions()[0])
    return match


def test_a_bot_needs_only_play_and_no_constructor_arguments() -> None:
    result = play_local([Lowest(), Lowest(), Lowest(), Lowest()], Rules.preset("cardverse", deals=3), seed=1)
    assert len(result.places) == 3
    assert sorted(result.places[0]) == [0, 1, 2, 3]


def test_local_play_seats_an_explicit_deal_as_given() -> None:
    rules = Rules.preset("cardverse", deals=2)
    hands = [shuffled_deal(rules, 4, 1, 0)]
    recorders = [Recorder() for _ in range(4)]
    result = play_local(recorders, rules, seed=4, hands=hands, seats=[(3, 1, 0, 2)])
    assert result.match.deal_seats[0] == (3, 1, 0, 2) and result.match.deal_hands[0] == tuple(hands[0])
    started = next(e for e in recorders[0].events if isinstance(e, DealStarted))
    assert started.seats == (3, 1, 0, 2)


def test_play_must_be_implemented() -> None:
    class NoPlay(Bot):
        pass

    with pytest.raises(TypeError, match="play"):
        NoPlay()  # type: ignore[abstract]


def test_default_give_back_is_the_worst_cards() -> None:
    match = _match_at(Phase.GIVE_BACK, "cardverse")
    obs = match.observation(match.to_act or 0)
    action = Lowest().decide(obs)
    assert isinstance(action, GiveBack)
    assert action == obs.legal_actions[0]
    assert len(action.cards) == obs.owed


def test_default_request_asks_for_the_best_cards_not_held() -> None:
    match = _match_at(Phase.REQUEST, "norwegian")
    obs = match.observation(match.to_act or 0)
    action = Lowest().decide(obs)
    assert isinstance(action, Request)
    assert len(action.cards) == obs.owed
    assert action in obs.legal_actions
    assert not any(card in obs.hand and obs.hand.count(card) >= 1 for card in action.cards)
    # best first: the first listed request of that size
    assert action == next(a for a in obs.legal_actions if len(a.cards) == obs.owed)


def test_hooks_see_every_visible_event_and_the_ends() -> None:
    bots = [Recorder(), Lowest(), Lowest(), Lowest()]
    result = play_local(bots, Rules.preset("norwegian", deals=2), seed=3)
    recorder = bots[0]
    assert isinstance(recorder, Recorder)
    assert [d.deal for d in recorder.deals] == [1, 2]
    assert recorder.results == [e for e in result.match.events if isinstance(e, MatchEnded)]
    assert sum(isinstance(e, Played) for e in recorder.events) == sum(
        isinstance(e, Played) for e in result.match.events)
    hidden = [e for e in recorder.events if getattr(e, "cards", "x") is None]
    assert all(getattr(e, "giver", 0) != 0 and getattr(e, "receiver", 0) != 0 for e in hidden)


def test_seat_fills_player_and_rules() -> None:
    bot = builtin_bot("easy")
    rules = Rules.preset("italian")
    play_local([bot] + [builtin_bot("easy") for _ in range(4)], rules, seed=2)
    assert bot.player == 0
    assert bot.rules == rules
    assert bot.name == "EasyBot"
