"""A fixed, numbered action space for a rule set: one index for every action a player could ever take.

Learning tools (PettingZoo, OpenSpiel, RLCard) want a fixed list of actions
and, each turn, a mask of the legal ones.  `ActionSpace` numbers every
action of a rule set once, so a policy's output layer has one unit per
action, and the same numbering serves a trained policy as an SDK bot
(`Observation.action_mask`).  Indices, in order (docs/learning.md):

- ``0``: pass.
- Plays, by the rank they stand for, weakest first in the normal order
  (the joker rank of jokers played alone where it stands: first when low,
  last when high), then by their cards as digits of a mixed radix, the
  first the most significant: the natural cards of that rank (how many, or,
  with `suit_order`, the 4-bit set of their suits, clubs = bit 0), then the
  wild cards of each wild kind (jokers first, then each wild rank in the
  normal order: how many, or their suits).  Only possible plays are
  numbered: no empty play, and no play without a natural card where wild
  cards alone cannot stand for that rank.  Without `suit_order` suits change
  nothing (RULES 1.8), so a play is its counts; with it, its exact cards.
  A play of wild cards alone stands for a rank: the joker rank (jokers
  high or low), `wild_lead_rank` when it leads, or the rank it declares
  when it follows; a lead and a follow never share a turn, so they share
  the index of the rank they stand for.
- Give-backs: the multisets of 1 or 2 cards (2 only with 3 players) over
  the kinds of card (ranks in the normal order, then the joker; with
  `suit_order` each card), fewer cards first, then by kinds in that order.
- Requests: the multisets of 0 to 2 exact cards (cards by rank in the
  normal order and suit, then the joker), fewer cards first.

Rules with `sequences` or `suit_lock` are refused with `ActionSpaceError`
naming the option: their plays (every suit, and the joker's cell) have no
numbering yet.  The other Daifugō options change no action and are numbered
as their rules' plays are.

Sections that the rules never use (give-backs without `exchange`, requests
without `exchange_requests`) are empty.  Rule sets whose space would have
more than `MAX_ACTIONS` indices are refused with `ActionSpaceError`, which
names the option that makes the space large (the growth comes from wild
cards: each wild kind multiplies the plays of every rank).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations_with_replacement
from math import prod

from president_engine.actions import PASS, Action, GiveBack, Pass, Play
from president_engine.cards import CardSet, Rank, Suit, card_slot, rank_bucket_mask, slot_count
from president_engine.errors import RulesError
from president_engine.rules import JokerAlone, Rules

MAX_ACTIONS = 1 << 16
"""The most indices a space may have: a mask per turn and a policy's output layer stay small."""

PASS_INDEX = 0
_PLAY_MEMO = 1 << 16
EXCHANGE_SIZES = (1, 2)
"""Cards owed in an exchange (RULES 1.4): the Vice-Scum's 1 and the Scum's 2."""
REQUEST_SIZES = (0, 1, 2)
"""Cards a request may name: none, up to what the receiver is owed."""


class ActionSpaceError(RulesError):
    """Rules the engine plays whose action space is too large to number; `option` is the one that grows it most."""


class ActionIndexError(ValueError):
    """An action that is not in the space, or an index that is not a legal action now."""


Kind = tuple[Rank, Suit | None]
"""A kind of card a give-back or request counts: a rank (any suit), an exact card, or the joker (JOKER, None)."""


class ActionSpace:
    """The numbered actions of one rule set; build it with `action_space(rules)` (cached)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        refuse_shaped(rules, "a fixed action space")
        size = action_count(rules)
        if size > MAX_ACTIONS:
            option = _culprit(rules)
            raise ActionSpaceError(option, f"the fixed action space would have {size} indices, more than"
                                           f" {MAX_ACTIONS} (docs/learning.md): reduce {option} first")
        self._suits = rules.suit_order is not None
        self._natural_radix = _natural_radix(rules)
        self._wild_kinds = _wild_kinds(rules)
        self._wild_radix = prod(radix for _, radix in self._wild_kinds)
        self._wild_mask = sum(rank_bucket_mask(kind) for kind, _ in self._wild_kinds)
        self._wild_alone = _wild_alone(rules)
        self._slots: dict[Rank, tuple[int, int]] = {}
        """Each rank a play may stand for: (first index, how many plays)."""
        start = 1
        for rank, count in _rank_slots(rules):
            self._slots[rank] = (start, count)
            start += count
        self.plays = range(1, start)
        self._play_indices: dict[Play, int] = {}
        """Plays already numbered: the engine lists the same interned plays turn after turn."""
        give_kinds = _give_back_kinds(rules) if rules.exchange else ()
        self._give_kinds = {kind: i for i, kind in enumerate(give_kinds)}
        self._give_backs = _multisets(give_kinds, _give_back_sizes(rules), rules) if rules.exchange else ()
        self._give_index = {combo: start + i for i, combo in enumerate(self._give_backs)}
        self.give_backs = range(start, start + len(self._give_backs))
        start = self.give_backs.stop
        request_kinds = _card_kinds(rules) if rules.exchange_requests else ()
        self._request_kinds = {kind: i for i, kind in enumerate(request_kinds)}
        self._requests = _multisets(request_kinds, REQUEST_SIZES, rules) if rules.exchange_requests else ()
        self._request_index = {combo: start + i for i, combo in enumerate(self._requests)}
        self.requests = range(start, start + len(self._requests))
        self.size = self.requests.stop
        assert self.size == size

    # ------------------------------------------------------------------ action -> index

    def index(self, action: Action) -> int:
        """The index of `action`; equivalent actions (RULES 1.8) share one.  ActionIndexError if not in the space."""
        if isinstance(action, Pass):
            return PASS_INDEX
        if isinstance(action, Play):
            found = self._play_indices.get(action)
            if found is None:
                if len(self._play_indices) >= _PLAY_MEMO:
                    self._play_indices.clear()
                found = self._play_indices[action] = self._play_index(action)
            return found
        if isinstance(action, GiveBack):
            return self._combo_index(action.cards, self._give_kinds, self._give_index, "give-back")
        return self._combo_index(action.cards, self._request_kinds, self._request_index, "request")

    def indices(self, legal: Sequence[Action]) -> tuple[int, ...]:
        """The index of each action of `legal`, in its order."""
        return tuple(self.index(action) for action in legal)

    def mask(self, legal: Sequence[Action]) -> bytes:
        """One byte per index: 1 where `legal` holds that action, else 0."""
        out = bytearray(self.size)
        for action in legal:
            out[self.index(action)] = 1
        return bytes(out)

    def action(self, index: int, legal: Sequence[Action]) -> Action:
        """The action of `legal` (the engine's own listed object) numbered `index`; ActionIndexError if none is."""
        for action in legal:
            if self.index(action) == index:
                return action
        raise ActionIndexError(f"index {index} ({self.label(index)}) is not a legal action now")

    # ------------------------------------------------------------------ index -> words

    def label(self, index: int) -> str:
        """What `index` stands for, without a state: ``pass``, ``K K JK -> K``, ``give 3 3``, ``request AS``.

        A play is written as its cards' ranks (exact cards with `suit_order`) and the rank it stands for.
        """
        if not 0 <= index < self.size:
            raise ActionIndexError(f"index {index} is outside the action space (0..{self.size - 1})")
        if index == PASS_INDEX:
            return str(PASS)
        if index in self.give_backs:
            return "give " + _kinds_text(self._give_backs[index - self.give_backs.start])
        if index in self.requests:
            return f"request {_kinds_text(self._requests[index - self.requests.start])}".rstrip()
        rank, offset = next((r, index - s) for r, (s, n) in self._slots.items() if s <= index < s + n)
        if rank is Rank.JOKER:
            return " ".join(["JK"] * (offset + 1)) + " -> JK"
        natural, wild = self._digits(rank, offset)
        parts = _digit_text(rank, natural, self._suits) if natural else []
        for (kind, _), digit in zip(self._wild_kinds, _mixed_digits(wild, self._wild_kinds), strict=True):
            parts += _digit_text(kind, digit, self._suits and kind is not Rank.JOKER)
        return f"{' '.join(parts)} -> {rank}"

    # ------------------------------------------------------------------ plays

    def _play_index(self, play: Play) -> int:
        rank = play.rank if play.rank is not None else self._stands_for(play)
        found = self._slots.get(rank)
        if found is None:
            raise ActionIndexError(f"{play}: no play stands for {rank} under these rules")
        start, count = found
        bits = play.cards.bits
        if rank is Rank.JOKER:  # jokers alone, at the joker rank
            offset = play.cards.count_rank(Rank.JOKER) - 1
            used = bits & rank_bucket_mask(Rank.JOKER)
        else:
            natural_bits = 0 if rank in self.rules.wild_ranks else bits & rank_bucket_mask(rank)
            wild_bits = bits & self._wild_mask
            wild = 0
            for kind, radix in self._wild_kinds:  # the first kind the most significant digit
                wild = wild * radix + self._digit(kind, wild_bits & rank_bucket_mask(kind))
            offset = self._offset(rank, self._digit(rank, natural_bits), wild)
            used = natural_bits | wild_bits
        if used != bits or not 0 <= offset < count:
            raise ActionIndexError(f"{play}: not a play of one rank under these rules")
        return start + offset

    def _stands_for(self, play: Play) -> Rank:
        """The rank a play without its `rank` stands for (as `Match.check` would resolve it)."""
        rules = self.rules
        naturals = [r for r in rules.natural_ranks if play.cards.count_rank(r)]
        if len(naturals) == 1:
            return naturals[0]
        if naturals:
            raise ActionIndexError(f"{play}: natural cards of more than one rank")
        if play.declared is not None:
            return play.declared
        return rules.wild_lead_rank if rules.joker_alone is JokerAlone.DECLARED else Rank.JOKER

    def _digit(self, kind: Rank, bits: int) -> int:
        """How many cards of `kind` are in `bits`, or, with suit_order, the 4-bit set of their suits."""
        if kind is Rank.JOKER or not self._suits:
            return CardSet.from_bits(bits).count_rank(kind)
        return sum(1 << suit for suit in Suit if slot_count(bits, card_slot(kind, suit)))

    def _offset(self, rank: Rank, natural: int, wild: int) -> int:
        if rank in self.rules.wild_ranks:  # wild cards alone, leading as wild_lead_rank
            return wild - 1
        if self._wild_alone:
            return natural * self._wild_radix + wild - 1
        return (natural - 1) * self._wild_radix + wild

    def _digits(self, rank: Rank, offset: int) -> tuple[int, int]:
        """(natural digit, wild code) of the play at `offset` within its rank."""
        if rank in self.rules.wild_ranks:
            return 0, offset + 1
        if self._wild_alone:
            return divmod(offset + 1, self._wild_radix)
        natural, wild = divmod(offset, self._wild_radix)
        return natural + 1, wild

    # ------------------------------------------------------------------ give-backs and requests

    def _combo_index(self, cards: CardSet, kinds: dict[Kind, int], numbered: dict[tuple[Kind, ...], int],
                     what: str) -> int:
        exact = what == "request" or self._suits
        combo = [(card.rank, card.suit if exact else None) for card in cards]
        found = None
        if all(kind in kinds for kind in combo):
            found = numbered.get(tuple(sorted(combo, key=kinds.__getitem__)))
        if found is None:
            raise ActionIndexError(f"{what} {cards}: these rules have no such {what}")
        return found


def refuse_shaped(rules: Rules, what: str) -> None:
    """ActionSpaceError for rules whose plays the encoding does not number: sequences, and suits under a lock."""
    for option in ("sequences", "suit_lock"):
        if getattr(rules, option):
            raise ActionSpaceError(option, f"{what} is not defined for {option} yet (docs/RULES-DECISIONS.md)")


@lru_cache(maxsize=64)
def action_space(rules: Rules) -> ActionSpace:
    """The action space of `rules` (built once per rule set); ActionSpaceError when it is too large."""
    return ActionSpace(rules)


# ---------------------------------------------------------------------- counting


def action_count(rules: Rules) -> int:
    """How many indices the space of `rules` has (without building it, so refused rules can be measured)."""
    plays = sum(count for _, count in _rank_slots(rules))
    give_backs = _multiset_count(_give_back_kinds(rules), _give_back_sizes(rules), rules) if rules.exchange else 0
    requests = _multiset_count(_card_kinds(rules), REQUEST_SIZES, rules) if rules.exchange_requests else 0
    return 1 + plays + give_backs + requests


def _culprit(rules: Rules) -> str:
    """The option whose smallest value shrinks the space most (ties: wild ranks, jokers, decks, suit order)."""
    smallest: tuple[int, str] | None = None
    for option, least in (("wild_ranks", ()), ("jokers", 0), ("decks", 1), ("suit_order", None)):
        try:
            count = action_count(rules.replace(**{option: least}))
        except RulesError:
            continue
        if smallest is None or count < smallest[0]:
            smallest = (count, option)
    return "wild_ranks" if smallest is None else smallest[1]


def _natural_radix(rules: Rules) -> int:
    """Values of a play's natural digit: a count 0..4 x decks, or a set of suits (16 with suit_order)."""
    return 16 if rules.suit_order is not None else 4 * rules.decks + 1


def _wild_kinds(rules: Rules) -> tuple[tuple[Rank, int], ...]:
    """The kinds of wild card, each with the values of its digit: jokers (0..all of them), then each wild rank."""
    kinds: list[tuple[Rank, int]] = []
    if rules.jokers and rules.joker_wild:
        kinds.append((Rank.JOKER, rules.jokers * rules.decks + 1))
    kinds += [(rank, _natural_radix(rules)) for rank in rules.rank_order if rank in rules.wild_ranks]
    return tuple(kinds)


def _wild_alone(rules: Rules) -> bool:
    """True when wild cards alone may stand for a natural rank (a declared follow, or a lead as wild_lead_rank)."""
    return rules.joker_alone is JokerAlone.DECLARED and rules.is_wild_possible


def _rank_slots(rules: Rules) -> list[tuple[Rank, int]]:
    """Each rank a play may stand for, weakest first in the normal order, with how many plays stand for it."""
    wild = prod(radix for _, radix in _wild_kinds(rules))
    natural = _natural_radix(rules)
    alone = _wild_alone(rules)
    slots = [(rank, natural * wild - 1 if alone else (natural - 1) * wild) for rank in rules.natural_ranks]
    if alone and rules.wild_lead_rank in rules.wild_ranks:
        slots.append((rules.wild_lead_rank, wild - 1))
    if rules.jokers and rules.joker_alone is not JokerAlone.DECLARED:
        slots.append((Rank.JOKER, rules.jokers * rules.decks))
    return sorted(slots, key=lambda slot: rules.strength(slot[0]))


def _give_back_sizes(rules: Rules) -> tuple[int, ...]:
    return EXCHANGE_SIZES if rules.players >= 4 else EXCHANGE_SIZES[1:]


def _give_back_kinds(rules: Rules) -> tuple[Kind, ...]:
    """Kinds of card a give-back counts: exact cards with suit_order, else ranks (RULES 1.8); the joker last."""
    if rules.suit_order is not None:
        return _card_kinds(rules)
    kinds = [(rank, None) for rank in rules.rank_order]
    return tuple(kinds + ([(Rank.JOKER, None)] if rules.jokers else []))


def _card_kinds(rules: Rules) -> tuple[Kind, ...]:
    """Every card by rank in the normal order and suit, then the joker."""
    kinds: list[Kind] = [(rank, suit) for rank in rules.rank_order for suit in Suit]
    return tuple(kinds + ([(Rank.JOKER, None)] if rules.jokers else []))


def _copies(kind: Kind, rules: Rules) -> int:
    """How many cards of `kind` the deck holds."""
    rank, suit = kind
    if rank is Rank.JOKER:
        return rules.jokers * rules.decks
    return rules.decks if suit is not None else 4 * rules.decks


def _multisets(kinds: Sequence[Kind], sizes: Sequence[int], rules: Rules) -> tuple[tuple[Kind, ...], ...]:
    """Every multiset of each size over `kinds` that the deck can hold, fewer cards first, kinds in order."""
    out: list[tuple[Kind, ...]] = []
    for size in sizes:
        for combo in combinations_with_replacement(kinds, size):
            if all(combo.count(kind) <= _copies(kind, rules) for kind in set(combo)):
                out.append(combo)
    return tuple(out)


def _multiset_count(kinds: Sequence[Kind], sizes: Sequence[int], rules: Rules) -> int:
    """len(_multisets(...)) for sizes up to 2, by formula."""
    n = len(kinds)
    pairs = sum(1 for kind in kinds if _copies(kind, rules) >= 2)
    by_size = {0: 1, 1: n, 2: n * (n - 1) // 2 + pairs}
    return sum(by_size[size] for size in sizes)


def _mixed_digits(code: int, kinds: Sequence[tuple[Rank, int]]) -> list[int]:
    """The digits of a wild code, one per kind, the first kind's the most significant."""
    digits = []
    for _, radix in reversed(kinds):
        code, digit = divmod(code, radix)
        digits.append(digit)
    return digits[::-1]


def _digit_text(kind: Rank, digit: int, suits: bool) -> list[str]:
    if not suits:
        return [str(kind)] * digit
    return [f"{kind}{suit}" for suit in Suit if digit >> suit & 1]


def _kinds_text(combo: Sequence[Kind]) -> str:
    return " ".join(f"{rank}{'' if suit is None else suit}" for rank, suit in combo)
