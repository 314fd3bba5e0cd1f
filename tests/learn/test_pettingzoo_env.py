"""The PettingZoo AEC environment: PettingZoo's own API and seed tests, rewards, dead steps, hidden cards."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from learn_support import first_deal_positions, played_actions, redeal_others, replay
from pettingzoo.test import api_test, seed_test
from president_engine import Match, Rules
from president_engine.action_space import ActionIndexError
from president_engine.events import DealEnded
from president_engine.observation_tensor import observation_tensor
from president_learn.pettingzoo_env import PresidentEnv, env
from president_learn.reward import Reward

# PettingZoo's checks advise a Box observation; the classic games' dict with action_mask is what they get.
pytestmark = [pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
              pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")]

CASES: list[tuple[str, dict[str, Any]]] = [
    ("cardverse", {}),
    ("cardverse", {"players": 6, "deals": 2}),
    ("norwegian", {"deals": 3}),
    ("norwegian", {"players": 3, "jokers": 2, "deals": 2}),
    ("italian", {}),
    ("italian", {"players": 3, "suit_order": "D C H S", "jokers": 1, "exchange": True, "deals": 2}),
]


@pytest.mark.parametrize(("preset", "options"), CASES)
def test_passes_pettingzoos_api_test(preset: str, options: dict[str, Any]) -> None:
    api_test(env(preset, **options), num_cycles=200)


@pytest.mark.parametrize(("preset", "options"), CASES[:3])
def test_passes_pettingzoos_seed_test(preset: str, options: dict[str, Any]) -> None:
    seed_test(lambda: env(preset, **options), num_cycles=100)


def run_randomly(e: PresidentEnv, seed: int) -> list[tuple[str, float, bytes]]:
    """Play a match with uniformly random legal indices; the log of (agent, reward, observation bytes)."""
    rng = np.random.default_rng(seed)
    log = []
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        log.append((agent, float(reward), obs["observation"].tobytes()))
        if terminated or truncated:
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return log


def test_a_seeded_run_repeats_and_another_seed_differs() -> None:
    rules = Rules.preset("norwegian", deals=2)
    runs = []
    for seed in (5, 5, 6):
        e = PresidentEnv(rules)
        e.reset(seed=seed)
        runs.append(run_randomly(e, seed=1))
    assert runs[0] == runs[1] != runs[2]


@pytest.mark.parametrize("reward", list(Reward))
def test_every_deal_pays_every_agent_zero_sum_and_the_match_ends_with_dead_steps(reward: Reward) -> None:
    rules = Rules.preset("cardverse", deals=3, players=5)
    e = PresidentEnv(rules, reward=reward)
    e.reset(seed=11)
    log = run_randomly(e, seed=2)
    assert e.agents == [] and e.match.is_over
    total = {agent: sum(r for a, r, _ in log if a == agent) for agent in e.possible_agents}
    assert sum(total.values()) == pytest.approx(0.0)
    deal_values = [reward.deal(rules, places) for places in _places(e.match)]
    assert [total[f"player_{p}"] for p in range(5)] == pytest.approx([sum(d[p] for d in deal_values) for p in range(5)])


def _places(m: Match) -> list[tuple[int, ...]]:
    return [e.places for e in m.events if isinstance(e, DealEnded)]


def test_rewards_from_places_and_from_points() -> None:
    rules = Rules.preset("italian", players=4)  # points 2, 1, 0, 0
    assert Reward.PLACES.deal(rules, (2, 0, 3, 1)) == pytest.approx((1 / 3, -1.0, 1.0, -1 / 3))
    assert Reward.POINTS.deal(rules, (2, 0, 3, 1)) == pytest.approx((0.25, -0.75, 1.25, -0.75))
    assert Reward.parse("Points") is Reward.POINTS
    with pytest.raises(ValueError, match="unknown reward"):
        Reward.parse("money")


def test_the_observation_is_the_engines_encoding_and_the_mask_only_for_the_agent_to_act() -> None:
    e = PresidentEnv(Rules.preset("norwegian"))
    e.reset(seed=3)
    m = e.match
    for player in range(4):
        obs = e.observe(f"player_{player}")
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        assert obs["observation"].tolist() == pytest.approx(observation_tensor(m.observation(player)))
        assert obs["action_mask"].any() == (player == m.to_act)


def test_an_illegal_index_is_refused_and_none_only_when_done() -> None:
    e = PresidentEnv(Rules.preset("cardverse"))
    e.reset(seed=1)
    with pytest.raises(ActionIndexError):
        e.step(0)  # the leader may not pass
    with pytest.raises(ValueError, match="only for agents that are done"):
        e.step(None)


def test_observations_never_depend_on_another_players_hidden_cards() -> None:
    """Two matches with the same history and the observer's same cards, the others' unplayed cards dealt anew."""
    rng = random.Random(0)
    for preset, options in CASES:
        rules = Rules.preset(preset, **options)
        for m in first_deal_positions(rules, rng, range(0, 40)):
            for player in range(rules.players):
                other = replay(rules, redeal_others(m, player, rng), played_actions(m))
                assert other.hand(player) == m.hand(player)
                views = []
                for match in (m, other):
                    e = PresidentEnv(rules)
                    e.reset(seed=0)
                    e.match = match
                    obs = e.observe(f"player_{player}")
                    views.append((obs["observation"].tobytes(), obs["action_mask"].tobytes()))
                assert views[0] == views[1]


def test_render_shows_the_public_table() -> None:
    e = PresidentEnv(Rules.preset("cardverse"), render_mode="ansi")
    e.reset(seed=2)
    text = e.render()
    assert text is not None and "deal 1 play" in text and "player_0:13" in text
    with pytest.raises(ValueError, match="render_mode"):
        PresidentEnv(render_mode="rgb_array")
