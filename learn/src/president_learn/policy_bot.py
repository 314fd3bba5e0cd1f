"""A trained `Policy` served through the SDK as an ordinary `Bot`: locally, in a ladder or on a server.

The bot sees only its engine `Observation`, turns it into the same tensor
and mask the environments give (arrays.py), and plays the legal action at
the index the policy picks.  `TrainedBot` is the example policy shipped in
this package (weights/, trained by ``examples/learning/train.py``), loadable
with no arguments: ``president-bot president_learn.policy_bot:TrainedBot``.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import as_file, files

import numpy as np
from president_engine import PRESETS, Action, Observation, Rules, RulesError
from president_engine.action_space import action_space
from president_engine.observation_tensor import observation_size
from president_sdk import Bot

from president_learn.arrays import mask_array, observation_array
from president_learn.policy import Policy

TRAINED_WEIGHTS = "cardverse-4p.npz"
"""The shipped example policy: cardverse, 4 players (examples/learning/train.py wrote it)."""


class PolicyMismatchError(ValueError):
    """Rules whose observation or action space is not the one the policy was trained on."""


class PolicyBot(Bot):
    """Plays `policy`'s choice in every phase: greedily, or drawn from its probabilities with `seed`."""

    def __init__(self, policy: Policy, *, seed: int | None = None) -> None:
        self.policy = policy
        self._rng = None if seed is None else np.random.default_rng(seed)

    def seat(self, player: int, rules: Rules) -> None:
        check_rules(self.policy, rules)
        super().seat(player, rules)

    def play(self, obs: Observation) -> Action:
        return self._choose(obs)

    def give_back(self, obs: Observation) -> Action:
        return self._choose(obs)

    def request(self, obs: Observation) -> Action:
        return self._choose(obs)

    def _choose(self, obs: Observation) -> Action:
        index = self.policy.act(observation_array(obs), mask_array(obs), self._rng)
        return action_space(obs.rules).action(index, obs.legal_actions)


class TrainedBot(PolicyBot):
    """The shipped example policy (cardverse, 4 players), greedy."""

    def __init__(self) -> None:
        super().__init__(trained_policy())


@cache
def trained_policy() -> Policy:
    """The shipped example policy, loaded once."""
    with as_file(files("president_learn") / "weights" / TRAINED_WEIGHTS) as path:
        return Policy.load(path)


def check_rules(policy: Policy, rules: Rules) -> None:
    """PolicyMismatchError unless `rules` encode observations and actions as the policy's own rules do."""
    shape = (observation_size(rules), action_space(rules).size)
    if shape != (policy.inputs, policy.actions):
        preset, options = nearest_preset(rules)
        how = (f"`.venv/bin/python examples/learning/train.py --preset {preset} --players {rules.players}"
               f" --out {preset}-{rules.players}p.npz`" if not options else "president_learn.train")
        raise PolicyMismatchError(
            f"the policy was trained for {rules_text(policy.rules)}, and {rules_text(rules)} encodes differently"
            f" (observations of {shape[0]} numbers and {shape[1]} actions, not {policy.inputs} and {policy.actions}):"
            f" train one for it with {how} (docs/learning.md)")


def rules_text(rules: Rules) -> str:
    """``cardverse with 4 players``, and the options that differ from that preset: rules as people name them."""
    preset, options = nearest_preset(rules)
    return f"{preset} with {rules.players} players" + (f" ({', '.join(options)})" if options else "")


def nearest_preset(rules: Rules) -> tuple[str, list[str]]:
    """The preset `rules` differ least from (players and deals aside), with each option that differs as
    ``name=value``."""
    found: list[tuple[str, list[str]]] = []
    for name in PRESETS:
        try:
            base = Rules.preset(name, players=rules.players, deals=rules.deals).to_dict()
        except RulesError:  # a player count the preset does not allow
            continue
        found.append((name, [f"{key}={_shown(value)}" for key, value in rules.to_dict().items()
                             if base[key] != value]))
    return min(found, key=lambda pair: len(pair[1]))


def _shown(value: object) -> str:
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
