"""The expert level: plays every preset legally, repeats itself with a seed and a cap, and sees no hidden card.

Hidden state: its sampled worlds always agree with its observation (its own
hand, the sizes, the cards played, what it handed over in the exchange and
what a tribute tells it) while the hidden cards vary; and two matches that
differ only in cards this player cannot see get the same decision from it.
"""

from __future__ import annotations

import random

import pytest
from president_engine import PRESETS, CardSet, Match, Phase, Rules, visible_to
from president_engine.events import CardsGiven, DealStarted
from president_sdk import play_local
from president_sdk.bots import ExpertBot, HardBot, NormalBot
from president_sdk.bots.expert.endgame import solve
from president_sdk.bots.expert.knowledge import DealKnowledge
from president_sdk.bots.expert.worlds import PlayModel, Sampler, holdings

CAP = 24
"""Playouts per decision in these tests: enough to search, few enough to stay quick."""


def _expert(seed: int = 7) -> ExpertBot:
    return ExpertBot(seed, budget=None, playouts=CAP)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_expert_plays_every_preset_with_exchanges_and_requests(preset: str) -> None:
    rules = Rules.preset(preset, deals=3)
    result = play_local([_expert(), HardBot(), NormalBot(), HardBot(), NormalBot()][:rules.players], rules, seed=4)
    assert result.fault_count == 0 and len(result.places) == 3


def test_a_seed_and_a_cap_make_every_decision_repeat() -> None:
    rules = Rules.preset("norwegian", deals=2)
    first = play_local([_expert(3), _expert(5), HardBot(), NormalBot()], rules, seed=9).match.events
    again = play_local([_expert(3), _expert(5), HardBot(), NormalBot()], rules, seed=9).match.events
    assert first == again


def _seen_by(match: Match, player: int) -> DealKnowledge:
    """What `player` knows of the deal in progress from the events it was shown."""
    knowledge = DealKnowledge()
    for event in match.events:
        shown = visible_to(event, player)
        if isinstance(shown, DealStarted):
            knowledge = DealKnowledge(shown.deal)
        elif shown is not None:
            knowledge.see(shown)
    return knowledge


def _mid_deal(preset: str, seed: int, player: int) -> Match:
    """A match in deal 2 (after an exchange) some plays in, with `player` to act."""
    match = Match(Rules.preset(preset, deals=2), seed=seed)
    rng = random.Random(seed)
    while match.deal < 2 or match.phase is not Phase.PLAY or len(match.events) < 40 or match.to_act != player:
        match.apply(rng.choice(match.legal_actions()))
        if match.is_over:
            raise AssertionError("the match ended first")
    return match


@pytest.mark.parametrize(("preset", "seed"), [("cardverse", 1), ("cardverse", 2), ("norwegian", 3), ("norwegian", 6)])
def test_sampled_worlds_agree_with_the_observation_and_vary_the_hidden_cards(preset: str, seed: int) -> None:
    for player in range(4):
        match = _mid_deal(preset, seed, player)
        obs = match.observation(player)
        knowledge = _seen_by(match, player)
        assert knowledge.agrees_with(obs)
        known = holdings(obs, knowledge)
        sampler = Sampler(obs, knowledge, PlayModel(obs.rules), random.Random(seed))
        truth = [match.hand(p) for p in range(4)]
        samples = [sampler.sample() for _ in range(60)]
        for hands, weight in samples:
            assert weight > 0
            assert hands[player] == obs.hand
            assert [len(h) for h in hands] == list(obs.hand_sizes)
            assert sum(hands, obs.played) <= obs.rules.deck
            for given in obs.exchange:  # what this player handed over is with the receiver, unless back or played
                if given.giver == player and given.cards is not None:
                    back = [g.cards for g in obs.exchange if g.giver == given.receiver and g.receiver == player]
                    kept = [c for c in given.cards if c not in obs.played and all(c not in b for b in back if b)]
                    assert CardSet(kept) <= hands[given.receiver]
            for p in range(4):
                must = CardSet.from_bits(known.must[p])
                assert must <= hands[p]
                rest = hands[p] - must
                assert all(known.allowed[p] >> card.slot & 1 for card in rest)
            Match.from_view(obs, hands)  # every sample is a state the engine accepts
        hidden = {tuple(hands[p] for p in range(4) if p != player) for hands, _ in samples}
        assert len(hidden) > 1 and any(list(h) != [truth[p] for p in range(4) if p != player] for h in hidden)


def test_a_tribute_tells_the_receiver_what_the_giver_kept() -> None:
    """The President's worlds give the Scum no card better than the worst one the Scum had to hand over."""
    match = _mid_deal("cardverse", 2, 0)
    tribute = next(e for e in match.events if isinstance(e, CardsGiven) and e.tribute and e.receiver in range(4))
    president, scum = tribute.receiver, tribute.giver
    obs = match.observation(president)
    order = [card.slot for card in obs.rules.best_first]
    worst = max(order.index(card.slot) for card in tribute.cards or CardSet())
    known = holdings(obs, _seen_by(match, president))
    assert all(known.allowed[scum] >> slot & 1 == (order.index(slot) >= worst) for slot in order)


def test_cards_the_player_cannot_see_do_not_change_its_decision() -> None:
    """Two deals alike but for a card swapped between two opponents' unplayed cards: the same decision."""
    rules = Rules.preset("cardverse")
    base = Match(rules, seed=12)
    rng = random.Random(12)
    actions = []
    while len(actions) < 14 or base.to_act != 0 or len(base.legal_actions()) <= 2:
        action = rng.choice(base.legal_actions())
        actions.append(action)
        base.apply(action)
    played = base.observation(0).played
    dealt = list(base.deal_hands[0])
    a = next(c for c in dealt[1] if c not in played)
    b = next(c for c in dealt[2] if c not in played)
    swapped = [dealt[0], dealt[1] - CardSet([a]) + CardSet([b]), dealt[2] - CardSet([b]) + CardSet([a]), dealt[3]]
    other = Match(rules, hands=[swapped])
    for action in actions:
        other.apply(action)
    assert other.observation(0) == base.observation(0) and other.hand(1) != base.hand(1)
    assert len(base.legal_actions()) > 2  # a real choice, searched
    answers = []
    for match in (base, other):
        bot = _expert(11)
        bot.seat(0, rules)
        for event in match.events:
            shown = visible_to(event, 0)
            if shown is not None:
                bot.notify(shown)
        answers.append(bot.decide(match.observation(0)))
    assert answers[0] == answers[1]


def _wins(match: Match, player: int) -> bool:
    """Plain minimax, no memory: does `player` go out before the other holder with best play on both sides?"""
    if match.is_over:
        return match.last_places[-1] != player
    outcomes = []
    for action in match.legal_actions():
        child = match.copy()
        child.apply(action)
        outcomes.append(_wins(child, player))
    return any(outcomes) if match.to_act == player else all(outcomes)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_endgame_solver_agrees_with_plain_minimax(preset: str) -> None:
    """Small deals played at random until two players hold cards: the solver wins exactly when a win exists."""
    checked = 0
    for seed in range(40):
        rng = random.Random(seed)
        rules = Rules.preset(preset, players=4)
        deck = list(rules.deck)
        rng.shuffle(deck)
        hands = [CardSet(deck[4 * i:4 * i + 4]) for i in range(4)]
        match = Match(rules, hands=[hands])
        while not match.is_over and sum(1 for s in match.hand_sizes() if s) > 2:
            match.apply(rng.choice(match.legal_actions()))
        if match.is_over:
            continue
        view = match.public_observation()
        world = Match.from_view(view, [match.hand(p) for p in range(4)])
        player = world.to_act
        assert player is not None
        answer = solve(world.copy(), player, deadline=None)
        winnable = _wins(world.copy(), player)
        assert (answer is not None) == winnable
        if answer is not None:
            child = world.copy()
            child.apply(answer)
            assert _wins(child, player)
        checked += 1
    assert checked >= 10


def test_a_tiny_budget_still_answers_after_one_evaluation_per_candidate() -> None:
    rules = Rules.preset("cardverse")
    bot = ExpertBot(1, budget=0.0, playouts=10_000)
    result = play_local([bot, HardBot(), NormalBot(), HardBot()], rules, seed=2)
    assert result.fault_count == 0
    assert bot.last_playouts < 40
