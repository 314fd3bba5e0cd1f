"""`Match.from_view`: a state rebuilt from what a view shows plus the hidden hands goes on exactly like the match.

At random points of random matches (every preset and random option sets),
the state built from the spectator's view (or the player to act's view) and
the true hands must list the same legal actions, accept the same actions and
end the deal with the same places and points as the match itself; it then
ends, where the match would deal again.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from engine_support import build, option_sets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from president_engine import CardSet, DealError, Match, Phase, Rules
from president_engine.events import CardsRequested, DealStarted

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def hidden_requests(m: Match) -> dict[int, CardSet]:
    """The requests made so far in this deal (a view never shows them to a spectator)."""
    found: dict[int, CardSet] = {}
    for event in reversed(m.events):
        if isinstance(event, DealStarted):
            break
        if isinstance(event, CardsRequested):
            found[event.receiver] = event.cards
    return found


def same_course(m: Match, rng: random.Random, *, as_player: bool) -> None:
    """Build the state from a view of `m` now, then play both to the end of the deal with the same actions."""
    player = m.to_act
    assert player is not None
    view = m.observation(player) if as_player else m.public_observation()
    hands = [m.hand(p) for p in range(m.rules.players)]
    world = Match.from_view(view, hands, requests=hidden_requests(m))
    deal = m.deal
    while True:
        assert world.to_act == m.to_act and world.phase is m.phase
        assert [str(a) for a in world.legal_actions()] == [str(a) for a in m.legal_actions()]
        assert world.table == m.table and world.reversed == m.reversed and world.direction == m.direction
        assert all(world.hand(p) == m.hand(p) for p in range(m.rules.players))
        action = rng.choice(m.legal_actions())
        m.apply(action)
        world.apply(action)
        if m.is_over or m.deal != deal:
            break
    assert world.is_over and world.to_act is None and world.legal_actions() == ()
    assert world.last_places == m.last_places and world.scores == m.scores


def play_and_probe(m: Match, rng: random.Random, probes: int) -> None:
    steps = 0
    while not m.is_over and probes:
        if rng.random() < 0.08:
            probes -= 1
            same_course(m.copy(), random.Random(rng.random()), as_player=rng.random() < 0.5)
        m.apply(rng.choice(m.legal_actions()))
        steps += 1
        assert steps < 20_000


@SETTINGS
@given(options=option_sets(), seed=st.integers(0, 2**32))
def test_a_state_from_a_view_goes_on_like_the_match(options: dict[str, Any], seed: int) -> None:
    rules = build(options)
    if rules.deals is None:
        rules = rules.replace(deals=3)
    play_and_probe(Match(rules, seed=seed), random.Random(seed), probes=4)


@pytest.mark.parametrize("preset", ["cardverse", "italian", "norwegian"])
def test_presets_from_every_phase(preset: str) -> None:
    """Exchange steps (requests and give-backs) and play, in every preset."""
    phases = set()
    for seed in range(12):
        m = Match(Rules.preset(preset, deals=3), seed=seed)
        rng = random.Random(seed)
        while not m.is_over:
            if rng.random() < 0.15 or m.phase is not Phase.PLAY:
                phases.add(m.phase)
                same_course(m.copy(), random.Random(seed), as_player=rng.random() < 0.5)
            m.apply(rng.choice(m.legal_actions()))
    expected = {Phase.PLAY} | ({Phase.GIVE_BACK} if preset != "italian" else set()) | (
        {Phase.REQUEST} if preset == "norwegian" else set())
    assert phases == expected


def test_hands_that_do_not_fit_the_view_are_refused() -> None:
    m = Match(Rules.preset("cardverse"), seed=4)
    for _ in range(9):
        m.apply(m.legal_actions()[0])
    view = m.observation(0)
    hands = [m.hand(p) for p in range(4)]
    with pytest.raises(DealError, match="holds"):
        Match.from_view(view, [hands[1], hands[0], *hands[2:]])
    with pytest.raises(DealError, match="hand is"):
        Match.from_view(view, [hands[0] - CardSet([next(iter(hands[0]))]) + CardSet([next(iter(hands[1]))]),
                               hands[1] - CardSet([next(iter(hands[1]))]) + CardSet([next(iter(hands[0]))]),
                               *hands[2:]])
    played = next(iter(view.played))
    stolen = [hands[0], hands[1] - CardSet([next(iter(hands[1]))]) + CardSet([played]), *hands[2:]]
    with pytest.raises(DealError, match="more copies"):
        Match.from_view(view, stolen)
    with pytest.raises(DealError, match="hands for"):
        Match.from_view(view, hands[:3])


def test_the_state_ends_with_the_deal_and_copies_keep_that() -> None:
    m = Match(Rules.preset("norwegian", deals=3), seed=1)
    world = Match.from_view(m.public_observation(), [m.hand(p) for p in range(4)])
    twin = world.copy()
    while not twin.is_over:
        twin.apply(twin.legal_actions()[0])
    assert twin.deal == 1 and twin.winner is not None and not world.is_over
