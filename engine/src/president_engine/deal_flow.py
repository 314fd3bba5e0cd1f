"""A deal from its start to its end: who sits where, the hands, the exchange, the first lead and the score.

The trick play is in match.py; these are the steps between tricks that a
deal's start and end make, as functions of plain values that return what
`Match` then applies in its own methods.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final

from president_engine.cards import SLOT_BITS, SLOT_MAX, CardSet, Rank, Suit, bits_size, card_slot
from president_engine.deal import shuffled_deal
from president_engine.events import DealEnded, DealStarted, Event, HandDealt, MatchEnded
from president_engine.exchange import ExchangePair, exchange_pairs
from president_engine.phase import Phase
from president_engine.roles import Role, roles_by_place
from president_engine.rules import DealFrom, FirstLead, NextLead, Rules, Seating

_THREE_OF_CLUBS_BITS: Final = 1 << (card_slot(Rank.THREE, Suit.CLUBS) * SLOT_BITS)
_THREE_OF_DIAMONDS_BITS: Final = 1 << (card_slot(Rank.THREE, Suit.DIAMONDS) * SLOT_BITS)

ExchangeStep = tuple[Phase, int, int, int]
"""(phase, receiver, giver, cards owed) of one step of a deal's exchange."""


class DealStart:
    """A deal as it is dealt: the roles it plays with, its seats, its hands and its exchange.

    A plain class rather than a frozen dataclass: mypyc compiles its constructor, where a frozen dataclass's runs
    interpreted, once a deal."""

    __slots__ = ("events", "hands", "roles", "seats", "steps", "tributes")

    def __init__(self, roles: list[Role], seats: tuple[int, ...], hands: tuple[CardSet, ...], events: list[Event],
                 steps: list[ExchangeStep], tributes: list[ExchangePair]) -> None:
        self.roles = roles
        """Each player's role (all neutral on a fresh deal)."""
        self.seats = seats
        """The player at each seat."""
        self.hands = hands
        """The hands dealt, by seat."""
        self.events = events
        """DealStarted, then every player's HandDealt."""
        self.steps = steps
        """The exchange's steps, in order (none on a fresh deal or without an exchange)."""
        self.tributes = tributes
        """The pairs whose tributes are still to pay."""


class DealScore:
    """A deal's end: the scores and roles it gives, and the winner when it ends the match (a plain class as
    `DealStart`)."""

    __slots__ = ("events", "over", "roles", "scores", "winner")

    def __init__(self, scores: list[int], roles: list[Role], events: list[Event], over: bool,
                 winner: int | None) -> None:
        self.scores = scores
        self.roles = roles
        self.events = events
        """DealEnded, and MatchEnded when the match is over."""
        self.over = over
        self.winner = winner


def drawn_order(seed: int, deal: int, what: str, items: list[int]) -> list[int]:
    """`items` in an order drawn from the seed and the deal, as the shuffle is: sorted by 64-bit little-endian
    keys read from SHAKE-256 of ``president/<seed>/<deal>/<what>``, one per item in the order given."""
    digest = hashlib.shake_256(f"president/{seed}/{deal}/{what}".encode()).digest(8 * len(items))
    keys = [int.from_bytes(digest[8 * i:8 * i + 8], "little") for i in range(len(items))]
    return [item for _, item in sorted(zip(keys, items, strict=True))]


def deal_start(rules: Rules, seed: int, deal: int, explicit: Sequence[Sequence[CardSet]],
               explicit_seats: Sequence[tuple[int, ...] | None], roles: Sequence[Role], seats: Sequence[int],
               last_places: tuple[int, ...]) -> DealStart:
    """Deal number `deal` (seats by rank, drawn or given; the shuffle or explicit hands) after a deal that ended
    with `roles`, `seats` and `last_places`."""
    n = rules.players
    fresh = rules.fresh_deal(deal)
    new_roles = [Role.NEUTRAL] * n if fresh else list(roles)
    given = explicit_seats[deal - 1] if deal <= len(explicit_seats) else None
    if given is not None:  # an explicit deal's seats take the place of the rules' seating
        order = tuple(given)
    elif rules.reseats(deal):
        order = tuple(drawn_order(seed, deal, "seats", list(range(n))))
    elif deal >= 2 and rules.seating is Seating.BY_RANK:
        order = last_places
    else:
        order = tuple(seats)
    seat_of = [0] * n
    for seat, player in enumerate(order):
        seat_of[player] = seat
    if rules.deal_from is DealFrom.PRESIDENT:
        start = drawn_order(seed, deal, "dealer", list(range(n)))[0] if fresh else seat_of[
            new_roles.index(Role.PRESIDENT)]
    else:
        start = 0 if deal == 1 else (seat_of[last_places[-1]] + 1) % n
    hands = tuple(explicit[deal - 1]) if deal <= len(explicit) else tuple(shuffled_deal(rules, seed, deal, start))
    events: list[Event] = [DealStarted(deal, order, order[(start - 1) % n],
                                       tuple(bits_size(hands[seat_of[p]].bits) for p in range(n)), tuple(new_roles))]
    events.extend(HandDealt(p, hands[seat_of[p]]) for p in range(n))
    steps: list[ExchangeStep] = []
    tributes: list[ExchangePair] = []
    if not fresh and rules.exchange:
        tributes = list(exchange_pairs(new_roles))
        if rules.exchange_requests:
            steps += [(Phase.REQUEST, r, g, o) for r, g, o in tributes]
        steps += [(Phase.GIVE_BACK, r, g, o) for r, g, o in tributes]
    return DealStart(new_roles, order, hands, events, steps, tributes)


def first_leader(rules: Rules, deal: int, roles: Sequence[Role], hands: Sequence[int], seat_of: Sequence[int]) -> int:
    """The seat that leads the deal's first trick once its exchange is done (`hands`: card bits by seat)."""
    lead = rules.first_lead if rules.fresh_deal(deal) else rules.next_lead
    if lead is FirstLead.SEAT0:
        return 0
    if lead is FirstLead.THREE_OF_CLUBS:
        return _holder_of(hands, _THREE_OF_CLUBS_BITS)
    if lead is FirstLead.THREE_OF_DIAMONDS or lead is NextLead.THREE_OF_DIAMONDS:
        return _holder_of(hands, _THREE_OF_DIAMONDS_BITS)
    return seat_of[roles.index(Role.PRESIDENT if lead is NextLead.PRESIDENT else Role.SCUM)]


def _holder_of(hands: Sequence[int], card_bits: int) -> int:
    """The first seat holding the card (seat 0 when nobody does: it may be out of a short deal)."""
    return next((s for s in range(len(hands)) if hands[s] & (SLOT_MAX * card_bits)), 0)


def last_holder(sizes: Sequence[int]) -> int:
    """The seat of the one player still holding cards, who takes the last place."""
    return next(s for s in range(len(sizes)) if sizes[s])


def end_deal_by_passes(seed: int, deal: int, sizes: Sequence[int], seat_player: Sequence[int],
                       given: Sequence[int] | None) -> list[int]:
    """The pass limit (UECDA 4.8): the seats still holding cards, in the random order they take the places left.

    The order is a pure function of the seed and the deal, as the shuffle is: by 64-bit little-endian keys
    read from SHAKE-256 of ``president/<seed>/<deal>/passes``, one per seat holding cards, in seat order;
    or, for an explicit deal given one (`Match.pass_orders`), the order in which `given` lists their players.
    """
    holders = [s for s in range(len(sizes)) if sizes[s]]
    if given is None:
        return drawn_order(seed, deal, "passes", holders)
    return sorted(holders, key=lambda s: given.index(seat_player[s]))


def deal_score(rules: Rules, deal: int, places: tuple[int, ...], scores: Sequence[int],
               horizon: int | None) -> DealScore:
    """The deal's end once every place is known: its points added to `scores`, the roles by place, and whether
    the match ends (`horizon`: the last deal it plays, None for the rules' end)."""
    n = rules.players
    points = [0] * n
    total = list(scores)
    for place, player in enumerate(places):
        points[player] = rules.points[place]
        total[player] += points[player]
    by_place = roles_by_place(n)
    roles = [Role.NEUTRAL] * n
    for place, player in enumerate(places):
        roles[player] = by_place[place]
    events: list[Event] = [DealEnded(deal, places, tuple(points), tuple(total))]
    over = (rules.deals is not None and deal >= rules.deals) or (
        rules.target_score is not None and max(total) >= rules.target_score) or (
        horizon is not None and deal >= horizon)
    winner: int | None = None
    if over:
        best = max(total)
        winner = next(p for p in places if total[p] == best)
        events.append(MatchEnded(winner, tuple(total), places))
    return DealScore(total, roles, events, over, winner)
