"""Why an action is illegal: the checks `Match.check` runs, beside movegen.py's listing of the legal ones.

Each check takes the state it needs as plain values (the tables, the bits of
the hand, the play to beat) and returns the resolved action, or raises
IllegalActionError with the reason.  They change nothing.
"""

from __future__ import annotations

from president_engine.actions import GiveBack, Play, Request
from president_engine.cards import Rank, bits_contains, rank_bucket_mask, slot_count
from president_engine.errors import IllegalActionError, IllegalReason
from president_engine.movegen import beats
from president_engine.narrate import counted
from president_engine.tables import JOKER_MASK, Tables


def check_play(t: Tables, hand: int, action: Play, table: Play | None, table_strength: int, rev: int) -> Play:
    """The interned play `action` stands for, with its rank, if the seat holding `hand` may play it now."""
    bits = action.bits
    if not bits:
        raise IllegalActionError(IllegalReason.EMPTY_PLAY, "a play needs at least one card")
    if not bits_contains(hand, bits):
        raise IllegalActionError(IllegalReason.CARDS_NOT_HELD, f"you do not hold {action.cards}")
    natural = bits & ~t.special_mask
    plain_jokers = bits & JOKER_MASK if t.has_jokers and not t.jokers_wild else 0
    ranks = {r for r in t.natural_ranks if natural & rank_bucket_mask(r)}
    if len(ranks) > 1:
        raise IllegalActionError(IllegalReason.MIXED_RANKS, "all natural cards of a play must have one rank")
    stands_for: str | None  # what the cards stand for by themselves; None for a follow that declares
    if plain_jokers:
        if bits != plain_jokers:
            raise IllegalActionError(IllegalReason.JOKER_NOT_WILD, "jokers are not wild: play them alone")
        rank, stands_for = Rank.JOKER, "the joker rank"
    elif ranks:
        rank = ranks.pop()
        stands_for = "its own rank" if natural == bits else "the rank of its natural cards"
    elif not t.declared:
        rank, stands_for = Rank.JOKER, "the joker rank"
    elif table is None:
        rank = t.wild_lead_rank
        stands_for = f"{rank} when it leads"
    else:  # a follow of wild cards alone declares its rank; an echoed `rank` counts as the declaration
        stands_for = None
        declared = action.declared if action.declared is not None else action.rank
        if declared is None or declared is Rank.JOKER or declared in t.rules.wild_ranks:
            raise IllegalActionError(
                IllegalReason.BAD_DECLARED_RANK,
                "a follow of wild cards only must declare a rank that is not wild (e.g. '6H 6S as K')")
        rank = declared
    if action.declared is not None and stands_for is not None:
        raise IllegalActionError(
            IllegalReason.WRONG_RANK,
            f"{action.cards} stands for {stands_for}: only a follow of wild cards alone declares a rank")
    if action.rank is not None and action.rank is not rank:
        raise IllegalActionError(IllegalReason.WRONG_RANK, f"these cards stand for {rank}, not {action.rank}")
    if table is not None:
        if action.size != table.size:
            raise IllegalActionError(IllegalReason.WRONG_COUNT, f"play exactly {counted(table.size, 'card')} or pass")
        if not beats(t, bits, rank, table, table_strength, rev):
            raise IllegalActionError(IllegalReason.DOES_NOT_BEAT, f"{action.cards} does not beat {table.cards}")
    return t.play(bits, rank) if stands_for is not None else t.declared_play(bits, rank)


def check_request(t: Tables, hand: int, action: Request, owed: int) -> Request:
    """`action` if a receiver holding `hand` may name these cards (at most `owed`, each one it could get)."""
    if len(action.cards) > owed:
        raise IllegalActionError(IllegalReason.BAD_REQUEST, f"name at most {counted(owed, 'card')}")
    deck = t.deck.bits
    for card in action.cards.distinct():
        named = action.cards.count(card)
        if named > slot_count(deck, card.slot) - slot_count(hand, card.slot):
            raise IllegalActionError(IllegalReason.BAD_REQUEST,
                                     f"you cannot ask for {card}: you hold every copy or the deck has none")
    return action


def check_give_back(hand: int, action: GiveBack, owed: int) -> GiveBack:
    """`action` if a receiver holding `hand` may give these cards back (exactly `owed`)."""
    if len(action.cards) != owed:
        raise IllegalActionError(IllegalReason.WRONG_COUNT, f"give back exactly {counted(owed, 'card')}")
    if not bits_contains(hand, action.cards.bits):
        raise IllegalActionError(IllegalReason.CARDS_NOT_HELD, f"you do not hold {action.cards}")
    return action
