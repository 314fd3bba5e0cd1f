"""The UECda contest's 480-byte table, byte for byte (shared/UECDA.md sections 1-3).

A table is 8 rows x 15 columns of 32-bit big-endian ints, row-major.  Rows 0-4 are card cells
(0 spades, 1 hearts, 2 diamonds, 3 clubs, 4 the joker row; columns 1-13 the ranks 3..A, 2, columns 0 and
14 only for a joker below the 3 or above the 2); rows 5-6 are the server's status cells; row 7 is unused.
A client's profile reuses the same 480 bytes for its protocol version and name.

The card cells are kept neutral, as the wire has them: a set of natural cards plus at most one joker and
the cell it is written in.  What a joker in a cell means (which card it stands for, whether a play is
legal) is the rules' business, not this codec's.

`encode`/`decode` are the server's tables (cards and status), `encode_cards`/`decode_cards` a client's
submission (rows 5-7 ignored), `encode_profile`/`decode_profile` the handshake's profile, and `pack`/`unpack`
the raw grid of ints for a caller that must look at what the codec refuses.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain
from typing import Final

from president_engine.cards import JOKER, STANDARD_COLUMNS, Card, CardSet, Rank, Suit

ROWS: Final = 8
COLUMNS: Final = 15
TABLE_BYTES: Final = ROWS * COLUMNS * 4
JOKER_ROW: Final = 4
PLAYERS: Final = 5
DEAL_TABLE_PLAYER: Final = 6
"""[5][3] of the deal table, which names no player."""
PROTOCOL_20070: Final = 20070
"""Big-endian ints: the version this codec speaks."""
NAME_CELLS: Final = COLUMNS
MAX_NAME: Final = NAME_CELLS - 1
"""A profile's name is NUL-terminated inside row 1's fifteen cells."""
MAX_CARDS_HELD: Final = 53
"""The bound on a card-count cell: the whole deck (the spec gives no tighter one)."""
NATURAL: Final = 1
JOKER_CELL: Final = 2
"""The two card values of a cell: a natural card, the joker (written in the cell it takes)."""

_INT32_MAX: Final = 2**31 - 1
_GRID_FORMAT: Final = f">{ROWS * COLUMNS}i"

Grid = tuple[tuple[int, ...], ...]
"""Eight rows of fifteen ints: the table before any meaning is read into it."""

ROW_OF_SUIT: Final[dict[Suit, int]] = {Suit.SPADES: 0, Suit.HEARTS: 1, Suit.DIAMONDS: 2, Suit.CLUBS: 3}
SUIT_OF_ROW: Final[dict[int, Suit]] = {row: suit for suit, row in ROW_OF_SUIT.items()}
COLUMN_OF_RANK: Final[dict[Rank, int]] = {rank: column for column, rank in enumerate(STANDARD_COLUMNS, start=1)}
RANK_OF_COLUMN: Final[dict[int, Rank]] = {column: rank for rank, column in COLUMN_OF_RANK.items()}


class TableError(ValueError):
    """Bytes or values that are not a table the spec allows; the message is one line."""


class TableSizeError(TableError):
    """Not 480 bytes."""


class CellError(TableError):
    """One cell holds what the spec does not allow there (`row`, `column` name it)."""

    def __init__(self, row: int, column: int, message: str) -> None:
        super().__init__(f"[{row}][{column}]: {message}")
        self.row = row
        self.column = column


def cell_of(card: Card) -> tuple[int, int]:
    """The (row, column) of a natural card."""
    if card.suit is None:
        raise TableError("a joker has no cell of its own; give it a JokerCell")
    return ROW_OF_SUIT[card.suit], COLUMN_OF_RANK[card.rank]


@dataclass(frozen=True, slots=True)
class JokerCell:
    """Where the joker is written: a suit row (or None for the joker row 4) and a column 0-14.

    Columns 0 and 14 have no engine rank (below the 3, above the 2), so the column stays a number.
    """

    suit: Suit | None
    column: int

    def __post_init__(self) -> None:
        if not 0 <= self.column < COLUMNS:
            raise TableError(f"joker column {self.column} is outside 0..{COLUMNS - 1}")

    @property
    def row(self) -> int:
        return JOKER_ROW if self.suit is None else ROW_OF_SUIT[self.suit]

    @property
    def rank(self) -> Rank | None:
        """The natural rank of the joker's column, or None for column 0 or 14."""
        return RANK_OF_COLUMN.get(self.column)

    @property
    def natural(self) -> Card | None:
        """The natural card whose cell the joker takes; None in the joker row and in columns 0 and 14."""
        rank = self.rank
        return None if self.suit is None or rank is None else Card(rank, self.suit)


HAND_JOKER: Final = JokerCell(None, 1)
"""In a hand the joker is always written at [4][1]."""


@dataclass(frozen=True, slots=True)
class CardCells:
    """Rows 0-4: the natural cards present, and the joker's cell if a joker is present."""

    naturals: frozenset[Card] = frozenset()
    joker: JokerCell | None = None

    def __post_init__(self) -> None:
        if JOKER in self.naturals:
            raise TableError("the joker goes in `joker`, with its cell, not among the naturals")
        if self.joker is not None and self.joker.natural in self.naturals:
            raise CellError(self.joker.row, self.joker.column, "the joker and a natural card in one cell")

    @classmethod
    def hand(cls, cards: Iterable[Card]) -> CardCells:
        """A hand's cells: naturals in their own cells, a joker at [4][1] (one joker at most)."""
        cards = list(cards)
        jokers = cards.count(JOKER)
        if jokers > 1:
            raise TableError(f"{jokers} jokers; the contest deck has one")
        naturals = frozenset(card for card in cards if card != JOKER)
        if len(naturals) + jokers != len(cards):
            raise TableError("a natural card twice; a table has one cell per card")
        return cls(naturals, HAND_JOKER if jokers else None)

    @property
    def cards(self) -> CardSet:
        """The cards themselves, the joker as the engine's JOKER wherever it is written."""
        return CardSet([*self.naturals, *([JOKER] if self.joker is not None else [])])

    def __len__(self) -> int:
        return len(self.naturals) + (self.joker is not None)


def _flag(row: int, column: int, value: bool | int) -> None:
    if value not in (0, 1):
        raise CellError(row, column, f"a flag is 0 or 1, not {value!r}")


def _in_range(row: int, column: int, value: int, low: int, high: int, what: str) -> None:
    if not low <= value <= high:
        raise CellError(row, column, f"{what} is {value}; expected {low}..{high}")


_BITS: Final = frozenset((0, 1))
_PLAYER_LIST: Final = list(range(PLAYERS))


@dataclass(frozen=True, slots=True)
class Status:
    """Rows 5-6 of a server-to-client table (UECDA.md 2.2); every other status cell is 0."""

    exchange: bool
    """[5][0]: this is the deal table (exchange phase)."""
    give_back: int
    """[5][1]: cards this player must give back in the deal table: 2 daifugō, 1 fugō, 0 others."""
    your_turn: bool
    """[5][2]: the reader moves now (hand table only)."""
    player: int
    """[5][3]: who moves (hand table), who just moved (table-after-move), 6 in the deal table."""
    table_empty: bool
    """[5][4]: nothing on the table; the mover leads."""
    eleven_back: bool
    """[5][5]"""
    revolution: bool
    """[5][6]"""
    suit_lock: bool
    """[5][7]"""
    card_counts: tuple[int, ...]
    """[6][0..4]: cards held by player 0..4 (the deal table: as dealt, before the exchange)."""
    ranks: tuple[int, ...]
    """[6][5..9]: rank of player 0..4, 0 daifugō .. 4 daihinmin; all 0 in a rank-reset game.  A permutation in
    the deal table of other games only: the reference server writes each finishing rank here as players go
    out, so during play a rank may repeat (UECDA 2.2)."""
    seats: tuple[int, ...]
    """[6][10..14]: the player number in seat 0..4; play goes seat s -> s+1 (mod 5)."""

    def __post_init__(self) -> None:
        if self._plainly_valid():
            return
        for column, value in ((0, self.exchange), (2, self.your_turn), (4, self.table_empty),
                              (5, self.eleven_back), (6, self.revolution), (7, self.suit_lock)):
            _flag(5, column, value)
        _in_range(5, 1, self.give_back, 0, 2, "the give-back count")
        if self.player != DEAL_TABLE_PLAYER:
            _in_range(5, 3, self.player, 0, PLAYERS - 1, "the player")
        for first, values in ((0, self.card_counts), (5, self.ranks), (10, self.seats)):
            if len(values) != PLAYERS:
                raise CellError(6, first, f"{len(values)} values; expected one per player, 5")
        for player, count in enumerate(self.card_counts):
            _in_range(6, player, count, 0, MAX_CARDS_HELD, f"the card count of player {player}")
        for player, rank in enumerate(self.ranks):
            _in_range(6, 5 + player, rank, 0, PLAYERS - 1, f"the rank of player {player}")
        for seat, player in enumerate(self.seats):
            _in_range(6, 10 + seat, player, 0, PLAYERS - 1, f"the player in seat {seat}")
        if sorted(self.seats) != list(range(PLAYERS)):
            raise CellError(6, 10, f"seats {list(self.seats)} do not seat each player once")

    def _plainly_valid(self) -> bool:
        """Every check of `__post_init__` at once, true for any status a server builds (which the cell by cell
        checks, naming the first cell amiss, would only slow down)."""
        counts, ranks = self.card_counts, self.ranks
        return ({self.exchange, self.your_turn, self.table_empty, self.eleven_back, self.revolution,
                 self.suit_lock} <= _BITS and 0 <= self.give_back <= 2
                and (self.player == DEAL_TABLE_PLAYER or 0 <= self.player < PLAYERS)
                and len(counts) == PLAYERS and len(ranks) == PLAYERS and sorted(self.seats) == _PLAYER_LIST
                and min(counts) >= 0 and max(counts) <= MAX_CARDS_HELD and min(ranks) >= 0 and max(ranks) < PLAYERS)


@dataclass(frozen=True, slots=True)
class Table:
    """A server-to-client table: the deal table, a hand table or a table-after-move."""

    cards: CardCells
    status: Status


@dataclass(frozen=True, slots=True)
class Profile:
    """The client's first table: [0][0] its protocol version, row 1 its name, one character per cell."""

    version: int
    name: str

    def __post_init__(self) -> None:
        _in_range(0, 0, self.version, 0, _INT32_MAX, "the protocol version")
        if len(self.name) > MAX_NAME:
            raise CellError(1, MAX_NAME, f"a name of {len(self.name)} characters; at most {MAX_NAME} and a NUL")
        for column, char in enumerate(self.name):
            if char == "\0":
                raise CellError(1, column, "a NUL inside the name")


def unpack(data: bytes) -> Grid:
    """The 120 signed big-endian ints of a table, as rows; only the length is checked."""
    if len(data) != TABLE_BYTES:
        raise TableSizeError(f"a table is {TABLE_BYTES} bytes, not {len(data)}")
    values = struct.unpack(_GRID_FORMAT, data)
    return tuple(values[row * COLUMNS:(row + 1) * COLUMNS] for row in range(ROWS))


def pack(grid: Grid) -> bytes:
    """The 480 bytes of a grid of 8 x 15 non-negative ints (the server never sends a negative value)."""
    if len(grid) != ROWS or any(len(row) != COLUMNS for row in grid):
        raise TableSizeError(f"a table is {ROWS} rows of {COLUMNS} ints")
    for row, values in enumerate(grid):
        for column, value in enumerate(values):
            _in_range(row, column, value, 0, _INT32_MAX, "the value")
    return struct.pack(_GRID_FORMAT, *(value for values in grid for value in values))


def _card_rows(cells: CardCells) -> list[list[int]]:
    rows = [[0] * COLUMNS for _ in range(ROWS)]
    for card in cells.naturals:
        row, column = cell_of(card)
        rows[row][column] = NATURAL
    if cells.joker is not None:
        rows[cells.joker.row][cells.joker.column] = JOKER_CELL
    return rows


def _read_cards(grid: Grid) -> CardCells:
    naturals: set[Card] = set()
    joker: JokerCell | None = None
    for row in range(JOKER_ROW + 1):
        for column, value in enumerate(grid[row]):
            if value == NATURAL:
                rank = RANK_OF_COLUMN.get(column)
                if row == JOKER_ROW or rank is None:
                    raise CellError(row, column, "a natural card (1) where only the joker may be")
                naturals.add(Card(rank, SUIT_OF_ROW[row]))
            elif value == JOKER_CELL:
                if joker is not None:
                    raise CellError(row, column, f"a second joker (2); the first is at [{joker.row}][{joker.column}]")
                joker = JokerCell(SUIT_OF_ROW.get(row), column)
            elif value != 0:
                raise CellError(row, column, f"a card cell holds 0, 1 or 2, not {value}")
    return CardCells(frozenset(naturals), joker)


def _freeze(rows: list[list[int]]) -> Grid:
    return tuple(tuple(row) for row in rows)


def encode_cards(cells: CardCells) -> bytes:
    """A client's submission (a play, a give-back, a pass when empty): rows 0-4, rows 5-7 zero."""
    return pack(_freeze(_card_rows(cells)))


def decode_cards(data: bytes) -> CardCells:
    """A client's submission: rows 0-4 read strictly, rows 5-7 ignored as the server ignores them."""
    return _read_cards(unpack(data))


_STATUS_ROWS: Final = struct.Struct(">8i28x15i60x")
"""Rows 5-7 of a server's table: [5][0..7], seven zero cells, row 6, and row 7 (zero)."""
_CARD_ROWS: Final = struct.Struct(f">{(JOKER_ROW + 1) * COLUMNS}i")
_card_bytes: dict[CardCells, bytes] = {}
"""Rows 0-4 of the cells sent lately: a hand is sent move after move unchanged."""
CARD_BYTES_KEPT: Final = 256


def encode(table: Table) -> bytes:
    """A server-to-client table: cards in rows 0-4, the status in rows 5-6 (every value checked by Status and
    CardCells)."""
    cells = _card_bytes.get(table.cards)
    if cells is None:
        if len(_card_bytes) >= CARD_BYTES_KEPT:
            _card_bytes.clear()
        rows = _card_rows(table.cards)[:JOKER_ROW + 1]
        cells = _card_bytes[table.cards] = _CARD_ROWS.pack(*chain.from_iterable(rows))
    status = table.status
    return cells + _STATUS_ROWS.pack(int(status.exchange), status.give_back, int(status.your_turn), status.player,
                                     int(status.table_empty), int(status.eleven_back), int(status.revolution),
                                     int(status.suit_lock), *status.card_counts, *status.ranks, *status.seats)


def decode(data: bytes) -> Table:
    """A server-to-client table, strictly: a non-zero cell the spec gives no meaning ([5][8..14], row 7) is an
    error too (a client reads with `Reading` instead, UECDA 2.2)."""
    grid = unpack(data)
    cards = _read_cards(grid)
    errors = unused_cells(grid)
    if errors:
        raise errors[0]
    return Table(cards, read_status(grid))


def unused_cells(grid: Grid) -> list[CellError]:
    """The cells the spec gives no meaning ([5][8..14], row 7) that hold a value, one error each."""
    return [CellError(row, column, f"holds {grid[row][column]}; the spec gives this cell no meaning")
            for row, first in ((5, 8), (7, 0)) for column in range(first, COLUMNS) if grid[row][column]]


def read_status(grid: Grid) -> Status:
    """Rows 5-6 as the status they are; a cell outside the values the spec lists is a CellError."""
    five, six = grid[5], grid[6]
    return Status(
        exchange=_bool(5, 0, five[0]), give_back=five[1], your_turn=_bool(5, 2, five[2]), player=five[3],
        table_empty=_bool(5, 4, five[4]), eleven_back=_bool(5, 5, five[5]), revolution=_bool(5, 6, five[6]),
        suit_lock=_bool(5, 7, five[7]), card_counts=six[0:5], ranks=six[5:10], seats=six[10:15])


@dataclass(frozen=True, slots=True)
class Reading:
    """A server's table as a client reads it (UECDA 2.2, "be liberal"): the grid, and each part on demand.

    `cards()` is strict, for a table the client must act on; `status` is None when a cell the client needs holds
    what the spec does not list (`status_error` says which), and `unused` names every cell without meaning that
    holds a value, so that a client can say so and play on."""

    grid: Grid
    status: Status | None
    status_error: CellError | None
    unused: tuple[CellError, ...]

    @classmethod
    def of(cls, data: bytes) -> Reading:
        """The 480 bytes read for what they say; only a wrong length is an error."""
        grid = unpack(data)
        try:
            return cls(grid, read_status(grid), None, tuple(unused_cells(grid)))
        except CellError as exc:
            return cls(grid, None, exc, tuple(unused_cells(grid)))

    def cards(self) -> CardCells:
        """Rows 0-4, strictly (a CellError for a value the spec does not allow there)."""
        return _read_cards(self.grid)

    @property
    def your_turn(self) -> bool:
        """[5][2] as the server meant it, even when another status cell is amiss."""
        return self.grid[5][2] == 1

    def table(self) -> Table:
        """The cards and the status; a CellError when either cannot be read."""
        if self.status_error is not None:
            raise self.status_error
        assert self.status is not None
        return Table(self.cards(), self.status)


def _bool(row: int, column: int, value: int) -> bool:
    _flag(row, column, value)
    return value == 1


def encode_profile(profile: Profile) -> bytes:
    """The profile table: [0][0] the version, [1][0..] the name's character codes, then NUL."""
    rows = [[0] * COLUMNS for _ in range(ROWS)]
    rows[0][0] = profile.version
    for column, char in enumerate(profile.name):
        rows[1][column] = ord(char)
    return pack(_freeze(rows))


def decode_profile(data: bytes) -> Profile:
    """The profile table; the name ends at row 1's first 0 cell, every other cell is ignored, as the server does."""
    grid = unpack(data)
    _in_range(0, 0, grid[0][0], 0, _INT32_MAX, "the protocol version")
    if 0 not in grid[1]:
        raise CellError(1, NAME_CELLS - 1, "the name has no NUL in row 1")
    codes = grid[1][:grid[1].index(0)]
    for column, code in enumerate(codes):
        _in_range(1, column, code, 1, 0x10FFFF, "a character code")
    return Profile(grid[0][0], "".join(map(chr, codes)))
