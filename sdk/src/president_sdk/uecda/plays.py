"""The engine's plays as the contest's card cells and back (shared/UECDA.md 2.1 and 4.2), for both bridges.

A joker played with other cards is written in the cell it takes (the engine's `Play.cell`); a lone joker has
no cell in the engine, and the contest accepts it in any cell of rows 0-3.  What a submission is worth is
decided by the legal actions of the moment: a submission is the listed play with the same cards and the
same joker cell, and anything else is refused (4.2: a refused play is a pass for the trick).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from president_engine import PASS, Action, Play, Role, Suit
from president_engine.actions import Cell
from president_engine.cards import JOKER

from president_sdk.uecda.table import CardCells, JokerCell

LONE_JOKER: Final = JokerCell(Suit.SPADES, 14)
"""Where a lone joker is written when no submission says: [0][14], as the standard client writes it."""

CONTEST_RANK: Final[dict[Role, int]] = {Role.PRESIDENT: 0, Role.VICE_PRESIDENT: 1, Role.NEUTRAL: 2,
                                        Role.VICE_SCUM: 3, Role.SCUM: 4}
"""[6][5..9]: daifugō 0, fugō 1, heimin 2, hinmin 3, daihinmin 4 (all 0 in a rank-reset game)."""


def cells_of_play(play: Play, *, lone_joker: JokerCell = LONE_JOKER) -> CardCells:
    """The cells a contest client reads for `play`: naturals in their cells, the joker in the cell it takes."""
    naturals = frozenset(card for card in play.cards if not card.is_joker)
    if JOKER not in play.cards:
        return CardCells(naturals)
    if play.cell is None:
        return CardCells(naturals, lone_joker)
    return CardCells(naturals, JokerCell(play.cell.suit, play.cell.column))


def action_of_cells(cells: CardCells, legal: Sequence[Action]) -> Action | None:
    """The listed action a submission is, or None when it is refused.

    No card is a pass.  A lone joker written in row 4 is refused (4.2: its suit set has the fifth row).
    """
    if not len(cells):
        return PASS if PASS in legal else None
    joker = cells.joker
    if joker is not None and not cells.naturals:
        if joker.suit is None:
            return None
        cell = None
    else:
        cell = None if joker is None else Cell(joker.column, joker.suit)
    cards = cells.cards
    return next((action for action in legal
                 if isinstance(action, Play) and action.cards == cards and action.cell == cell), None)
