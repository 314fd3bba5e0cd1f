"""Determinized worlds: the state a view shows, with the cards it hides filled in, for search.

A search bot sees an observation, guesses the hidden hands (and hidden
Norwegian requests), and plays the guess out; `world_from_view` builds the
`Match` that goes on from there exactly as the real match would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from president_engine.cards import SLOT_BITS, CardSet, Rank, bits_size
from president_engine.errors import DealError
from president_engine.events import Passed, Played
from president_engine.exchange import exchange_pairs
from president_engine.match import Match
from president_engine.movegen import bucket_row
from president_engine.observation import Observation, PublicObservation
from president_engine.phase import Phase
from president_engine.tables import ALL_PASS, ONE_ORBIT, trick_state


def world_from_view(view: PublicObservation, hands: Sequence[CardSet], *,
                    requests: Mapping[int, CardSet] | None = None) -> Match:
    """The state `view` shows, with `hands[p]` as player p's hand.

    Everything public comes from the view (a spectator's or a player's own);
    the cards it hides are `hands`, and, in a Norwegian exchange, `requests`:
    receiver -> the cards named in requests already made that the view does
    not show (none by default).  The state goes on exactly as the match
    would under the same actions, to the end of this deal, where it ends
    (`is_over`; `scores` add this deal's points to the view's).  Its event
    log starts empty and holds what happens after the view, so its own
    observations and records do not know the past.  Hands that do not fit
    the view raise DealError.
    """
    if view.phase is Phase.OVER:
        raise ValueError("the match is over: there is nothing to search")
    rules = view.rules
    n = rules.players
    m = Match.__new__(Match)
    m._begin(rules, 0, [], [])
    t = m._t
    if len(hands) != n:
        raise DealError(f"{len(hands)} hands for {n} players")
    for p, hand in enumerate(hands):
        if len(hand) != view.hand_sizes[p]:
            raise DealError(f"player {p} holds {view.hand_sizes[p]} cards, not {len(hand)}")
    if isinstance(view, Observation) and hands[view.player] != view.hand:
        raise DealError(f"player {view.player}'s hand is {view.hand}, not {hands[view.player]}")
    if not sum(hands, view.played) <= t.deck:
        raise DealError("the hands and the cards played hold more copies of a card than the deck has")
    m._horizon = view.deal
    m.deal = view.deal
    m.scores = list(view.scores)
    m.roles = list(view.roles)
    m._seat_player = list(view.seats)
    for seat, player in enumerate(view.seats):
        m._player_seat[player] = seat
    seat_of = m._player_seat
    m._hands = [hands[p].bits for p in view.seats]
    m._sizes = [view.hand_sizes[p] for p in view.seats]
    if t.simple:
        m._bp = [bucket_row(t, h) for h in m._hands]
    m._out = [seat_of[p] for p in view.places]
    m._holders = n - len(view.places)
    m._direction = view.direction
    m._rev = 1 if view.reversed else 0
    m._start_trick(0)
    if view.phase is not Phase.PLAY:
        _resume_exchange(m, view, requests or {})
        return m
    actor = view.to_act
    assert actor is not None
    m._start_trick(seat_of[view.trick[0].player if view.trick else actor])
    m._turn = seat_of[actor]
    table = view.table
    m._lock, m._back = trick_state(t, [entry.play for entry in view.trick if isinstance(entry, Played)])
    for entry in view.trick:
        bit = 1 << seat_of[entry.player]
        if isinstance(entry, Played):
            if t.trick_mode == ALL_PASS:
                m._mask = 0
            elif t.trick_mode == ONE_ORBIT:
                m._mask |= bit
            if t.revolution_singles:
                m._count_single(entry.play.size, entry.play.rank or Rank.JOKER)
        else:
            m._mask |= bit
            if t.revolution_singles and not entry.skipped:
                m._run_rank, m._run_len = None, 0
    if t.pass_limit:  # passes of earlier tricks are not in the view: a world counts from this trick
        trailing = 0
        for entry in view.trick:
            trailing = trailing + 1 if isinstance(entry, Passed) and not entry.skipped else 0
        m._passes = trailing
    if table is not None and table.rank is not None:
        m._last_play = seat_of[view.table_player] if view.table_player is not None else -1
        m._table = t.interned(table)
        m._table_strength = t.facts[id(m._table)].strength[m._rev ^ m._back]
        m._last = seat_of[view.table_player] if view.table_player is not None else -1
    return m


def _resume_exchange(m: Match, view: PublicObservation, requests: Mapping[int, CardSet]) -> None:
    """The exchange steps still to come at `view` (REQUEST or GIVE_BACK), and the requests made before it."""
    pairs = list(exchange_pairs(m.roles))
    if view.phase is Phase.REQUEST:
        m._pending_tribute = pairs
        done = next(i for i, pair in enumerate(pairs) if pair.receiver == view.to_act)
        m._requests = {pair.receiver: requests[pair.receiver].bits if pair.receiver in requests else 0
                       for pair in pairs[:done]}
        m._exchange_steps = [(Phase.REQUEST, r, g, o) for r, g, o in pairs[done:]]
        m._exchange_steps += [(Phase.GIVE_BACK, r, g, o) for r, g, o in pairs]
    else:
        done = sum(1 for given in view.exchange if not given.tribute)
        m._exchange_steps = [(Phase.GIVE_BACK, r, g, o) for r, g, o in pairs[done:]]
    m.phase = m._exchange_steps[0][0]
    m._playing = False


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
