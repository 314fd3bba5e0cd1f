"""The schedule: which bots play which match, from which seats, with which cards.

Matches come in *boards*.  A board seats one table of bots in each of its
seatings (`Seatings`): every ordering of the table over the seats (P!
matches), or its P rotations (in rotation r the bot at table position i sits
at seat (i + r) mod P).  Either way every bot sits in every seat.

- duplicate: the board's cards are dealt once (the engine's seeded shuffle)
  and every seating gets them as explicit hands by seat, so every bot plays
  every hand from every seat and the luck of the cards cancels when results
  are compared per board.  Every seating also gives its bots the same seed, so
  bots that draw random numbers (the built-in random level, or a command
  bot given ``{seed}``) draw the same ones: two seatings that differ by
  swapping two bots then play alike until those two bots choose differently.
- plain: every match has its own seed: its own shuffle and its own draws.

Tables cycle through every combination of ``players`` bots (in a seeded
order, each seated in a seeded order) so that with more bots than seats every
bot meets every other equally often.  Everything is a pure function of the
config: a resumed ladder gets the identical schedule.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from itertools import combinations, permutations

from president_engine import Rules
from president_engine.deal import board_hands

from president_harness.ladder.config import Format, LadderConfig, Seatings


@dataclass(frozen=True, kw_only=True, slots=True)
class MatchSpec:
    """One match of the schedule (plain data, so it travels to Ray workers and into SQLite)."""

    index: int
    """Position in the schedule, 0-based: the match's identity in the ladder db."""
    board: int
    seating: int
    """Which seating of the board, 0-based (see `seatings`)."""
    bots: tuple[str, ...]
    """Bot name by player (= seat in deal 1)."""
    seed: int
    """The match's shuffle, and the seed of bots that draw random numbers: shared by a duplicate board."""
    hands: tuple[tuple[str, ...], ...] = ()
    """Explicit hands per deal, by seat, in card notation (duplicate only)."""

    @property
    def command_seed(self) -> int:
        """The seed command bots draw from (``{seed}``, Welcome.bot_seed): shared by a duplicate board like
        `seed`, but not the shuffle's seed, from which a bot could compute every hand.  Built-in levels, which
        never look, keep `seed`, so their draws (and every ladder of built-ins) are as before."""
        return derive_seed(self.seed, -2)


def derive_seed(*parts: int) -> int:
    """A 63-bit seed from the ladder seed and positions (stable across Python versions)."""
    digest = hashlib.sha256(("ladder/" + "/".join(map(str, parts))).encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def seatings(config: LadderConfig) -> list[tuple[int, ...]]:
    """The seatings of a board: for each, the table position seated at each seat (the first is the table's order)."""
    p = config.players
    if config.seatings is Seatings.ALL:
        return list(permutations(range(p)))
    return [tuple((seat - rotation) % p for seat in range(p)) for rotation in range(p)]


def board_size(config: LadderConfig) -> int:
    """Matches in a board: one per seating."""
    return len(seatings(config))


def match_count(config: LadderConfig) -> int:
    """Matches the ladder plays: duplicate rounds up to whole boards."""
    if config.format is Format.DUPLICATE:
        size = board_size(config)
        return -(-config.matches // size) * size
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
    """The hands of every deal of a board, by seat, in card notation (`board_hands`)."""
    return tuple(tuple(str(hand) for hand in deal) for deal in board_hands(rules, seed))


def schedule(config: LadderConfig) -> list[MatchSpec]:
    """Every match of the ladder, in order."""
    orders = seatings(config)
    total = match_count(config)
    boards = tables(tuple(b.name for b in config.bots), config.players, config.seed, -(-total // len(orders)))
    rules = config.rules
    specs = []
    hands: tuple[tuple[str, ...], ...] = ()
    for index in range(total):
        board, seating = divmod(index, len(orders))
        table = boards[board]
        by_seat = tuple(table[position] for position in orders[seating])
        if config.format is Format.DUPLICATE:
            seed = derive_seed(config.seed, board)
            if seating == 0:
                hands = duplicate_hands(rules, seed)
        else:
            seed, hands = derive_seed(config.seed, board, seating), ()
        specs.append(MatchSpec(index=index, board=board, seating=seating, bots=by_seat, seed=seed, hands=hands))
    return specs
