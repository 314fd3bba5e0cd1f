"""How good a hand is, given the cards still out: the `hard` bot's planner.

The hand is split into groups (all natural cards of one rank; the wild cards;
the plain jokers).  A group is a *boss* when no combination of the cards the
others may still hold can beat it (counted from the public history:
deck - played - own hand).  Each boss can win back the lead once, and each
lead gets rid of one losing group, so a hand with a lead goes out for sure
when its losers are at most its bosses + 1.  `Plan.value` scores a hand by
how far it is from that, by how many plays it still needs, and by who leads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb

from president_engine import Beat, CardSet, JokerAlone, Observation, Rank, Rules

from president_sdk.counting import unseen

WIN = 1000.0


@dataclass(frozen=True, kw_only=True, slots=True)
class Weights:
    """The planner's tunable weights (benchmarks/bots_bench.py measures the result)."""

    excess: float = 1.0
    """Cost of each losing group beyond what the bosses (and the lead) can cover."""
    per_group: float = 0.5
    """Cost of each play still needed to go out."""
    lead: float = 0.6
    """Worth of holding the lead."""
    high_card: float = 0.002
    """Worth of each strength point kept in hand (tie-break: shed low cards first)."""
    revolt: float = 0.3
    """How much better a hand must plan in the reversed order before starting a revolution."""
    keep_safe: float = 0.3
    """With wild cards in the deck: keep top-rank cards only while this likely to hold."""


class Plan:
    """Scores hands for one observation; build once per decision."""

    def __init__(self, obs: Observation, weights: Weights) -> None:
        rules = obs.rules
        self.rules = rules
        self.weights = weights
        self.naturals = rules.natural_ranks
        self.strict = rules.beat is Beat.STRICTLY_HIGHER
        self.others = unseen(obs)
        sizes = tuple(sorted(s for p, s in enumerate(obs.hand_sizes) if p != obs.player and s))
        self.opponent_sizes = frozenset(sizes)
        self._sizes = sizes
        self._unseen = len(self.others)
        self.current = {rank: rules.strength(rank, reversed=obs.reversed) for rank in Rank}
        self.flipped = {rank: rules.strength(rank, reversed=not obs.reversed) for rank in Rank}
        self._sources: dict[bool, list[tuple[int, int]]] = {}
        self._safe: dict[tuple[int, int, bool], float] = {}

    def strength(self, rank: Rank, flipped: bool = False) -> int:
        return (self.flipped if flipped else self.current)[rank]

    def sources(self, flipped: bool = False) -> list[tuple[int, int]]:
        """(strength, cards) of each kind of play the others might beat with: a rank and the wild cards."""
        found = self._sources.get(flipped)
        if found is None:
            found = self._sources[flipped] = _threats(
                self.rules, self.others, self.flipped if flipped else self.current, self.naturals)
        return found

    def safe(self, rank: Rank, size: int, flipped: bool = False) -> float:
        """Chance that no opponent can beat `size` cards of `rank` (1.0: a boss)."""
        return self._safe_at(self.strength(rank, flipped), size, flipped)

    def _safe_at(self, s: int, size: int, flipped: bool) -> float:
        key = (s, size, flipped)
        found = self._safe.get(key)
        if found is None:
            found = 1.0
            for strength, cards in self.sources(flipped):
                if strength > s or (strength == s and not self.strict):
                    found *= 1.0 - _anyone_holds(self._unseen, self._sizes, cards, size)
            self._safe[key] = found
        return found

    def _boss(self, s: int, size: int, flipped: bool) -> int:
        return 1 if self._safe_at(s, size, flipped) >= 1.0 else 0

    def is_boss(self, rank: Rank, size: int, flipped: bool = False) -> bool:
        """No play of `size` cards the others may hold beats `size` cards of `rank`."""
        return self.safe(rank, size, flipped) >= 1.0

    def value(self, hand: CardSet, *, lead: bool, flipped: bool = False) -> float:
        """How close `hand` is to going out (higher is better); `lead`: this player leads next."""
        if not hand:
            return WIN
        w = self.weights
        rules = self.rules
        strength = self.flipped if flipped else self.current
        control = 0
        groups = 0
        kept = 0
        for rank in self.naturals:
            count = hand.count_rank(rank)
            if count:
                groups += 1
                control += self._boss(strength[rank], count, flipped)
                kept += strength[rank] * count
        wild = rules.wild_count(hand)
        if wild:
            groups += 1
            control += 1
            kept += 13 * wild
        jokers = rules.plain_joker_count(hand)
        if jokers:
            groups += 1
            control += self._boss(strength[Rank.JOKER], jokers, flipped)
            kept += max(strength[Rank.JOKER], 0) * jokers
        losers = groups - control
        excess = max(0, losers - control - lead)
        return -w.excess * excess - w.per_group * groups + (w.lead if lead else 0.0) + w.high_card * kept

    def better_reversed(self, hand: CardSet) -> bool:
        """`hand` plans clearly better after a revolution than without one."""
        return self.value(hand, lead=False, flipped=True) > self.value(hand, lead=False) + self.weights.revolt

    def runs_out(self, hand: CardSet, *, flipped: bool = False) -> bool:
        """With the lead, `hand` goes out for sure: its losing groups are at most its bosses + 1."""
        rules = self.rules
        strength = self.flipped if flipped else self.current
        losers = bosses = 0
        for rank in self.naturals:
            count = hand.count_rank(rank)
            if count:
                if self._safe_at(strength[rank], count, flipped) >= 1.0:
                    bosses += 1
                else:
                    losers += 1
        if rules.wild_count(hand):
            if rules.joker_alone is JokerAlone.DECLARED:  # a lead of wild cards only stands for a low rank
                losers += 1
            else:
                bosses += 1
        jokers = rules.plain_joker_count(hand)
        if jokers:
            if self._safe_at(strength[Rank.JOKER], jokers, flipped) >= 1.0:
                bosses += 1
            else:
                losers += 1
        return losers <= 1

    def exposed(self, size: int) -> bool:
        """An opponent holds exactly `size` cards, so a lead of that size may let them out."""
        return size in self.opponent_sizes


def _threats(rules: Rules, others: CardSet, strength: dict[Rank, int],
             naturals: Sequence[Rank]) -> list[tuple[int, int]]:
    wild = rules.wild_count(others)
    out = [(strength[r], others.count_rank(r) + wild) for r in naturals if others.count_rank(r)]
    if wild:
        declared = rules.joker_alone is JokerAlone.DECLARED
        out.append((max(strength[r] for r in naturals) if declared else rules.joker_strength, wild))
    plain = rules.plain_joker_count(others)
    if plain:
        out.append((rules.joker_strength, plain))
    return out


@lru_cache(maxsize=65536)
def _anyone_holds(unseen: int, sizes: tuple[int, ...], cards: int, k: int) -> float:
    """Chance that some opponent holds at least k of `cards` given cards among the unseen ones.

    Each opponent's hand is a random draw of its size from the unseen cards
    (hypergeometric); opponents are treated as independent.
    """
    if k > cards:
        return 0.0
    none = 1.0
    for size in sizes:
        if size < k:
            continue
        total = comb(unseen, size)
        below = sum(comb(cards, j) * comb(unseen - cards, size - j) for j in range(min(k, size + 1)))
        none *= below / total
    return 1.0 - none
