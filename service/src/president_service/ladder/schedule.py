"""The schedule: which bots play which match, from which seats, with which cards.

Matches come in groups of ``players`` (a *board*).  A board seats one table
of bots and plays ``players`` rotations: in rotation r the bot at table
position i sits at seat (i + r) mod P, so across the board every bot sits in
every seat once.

- duplicate: the board's cards are dealt once (the engine's seeded shuffle)
  and every rotation gets them as explicit hands by seat, so every bot plays
  every hand from every seat and the luck of the cards cancels when results
  are compared per board.
- plain: every match has its own shuffle (its own seed).

Tables cycle through every combination of ``players`` bots (in a seeded
order, each seated in a seeded order) so that with more bots than seats every
bot meets every other equally often.  Everything is a pure function of the
config: a resumed ladder gets the identical schedule.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from itertools import combinations

from president_engine import Rules
from president_engine.match import shuffled_deal

from president_service.ladder.config import Format, LadderConfig


@dataclass(frozen=True, kw_only=True, slots=True)
class MatchSpec:
    """One match of the schedule (plain data, so it travels to Ray workers and into SQLite)."""

    index: int
    """Position in the schedule, 0-based: the match's identity in the ladder db."""
    board: int
    rotation: int
    bots: tuple[str, ...]
    """Bot name by player (= seat in deal 1)."""
    seed: int
    hands: tuple[tuple[str, ...], ...] = ()
    """Explicit hands per deal, by seat, in card notation (duplicate only)."""


def derive_seed(*parts: int) -> int:
    """A 63-bit seed from the ladder seed and positions (stable across Python versions)."""
    digest = hashlib.sha256(("ladder/" + "/".join(map(str, parts))).encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def match_count(config: LadderConfig) -> int:
    """Matches the ladder plays: duplicate rounds up to whole boards."""
    if config.format is Format.DUPLICATE:
        return -(-config.matches // config.players) * config.players
    return config.matches


def tables(names: tuple[str, ...], players: int, seed: int, count: int) -> list[tuple[str, ...]]:
    """`count` tables of `players` bots: every combination in turn, each seated in a seeded order."""
    rng = random.Random(derive_seed(seed, -1))
    combos = list(combinations(names, players))
    out: list[tuple[str, ...]] = []
    while len(out) < count:
        rng.shuffle(combos)
        for combo in combos:
            seating = list(combo)
            rng.shuffle(seating)
            out.append(tuple(seating))
    return out[:count]


def duplicate_hands(rules: Rules, seed: int) -> tuple[tuple[str, ...], ...]:
    """The hands of every deal of a board, by seat: what the shuffle deals with `seed` from seat 0.

    Matches with a target score instead of a fixed number of deals get
    explicit hands for deal 1 only; later deals follow the shared seed.
    """
    deals = rules.deals if rules.target_score is None and rules.deals is not None else 1
    return tuple(tuple(str(hand) for hand in shuffled_deal(rules, seed, deal, 0)) for deal in range(1, deals + 1))


def schedule(config: LadderConfig) -> list[MatchSpec]:
    """Every match of the ladder, in order."""
    p = config.players
    total = match_count(config)
    boards = tables(tuple(b.name for b in config.bots), p, config.seed, -(-total // p))
    rules = config.rules
    specs = []
    hands: tuple[tuple[str, ...], ...] = ()
    for index in range(total):
        board, rotation = divmod(index, p)
        table = boards[board]
        by_seat = tuple(table[(seat - rotation) % p] for seat in range(p))
        if config.format is Format.DUPLICATE:
            seed = derive_seed(config.seed, board)
            if rotation == 0:
                hands = duplicate_hands(rules, seed)
        else:
            seed, hands = derive_seed(config.seed, board, rotation), ()
        specs.append(MatchSpec(index=index, board=board, rotation=rotation, bots=by_seat, seed=seed, hands=hands))
    return specs
