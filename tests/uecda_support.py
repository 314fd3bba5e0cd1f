"""A small UECda contest server and contest client for the tests, written from shared/UECDA.md alone.

No contest code is in here (several contest programs are GPL).  Both sides speak section 3 byte for byte
through `president_sdk.uecda_wire` and `president_sdk.uecda_table`; the rules are cut down to what exercises
the wire: every game is a rank-reset game (no exchange), plays are singles only (a natural card that beats
the table's by column, or a lone joker that beats any single and falls only to the spade 3), and there is no
8-stop or suit lock.  The turn order, passes, the end-of-trick count, the next leader and the 20-pass rule are
those of section 4.8, so a game ends as the reference server would end it (a client that has left and leads
an empty table passes for ever: only the 20-pass rule ends that game).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import dataclass, field

from president_engine.cards import CARDS, Card, Rank, Suit
from president_sdk.uecda_table import (
    COLUMN_OF_RANK,
    DEAL_TABLE_PLAYER,
    PLAYERS,
    PROTOCOL_20070,
    TABLE_BYTES,
    CardCells,
    JokerCell,
    Profile,
    Status,
    Table,
    TableError,
    decode,
    decode_cards,
    decode_profile,
    encode,
    encode_cards,
    encode_profile,
)
from president_sdk.uecda_wire import (
    ACCEPTED,
    GAME_ON,
    GAME_OVER,
    MATCH_OVER,
    REFUSED,
    client_handshake,
    read_int,
    read_table,
    write_int,
    write_table,
)

DIAMOND_3 = Card(Rank.THREE, Suit.DIAMONDS)
SPADE_3 = Card(Rank.THREE, Suit.SPADES)
LONE_JOKER = CardCells(joker=JokerCell(Suit.SPADES, 14))
"""A lone joker as the standard client writes one, at [0][14]."""
PASS_TABLE = bytes(TABLE_BYTES)
TWENTY_PASSES = 20
"""Passes (refused plays included) in a row that end a game, the players holding cards ranked at random."""


@dataclass(frozen=True)
class Submission:
    game: int
    player: int
    table: bytes
    accepted: bool
    ack: int


@dataclass(frozen=True)
class ServerRecord:
    names: tuple[str, ...]
    """Each player's name, by player number."""
    dropped: int
    """Connections closed in the handshake (no profile in time, or not protocol 20070)."""
    deals: tuple[dict[int, frozenset[Card]], ...]
    submissions: tuple[Submission, ...]
    results: tuple[tuple[int, ...], ...]
    """Each game's finishing order."""
    went_out: tuple[int, ...]
    """How many players of each game went out by playing (4, unless the 20-pass rule ended it)."""
    gone: frozenset[int]
    """Players whose connection broke, read as passing from then on."""


@dataclass
class _Game:
    number: int
    seats: tuple[int, ...]
    hands: dict[int, set[Card]]
    on_table: CardCells | None = None
    last_player: int | None = None
    passed: set[int] = field(default_factory=set)
    passes_in_a_row: int = 0
    out: list[int] = field(default_factory=list)

    def next_seat_after(self, player: int, *, skip_passed: bool) -> int:
        seat = self.seats.index(player)
        for step in range(1, PLAYERS + 1):
            candidate = self.seats[(seat + step) % PLAYERS]
            if candidate not in self.out and not (skip_passed and candidate in self.passed):
                return candidate
        raise AssertionError("no player left to move")


class ContestServer:
    """Five seats by accept order, a 2 s (here: `profile_timeout`) wait for each profile, then `games` games."""

    def __init__(self, *, games: int = 1, seed: int = 0, profile_timeout: float = 2.0,
                 read_timeout: float = 10.0) -> None:
        self.games = games
        self.random = random.Random(seed)
        self.profile_timeout = profile_timeout
        self.read_timeout = read_timeout
        self.seated = asyncio.Event()
        self.port = 0
        self._arrivals: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()
        self._streams: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self._names: list[str] = []
        self._gone: set[int] = set()
        self._dropped = 0
        self._submissions: list[Submission] = []
        self._server: asyncio.Server | None = None

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._arrived, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def _arrived(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._arrivals.put((reader, writer))

    async def run(self) -> ServerRecord:
        assert self._server is not None, "start() first"
        try:
            await self._seat_players()
            deals, results, went_out = [], [], []
            for number in range(self.games):
                game = self._deal(number)
                deals.append({player: frozenset(hand) for player, hand in game.hands.items()})
                await self._play(game)
                went_out.append(sum(not hand for hand in game.hands.values()))
                results.append(tuple(game.out))
        finally:
            await self._close()
        return ServerRecord(tuple(self._names), self._dropped, tuple(deals), tuple(self._submissions),
                            tuple(results), tuple(went_out), frozenset(self._gone))

    async def _seat_players(self) -> None:
        """One connection at a time, as the reference server does; the sixth finds nothing listening."""
        assert self._server is not None
        while len(self._streams) < PLAYERS:
            reader, writer = await self._arrivals.get()
            try:
                profile = decode_profile(await read_table(reader, timeout=self.profile_timeout))
            except (TimeoutError, ConnectionError, TableError):
                profile = None
            if profile is None or profile.version != PROTOCOL_20070:
                self._dropped += 1
                writer.close()
                continue
            await write_int(writer, len(self._streams), timeout=self.read_timeout)
            self._streams.append((reader, writer))
            self._names.append(profile.name)
        self._server.close()
        while not self._arrivals.empty():
            self._arrivals.get_nowait()[1].close()
        self.seated.set()

    def _deal(self, number: int) -> _Game:
        """A rank-reset game: random seats, a random dealer, one card at a time round the seats."""
        seats = list(range(PLAYERS))
        self.random.shuffle(seats)
        deck = list(CARDS)
        self.random.shuffle(deck)
        dealer = self.random.randrange(PLAYERS)
        hands: dict[int, set[Card]] = {player: set() for player in range(PLAYERS)}
        for index, card in enumerate(deck):
            hands[seats[(dealer + index) % PLAYERS]].add(card)
        return _Game(number, tuple(seats), hands)

    def _status(self, game: _Game, *, player: int, exchange: bool = False, your_turn: bool = False) -> Status:
        return Status(exchange=exchange, give_back=0, your_turn=your_turn, player=player,
                      table_empty=game.on_table is None, eleven_back=False, revolution=False, suit_lock=False,
                      card_counts=tuple(len(game.hands[p]) for p in range(PLAYERS)), ranks=(0,) * PLAYERS,
                      seats=game.seats)

    async def _play(self, game: _Game) -> None:
        for player in range(PLAYERS):
            status = self._status(game, player=DEAL_TABLE_PLAYER, exchange=True)
            await self._send_table(player, Table(CardCells.hand(game.hands[player]), status))
        mover = next(player for player, hand in game.hands.items() if DIAMOND_3 in hand)
        while True:
            if all(player in self._gone for player in range(PLAYERS) if player not in game.out):
                raise ConnectionError("every player still holding cards has left; the game cannot end")
            for player in range(PLAYERS):
                status = self._status(game, player=mover, your_turn=player == mover)
                await self._send_table(player, Table(CardCells.hand(game.hands[player]), status))
            submitted = await self._read_submission(mover)
            accepted, ends_trick = self._judge(game, mover, submitted)
            ack = ACCEPTED if accepted or (game.on_table is None and _is_pass(submitted)) else REFUSED
            await self._send_int(mover, ack)
            self._submissions.append(Submission(game.number, mover, submitted, accepted, ack))
            game.passes_in_a_row = 0 if accepted else game.passes_in_a_row + 1
            if accepted:
                game.last_player = mover
                if not game.hands[mover]:
                    game.out.append(mover)
            else:
                game.passed.add(mover)
            for player in range(PLAYERS):
                status = self._status(game, player=mover)
                await self._send_table(player, Table(game.on_table or CardCells(), status))
            over = len(game.out) == PLAYERS - 1 or game.passes_in_a_row == TWENTY_PASSES
            flag = GAME_ON if not over else MATCH_OVER if game.number == self.games - 1 else GAME_OVER
            for player in range(PLAYERS):
                await self._send_int(player, flag)
            if over:
                holding = [player for player in range(PLAYERS) if player not in game.out]
                self.random.shuffle(holding)
                game.out.extend(holding)
                return
            if ends_trick or len(game.passed) >= PLAYERS - 1 - len(game.out):
                leader = game.last_player if game.last_player is not None else mover
                game.on_table, game.passed = None, set()
                mover = leader if leader not in game.out else game.next_seat_after(leader, skip_passed=False)
            else:
                mover = game.next_seat_after(mover, skip_passed=True)

    def _judge(self, game: _Game, mover: int, submitted: bytes) -> tuple[bool, bool]:
        """(accepted, ends the trick) for a singles-only submission; a refused one changes nothing."""
        try:
            cells = decode_cards(submitted)
        except TableError:
            return False, False
        hand = game.hands[mover]
        if len(cells) != 1:
            return False, False
        card = next(iter(cells.cards))
        if card not in hand:
            return False, False
        table = game.on_table
        if cells.joker is not None:
            if cells.joker.suit is None or (table is not None and table.joker is not None):
                return False, False
        elif table is not None and table.joker is not None:
            if card != SPADE_3:
                return False, False
        elif table is not None and COLUMN_OF_RANK[card.rank] <= COLUMN_OF_RANK[next(iter(table.naturals)).rank]:
            return False, False
        hand.remove(card)
        game.on_table = cells
        return True, table is not None and table.joker is not None

    async def _read_submission(self, player: int) -> bytes:
        if player in self._gone:
            return PASS_TABLE
        try:
            return await read_table(self._streams[player][0], timeout=self.read_timeout)
        except ConnectionError:
            self._gone.add(player)
            return PASS_TABLE

    async def _send_table(self, player: int, table: Table) -> None:
        if player not in self._gone:
            try:
                await write_table(self._streams[player][1], encode(table), timeout=self.read_timeout)
            except ConnectionError:
                self._gone.add(player)

    async def _send_int(self, player: int, value: int) -> None:
        if player not in self._gone:
            try:
                await write_int(self._streams[player][1], value, timeout=self.read_timeout)
            except ConnectionError:
                self._gone.add(player)

    async def _close(self) -> None:
        """After the last end flag the server closes every socket."""
        if self._server is not None:
            self._server.close()
        for _, writer in self._streams:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()


def _is_pass(submitted: bytes) -> bool:
    try:
        return len(decode_cards(submitted)) == 0
    except TableError:
        return False


@dataclass(frozen=True)
class ClientRecord:
    player: int
    acks: tuple[int, ...]
    flags: tuple[int, ...]
    plays: tuple[bytes, ...]
    """Every table this client submitted, in order."""
    after_moves: tuple[bytes, ...]
    """Every table-after-move received, as bytes: all five players get the same ones."""
    left: bool
    """The client closed its connection itself before the match ended."""
    closed_by_server: bool
    hand_tables: tuple[bytes, ...] = ()
    """Every hand table received, one per move."""


def choose(hand: CardCells, on_table: CardCells | None) -> CardCells:
    """Singles only: lead the lowest card; follow with the lowest that beats, the joker last; else pass."""
    naturals = sorted(hand.naturals, key=lambda card: (COLUMN_OF_RANK[card.rank], card.suit))
    if on_table is not None and on_table.joker is not None:
        return CardCells(frozenset({SPADE_3})) if SPADE_3 in hand.naturals else CardCells()
    if on_table is not None:
        floor = COLUMN_OF_RANK[next(iter(on_table.naturals)).rank]
        naturals = [card for card in naturals if COLUMN_OF_RANK[card.rank] > floor]
    if naturals:
        return CardCells(frozenset(naturals[:1]))
    return LONE_JOKER if hand.joker is not None else CardCells()


async def _send_in_pieces(writer: asyncio.StreamWriter, data: bytes, pieces: int) -> None:
    """A sender that splits what a real client sends at once, so the server's reads must gather it."""
    size = -(-len(data) // pieces)
    for start in range(0, len(data), size):
        writer.write(data[start:start + size])
        await writer.drain()
        await asyncio.sleep(0.005)


async def play_client(port: int, name: str, *, pieces: int = 1, leave_after: int | None = None,
                      first_play: bytes | None = None, timeout: float = 10.0) -> ClientRecord:
    """A contest client from section 3: handshake, then deal, hand and after-move tables until end flag 2.

    `pieces` > 1 sends the profile and every play split; `leave_after` closes the socket after that many
    own turns; `first_play` is sent instead of the first real play (a malformed table, say).
    """
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if pieces == 1:
        player = await client_handshake(reader, writer, name, timeout=timeout)
    else:
        await _send_in_pieces(writer, encode_profile(Profile(PROTOCOL_20070, name)), pieces)
        player = await read_int(reader, timeout=timeout)
    acks: list[int] = []
    flags: list[int] = []
    plays: list[bytes] = []
    after_moves: list[bytes] = []
    hand_tables: list[bytes] = []
    flag = GAME_ON
    while flag != MATCH_OVER:
        deal = decode(await read_table(reader, timeout=timeout))
        assert deal.status.exchange and deal.status.player == DEAL_TABLE_PLAYER
        if deal.status.give_back:  # the weakest cards, as the standard client gives
            weakest = sorted(deal.cards.naturals, key=lambda card: (COLUMN_OF_RANK[card.rank], card.suit))
            await write_table(writer, encode_cards(CardCells(frozenset(weakest[:deal.status.give_back]))),
                              timeout=timeout)
        on_table: CardCells | None = None
        flag = GAME_ON
        while flag == GAME_ON:
            hand_tables.append(await read_table(reader, timeout=timeout))
            hand_table = decode(hand_tables[-1])
            assert hand_table.status.card_counts[player] == len(hand_table.cards)
            if hand_table.status.your_turn:
                assert hand_table.status.player == player
                current = None if hand_table.status.table_empty else on_table
                play = first_play if first_play is not None and not plays else encode_cards(
                    choose(hand_table.cards, current))
                plays.append(play)
                if pieces == 1:
                    await write_table(writer, play, timeout=timeout)
                else:
                    await _send_in_pieces(writer, play, pieces)
                acks.append(await read_int(reader, timeout=timeout))
                if leave_after is not None and len(plays) == leave_after:
                    writer.close()
                    return ClientRecord(player, tuple(acks), tuple(flags), tuple(plays), tuple(after_moves),
                                        left=True, closed_by_server=False, hand_tables=tuple(hand_tables))
            after = await read_table(reader, timeout=timeout)
            after_moves.append(after)
            shown = decode(after).cards
            on_table = shown if len(shown) else None
            flag = await read_int(reader, timeout=timeout)
            flags.append(flag)
    closed = await asyncio.wait_for(reader.read(1), timeout) == b""
    writer.close()
    return ClientRecord(player, tuple(acks), tuple(flags), tuple(plays), tuple(after_moves),
                        left=False, closed_by_server=closed, hand_tables=tuple(hand_tables))
