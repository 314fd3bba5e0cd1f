"""A deal from its start to its end: dealing, the exchange, the first lead, scoring, and the next deal.

The trick play (`Match.apply` of a play or a pass) is in match.py; these are
the steps between tricks that a deal's start and end make, written as
functions of the `Match` whose state they change.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Final

from president_engine.actions import Action, GiveBack, Request
from president_engine.cards import SLOT_BITS, SLOT_MAX, CardSet, Rank, Suit, bits_size, card_slot
from president_engine.deal import shuffled_deal
from president_engine.events import CardsGiven, CardsRequested, DealEnded, DealStarted, HandDealt, MatchEnded
from president_engine.exchange import exchange_pairs, tribute_bits
from president_engine.movegen import bucket_row
from president_engine.phase import Phase
from president_engine.roles import Role, roles_by_place
from president_engine.rules import DealFrom, FirstLead, NextLead, Seating

if TYPE_CHECKING:
    from president_engine.match import Match

_THREE_OF_CLUBS_BITS: Final = 1 << (card_slot(Rank.THREE, Suit.CLUBS) * SLOT_BITS)
_THREE_OF_DIAMONDS_BITS: Final = 1 << (card_slot(Rank.THREE, Suit.DIAMONDS) * SLOT_BITS)


def _holder_of(m: Match, card_bits: int) -> int:
    """The first seat holding the card (seat 0 when nobody does: it may be out of a short deal)."""
    return next((s for s in range(m._n) if m._hands[s] & (SLOT_MAX * card_bits)), 0)


def _drawn_order(m: Match, what: str, items: list[int]) -> list[int]:
    """`items` in an order drawn from the seed and the deal, as the shuffle is: sorted by 64-bit little-endian
    keys read from SHAKE-256 of ``president/<seed>/<deal>/<what>``, one per item in the order given."""
    digest = hashlib.shake_256(f"president/{m.seed}/{m.deal}/{what}".encode()).digest(8 * len(items))
    keys = [int.from_bytes(digest[8 * i:8 * i + 8], "little") for i in range(len(items))]
    return [item for _, item in sorted(zip(keys, items, strict=True))]


def _seat_in_order(m: Match, players: tuple[int, ...] | list[int]) -> None:
    m._seat_player = list(players)
    for seat, player in enumerate(players):
        m._player_seat[player] = seat


def start_deal(m: Match) -> None:
    """Deal the next deal (seats by rank, drawn or given; the shuffle or explicit hands) and begin its exchange
    or its play."""
    rules = m.rules
    n = m._n
    m.deal += 1
    deal = m.deal
    fresh = rules.fresh_deal(deal)
    if fresh:
        m.roles = [Role.NEUTRAL] * n
    given = m._explicit_seats[deal - 1] if deal <= len(m._explicit_seats) else None
    if given is not None:  # an explicit deal's seats take the place of the rules' seating
        _seat_in_order(m, given)
    elif rules.reseats(deal):
        _seat_in_order(m, _drawn_order(m, "seats", list(range(n))))
    elif deal >= 2 and rules.seating is Seating.BY_RANK:
        _seat_in_order(m, m.last_places)
    if rules.deal_from is DealFrom.PRESIDENT:
        start = _drawn_order(m, "dealer", list(range(n)))[0] if fresh else m._player_seat[
            m.roles.index(Role.PRESIDENT)]
    else:
        start = 0 if deal == 1 else (m._player_seat[m.last_places[-1]] + 1) % n
    dealer = m._seat_player[(start - 1) % n]
    hands = m._explicit[deal - 1] if deal <= len(m._explicit) else shuffled_deal(rules, m.seed, deal, start)
    m._hands = [h.bits for h in hands]
    sizes = m._sizes = [bits_size(h) for h in m._hands]
    if m._t.simple:
        m._bp = [bucket_row(m._t, h) for h in m._hands]
    m._holders = n
    m._out = []
    m._last_play = -1
    m._passes = 0
    m._direction = 1
    m._rev = 0
    seats = tuple(m._seat_player)
    m.deal_hands.append(tuple(hands))
    m.deal_seats.append(seats)
    by_player = m._player_seat
    m.events.append(DealStarted(deal, seats, dealer, tuple(sizes[by_player[p]] for p in range(n)),
                                tuple(m.roles)))
    m.events.extend(HandDealt(p, hands[by_player[p]]) for p in range(n))
    m._exchange_steps = []
    m._requests = {}
    m._pending_tribute = []
    if not fresh and rules.exchange:
        pair_players = list(exchange_pairs(m.roles))
        if rules.exchange_requests:
            m._exchange_steps += [(Phase.REQUEST, r, g, o) for r, g, o in pair_players]
        m._exchange_steps += [(Phase.GIVE_BACK, r, g, o) for r, g, o in pair_players]
        m._pending_tribute = pair_players
        if not rules.exchange_requests:
            _pay_tributes(m)
    m._table = None
    m._start_trick(0)
    next_phase(m)

def next_phase(m: Match) -> None:
    """The exchange's next step, or, once it is done, the first lead of the deal."""
    if m._exchange_steps:
        m.phase = m._exchange_steps[0][0]
        m._playing = False
        return
    m.phase = Phase.PLAY
    m._playing = True
    rules = m.rules
    lead = rules.first_lead if rules.fresh_deal(m.deal) else rules.next_lead
    if lead is FirstLead.SEAT0:
        leader = 0
    elif lead is FirstLead.THREE_OF_CLUBS:
        leader = _holder_of(m, _THREE_OF_CLUBS_BITS)
    elif lead is FirstLead.THREE_OF_DIAMONDS or lead is NextLead.THREE_OF_DIAMONDS:
        leader = _holder_of(m, _THREE_OF_DIAMONDS_BITS)
    else:
        leader = m._player_seat[m.roles.index(Role.PRESIDENT if lead is NextLead.PRESIDENT else Role.SCUM)]
    m._start_trick(leader)
    m.events.append(m._t.play_started[m._seat_player[leader]])

def exchange_action(m: Match, action: Action) -> None:
    """Apply the request or the give-back of the exchange step now due (already checked)."""
    step, receiver, giver, _ = m._exchange_steps.pop(0)
    if step is Phase.REQUEST:
        assert isinstance(action, Request)
        m._requests[receiver] = action.cards.bits
        m.events.append(CardsRequested(receiver, giver, action.cards))
        if not m._exchange_steps or m._exchange_steps[0][0] is not Phase.REQUEST:
            _pay_tributes(m)
    else:
        assert isinstance(action, GiveBack)
        _move(m, receiver, giver, action.cards.bits, tribute=False)
    next_phase(m)

def _pay_tributes(m: Match) -> None:
    for receiver, giver, owed in m._pending_tribute:
        hand = m._hands[m._player_seat[giver]]
        given = tribute_bits(hand, m._requests.get(receiver, 0), owed, m._t.tribute_slots)
        _move(m, giver, receiver, given, tribute=True)

def _move(m: Match, giver: int, receiver: int, bits: int, *, tribute: bool) -> None:
    gs, rs = m._player_seat[giver], m._player_seat[receiver]
    size = bits_size(bits)
    m._hands[gs] -= bits
    m._sizes[gs] -= size
    m._hands[rs] += bits
    m._sizes[rs] += size
    _refresh_buckets(m, gs)
    _refresh_buckets(m, rs)
    m.events.append(CardsGiven(giver, receiver, size, tribute, CardSet.from_bits(bits)))

def end_deal(m: Match) -> None:
    """Score the deal once one player holds cards, give the roles, then end the match or deal again."""
    last = next(s for s in range(m._n) if m._sizes[s])
    m._out.append(last)
    _score_deal(m)


def end_deal_by_passes(m: Match) -> None:
    """The pass limit (UECDA 4.8): the players still holding cards take the places left in a random order.

    The order is a pure function of the seed and the deal, as the shuffle is: by 64-bit little-endian keys
    read from SHAKE-256 of ``president/<seed>/<deal>/passes``, one per seat holding cards, in seat order;
    or, for an explicit deal given one (`Match.pass_orders`), the order in which that lists their players.
    """
    holders = [s for s in range(m._n) if m._sizes[s]]
    given = m.pass_orders[m.deal - 1] if m.deal <= len(m.pass_orders) else None
    m._out.extend(_drawn_order(m, "passes", holders) if given is None
                  else sorted(holders, key=lambda s: given.index(m._seat_player[s])))
    _score_deal(m)


def _score_deal(m: Match) -> None:
    """Every place is known: score the deal, give the roles, then end the match or deal again."""
    places = tuple(m._seat_player[s] for s in m._out)
    points = [0] * m._n
    for place, player in enumerate(places):
        points[player] = m.rules.points[place]
        m.scores[player] += points[player]
    m.last_places = places
    m.events.append(DealEnded(m.deal, places, tuple(points), tuple(m.scores)))
    by_place = roles_by_place(m._n)
    for place, player in enumerate(places):
        m.roles[player] = by_place[place]
    rules = m.rules
    done = (rules.deals is not None and m.deal >= rules.deals) or (
        rules.target_score is not None and max(m.scores) >= rules.target_score) or (
        m._horizon is not None and m.deal >= m._horizon)
    if done:
        best = max(m.scores)
        m.winner = next(p for p in places if m.scores[p] == best)
        m.phase = Phase.OVER
        m._playing = False
        m.is_over = True
        m.events.append(MatchEnded(m.winner, tuple(m.scores), places))
        return
    start_deal(m)


def _refresh_buckets(m: Match, s: int) -> None:
    if m._t.simple:
        m._bp[s] = bucket_row(m._t, m._hands[s])
