"""The worth of a finishing place with the next deal's exchange (bots/expert/next_deal.py), and the search using it."""

from __future__ import annotations

import itertools
import random

import pytest
from president_engine import Match, Phase, Play, Rules
from president_sdk.bots import ExpertBot
from president_sdk.bots.expert.clock import Clock
from president_sdk.bots.expert.next_deal import SAMPLES, NextDeal, next_deal
from president_sdk.bots.expert.rollout import Rollout
from president_sdk.bots.expert.search import WorldPool, search
from president_sdk.bots.expert.worlds import PlayModel, Sampler


def test_a_place_is_worth_its_next_exchange_only_where_one_follows() -> None:
    rules = Rules.preset("daifugo", deals=3, rank_reset_every=2)
    stakes = NextDeal(rules)
    assert stakes.values(1) is None  # not measured yet
    stakes.measure(None, None)
    assert stakes.played == SAMPLES
    values = stakes.values(1)
    assert values is not None and len(values) == 5 and values[0] == 1.0 and values[-1] == 0.0
    assert list(values) == sorted(values, reverse=True)
    assert stakes.values(2) is None  # deal 3 resets the ranks: no exchange
    assert stakes.values(3) is None  # the last deal
    assert NextDeal(Rules.preset("italian", deals=3)).values(1) is None  # no exchange at all
    assert next_deal(rules) is next_deal(Rules.preset("daifugo", deals=3, rank_reset_every=2))  # one per rule set
    again = NextDeal(rules)
    again.measure(None, None)
    assert again.values(1) == values  # seeded: the same numbers every time


def test_the_measuring_takes_its_share_of_a_decision_and_goes_on_at_the_next() -> None:
    ticks = itertools.count()
    clock = Clock(1.0, cpu=lambda: next(ticks) / 1000, wall=lambda: 0.0)  # a millisecond a reading
    stakes = NextDeal(Rules.preset("cardverse", deals=4))
    stakes.measure(clock, 1.0)
    first = stakes.played
    assert 0 < first < SAMPLES and stakes.values(1) is None  # stopped at its share, 10% of the budget
    assert clock.left() <= 0.9
    while not stakes.measured:
        stakes.measure(Clock(1.0, cpu=lambda: next(ticks) / 1000, wall=lambda: 0.0), 1.0)
    assert stakes.values(1) is not None


def test_the_search_maximises_the_worth_it_is_given() -> None:
    """Where the player can go out now, the search goes out for the usual worth and keeps its cards when going out
    first is made the worst outcome."""
    rules = Rules.preset("cardverse", deals=1)
    rng = random.Random(4)
    decided = 0
    for seed in range(200):
        match = Match(rules, seed=seed)
        while not match.is_over and not (match.to_act is not None and _out_and_other(match)):
            match.apply(rng.choice(match.legal_actions()))
        if match.is_over:
            continue
        player = match.to_act
        assert player is not None
        obs = match.observation(player)
        legal = list(match.legal_actions())
        out = next(i for i, a in enumerate(legal) if isinstance(a, Play) and a.size == len(obs.hand))
        chosen = []
        for values in (None, (0.0, 0.5, 0.75, 1.0)):
            pool = WorldPool(Sampler(obs, None, PlayModel(rules), random.Random(1)).sample,
                             lambda hands, obs=obs: Match.from_view(obs, hands), random.Random(2))
            found = search(legal, out, pool, Rollout(rules), player, playouts=200, clock=None, values=values)
            chosen.append(found.action)
        assert chosen[0] == legal[out]
        if chosen[1] != legal[out]:
            decided += 1
        if decided >= 3:
            return
    raise AssertionError(f"only {decided} positions where the search left going out")


def _out_and_other(match: Match) -> bool:
    """The player to act can go out now, and do something else."""
    player = match.to_act
    assert player is not None
    size = len(match.hand(player))
    legal = match.legal_actions()
    return len(legal) > 1 and any(isinstance(a, Play) and a.size == size for a in legal)


def test_finish_plays_a_later_deal_with_that_deals_cards_held() -> None:
    """`Rollout.finish` over a match of two deals moves as the policy does with each deal's own cards held."""
    rules = Rules.preset("daifugo", deals=2)
    rollout = Rollout(rules)
    for seed in range(20):
        match = Match(rules, seed=seed)
        reference = match.copy()
        while not reference.is_over:
            legal = reference.legal_actions()
            held = sum(reference.hand(p).bits for p in range(rules.players))
            reference.apply(legal[0] if len(legal) == 1 else rollout.choose(reference, legal, held))
        assert rollout.finish(match) == reference.last_places and match.events == reference.events


def test_a_match_of_one_deal_measures_nothing() -> None:
    """The measuring is paid only where its worth is used: not in a one-deal match."""
    rules = Rules.preset("norwegian", deals=1, players=5)
    match = Match(rules, seed=3)
    bot = ExpertBot(seed=1, budget=None, playouts=20)
    while match.phase is not Phase.PLAY:
        match.apply(match.legal_actions()[0])
    player = match.to_act
    assert player is not None
    bot.decide(match.observation(player))
    assert next_deal(rules).played == 0 and not next_deal(rules).follows(1)


def test_place_values_of_another_length_are_refused() -> None:
    rules = Rules.preset("cardverse", deals=1)
    match = Match(rules, seed=1)
    while match.phase is not Phase.PLAY:
        match.apply(match.legal_actions()[0])
    player = match.to_act
    assert player is not None
    obs = match.observation(player)
    pool = WorldPool(Sampler(obs, None, PlayModel(rules), random.Random(1)).sample,
                     lambda hands: Match.from_view(obs, hands), random.Random(2))
    with pytest.raises(ValueError, match="3 place values for 4 places"):
        search(list(match.legal_actions()), 0, pool, Rollout(rules), player, playouts=10, clock=None,
               values=(1.0, 0.5, 0.0))
