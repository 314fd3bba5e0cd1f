"""President as a PettingZoo AEC environment: one agent per player, any preset, options and player count.

Observations follow PettingZoo's classic games: a dict with ``observation``
(the engine's observation tensor, float32) and ``action_mask`` (int8 over
the rules' fixed action space, all 0 when it is not the agent's turn); both
are built from the agent's own engine `Observation`, nothing else.  An
action is an index of that space (docs/learning.md).  Rewards come at the end
of every deal, to every agent (`Reward`); every agent terminates when the
match ends, and then steps with None, as AEC asks.  ``reset(seed=s)`` fixes
the deals: the same seed and the same actions give the same run.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypedDict

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from president_engine import Match, Rules
from president_engine.action_space import ActionSpace, action_space
from president_engine.events import DealEnded
from president_engine.observation_tensor import observation_size

from president_learn.arrays import Floats, Mask, mask_array, observation_array
from president_learn.reward import Reward


class AgentObservation(TypedDict):
    """What an agent observes, as PettingZoo's classic games give it."""

    observation: Floats
    action_mask: Mask


def agent_name(player: int) -> str:
    return f"player_{player}"


def player_number(agent: str) -> int:
    """The player an agent name stands for (``player_3`` -> 3)."""
    return int(agent.removeprefix("player_"))


class PresidentEnv(AECEnv[str, AgentObservation, int | None]):  # type: ignore[misc]  # pettingzoo ships no types
    """The raw environment (see `env` for the one with PettingZoo's order checks)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "president_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, rules: Rules | None = None, *, reward: Reward | str = Reward.PLACES,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.rules = rules if rules is not None else Rules.preset("cardverse")
        self.reward = reward if isinstance(reward, Reward) else Reward.parse(reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: known are {', '.join(self.metadata['render_modes'])}")
        self.render_mode = render_mode
        self.space: ActionSpace = action_space(self.rules)
        self.possible_agents = [agent_name(p) for p in range(self.rules.players)]
        size = observation_size(self.rules)
        self.observation_spaces = {name: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.space.size,), np.int8),
        }) for name in self.possible_agents}
        self.action_spaces = {name: spaces.Discrete(self.space.size) for name in self.possible_agents}
        self._seeds = np.random.default_rng()
        self.match = Match(self.rules)
        """The match being played: hidden cards included, for rendering and checks, not for agents."""

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new match; with `seed`, the matches from here on are dealt as they were after the same seed."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.match = Match(self.rules, seed=int(self._seeds.integers(2**63)))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {name: {} for name in self.agents}
        self._select()

    def observe(self, agent: str) -> AgentObservation:
        obs = self.match.observation(player_number(agent))
        return {"observation": observation_array(obs), "action_mask": mask_array(obs)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for agents that are done")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        match = self.match
        seen = len(match.events)
        match.apply(self.space.action(int(action), match.legal_actions()))
        for event in match.events[seen:]:
            if isinstance(event, DealEnded):
                for player, value in enumerate(self.reward.deal(self.rules, event.places)):
                    self.rewards[agent_name(player)] += value
        if match.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._select()
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        """The table as a spectator sees it (ansi: returned; human: printed after every step)."""
        if self.render_mode is None:
            return None
        view = self.match.public_observation()
        table = "empty" if view.table is None else f"{view.table} by player_{view.table_player}"
        turn = "over" if view.to_act is None else f"{agent_name(view.to_act)} to act"
        sizes = " ".join(f"{agent_name(p)}:{size}" for p, size in enumerate(view.hand_sizes))
        return f"deal {view.deal} {view.phase.value}, {turn}; table: {table}; cards: {sizes}; scores {view.scores}"

    def close(self) -> None:
        """Nothing to release: the match lives in this process."""

    def _select(self) -> None:
        to_act = self.match.to_act
        self.agent_selection = self.agents[0] if to_act is None else agent_name(to_act)


def env(preset: str = "cardverse", *, reward: Reward | str = Reward.PLACES, render_mode: str | None = None,
        **options: Any) -> AECEnv[str, AgentObservation, int | None]:
    """A President environment for `preset` with rule `options` (e.g. ``players=5``), with PettingZoo's checks."""
    raw = PresidentEnv(Rules.preset(preset, **options), reward=reward, render_mode=render_mode)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw))
