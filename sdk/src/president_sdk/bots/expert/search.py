"""Spreading playouts over the candidate actions by an upper-confidence rule, on shared worlds.

A playout applies a candidate to a determinized world and plays the deal
out with the playout policy (in C from the world's numbers where the build
has it: the worlds of one view differ only in their hands, so only those
are made per world and no `Match` is built; else on a copy of the world);
its reward is the finishing place scaled to 1 (first) .. 0 (last), or in a
match of several deals the place's worth with its next deal's exchange
(next_deal.py).  The policy is deterministic, so a candidate's
reward in a world is a fixed number, and the hands dealt make most of the
difference between two playouts.  So candidates are compared on the same
worlds: world i is the i-th draw of a weighted pool of sampled hands, a
candidate's i-th playout is played in world i, and its score is its mean
gain over the *anchor* (the policy's own choice, played in the same
worlds).  UCB1 on those gains picks the candidate that gets the next
playout.  A world drawn twice from the pool costs no second playout.

The search stops at the playout cap, at PULLS evaluations per playout of
the cap (each candidate gets at least one evaluation before those count), or
when the clock's time left is below the median cost of an evaluation so far:
an evaluation is not started unless it will most likely end in time, and
one that runs out of time anyway (a long playout, a chunk of samples) is
dropped.  It answers the candidate whose mean gain is highest less CONFIDENCE
standard errors, if that is above 0; else the anchor.  So the search departs
from the anchor only on evidence.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from president_engine import Action, CardSet, Match

from president_sdk.bots.expert.clock import Clock, TimeUpError
from president_sdk.bots.expert.rollout import CompiledState, Rollout

EXPLORATION = 0.4
"""UCB1's exploration constant, for gains in [-1, 1]."""
CONFIDENCE = 1.0
"""A candidate replaces the anchor only when its mean gain exceeds this many standard errors."""
CHUNK = 16
"""Samples weighted together in the pool."""
PULLS = 4
"""Candidate evaluations per playout of the cap at most (repeated worlds cost no playout, but time)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SearchResult:
    action: Action
    playouts: int
    """Playouts played (a repeated world is not played again)."""


class WorldPool:
    """Worlds drawn in proportion to their weights, sampled in chunks as the search needs more of them.

    `sample()` gives one sample and its weight; `build(sample)` makes its engine state.  World i of the
    sequence is one of chunk i // CHUNK's samples, drawn by weight within that chunk (each chunk is an
    independent weighted sample, so resampling within it keeps the proportions); it is built when
    first played, and the same sample drawn twice is the same world.
    """

    def __init__(self, sample: Callable[[], tuple[list[CardSet], float]], build: Callable[[list[CardSet]], Match],
                 rng: random.Random, chunk: int = CHUNK) -> None:
        self._sample = sample
        self._build = build
        self._rng = rng
        self._chunk = chunk
        self._samples: list[list[CardSet]] = []
        self._worlds: dict[int, Match] = {}
        self._draws: list[int] = []

    def draw(self, i: int, clock: Clock | None = None) -> int:
        """The index of the sample that is world i of the sequence (`TimeUpError` when `clock` runs out while a chunk
        is sampled: the chunk is dropped)."""
        while len(self._draws) <= i:
            chunk = []
            for _ in range(self._chunk):
                if clock is not None:
                    clock.check()
                chunk.append(self._sample())
            first = len(self._samples)
            self._samples.extend(sample for sample, _ in chunk)
            self._draws.extend(first + j for j in self._rng.choices(range(self._chunk), weights=[w for _, w in chunk],
                                                                     k=self._chunk))
        return self._draws[i]

    def hands(self, index: int) -> list[CardSet]:
        """Sample `index`'s hands, by player (its world unbuilt)."""
        return self._samples[index]

    def world(self, index: int) -> Match:
        found = self._worlds.get(index)
        if found is None:
            found = self._worlds[index] = self._build(self._samples[index])
        return found


def search(candidates: Sequence[Action], anchor: int, pool: WorldPool, rollout: Rollout, player: int, *,
           playouts: int, clock: Clock | None, values: Sequence[float] | None = None) -> SearchResult:
    """The candidate with the best mean gain over the anchor for `player` (see the module docstring); `values`:
    each finishing place's reward, first place first, in 0..1 (by default 1 .. 0 evenly; next_deal.py).

    `candidates` must be actions as the worlds take them (interned: `Match.check` returns them);
    with no `clock`, only the cap ends the search.
    """
    k = len(candidates)
    scale = len(rollout.rules.points) - 1
    reward_of = tuple(values) if values is not None else tuple(1.0 - place / scale for place in range(scale + 1))
    if len(reward_of) != scale + 1:
        raise ValueError(f"{len(reward_of)} place values for {scale + 1} places")
    known: dict[tuple[int, int], float] = {}
    ready: dict[int, CompiledState] = {}
    played = 0

    try:
        first = pool.world(pool.draw(0, clock))
    except TimeUpError:
        return SearchResult(action=candidates[anchor], playouts=0)
    shared = rollout.prepare(first)  # every world's compiled state but its hands: made once, not once a world

    def reward(arm: int, i: int) -> float:
        nonlocal played
        index = pool.draw(i, clock)
        found = known.get((arm, index))
        if found is None:
            state = ready.get(index)
            if state is None and shared is not None:
                state = ready[index] = rollout.prepare_hands(first, shared, pool.hands(index))
            places = None if state is None else rollout.compiled_places(state, candidates[arm])
            if places is None:  # no compiled playout here, or a pass limit: on the engine
                places = rollout.play_out(pool.world(index), None, candidates[arm], clock)
            found = known[arm, index] = reward_of[places.index(player)]
            played += 1
        return found

    gains = [0.0] * k
    squares = [0.0] * k
    visits = [0] * k
    arms = [i for i in range(k) if i != anchor]
    pulls = 0
    costs: list[float] = []  # each evaluation's time so far, sorted
    left = math.inf if clock is None else clock.left()
    while (arms and (pulls < len(arms) or (played < playouts and pulls < PULLS * playouts))
           and left > (costs[len(costs) // 2] if costs else 0.0)):
        if pulls < len(arms):
            arm = arms[pulls]
        else:
            spread = EXPLORATION * math.sqrt(math.log(pulls))
            arm = max(arms, key=lambda a: gains[a] / visits[a] + spread / math.sqrt(visits[a]))
        i = visits[arm]
        try:
            gain = reward(arm, i) - reward(anchor, i)
        except TimeUpError:
            break
        gains[arm] += gain
        squares[arm] += gain * gain
        visits[arm] += 1
        pulls += 1
        if clock is not None:
            now = clock.left()
            bisect.insort(costs, left - now)
            left = now
    means = tuple(gains[a] / visits[a] if visits[a] else 0.0 for a in range(k))
    best = max(range(k), key=lambda a: (_lower_bound(means[a], squares[a], visits[a]), a == anchor, -a))
    return SearchResult(action=candidates[best], playouts=played)


def _lower_bound(mean: float, squares: float, n: int) -> float:
    """Mean gain less CONFIDENCE standard errors (0 for the anchor and unplayed candidates)."""
    if n < 2:
        return 0.0 if n == 0 else min(mean, 0.0)
    spread = max(squares / n - mean * mean, 0.0) * n / (n - 1)
    return mean - CONFIDENCE * math.sqrt(spread / n)
