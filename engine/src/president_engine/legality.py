"""Why an action is illegal: the checks `Match.check` runs, beside movegen.py's listing of the legal ones.

Each check takes the state it needs as plain values (the tables, the bits of
the hand, the play to beat) and returns the resolved action, or raises
IllegalActionError with the reason.  They change nothing.
"""

from __future__ import annotations

from president_engine.actions import Cell, GiveBack, Play, Request
from president_engine.cards import STANDARD_COLUMNS, Rank, bits_contains, rank_bucket_mask, slot_count
from president_engine.errors import IllegalActionError, IllegalReason
from president_engine.movegen import SPADE_THREE, beats, group_cells
from president_engine.narrate import counted
from president_engine.tables import JOKER_MASK, Tables


def check_play(t: Tables, hand: int, action: Play, table: Play | None, table_strength: int, rev: int,
               lock: int = 0) -> Play:
    """The interned play `action` stands for, with its rank, if the seat holding `hand` may play it now.

    `rev` is the order in force; `lock` the locked suit set (0: none), with `suit_lock`.
    """
    bits = action.bits
    if not bits:
        raise IllegalActionError(IllegalReason.EMPTY_PLAY, "a play needs at least one card")
    if not bits_contains(hand, bits):
        raise IllegalActionError(IllegalReason.CARDS_NOT_HELD, f"you do not hold {action.cards}")
    natural = bits & ~t.special_mask
    plain_jokers = bits & JOKER_MASK if t.has_jokers and not t.jokers_wild else 0
    ranks = {r for r in t.natural_ranks if natural & rank_bucket_mask(r)}
    if plain_jokers and bits != plain_jokers:
        raise IllegalActionError(IllegalReason.JOKER_NOT_WILD, "jokers are not wild: play them alone")
    if len(ranks) > 1:
        if not t.sequences:
            raise IllegalActionError(IllegalReason.MIXED_RANKS, "all natural cards of a play must have one rank")
        return _follows(t, _sequence(t, action), table, table_strength, rev, lock)
    stands_for: str | None  # what the cards stand for by themselves; None for a follow that declares
    if plain_jokers:
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
    cell = _group_cell(t, action, rank)
    if t.shaped:
        play = Play(action.cards, rank=rank, cell=cell) if stands_for is not None else Play(
            action.cards, rank, rank=rank)
        return _follows(t, play, table, table_strength, rev, lock)
    if table is not None:
        if action.size != table.size:
            raise IllegalActionError(IllegalReason.WRONG_COUNT, f"play exactly {counted(table.size, 'card')} or pass")
        if not beats(t, bits, rank, table, table_strength, rev):
            raise IllegalActionError(IllegalReason.DOES_NOT_BEAT, f"{action.cards} does not beat {table.cards}")
    return t.play(bits, rank) if stands_for is not None else t.declared_play(bits, rank)


def _group_cell(t: Tables, action: Play, rank: Rank) -> Cell | None:
    """The cell of the joker in a group (UECDA 4.2): a suit of `rank` not in the play, or the fifth cell."""
    cell = action.cell
    joker = action.bits & JOKER_MASK
    if not (t.joker_cells and joker and rank is not Rank.JOKER):
        if cell is not None:
            raise IllegalActionError(IllegalReason.BAD_DECLARED_RANK,
                                     "only a joker played with other cards takes a cell (with sequences or suit_lock)")
        return None
    cells = group_cells(action.cards, rank)
    if cell is None or cell not in cells:
        free = " or ".join(f"JK={c}" for c in cells)
        raise IllegalActionError(IllegalReason.BAD_DECLARED_RANK,
                                 f"say which free cell of {rank} the joker takes: {free}")
    return cell


def _sequence(t: Tables, action: Play) -> Play:
    """`action` read as a sequence (UECDA 4.2): 3+ cells in a row of one suit, the joker in the one gap or at an end."""
    cards = [c for c in action.cards if not c.is_joker]
    suits = {c.suit for c in cards}
    if len(suits) > 1:
        raise IllegalActionError(IllegalReason.MIXED_RANKS,
                                 "cards of several ranks are a sequence only if all are of one suit")
    if action.size < 3:
        raise IllegalActionError(IllegalReason.MIXED_RANKS, "a sequence has at least 3 cards")
    if action.declared is not None:
        raise IllegalActionError(IllegalReason.WRONG_RANK, "only a follow of wild cards alone declares a rank")
    columns = sorted(STANDARD_COLUMNS.index(c.rank) + 1 for c in cards)
    cell = action.cell
    if action.bits & JOKER_MASK:
        suit = suits.pop()
        if cell is None or cell.suit is not suit or cell.column in columns:
            raise IllegalActionError(IllegalReason.BAD_DECLARED_RANK,
                                     f"say which free cell of {suit} the joker takes: JK=10{suit}, or JK=lo{suit}"
                                     f" below the 3, JK=hi{suit} above the 2")
        columns = sorted([*columns, cell.column])
    elif cell is not None:
        raise IllegalActionError(IllegalReason.BAD_DECLARED_RANK, "a sequence without the joker has no joker cell")
    if columns[-1] - columns[0] != len(columns) - 1:
        raise IllegalActionError(IllegalReason.MIXED_RANKS, "a sequence's cards are consecutive ranks")
    rank = min((c.rank for c in cards), key=STANDARD_COLUMNS.index)
    if action.rank is not None and action.rank is not rank:
        raise IllegalActionError(IllegalReason.WRONG_RANK,
                                 f"a sequence stands for its lowest natural card's rank, {rank}, not {action.rank}")
    return Play(action.cards, rank=rank, cell=cell)


def _follows(t: Tables, play: Play, table: Play | None, table_strength: int, rev: int, lock: int) -> Play:
    """The interned `play` (rank and cell resolved) if it may go on `table` now (UECDA 4.3-4.5)."""
    if table is not None:
        beaten = t.facts[id(table)]
        if t.spade_three and beaten.lone_joker:
            if play.bits != SPADE_THREE:
                raise IllegalActionError(IllegalReason.DOES_NOT_BEAT, "only the spade 3 beats a lone joker")
        else:
            if play.size != table.size:
                raise IllegalActionError(IllegalReason.WRONG_COUNT,
                                         f"play exactly {counted(table.size, 'card')} or pass")
            facts = t.facts_of(play)
            if facts.sequence != beaten.sequence:
                wanted = "a sequence" if beaten.sequence else "cards of one rank"
                raise IllegalActionError(IllegalReason.DOES_NOT_BEAT, f"{table} is followed only by {wanted}")
            if facts.sequence:
                if facts.bottom[rev] <= table_strength:
                    raise IllegalActionError(IllegalReason.DOES_NOT_BEAT, f"{play} does not beat {table}: its "
                                             "weakest end must be above the table's strongest")
            elif not beats(t, play.bits, _rank(play), table, table_strength, rev):
                raise IllegalActionError(IllegalReason.DOES_NOT_BEAT, f"{play.cards} does not beat {table.cards}")
            if lock and not facts.lone_joker and facts.suits != lock:
                raise IllegalActionError(IllegalReason.DOES_NOT_BEAT, f"the suits are locked to {suit_text(lock)}")
    return t.interned(play)


def _rank(play: Play) -> Rank:
    rank = play.rank
    assert rank is not None
    return rank


def suit_text(suits: int) -> str:
    """A locked suit set in words: ``C H``, the fifth row as ``JK``."""
    return " ".join([s for bit, s in enumerate("CDHS") if suits >> bit & 1] + (["JK"] if suits >> 4 & 1 else []))


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
