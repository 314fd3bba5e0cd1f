"""A player's observation as a flat list of numbers in [0, 1], for learning bots.

Built from the player's `Observation` alone (never from the match), so it
holds nothing that player may not know.  The layout depends only on the
rules (`observation_fields`); docs/learning.md describes every field.
Axes used by the fields:

- ranks: the 13 ranks in the normal rank order (low to high), then the joker;
- cards: the 52 natural cards by slot (rank 2..A, suits C D H S), only with
  `suit_order`, where suits decide who beats whom;
- seats: relative to the observer, in seat order: the observer first, then
  the next seat (+1), and so on (seats change between deals with
  `seating = by_rank`; the direction of play is its own field).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from president_engine.action_space import refuse_shaped
from president_engine.cards import JOKER_SLOT, CardSet, Rank, slot_count
from president_engine.events import Passed, Played
from president_engine.observation import Observation
from president_engine.phase import Phase
from president_engine.roles import Role
from president_engine.rules import Rules

RANKS = 14
"""The rank axis: 13 ranks in the normal order, then the joker."""
CARDS = 52
ROLES: tuple[Role, ...] = tuple(Role)
PHASES: tuple[Phase, ...] = tuple(Phase)
MAX_OWED = 2


@dataclass(frozen=True, kw_only=True, slots=True)
class Field:
    """One named run of numbers in the tensor."""

    name: str
    start: int
    size: int
    doc: str

    @property
    def stop(self) -> int:
        return self.start + self.size


@lru_cache(maxsize=64)
def observation_fields(rules: Rules) -> tuple[Field, ...]:
    """The tensor's fields for `rules`, in order; the tensor's length is the last field's `stop`.

    ActionSpaceError for `sequences` and `suit_lock`, whose suits and joker cells it does not encode yet.
    """
    refuse_shaped(rules, "the observation tensor")
    n = rules.players
    specs: list[tuple[str, int, str]] = [
        ("hand", RANKS, "cards of each rank in the observer's hand / copies in the deck"),
        ("played", RANKS, "cards of each rank played this deal / copies in the deck"),
    ]
    if rules.suit_order is not None:
        specs += [("hand_cards", CARDS, "1 for each natural card in the observer's hand"),
                  ("played_cards", CARDS, "1 for each natural card played this deal")]
    specs += [
        ("hand_sizes", n, "cards held by each seat / the largest deal (+2 for the exchange), at most 1"),
        ("roles", n * len(ROLES), "each seat's role, one-hot (neutral, president, vice_president, vice_scum, scum)"),
        ("phase", len(PHASES), "one-hot: request, give_back, play, over"),
        ("owed", 1, "cards the observer must name or give back now / 2"),
        ("to_act", n, "the seat to act, one-hot (all 0 when the match is over)"),
        ("leading", 1, "1 when the trick is empty: the player to act leads"),
        ("table_rank", RANKS, "the rank the play to beat stands for, one-hot (declared ranks included)"),
        ("table_size", _max_play(rules), "cards in the play to beat, one-hot from 1 card"),
    ]
    if rules.suit_order is not None:
        specs.append(("table_cards", CARDS, "1 for each natural card of the play to beat"))
    specs += [
        ("table_seat", n, "the seat that made the play to beat, one-hot"),
        ("passed_since_play", n, "1 for each seat that passed (or was skipped) since the last play of the trick"),
        ("passed_in_trick", n, "1 for each seat that passed (or was skipped) in this trick"),
        ("acted_in_trick", n, "1 for each seat that played or passed in this trick"),
        ("strength", RANKS, "each rank's place in the current order, (strength + 1) / 14: revolutions change it"),
        ("reversed", 1, "1 while a revolution has reversed the rank order"),
        ("direction", 1, "1 for clockwise (+1), 0 for -1"),
    ]
    if rules.exchange:
        specs += [("received", RANKS, "cards of each rank the observer received in this deal's exchange / 2"),
                  ("given", RANKS, "cards of each rank the observer gave in this deal's exchange / 2")]
    specs.append(("scores", n, "each seat's points / the score scale (target_score, else best place x deals)"))
    fields = []
    start = 0
    for name, size, doc in specs:
        fields.append(Field(name=name, start=start, size=size, doc=doc))
        start += size
    return tuple(fields)


def observation_size(rules: Rules) -> int:
    return observation_fields(rules)[-1].stop


def observation_tensor(obs: Observation) -> list[float]:
    """`obs` as numbers in [0, 1], laid out as `observation_fields(obs.rules)`."""
    rules = obs.rules
    layout = _layout(rules)
    at = layout.starts
    out = [0.0] * layout.size
    n = rules.players
    me = obs.seats.index(obs.player)
    seat_of = {obs.seats[(me + k) % n]: k for k in range(n)}
    layout.by_rank(out, at["hand"], obs.hand, layout.per_copy)
    layout.by_rank(out, at["played"], obs.played, layout.per_copy)
    if rules.suit_order is not None:
        _by_card(out, at["hand_cards"], obs.hand)
        _by_card(out, at["played_cards"], obs.played)
    for player, size in enumerate(obs.hand_sizes):
        out[at["hand_sizes"] + seat_of[player]] = min(1.0, size / layout.largest_hand)
    for player, role in enumerate(obs.roles):
        out[at["roles"] + seat_of[player] * len(ROLES) + ROLES.index(role)] = 1.0
    out[at["phase"] + PHASES.index(obs.phase)] = 1.0
    out[at["owed"]] = obs.owed / MAX_OWED
    if obs.to_act is not None:
        out[at["to_act"] + seat_of[obs.to_act]] = 1.0
    table = obs.table
    if table is None:
        out[at["leading"]] = float(obs.phase is Phase.PLAY)
    else:
        assert table.rank is not None
        out[at["table_rank"] + layout.axis.index(table.rank)] = 1.0
        out[at["table_size"] + min(table.size, layout.max_play) - 1] = 1.0
        if rules.suit_order is not None:
            _by_card(out, at["table_cards"], table.cards)
        if obs.table_player is not None:
            out[at["table_seat"] + seat_of[obs.table_player]] = 1.0
    since_play = True
    for entry in reversed(obs.trick):
        seat = seat_of[entry.player]
        out[at["acted_in_trick"] + seat] = 1.0
        if isinstance(entry, Played):
            since_play = False
        elif isinstance(entry, Passed):
            out[at["passed_in_trick"] + seat] = 1.0
            if since_play:
                out[at["passed_since_play"] + seat] = 1.0
    for axis, rank in enumerate(layout.axis):
        out[at["strength"] + axis] = (obs.strength(rank) + 1) / RANKS
    out[at["reversed"]] = float(obs.reversed)
    out[at["direction"]] = float(obs.direction > 0)
    if rules.exchange:
        for moved in obs.exchange:
            if moved.cards is not None and obs.player in (moved.receiver, moved.giver):
                name = "received" if moved.receiver == obs.player else "given"
                layout.by_rank(out, at[name], moved.cards, layout.per_owed)
    for player, score in enumerate(obs.scores):
        out[at["scores"] + seat_of[player]] = min(1.0, score / layout.score_scale)
    return out


class _Layout:
    """What `observation_tensor` needs of a rule set, computed once."""

    def __init__(self, rules: Rules) -> None:
        fields = observation_fields(rules)
        self.starts = {f.name: f.start for f in fields}
        self.size = fields[-1].stop
        self.axis: tuple[Rank, ...] = (*rules.rank_order, Rank.JOKER)
        copies = [4 * rules.decks] * 13 + [rules.jokers * rules.decks]
        self.per_copy = [1 / c if c else 0.0 for c in copies]
        self.per_owed = [1 / MAX_OWED] * RANKS
        self.largest_hand = -(-rules.deck_size // rules.players) + MAX_OWED
        self.max_play = _max_play(rules)
        self.score_scale = rules.target_score or max(max(rules.points), 1) * (rules.deals or 1)

    def by_rank(self, out: list[float], start: int, cards: CardSet, scale: list[float]) -> None:
        """Write the cards of each rank of the axis, times that rank's scale."""
        for axis, rank in enumerate(self.axis):
            count = cards.count_rank(rank)
            if count:
                out[start + axis] = count * scale[axis]


@lru_cache(maxsize=64)
def _layout(rules: Rules) -> _Layout:
    return _Layout(rules)


def _max_play(rules: Rules) -> int:
    """The most cards one play can hold: every card of a rank with every wild card, or every joker alone."""
    wild = 4 * rules.decks * len(rules.wild_ranks) + (rules.jokers * rules.decks if rules.joker_wild else 0)
    return max(4 * rules.decks + wild, rules.jokers * rules.decks)


def _by_card(out: list[float], start: int, cards: CardSet) -> None:
    """1 for each natural card in `cards` (suit_order means a single deck: one copy of each)."""
    bits = cards.bits
    for slot in range(JOKER_SLOT):
        if slot_count(bits, slot):
            out[start + slot] = 1.0
