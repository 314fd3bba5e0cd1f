"""The UECda table codec, checked against shared/UECDA.md section 2 byte by byte.

The golden tables below are written out by hand from the spec's text (rows of fifteen big-endian 32-bit
words), never produced by the encoder under test.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st
from president_engine.cards import CARDS, JOKER, Card, CardSet, Rank, Suit
from president_sdk.uecda.table import (
    COLUMN_OF_RANK,
    HAND_JOKER,
    PROTOCOL_20070,
    ROW_OF_SUIT,
    TABLE_BYTES,
    CardCells,
    CellError,
    JokerCell,
    Profile,
    Reading,
    Status,
    Table,
    TableError,
    TableSizeError,
    decode,
    decode_cards,
    decode_profile,
    encode,
    encode_cards,
    encode_profile,
    pack,
    unpack,
)

NATURALS = [card for card in CARDS if card != JOKER]
ZERO_ROW = " ".join(["00000000"] * 15)


def card(text: str) -> Card:
    return Card.parse(text)


def from_hex(*rows: str) -> bytes:
    """Eight rows of fifteen space-separated 8-digit hex words, as written in a test by hand."""
    assert len(rows) == 8
    words = [word for row in rows for word in row.split()]
    assert len(words) == 120 and all(len(word) == 8 for word in words)
    return bytes.fromhex("".join(words))


def with_cells(cells: dict[tuple[int, int], int], base: bytes = bytes(TABLE_BYTES)) -> bytes:
    """A table's bytes with these (row, column) cells set, packed by struct rather than by the codec."""
    data = bytearray(base)
    for (row, column), value in cells.items():
        struct.pack_into(">i", data, (row * 15 + column) * 4, value)
    return bytes(data)


DEAL_STATUS = Status(exchange=True, give_back=0, your_turn=False, player=6, table_empty=True, eleven_back=False,
                     revolution=False, suit_lock=False, card_counts=(11, 11, 11, 10, 10), ranks=(0, 0, 0, 0, 0),
                     seats=(2, 0, 4, 1, 3))
DEAL_BYTES = with_cells({(5, 0): 1, (5, 3): 6, (5, 4): 1, (6, 0): 11, (6, 1): 11, (6, 2): 11, (6, 3): 10,
                         (6, 4): 10, (6, 10): 2, (6, 11): 0, (6, 12): 4, (6, 13): 1, (6, 14): 3})


# --- golden examples from the spec's text ---------------------------------------------------------------


def test_the_spec_example_of_a_sequence_with_the_joker_as_its_jack() -> None:
    """2.1: 'a spade 9-10-J with the joker as J is [0][7]=1, [0][8]=1, [0][9]=2'."""
    wire = from_hex(
        "00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000001"
        " 00000001 00000002 00000000 00000000 00000000 00000000 00000000",
        ZERO_ROW, ZERO_ROW, ZERO_ROW, ZERO_ROW, ZERO_ROW, ZERO_ROW, ZERO_ROW)
    cells = CardCells(frozenset({card("9S"), card("10S")}), JokerCell(Suit.SPADES, 9))
    assert decode_cards(wire) == cells
    assert encode_cards(cells) == wire
    assert cells.joker is not None and cells.joker.natural == card("JS")
    assert cells.cards == CardSet("9S 10S JK")


def test_a_deal_table_written_out_word_by_word() -> None:
    """A hand of 3D, 2C and the joker ([4][1] = 2 in a hand), with the deal table's status cells of 2.2."""
    wire = from_hex(
        ZERO_ROW,
        ZERO_ROW,
        "00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000"  # row 2, diamonds: 3 at column 1
        " 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
        "00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000"  # row 3, clubs: 2 at column 13
        " 00000000 00000000 00000000 00000000 00000000 00000001 00000000",
        "00000000 00000002 00000000 00000000 00000000 00000000 00000000 00000000"  # row 4: the joker at [4][1]
        " 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
        "00000001 00000000 00000000 00000006 00000001 00000000 00000000 00000000"  # deal table, give back 0, 6
        " 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
        "0000000b 0000000b 0000000b 0000000a 0000000a 00000000 00000000 00000000"  # counts, ranks, seats
        " 00000000 00000000 00000002 00000000 00000004 00000001 00000003",
        ZERO_ROW)
    table = Table(CardCells.hand([card("3D"), card("2C"), JOKER]), DEAL_STATUS)
    assert table.cards == CardCells(frozenset({card("3D"), card("2C")}), HAND_JOKER)
    assert decode(wire) == table
    assert encode(table) == wire
    assert wire == with_cells({(2, 1): 1, (3, 13): 1, (4, 1): 2}, DEAL_BYTES)


def test_a_profile_written_out_word_by_word() -> None:
    """3.1: [0][0] = 20070 (0x4e66), [1][0..] = the name's character codes, NUL-terminated."""
    wire = from_hex(
        "00004e66 00000000 00000000 00000000 00000000 00000000 00000000 00000000"
        " 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
        "00000041 00000062 00000063 00000000 00000000 00000000 00000000 00000000"
        " 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
        ZERO_ROW, ZERO_ROW, ZERO_ROW, ZERO_ROW, ZERO_ROW, ZERO_ROW)
    assert decode_profile(wire) == Profile(PROTOCOL_20070, "Abc")
    assert encode_profile(Profile(PROTOCOL_20070, "Abc")) == wire


def test_status_cells_at_their_byte_offsets() -> None:
    """Cell [r][c] is bytes 4*(15r+c) .. +3, most significant first; offsets below worked out by hand."""
    status = Status(exchange=False, give_back=0, your_turn=True, player=3, table_empty=False, eleven_back=False,
                    revolution=True, suit_lock=True, card_counts=(13, 0, 7, 1, 9), ranks=(4, 3, 2, 1, 0),
                    seats=(0, 1, 2, 3, 4))
    wire = encode(Table(CardCells(), status))
    expected = {311: 1, 315: 3, 327: 1, 331: 1,  # [5][2] your turn, [5][3] player 3, [5][6], [5][7]
                363: 13, 371: 7, 375: 1, 379: 9,  # [6][0], [6][2], [6][3], [6][4]: card counts
                383: 4, 387: 3, 391: 2, 395: 1,  # [6][5..8]: ranks ([6][9] is 0)
                407: 1, 411: 2, 415: 3, 419: 4}  # [6][11..14]: seats ([6][10] is 0)
    assert {offset: byte for offset, byte in enumerate(wire) if byte} == expected
    assert decode(wire) == Table(CardCells(), status)


@pytest.mark.parametrize(("cells", "expected"), [
    ({(0, 1): 1}, CardCells(frozenset({card("3S")}))),
    ({(1, 12): 1}, CardCells(frozenset({card("AH")}))),
    ({(3, 13): 1, (2, 13): 1}, CardCells(frozenset({card("2C"), card("2D")}))),
    ({(0, 14): 2}, CardCells(joker=JokerCell(Suit.SPADES, 14))),  # a lone joker as the standard client writes it
    ({(2, 0): 2, (2, 1): 1, (2, 2): 1}, CardCells(frozenset({card("3D"), card("4D")}), JokerCell(Suit.DIAMONDS, 0))),
    # the five-card group: four naturals of a rank and the joker at [4][rank]
    ({(0, 5): 1, (1, 5): 1, (2, 5): 1, (3, 5): 1, (4, 5): 2},
     CardCells(frozenset({card("7S"), card("7H"), card("7D"), card("7C")}), JokerCell(None, 5))),
], ids=["3S", "AH", "2C-2D", "lone-joker", "Jk-3-4", "five-group"])
def test_cells_as_the_spec_places_them(cells: dict[tuple[int, int], int], expected: CardCells) -> None:
    wire = with_cells(cells)
    assert decode_cards(wire) == expected
    assert encode_cards(expected) == wire


def test_rows_and_columns_map_to_the_engine_cards() -> None:
    """Rows 0-3 are spades, hearts, diamonds, clubs; columns 1-13 the ranks 3..A, 2."""
    assert ROW_OF_SUIT == {Suit.SPADES: 0, Suit.HEARTS: 1, Suit.DIAMONDS: 2, Suit.CLUBS: 3}
    assert [COLUMN_OF_RANK[Rank(value)] for value in range(3, 15)] == list(range(1, 13))
    assert COLUMN_OF_RANK[Rank.TWO] == 13
    assert JokerCell(Suit.HEARTS, 0).rank is None and JokerCell(Suit.HEARTS, 14).natural is None
    assert JokerCell(Suit.HEARTS, 11).natural == card("KH") and HAND_JOKER.natural is None


def test_client_tables_ignore_rows_5_to_7() -> None:
    """2.2: 'Rows 5-7 of client-to-server tables are ignored, except in the profile'."""
    junk = with_cells({(5, 0): 99, (6, 3): -7, (7, 14): 12345, (0, 1): 1})
    assert decode_cards(junk) == CardCells(frozenset({card("3S")}))


def test_a_profile_ignores_the_cells_after_its_name() -> None:
    wire = with_cells({(0, 0): 20070, (0, 5): 77, (1, 0): 0x78, (1, 2): 0x79, (3, 3): 1})
    assert decode_profile(wire) == Profile(20070, "x")


# --- round trips ------------------------------------------------------------------------------------------


joker_cells = st.builds(JokerCell, st.sampled_from([None, *Suit]), st.integers(0, 14))


@st.composite
def card_cells(draw: st.DrawFn) -> CardCells:
    naturals = draw(st.frozensets(st.sampled_from(NATURALS)))
    joker = draw(st.none() | joker_cells.filter(lambda cell: cell.natural not in naturals))
    return CardCells(naturals, joker)


@st.composite
def statuses(draw: st.DrawFn) -> Status:
    flags = st.booleans()
    return Status(
        exchange=draw(flags), give_back=draw(st.integers(0, 2)), your_turn=draw(flags),
        player=draw(st.sampled_from([0, 1, 2, 3, 4, 6])), table_empty=draw(flags), eleven_back=draw(flags),
        revolution=draw(flags), suit_lock=draw(flags),
        card_counts=tuple(draw(st.lists(st.integers(0, 53), min_size=5, max_size=5))),
        ranks=draw(st.just((0, 0, 0, 0, 0)) | st.permutations(range(5)).map(tuple)),
        seats=tuple(draw(st.permutations(range(5)))))


tables = st.builds(Table, card_cells(), statuses())
names = st.text(st.characters(min_codepoint=1, max_codepoint=0x10FFFF, exclude_categories=["Cs"]), max_size=14)


@given(tables)
def test_table_to_bytes_and_back(table: Table) -> None:
    wire = encode(table)
    assert len(wire) == TABLE_BYTES
    assert decode(wire) == table
    assert decode_cards(wire) == table.cards


@given(card_cells())
def test_submission_to_bytes_and_back(cells: CardCells) -> None:
    assert decode_cards(encode_cards(cells)) == cells
    assert len(cells) == len(cells.cards)


@given(st.integers(0, 2**31 - 1), names)
def test_profile_to_bytes_and_back(version: int, name: str) -> None:
    profile = Profile(version, name)
    assert decode_profile(encode_profile(profile)) == profile


@st.composite
def wire_tables(draw: st.DrawFn) -> bytes:
    """Bytes a server may send, cell by cell from the spec: 0/1 in natural cells, at most one 2, valid status."""
    cells: dict[tuple[int, int], int] = {}
    for natural in draw(st.frozensets(st.sampled_from(NATURALS))):
        assert natural.suit is not None
        cells[ROW_OF_SUIT[natural.suit], COLUMN_OF_RANK[natural.rank]] = 1
    joker = draw(st.none() | st.tuples(st.integers(0, 4), st.integers(0, 14)))
    if joker is not None:
        cells[joker] = 2
    status = draw(statuses())
    five = [status.exchange, status.give_back, status.your_turn, status.player, status.table_empty,
            status.eleven_back, status.revolution, status.suit_lock]
    cells.update({(5, column): int(value) for column, value in enumerate(five)})
    cells.update({(6, column): value
                  for column, value in enumerate(status.card_counts + status.ranks + status.seats)})
    return with_cells(cells)


@given(wire_tables())
def test_bytes_to_table_and_back(wire: bytes) -> None:
    assert encode(decode(wire)) == wire


@given(wire_tables())
def test_the_grid_is_row_major_big_endian(wire: bytes) -> None:
    grid = unpack(wire)
    assert pack(grid) == wire
    assert [value for row in grid for value in row] == list(struct.unpack(">120i", wire))


# --- malformed input --------------------------------------------------------------------------------------


def one_line_error(error: TableError) -> None:
    assert isinstance(error, ValueError)
    assert "\n" not in str(error) and str(error)


@pytest.mark.parametrize("size", [0, 4, 479, 481, 960])
@pytest.mark.parametrize("reader", [decode, decode_cards, decode_profile, unpack])
def test_a_table_is_exactly_480_bytes(size: int, reader: object) -> None:
    assert callable(reader)
    with pytest.raises(TableSizeError, match=f"480 bytes, not {size}") as raised:
        reader(bytes(size))
    one_line_error(raised.value)


@pytest.mark.parametrize(("cells", "where", "text"), [
    ({(0, 1): 3}, (0, 1), "0, 1 or 2, not 3"),
    ({(2, 7): -1}, (2, 7), "not -1"),
    ({(3, 3): 2**31 - 1}, (3, 3), "not 2147483647"),
    ({(4, 3): 1}, (4, 3), "natural card"),
    ({(1, 0): 1}, (1, 0), "natural card"),
    ({(1, 14): 1}, (1, 14), "natural card"),
    ({(0, 0): 2, (0, 14): 2}, (0, 14), "second joker"),
    ({(0, 9): 2, (4, 1): 2}, (4, 1), "second joker"),
], ids=["value-3", "negative", "huge", "natural-in-joker-row", "natural-in-column-0", "natural-in-column-14",
        "two-jokers", "two-jokers-across-rows"])
def test_malformed_card_cells(cells: dict[tuple[int, int], int], where: tuple[int, int], text: str) -> None:
    for reader in (decode_cards, decode):
        with pytest.raises(CellError, match=text) as raised:
            reader(with_cells(cells, DEAL_BYTES))
        assert (raised.value.row, raised.value.column) == where
        one_line_error(raised.value)


@given(st.integers(0, 4), st.integers(0, 14), st.integers(-(2**31), 2**31 - 1).filter(lambda v: v not in (0, 1, 2)))
def test_any_card_cell_out_of_range_is_refused(row: int, column: int, value: int) -> None:
    with pytest.raises(CellError) as raised:
        decode_cards(with_cells({(row, column): value}))
    assert (raised.value.row, raised.value.column) == (row, column)


@pytest.mark.parametrize(("cell", "value", "text"), [
    ((5, 0), 2, "flag is 0 or 1"),
    ((5, 1), 3, "give-back count is 3"),
    ((5, 2), -1, "flag is 0 or 1"),
    ((5, 3), 5, "the player is 5"),
    ((5, 3), 7, "the player is 7"),
    ((5, 4), 9, "flag is 0 or 1"),
    ((5, 5), 2, "flag"),
    ((5, 6), 2, "flag"),
    ((5, 7), 2, "flag"),
    ((5, 8), 1, "no meaning"),
    ((5, 14), 1, "no meaning"),
    ((7, 0), 1, "no meaning"),
    ((7, 14), 4, "no meaning"),
    ((6, 2), 54, "card count of player 2 is 54"),
    ((6, 4), -1, "card count of player 4 is -1"),
    ((6, 7), 5, "rank of player 2 is 5"),
    ((6, 13), 5, "player in seat 3 is 5"),
    ((6, 13), 0, "do not seat each player once"),
])
def test_malformed_status_cells(cell: tuple[int, int], value: int, text: str) -> None:
    with pytest.raises(CellError, match=text) as raised:
        decode(with_cells({cell: value}, DEAL_BYTES))
    assert raised.value.row == cell[0]
    one_line_error(raised.value)


@pytest.mark.parametrize("ranks", [(2, 3, 0, 0, 4), (0, 1, 0, 0, 0), (4, 4, 4, 4, 4)])
def test_ranks_that_repeat_during_play_are_read_as_sent(ranks: tuple[int, ...]) -> None:
    """2.2: the reference server writes each finishing rank into [6][5..9] as players go out."""
    wire = with_cells(dict(zip([(6, c) for c in range(5, 10)], ranks, strict=True)), DEAL_BYTES)
    assert decode(wire).status.ranks == ranks
    assert Reading.of(wire).status == decode(wire).status and Reading.of(wire).unused == ()


def test_a_client_reads_cells_without_meaning_and_names_them() -> None:
    """2.2, 'be liberal': a 2 in [5][8] (seen from the real server) and a value in row 7 are surprises, not
    errors; the status and cards read as without them, and the strict decode still refuses them."""
    clean = encode(Table(CardCells.hand(CardSet("3S JK")), DEAL_STATUS))
    wire = with_cells({(5, 8): 2, (7, 3): 9}, clean)
    reading = Reading.of(wire)
    assert reading.table() == decode(clean)
    assert [(e.row, e.column) for e in reading.unused] == [(5, 8), (7, 3)] and reading.status_error is None
    assert "[5][8]: holds 2" in str(reading.unused[0])
    with pytest.raises(CellError, match="no meaning"):
        decode(wire)


def test_a_status_cell_the_client_cannot_read_leaves_the_cards_readable() -> None:
    wire = with_cells({(5, 3): 9, (5, 2): 1}, encode(Table(CardCells.hand(CardSet("3S")), DEAL_STATUS)))
    reading = Reading.of(wire)
    assert reading.status is None and reading.your_turn
    assert "the player is 9" in str(reading.status_error)
    assert reading.cards() == CardCells.hand(CardSet("3S"))
    with pytest.raises(CellError, match="the player is 9"):
        reading.table()
    with pytest.raises(CellError, match="card cell holds"):
        Reading.of(with_cells({(0, 3): 7}, wire)).cards()


def test_the_status_row_of_a_client_table_is_no_status() -> None:
    """An all-zero status seats player 0 five times: a submission is not a server table."""
    with pytest.raises(CellError, match="do not seat each player once"):
        decode(encode_cards(CardCells(frozenset({card("3S")}))))


def test_values_that_cannot_be_built() -> None:
    with pytest.raises(CellError, match=r"\[0\]\[7\]: the joker and a natural card in one cell"):
        CardCells(frozenset({card("9S")}), JokerCell(Suit.SPADES, 7))
    with pytest.raises(TableError, match="goes in `joker`"):
        CardCells(frozenset({JOKER}))
    with pytest.raises(TableError, match="2 jokers"):
        CardCells.hand([JOKER, JOKER])
    with pytest.raises(TableError, match="a natural card twice"):
        CardCells.hand([card("3S"), card("3S")])
    with pytest.raises(TableError, match=r"outside 0\.\.14"):
        JokerCell(Suit.CLUBS, 15)
    with pytest.raises(TableError, match=r"outside 0\.\.14"):
        JokerCell(None, -1)
    with pytest.raises(CellError, match="one per player"):
        Status(exchange=False, give_back=0, your_turn=False, player=0, table_empty=False, eleven_back=False,
               revolution=False, suit_lock=False, card_counts=(1, 2, 3, 4), ranks=(0,) * 5, seats=(0, 1, 2, 3, 4))
    with pytest.raises(TableSizeError, match="8 rows of 15"):
        pack(((0,) * 15,) * 7)
    with pytest.raises(CellError, match=r"\[2\]\[3\]: the value is -4"):
        pack(tuple(tuple(-4 if (r, c) == (2, 3) else 0 for c in range(15)) for r in range(8)))


@pytest.mark.parametrize(("cells", "text"), [
    ({(0, 0): 20070, **{(1, column): 0x41 for column in range(15)}}, "no NUL in row 1"),
    ({(0, 0): 20070, (1, 0): 0x41, (1, 1): -3}, r"\[1\]\[1\]: a character code is -3"),
    ({(0, 0): 20070, (1, 0): 0x110000}, "a character code is 1114112"),
    ({(0, 0): -20070}, "protocol version is -20070"),
])
def test_malformed_profiles(cells: dict[tuple[int, int], int], text: str) -> None:
    with pytest.raises(CellError, match=text) as raised:
        decode_profile(with_cells(cells))
    one_line_error(raised.value)


def test_profiles_that_cannot_be_sent() -> None:
    with pytest.raises(CellError, match="at most 14 and a NUL"):
        Profile(PROTOCOL_20070, "x" * 15)
    with pytest.raises(CellError, match="NUL inside the name"):
        Profile(PROTOCOL_20070, "a\0b")
    with pytest.raises(CellError, match="protocol version is -1"):
        Profile(-1, "a")
