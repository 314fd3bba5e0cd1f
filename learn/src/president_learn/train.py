"""Train a `Policy` by policy gradient (REINFORCE with a learned baseline) in the PettingZoo environment.

Each episode (one match of the environment) seats the learner in some seats
and built-in bots in the others; every decision of a learner seat is kept
with the seat's reward, and after each batch of episodes one Adam step
follows the gradient of ``-A log pi(a)`` (A: the reward minus the value
head's estimate), the value head's squared error and an entropy bonus.
numpy only, one process.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from president_engine import Rules
from president_sdk import Bot, builtin_bot

from president_learn.arrays import Floats, Mask
from president_learn.pettingzoo_env import PresidentEnv, player_number
from president_learn.policy import Params, Policy
from president_learn.reward import Reward


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """What to train on and how long; the defaults train the shipped example (docs/learning.md)."""

    rules: Rules = field(default_factory=lambda: Rules.preset("cardverse"))
    episodes: int = 8000
    """Episodes (matches) to play, rounded up to whole batches: with `seed`, they decide the result."""
    seed: int = 0
    hidden: int = 64
    learning_rate: float = 0.005
    batch_episodes: int = 32
    learner_seats: int = 2
    """Seats the policy plays in each episode; built-in bots play the rest."""
    opponents: tuple[str, ...] = ("random", "easy", "normal")
    """Built-in levels drawn for the other seats."""
    value_weight: float = 0.5
    entropy_weight: float = 0.01

    @property
    def batches(self) -> int:
        """The Adam steps: `episodes` rounded up to whole batches, at least one."""
        return max(1, math.ceil(self.episodes / self.batch_episodes))

    @property
    def total_episodes(self) -> int:
        """The episodes training plays: whole batches."""
        return self.batches * self.batch_episodes


@dataclass(frozen=True, kw_only=True)
class Progress:
    """One line of the training log: after `episodes` of `total`, the learner's mean reward over the last batch."""

    episodes: int
    total: int
    seconds: float
    reward: float
    entropy: float


@dataclass
class _Batch:
    inputs: list[Floats] = field(default_factory=list)
    masks: list[Mask] = field(default_factory=list)
    chosen: list[int] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    episode_rewards: list[float] = field(default_factory=list)


class Adam:
    """The Adam optimiser over a dict of arrays."""

    def __init__(self, params: Params, learning_rate: float, beta1: float = 0.9, beta2: float = 0.999) -> None:
        self.rate, self.beta1, self.beta2 = learning_rate, beta1, beta2
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.steps = 0

    def step(self, params: Params, grads: Params) -> None:
        self.steps += 1
        for k, g in grads.items():
            self.m[k] = self.beta1 * self.m[k] + (1 - self.beta1) * g
            self.v[k] = self.beta2 * self.v[k] + (1 - self.beta2) * g * g
            m_hat = self.m[k] / (1 - self.beta1 ** self.steps)
            v_hat = self.v[k] / (1 - self.beta2 ** self.steps)
            params[k] -= self.rate * m_hat / (np.sqrt(v_hat) + 1e-8)


def train(config: TrainConfig, report: Callable[[Progress], None] = lambda _p: None) -> Policy:
    """A policy trained on `config.total_episodes` episodes, reporting after each batch."""
    rng = np.random.default_rng(config.seed)
    rules = config.rules
    env = PresidentEnv(rules, reward=Reward.PLACES)
    env.reset(seed=config.seed)
    first = env.observe(env.agent_selection)
    policy = Policy.initial(rules, inputs=first["observation"].size, actions=env.space.size, hidden=config.hidden,
                            rng=rng)
    adam = Adam(policy.params, config.learning_rate)
    start = time.monotonic()
    for done in range(1, config.batches + 1):
        batch = _Batch()
        for _ in range(config.batch_episodes):
            _play_episode(env, policy, config, rng, batch)
        forward = policy.forward(np.array(batch.inputs), np.array(batch.masks))
        chosen = np.array(batch.chosen, dtype=np.int64)
        returns: npt.NDArray[np.float64] = np.array(batch.returns)
        advantages = returns - forward.values
        grads = policy.gradients(forward, chosen, advantages, returns, value_weight=config.value_weight,
                                 entropy_weight=config.entropy_weight)
        adam.step(policy.params, grads)
        probs = forward.probs
        entropy = float(-(probs * np.log(np.where(probs > 0, probs, 1.0))).sum(axis=1).mean())
        report(Progress(episodes=done * config.batch_episodes, total=config.total_episodes,
                        seconds=time.monotonic() - start, reward=float(np.mean(batch.episode_rewards)),
                        entropy=entropy))
    return policy


def _play_episode(env: PresidentEnv, policy: Policy, config: TrainConfig, rng: np.random.Generator,
                  batch: _Batch) -> None:
    """One episode (match) in `env`: the learner's decisions and rewards go into `batch`."""
    env.reset()
    players = config.rules.players
    learners = {int(p) for p in rng.choice(players, size=config.learner_seats, replace=False)}
    bots: dict[int, Bot] = {}
    for p in range(players):
        if p not in learners:
            bots[p] = builtin_bot(str(rng.choice(config.opponents)), seed=int(rng.integers(2**31)))
            bots[p].seat(p, config.rules)
    steps: dict[int, list[int]] = {p: [] for p in learners}
    earned = dict.fromkeys(learners, 0.0)
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last(observe=False)  # only the learner's turns need the arrays
        player = player_number(agent)
        if player in learners:
            earned[player] += float(reward)
        if terminated or truncated:
            env.step(None)
            continue
        if player in learners:
            observation = env.observe(agent)
            x, mask = observation["observation"], observation["action_mask"]
            index = policy.act(x, mask, rng)
            steps[player].append(len(batch.chosen))
            batch.inputs.append(x)
            batch.masks.append(mask)
            batch.chosen.append(index)
            batch.returns.append(-earned[player])  # the rewards after this decision: the total is added below
        else:
            index = env.space.index(bots[player].decide(env.match.observation(player)))
        env.step(index)
    for player in learners:
        for step in steps[player]:
            batch.returns[step] += earned[player]
        batch.episode_rewards.append(earned[player])
