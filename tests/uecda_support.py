"""Two UECda contest servers and a contest client for the tests, written from shared/UECDA.md alone.

No contest code is in here (several contest programs are GPL).  Both sides speak section 3 byte for byte
through `president_sdk.uecda.wire` and `president_sdk.uecda.table`; the rules are cut down to what exercises
the wire: every game is a rank-reset game (no exchange), plays are singles only (a natural card that beats
the table's by column, or a lone joker that beats any single and falls only to the spade 3), and there is no
8-stop or suit lock.  The turn order, passes, the end-of-trick count, the next leader and the 20-pass rule are
those of section 4.8, so a game ends as the reference server would end it (a client that has left and leads
an empty table passes for ever: only the 20-pass rule ends that game).

`EngineServer` is the other counterpart: the engine judges (`Rules.preset("daifugo")`, exchange and all), so an
SDK bot's every play must be accepted; with `reference=True` it sends its tables as section 2.2 says the
reference server does, which bridge A never does: the rank cells [6][5..9] updated as players go out (a rank
repeats during play), and cells without meaning holding values (a 2 in [5][8], numbers in row 7).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import struct
from dataclasses import dataclass, field
from typing import Any

from president_engine import (
    PASS,
    Action,
    CardSet,
    GiveBack,
    IllegalActionError,
    Match,
    MatchRecord,
    Phase,
    Play,
    Role,
    Rules,
)
from president_engine.cards import CARDS, Card, Rank, Suit
from president_engine.events import DealEnded
from president_sdk.uecda.client import play_of_cells, play_uecda_async
from president_sdk.uecda.plays import CONTEST_RANK, cells_of_play
from president_sdk.uecda.seat import Submission as SeatSubmission
from president_sdk.uecda.table import (
    COLUMN_OF_RANK,
    DEAL_TABLE_PLAYER,
    PLAYERS,
    PROTOCOL_20070,
    TABLE_BYTES,
    CardCells,
    JokerCell,
    Profile,
    Reading,
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
from president_sdk.uecda.wire import (
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


class EngineServer:
    """A contest server whose judge is the engine (`Rules.preset("daifugo")`, exchange and all): the real
    contest's rules, so every play an SDK bot makes through `play_uecda` must be accepted.

    `reference`: the tables as the reference server sends them (UECDA 2.2): one rank array, set at each deal
    and written with each finishing rank as players go out (`daihu.c:1417`), fills [6][5..9]; and one table in
    `junk_every` carries a 2 in [5][8] and a value in row 7, cells the spec gives no meaning."""

    def __init__(self, deals: int, seed: int, *, reference: bool = False, junk_every: int = 7) -> None:
        self.match = Match(Rules.preset("daifugo", deals=deals), seed=seed)
        self.reference = reference
        self.junk_every = junk_every
        self.streams: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.refused = 0
        """Submissions refused: malformed, or not a legal play on the table."""
        self.by_passes = 0
        """Games the 20-pass rule ended."""
        self.places: list[tuple[int, ...]] = []
        self.given: list[tuple[int, CardSet]] = []
        self.sent = 0
        self.repeated_ranks = 0
        """Tables sent whose rank cells were neither all 0 nor one of each."""
        self.junk = 0
        """Tables sent with a value in a cell without meaning."""
        self._ranks = [0] * 5
        self._junk_draw = random.Random(seed)
        self.names: list[str] = []
        self.submissions: list[SeatSubmission] = []
        """Every play table as a client sent it, for the game log."""

    async def run(self, server: asyncio.Server, arrivals: asyncio.Queue[Any]) -> None:
        while len(self.streams) < 5:
            reader, writer = await arrivals.get()
            self.names.append(decode_profile(await read_table(reader, timeout=30)).name)
            await write_int(writer, len(self.streams))
            self.streams.append((reader, writer))
        server.close()
        while not self.match.is_over:
            await self.deal()
        for _, writer in self.streams:
            writer.close()

    def status(self, *, player: int, counts: tuple[int, ...], mover: int = DEAL_TABLE_PLAYER, to_move: bool = False,
               give_back: int = 0) -> Status:
        m = self.match
        return Status(exchange=mover == DEAL_TABLE_PLAYER, give_back=give_back, your_turn=to_move and mover == player,
                      player=mover, table_empty=m.table is None, eleven_back=False, revolution=m.reversed,
                      suit_lock=bool(m.suit_lock), card_counts=counts, ranks=tuple(self._ranks), seats=m.seats)

    async def send(self, player: int, table: Table) -> None:
        data = encode(table)
        self.sent += 1
        if player == 0:
            ranks = sorted(table.status.ranks)
            self.repeated_ranks += any(ranks) and ranks != list(range(5))
        if self.reference and self._junk_draw.randrange(self.junk_every) == 0:
            junk = bytearray(data)
            struct.pack_into(">i", junk, (5 * 15 + 8) * 4, 2)
            struct.pack_into(">i", junk, (7 * 15 + self._junk_draw.randrange(15)) * 4, self._junk_draw.randrange(1, 99))
            data = bytes(junk)
            self.junk += 1
        await write_table(self.streams[player][1], data)

    async def deal(self) -> None:
        m = self.match
        roles = m.roles
        self._ranks = [0] * 5 if all(r is Role.NEUTRAL for r in roles) else [CONTEST_RANK[r] for r in roles]
        owed = {Role.PRESIDENT: 2, Role.VICE_PRESIDENT: 1}
        exchange = m.phase is Phase.GIVE_BACK
        tribute = {Role.PRESIDENT: 2, Role.VICE_PRESIDENT: 1, Role.VICE_SCUM: -1, Role.SCUM: -2}
        dealt = tuple(size - (tribute.get(role, 0) if exchange else 0) for size, role in zip(m.hand_sizes(), m.roles,
                                                                                            strict=True))
        for p in range(5):
            give = owed.get(m.roles[p], 0) if exchange else 0
            await self.send(p, Table(CardCells.hand(m.hand(p)), self.status(player=p, counts=dealt, give_back=give)))
        while m.phase is Phase.GIVE_BACK:
            giver = m.to_act
            assert giver is not None
            cards = decode_cards(await read_table(self.streams[giver][0], timeout=30)).cards
            self.given.append((giver, cards))
            m.apply(m.check(GiveBack(cards)))
        out = 0
        while True:
            mover = m.to_act
            assert mover is not None
            counts, on_table = m.hand_sizes(), m.table
            for p in range(5):
                await self.send(p, Table(CardCells.hand(m.hand(p)), self.status(player=p, counts=counts, mover=mover,
                                                                                    to_move=True)))
            submitted = await read_table(self.streams[mover][0], timeout=30)
            cells: CardCells | None
            try:
                cells = decode_cards(submitted)
            except TableError:  # malformed (UECDA 4.2): refused, a pass
                cells = None
            action: Action = PASS if cells is None or not len(cells) else play_of_cells(m.rules, cells)
            try:
                action = m.check(action)
            except IllegalActionError:
                self.refused += 1
                action = PASS
            self.refused += cells is None
            await write_int(self.streams[mover][1], ACCEPTED if isinstance(action, Play) or (  # UECDA 3.3
                on_table is None and cells is not None and not len(cells)) else REFUSED)
            self.submissions.append(SeatSubmission(m.deal, mover, submitted, cells, isinstance(action, Play)))
            events = m.apply(action)
            played = cells if isinstance(action, Play) else None
            shown = played if played is not None else cells_of_play(on_table) if on_table else CardCells()
            ended = [e for e in events if isinstance(e, DealEnded)]
            self.by_passes += bool(ended) and played is None  # a game that ends on a pass: the 20-pass rule
            after = tuple(c - (len(played) if p == mover and played is not None else 0)
                          for p, c in enumerate(counts))
            if self.reference and isinstance(action, Play) and after[mover] == 0:
                self._ranks[mover] = out  # the finishing rank, into the array every later table is filled from
                out += 1
            for p in range(5):
                await self.send(p, Table(shown, self.status(player=p, counts=after, mover=mover)))
            flag = MATCH_OVER if m.is_over else GAME_OVER if ended else GAME_ON
            for _, writer in self.streams:
                await write_int(writer, flag)
            if ended:
                self.places.append(ended[0].places)
                return


def engine_log(judge: EngineServer) -> str:
    """The game log of the judge's match in section 7's format, as the reference server writes it: the plays
    as the clients sent them, and (as the reference server does now and then) a space at the end of some
    play lines."""
    from president_harness.uecda.uecda_bridge import BridgeResult
    from president_harness.uecda.uecda_log import log_of

    m = judge.match
    result = BridgeResult("", tuple(judge.names), tuple(m.scores), MatchRecord.from_match(m),
                          tuple(judge.submissions))
    lines = log_of(result).lines()
    return "".join(line + (" " if "%play%" in line and number % 2 else "") + "\n"
                   for number, line in enumerate(lines))


async def _judging(judge: EngineServer) -> tuple[asyncio.Queue[Any], int, asyncio.Task[Any]]:
    """`judge` serving on a port of its own: the queue of its arrivals, the port, and its task."""
    arrivals: asyncio.Queue[Any] = asyncio.Queue()

    async def arrived(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await arrivals.put((reader, writer))

    server = await asyncio.start_server(arrived, "127.0.0.1", 0)
    return arrivals, server.sockets[0].getsockname()[1], asyncio.create_task(judge.run(server, arrivals))


async def engine_contest(judge: EngineServer, bots: list[Any], *, timeout: float = 30,
                         command: list[str] | None = None) -> tuple[list[Any], tuple[int, str, str] | None]:
    """`judge` on a port of its own and its clients, connecting one by one: first `command` (a
    `president-bot ... --uecda` to which `HOST:PORT` is added, as player 0) if given, then one `play_uecda_async`
    per bot.  The bots' ContestResults in their order, and the command's (exit status, stdout, stderr)."""
    arrivals, port, serving = await _judging(judge)
    process = None
    if command is not None:
        process = await asyncio.create_subprocess_exec(*command, f"127.0.0.1:{port}", stdout=asyncio.subprocess.PIPE,
                                                       stderr=asyncio.subprocess.PIPE)
        while arrivals.empty() and not judge.streams:
            await asyncio.sleep(0.05)
    clients = []
    for bot in bots:
        clients.append(asyncio.create_task(play_uecda_async(bot, "127.0.0.1", port, timeout=timeout)))
        await asyncio.sleep(0.02)
    results = await asyncio.gather(*clients)
    await serving
    ran = None
    if process is not None:
        out, err = await process.communicate()
        ran = (await process.wait(), out.decode(), err.decode())
    return list(results), ran


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


MALFORMED_JOKER_RUN = struct.pack(">120i", *([0] * 3 + [2, 2] + [0] * 115))
"""A joker sequence written with two 2-cells ([0][3] and [0][4]): malformed (UECDA 4.2), refused every time; the
standard client sends such a table again and again, and so sets off the 20-pass rule (UECDA 4.8)."""


async def stubborn_client(port: int, name: str, *, stubborn_games: frozenset[int] = frozenset(),
                          stubborn_at: int = 3, timeout: float = 30.0) -> tuple[int, int]:
    """A contest client that reads every table as a client must (UECDA 2.2: cells without meaning ignored),
    gives back its weakest cards and plays singles (`choose`); but in the games `stubborn_games` (from 0), once
    it holds at most `stubborn_at` cards, it submits `MALFORMED_JOKER_RUN` at every turn, as the standard
    client does when it loops.  Deterministic: the same tables get the same answers.  Its player number and
    how many of its submissions were refused."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    player = await client_handshake(reader, writer, name, timeout=timeout)
    refused, game, flag = 0, 0, GAME_ON
    while flag != MATCH_OVER:
        deal = Reading.of(await read_table(reader, timeout=timeout)).table()
        if deal.status.give_back:
            weakest = sorted(deal.cards.naturals, key=lambda card: (COLUMN_OF_RANK[card.rank], card.suit))
            await write_table(writer, encode_cards(CardCells(frozenset(weakest[:deal.status.give_back]))),
                              timeout=timeout)
        on_table: CardCells | None = None
        flag = GAME_ON
        while flag == GAME_ON:
            hand = Reading.of(await read_table(reader, timeout=timeout)).table()
            if hand.status.your_turn:
                stubborn = game in stubborn_games and len(hand.cards) <= stubborn_at
                current = None if hand.status.table_empty else on_table
                await write_table(writer, MALFORMED_JOKER_RUN if stubborn else encode_cards(
                    choose(hand.cards, current)), timeout=timeout)
                refused += await read_int(reader, timeout=timeout) == REFUSED
            shown = Reading.of(await read_table(reader, timeout=timeout)).cards()
            on_table = shown if len(shown) else None
            flag = await read_int(reader, timeout=timeout)
        game += 1
    writer.close()
    return player, refused


async def raw_contest(judge: EngineServer, clients: list[Any]) -> list[Any]:
    """`judge` on a port of its own and the contest clients `clients` (each a function of the port returning a
    coroutine), connecting one by one in their order (players 0, 1, ...): their results."""
    _, port, serving = await _judging(judge)
    playing = []
    for client in clients:
        playing.append(asyncio.create_task(client(port)))
        await asyncio.sleep(0.05)
    results = await asyncio.gather(*playing)
    await serving
    return list(results)


# --- a game log as the reference server writes it (section 7), by hand -------------------------------------

LOG_HANDS = ("S3S4S5S6S7S8S9STSJSQSK", "SAS2H3H4H5H6H7H8H9HTHJ", "HQHKHAH2D3D4D5D6D7D8D9", "DTDJDQDKDAD2C3C4C5C6",
         "C7C8C9CTCJCQCKCAC2J3")
"""A deal of game 0 by player, each hand in cell order (row by row), the hand's joker as ``J3`` ([4][1])."""

REFERENCE_LOG = (
    "%-----%hostname% tndhms-host\n"
    "%-----%TIME_START% 2026/12/07 18:00:00\n"
    "%-----%palyer_name% default default default default default\n"
    "%-----%WINDOW_TYPE% none\n"
    "%-----%GRAPH_WINDOW% no\n"
    "%-----%RAND_TYPE% 0\n"
    "%-----%RULE_KAKUMEI% yes\n"
    "%-----%RULE_SHIBARI% yes\n"
    "%-----%RULE_KINSOKU% no\n"
    "%-----%RULE_KAIDAN% yes\n"
    "%-----%RULE_CHANGE% yes\n"
    "%-----%RULE_5TOBI% no\n"
    "%-----%RULE_6REVERS% no\n"
    "%-----%RULE_8GIRI% yes\n"
    "%-----%RULE_11BACK% no\n"
    "%-----%RULE_SEKIGAE% yes\n"
    "%-----%RULE_SEKIGAE_NUM% 5\n"
    "%-----%GAME_NUMBER% 2\n"
    "%-----%FLASH_MIBUN_NUMBER% 100\n"
    "%-----%GAME_PORT% 42485\n"
    "%-----%RANDOM_SEED% 1765130400\n"
    "%00000%mibun% 22222\n"
    "%00000%seat% 01234\n"
    f"%00000%palyer_cards% {' '.join(LOG_HANDS)} \n"
    "%00000%change_cards% NULL\n"
    "%00000%play%  2D3EE 3DTEE 4C2EE 0EE 1EE 2EE 3EE 4J3EE 0EE 1EE 2EE 3EE\n"
    "%00000%result% 41230\n"
    "%00000%points% 1 3 2 4 5\n"
    "%00001%mibun% 40132\n"
    "%00001%seat% 31042\n"
    f"%00001%palyer_cards% {' '.join(LOG_HANDS)} \n"
    "%00001%change_cards%  04S2DAEE 23J3EE 40D4C5EE 32H3EE\n"
    "%00001%play%  0S3EE 1SAEE 2EE 3EE 4KxEE 0EE 1EE 2EE 3EE \n"
    "%00001%result% 40132\n"
    "%00001%points% 3 6 3 5 10\n"
    "%-----%TIME_END% 2026/12/07 18:00:01\n"
    "%-----%TOTAL_POINT% 3 6 3 5 10\n")
"""Two games as section 7 shows them: one space after each key's %, one more before each change_cards and play
entry, a space after each hand, and one play line that ends with a space."""
