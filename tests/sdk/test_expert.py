"""The expert level: plays every preset legally, repeats itself with a seed and a cap, and sees no hidden card.

Hidden state: its sampled worlds always agree with its observation (its own
hand, the sizes, the cards played, what it handed over in the exchange and
what a tribute tells it) while the hidden cards vary; and two matches that
differ only in cards this player cannot see get the same decision from it.
"""

from __future__ import annotations

import gc
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from president_engine import PRESETS, Action, CardSet, Match, Observation, Phase, Play, Rank, Rules, visible_to
from president_engine.compiled import is_compiled
from president_engine.events import CardsGiven, DealStarted, Passed, Played, PlayStarted
from president_sdk import play_local
from president_sdk.bots import ExpertBot, HardBot, NormalBot
from president_sdk.bots.expert import rollout as rollout_module
from president_sdk.bots.expert.clock import WALL_SLACK, Clock, collector_held
from president_sdk.bots.expert.endgame import solve
from president_sdk.bots.expert.knowledge import DealKnowledge
from president_sdk.bots.expert.rollout import CHECK, Rollout
from president_sdk.bots.expert.search import SearchResult, WorldPool, search
from president_sdk.bots.expert.worlds import BREAK_GROUP, LEAD_OVER_CHEAPER, PlayModel, Sampler, holdings

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


def moves_of_both_builds(seeds: int = 12) -> list[str]:
    """Every move of the playout policy from seeded deals of every preset (some random moves in), then every
    move of a capped, seeded expert's match in each preset: what the compiled build must repeat exactly."""
    lines = []
    for preset in sorted(PRESETS):
        rules = Rules.preset(preset, deals=1)
        rollout = Rollout(rules)
        for seed in range(seeds):
            world, rng = Match(rules, seed=seed), random.Random(seed)
            for _ in range(rng.randrange(12)):
                world.apply(rng.choice(world.legal_actions()))
            start = len(world.events)
            places = rollout.finish(world)
            lines.append(f"{preset} playout {seed}: {places} {_moves(world, start)}")
        others = [HardBot(), NormalBot(), HardBot(), NormalBot(), HardBot()][:rules.players - 1]
        match = play_local([_expert(seed=2), *others], Rules.preset(preset, deals=2), seed=5).match
        lines.append(f"{preset} expert: {_moves(match, 0)}")
    return lines


def _moves(match: Match, start: int) -> str:
    return " ".join(f"{e.player}:{e.play}" if isinstance(e, Played) else f"{e.player}:pass"
                    for e in match.events[start:] if isinstance(e, (Played, Passed)))


def test_the_build_under_test_compiles_the_expert_with_the_engine() -> None:
    """The compiled wheels (`make pytest-compiled`) must mean the expert's search is mypyc's too."""
    compiled = rollout_module.__file__ is not None and rollout_module.__file__.endswith((".so", ".pyd"))
    assert compiled == is_compiled(), rollout_module.__file__


@pytest.mark.skipif(not is_compiled(), reason="compares the compiled build")
def test_the_compiled_playouts_and_search_move_as_the_source_does() -> None:
    """The pure-Python source, run in a process with engine/src and sdk/src first on PYTHONPATH, makes every playout
    move and every expert decision the compiled build makes here."""
    root = Path(__file__).resolve().parents[2]
    source_env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(root / p / "src") for p in ("engine", "sdk"))}
    script = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import test_expert;"
              " print('\\n'.join(test_expert.moves_of_both_builds()))")
    source = subprocess.run([sys.executable, "-c", script], env=source_env, capture_output=True, text=True,
                            timeout=600, check=True)
    mine = moves_of_both_builds()
    assert source.stdout.splitlines() == mine
    assert len(mine) == len(PRESETS) * 13


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


def _lead_weight(led: str, rank: Rank, hand: str) -> float:
    """The weight of a cardverse world in which player 1 led `led` and now holds `hand`, seen by player 0."""
    rules = Rules.preset("cardverse")
    knowledge = DealKnowledge(1)
    knowledge.see(PlayStarted(leader=1))
    knowledge.see(Played(player=1, play=Play(CardSet(led), rank=rank)))
    model = PlayModel(rules)
    return model.weight([CardSet(), CardSet(hand), CardSet(), CardSet()], model.facts(knowledge, 0))


def test_a_lead_tells_of_the_cheaper_ranks_and_of_the_rest_of_its_rank() -> None:
    """Players play whole groups and lead their cheapest: a world where the leader held a cheaper rank, or more of
    the rank it led, is that much less likely; a dearer rank or the top one (2s) tells nothing."""
    plain = _lead_weight("7C", Rank.SEVEN, "9D 10H")
    assert _lead_weight("7C", Rank.SEVEN, "5H 9D") == pytest.approx(plain * LEAD_OVER_CHEAPER)
    assert _lead_weight("7C", Rank.SEVEN, "7H 9D") == pytest.approx(plain * BREAK_GROUP)
    assert _lead_weight("7C 7D", Rank.SEVEN, "7H 3S") == pytest.approx(plain * BREAK_GROUP * LEAD_OVER_CHEAPER)
    assert _lead_weight("7C", Rank.SEVEN, "2H 8D") == plain
    knowledge = DealKnowledge(1)
    knowledge.see(PlayStarted(leader=0))
    knowledge.see(Played(player=0, play=Play(CardSet("7C"), rank=Rank.SEVEN)))
    assert PlayModel(Rules.preset("cardverse")).facts(knowledge, 0) == []  # its own decisions are no evidence


@pytest.mark.parametrize("preset", ["cardverse", "norwegian"])
def test_weighted_worlds_place_the_hidden_cards_better_than_unweighted_ones(preset: str) -> None:
    """Against players who play as `hard` does, the weights move the worlds towards the true hands: over states
    of seeded matches, more of the hidden cards are placed with their holder than by the same samples unweighted.
    (Italian's wild cards and five players leave the model less to read: a gain of 0.12 there, so no bar.)"""
    rules = Rules.preset(preset)
    weighted = unweighted = 0.0
    for seed in range(12):
        match = Match(rules, seed=seed)
        bots = [HardBot() for _ in range(rules.players)]
        while len(match.events) < 30 + seed:
            player = match.to_act
            assert player is not None
            match.apply(bots[player].decide(match.observation(player)))
        player = match.to_act
        assert player is not None
        obs = match.observation(player)
        sampler = Sampler(obs, _seen_by(match, player), PlayModel(rules), random.Random(seed))
        others = [p for p in range(rules.players) if p != player]
        hidden = sum(len(match.hand(p)) for p in others)
        total = 0.0
        share = {True: 0.0, False: 0.0}
        for _ in range(300):
            hands, weight = sampler.sample()
            right = sum(card in match.hand(p) for p in others for card in hands[p]) / hidden
            share[True] += weight * right
            share[False] += right
            total += weight
        weighted += share[True] / total
        unweighted += share[False] / 300
    assert weighted > unweighted + 0.5  # summed over 12 states: more than 4 points in every 100 cards on average


def test_cards_the_player_cannot_see_do_not_change_its_decision() -> None:
    """Two deals alike but for a card swapped between two opponents' unplayed cards: the same decision."""
    rules = Rules.preset("cardverse")
    base = Match(rules, seed=12)
    rng = random.Random(12)
    actions: list[Action] = []
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
    # plain minimax cannot take the contest's passes on an empty table: they loop up to the 20-pass limit
    loops = {"leader_may_pass": False, "pass_limit": None} if preset == "daifugo" else {}
    for seed in range(40):
        rng = random.Random(seed)
        rules = Rules.preset(preset, players=4, **loops)
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
        answer = solve(world.copy(), player, clock=None)
        winnable = _wins(world.copy(), player)
        assert (answer is not None) == winnable
        if answer is not None:
            child = world.copy()
            child.apply(answer)
            assert _wins(child, player)
        checked += 1
    assert checked >= 10


class _Noting(ExpertBot):
    """The expert, noting of each decision it searched its playouts, its answer and the `hard` level's."""

    def __init__(self, budget: float) -> None:
        super().__init__(1, budget=budget, playouts=10_000)
        self.searched: list[tuple[Phase, int, Action, Action]] = []

    def decide(self, obs: Observation) -> Action:
        action = super().decide(obs)
        if self.last_searched:
            self.searched.append((obs.phase, self.last_playouts, action, HardBot().decide(obs)))
        return action


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_zero_budget_starts_no_playout_and_answers_the_anchor(preset: str) -> None:
    """No time, no evaluation (not one per candidate, as before the clock was kept): every decision it would have
    searched, plays and the exchange's and requests alike, is the `hard` level's choice, the search's anchor."""
    rules = Rules.preset(preset, deals=3)
    bot = _Noting(0.0)
    result = play_local([bot, HardBot(), NormalBot(), HardBot(), NormalBot()][:rules.players], rules, seed=1)
    assert result.fault_count == 0
    assert len(bot.searched) >= 10
    if preset == "norwegian":
        assert {Phase.GIVE_BACK, Phase.REQUEST} <= {phase for phase, _, _, _ in bot.searched}
    assert all(playouts == 0 for _, playouts, _, _ in bot.searched)
    assert all(answer == hard for _, _, answer, hard in bot.searched)


def test_a_small_budget_searches_and_says_which_decisions_it_searched() -> None:
    bot = _Noting(0.01)
    result = play_local([bot, HardBot(), NormalBot(), HardBot()], Rules.preset("cardverse"), seed=2)
    assert result.fault_count == 0 and bot.searched
    assert sum(playouts > 0 for _, playouts, _, _ in bot.searched) > len(bot.searched) // 2


fake_clock = pytest.mark.skipif(
    rollout_module.__file__ is not None and rollout_module.__file__.endswith((".so", ".pyd")),
    reason="a compiled Rollout takes no interpreted subclass to tick a fake clock: the clock's logic is tested on"
           " the source, its budget on both builds by make bench-expert-clock")


class _Ticking(Rollout):
    """The playout policy on a fake clock: every move it chooses takes MOVE seconds of `now`."""

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        self.now = 0.0

    def choose(self, world: Match, legal: tuple[Action, ...], held: int) -> Action:
        self.now += MOVE
        return super().choose(world, legal, held)


MOVE = 0.0001
LATE = CHECK * MOVE
"""The most a playout runs on after its clock ran out."""


def _timed_search(clock: Callable[[_Ticking], Clock]) -> tuple[SearchResult, _Ticking, list[Action]]:
    """A search mid-deal, its anchor the first action, with playouts on a fake clock; the result, the rollout
    and the candidates."""
    match = _mid_deal("cardverse", 2, 0)
    obs = match.observation(0)
    sampler = Sampler(obs, _seen_by(match, 0), PlayModel(obs.rules), random.Random(1))
    pool = WorldPool(sampler.sample, lambda hands: Match.from_view(obs, hands), random.Random(1))
    first = pool.world(pool.draw(0))
    actions = [first.check(a) for a in obs.legal_actions]
    assert len(actions) > 2
    rollout = _Ticking(obs.rules)
    return search(actions, 0, pool, rollout, 0, playouts=10_000, clock=clock(rollout)), rollout, actions


@fake_clock
@pytest.mark.parametrize("budget", [0.05, 0.01])
def test_the_search_stops_within_a_few_moves_of_its_cpu_budget(budget: float) -> None:
    """Also before every candidate had its first evaluation (the small budget: 9 candidates, about 6 playouts)."""
    result, rollout, _ = _timed_search(lambda r: Clock(budget, cpu=lambda: r.now, wall=lambda: 0.0))
    assert result.playouts > 1
    assert budget - 0.005 < rollout.now <= budget + LATE


@fake_clock
def test_the_wall_clock_ends_a_search_the_machine_starves() -> None:
    result, rollout, _ = _timed_search(lambda r: Clock(0.05, cpu=lambda: 0.0, wall=lambda: r.now))
    assert result.playouts > 1
    assert 0.05 * WALL_SLACK - 0.005 < rollout.now <= 0.05 * WALL_SLACK + LATE


@fake_clock
def test_a_playout_that_outlasts_the_budget_is_dropped_for_the_anchor() -> None:
    result, rollout, actions = _timed_search(lambda r: Clock(5 * MOVE, cpu=lambda: r.now, wall=lambda: r.now))
    assert result.playouts == 0 and result.action == actions[0]
    assert 5 * MOVE < rollout.now <= 5 * MOVE + LATE


@fake_clock
def test_a_spent_budget_answers_the_anchor_without_a_playout() -> None:
    result, rollout, actions = _timed_search(lambda r: Clock(0.0, cpu=lambda: r.now, wall=lambda: r.now))
    assert result.playouts == 0 and rollout.now == 0.0 and result.action == actions[0]


def test_the_collector_is_held_off_while_searches_run_and_as_it_was_after() -> None:
    """Nested (two searching threads) it comes back only after the last; one that was off stays off."""
    assert gc.isenabled()
    with collector_held():
        assert not gc.isenabled()
        with collector_held():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    bot = ExpertBot(3, budget=0.01)
    play_local([bot, HardBot(), NormalBot(), HardBot()], Rules.preset("cardverse", deals=1), seed=2)
    assert gc.isenabled()  # after every clocked search of a match
    gc.disable()
    try:
        with collector_held():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
