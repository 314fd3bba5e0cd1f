"""A match's play loop as plain numbers, for a playout written in compiled code (the expert's,
bots/expert/_playout.c): on rank counts where plays are a rank, a size and wild cards, on cards where suits matter."""

from __future__ import annotations

from collections.abc import Sequence

from president_engine.cards import SLOT_BITS, CardSet, bits_size
from president_engine.match import Match

PlayoutState = tuple[int, int, int, int, int, int, int, int, int, int, int, int, int, int, tuple[int, ...],
                     tuple[int, ...], bytes, bytes]
"""`playout_state`'s numbers: (turn, table position or -1, table size, table strength, revolution, 11-back,
direction, passed mask, last player, last play, leader, holders, four-singles run position or -1, run length,
seats out in order, player by seat, each seat's count of every natural rank by position in the normal order
(0 for a wild rank), each seat's count of wild cards)."""


def playout_state(m: Match) -> PlayoutState | None:
    """The play loop of `m` as plain numbers (seats by index, ranks by position in `rules.rank_order`), for a
    playout written in compiled code on rank counts (the expert's, bots/expert/_playout.c).

    None unless that loop is all that is left: the play phase of the match's last deal (a world from a view), on a
    table whose plays are a rank, a size and a number of wild cards (no suits or jokers, at most one wild rank,
    whose cards alone are declared as Rules requires) with no pass limit (its random places are the engine's to
    draw)."""
    t = m._t
    rules = m.rules
    if not (m._playing and not rules.suits_matter and not t.has_jokers and len(rules.wild_ranks) <= 1
            and not t.pass_limit and m._horizon == m.deal):
        return None
    normal = t.strength[0]
    table = m._table
    run = m._run_rank
    if t.simple:  # the rows of plays by rank already hold the counts: several times cheaper than counting bits
        counts = bytes(len(plays) for row in m._bp for plays in row)
    else:
        naturals = [0 if rank in rules.wild_ranks else t.bucket_mask[rank] for rank in rules.rank_order]
        counts = bytes(bits_size(hand & mask) for hand in m._hands for mask in naturals)
    wilds = bytes(bits_size(hand & t.wild_mask) for hand in m._hands)
    return (m._turn, -1 if table is None or table.rank is None else normal[table.rank],
            0 if table is None else table.size, m._table_strength, m._rev, m._back, m._direction, m._mask, m._last,
            m._last_play, m._leader, m._holders, -1 if run is None else normal[run], m._run_len, tuple(m._out),
            tuple(m._seat_player), counts, wilds)


SuitedPlayoutState = tuple[int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int,
                           int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]
"""`suited_playout_state`'s numbers: (turn, table rank or -1, table size, table strength, table is a sequence,
table is jokers alone, table's suit set, revolution, 11-back, direction, passed mask, last player, last play,
leader, holders, four-singles run rank or -1, run length, locked suit set, passes in a row, seats out in order,
player by seat, each seat's hand as card bits)."""


def suited_playout_state(m: Match) -> SuitedPlayoutState | None:
    """The play loop of `m` as plain numbers for a playout in compiled code on cards (the expert's,
    bots/expert/_playout.c `finish_suited`): seats by index, a rank as its value - 2 (the joker rank 13), a card
    as bit `slot` of a hand.

    None unless that loop is all that is left (the play phase of the match's last deal) on a table whose suits
    matter with one deck, at most one joker, no wild ranks and no suit order: the Daifugo contest's."""
    t = m._t
    rules = m.rules
    if not (m._playing and rules.suits_matter and rules.decks == 1 and rules.jokers <= 1 and not rules.wild_ranks
            and rules.suit_order is None and m._horizon == m.deal):
        return None
    table = m._table
    facts = t.facts[id(table)] if table is not None else None
    run = m._run_rank
    return (m._turn, -1 if table is None or table.rank is None else table.rank - 2,
            0 if table is None else table.size, m._table_strength, int(facts is not None and facts.sequence),
            int(facts is not None and facts.lone_joker), 0 if facts is None else facts.suits, m._rev, m._back,
            m._direction, m._mask, m._last, m._last_play, m._leader, m._holders, -1 if run is None else run - 2,
            m._run_len, m._lock, m._passes, tuple(m._out), tuple(m._seat_player),
            tuple(card_bits(hand) for hand in m._hands))


def card_bits(bits: int) -> int:
    """A hand of one deck as one bit per card (bit `slot`), from the engine's counts of SLOT_BITS bits a slot."""
    out = 0
    while bits:
        low = bits & -bits
        out |= 1 << ((low.bit_length() - 1) // SLOT_BITS)
        bits ^= low
    return out


def with_hands(m: Match, state: PlayoutState, hands: Sequence[CardSet]) -> PlayoutState:
    """`playout_state` of the world that `m`'s view makes with `hands[p]` as player p's hand (`state`:
    `playout_state(m)`): every world of one view shares all but the hands, so a search makes the rest once."""
    t = m._t
    rules = m.rules
    naturals = [0 if rank in rules.wild_ranks else t.bucket_mask[rank] for rank in rules.rank_order]
    seated = [hands[p].bits for p in m._seat_player]
    counts = bytes(bits_size(hand & mask) for hand in seated for mask in naturals)
    wilds = bytes(bits_size(hand & t.wild_mask) for hand in seated)
    return (*state[:16], counts, wilds)


def suited_with_hands(m: Match, state: SuitedPlayoutState, hands: Sequence[CardSet]) -> SuitedPlayoutState:
    """`suited_playout_state` of the world that `m`'s view makes with `hands[p]` as player p's hand, as
    `with_hands`."""
    return (*state[:21], tuple(card_bits(hands[p].bits) for p in m._seat_player))
