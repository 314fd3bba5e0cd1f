"""Bridge A: five UECda contest clients play a match on a server of ours (shared/UECDA.md sections 1-3).

The bridge listens where a contest server would (127.0.0.1:42485), takes five clients in accept order (their
player numbers), and creates a `daifugo` match on our server with one seat per client.  Each seat is played
by a `ContestSeat`, an SDK bot whose moves come from its client: it turns what the seat may see into the
contest's tables (only that seat's own hand ever goes out) and the client's answers into actions.  The
server runs the rules, the clock-free turn order, the log on disk and the web page; the bridge only
translates.

Threads: the seats run the SDK's blocking runner, one thread each; the sockets live on the bridge's event
loop, where a seat queues its writes and waits for its client's reads (`_Client`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Final

import grpc
from president_engine import PASS, Action, CardSet, GiveBack, MatchRecord, Observation, Play, Role, Rules
from president_engine.events import (
    CardsGiven,
    DealEnded,
    DealStarted,
    Event,
    HandDealt,
    MatchEnded,
    Passed,
    Played,
    RevolutionHappened,
    TrickWon,
)
from president_engine.tables import tables_for, trick_state
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk.bot import Bot
from president_sdk.remote import run
from president_sdk.uecda_plays import CONTEST_RANK, action_of_cells, cells_of_play
from president_sdk.uecda_table import (
    DEAL_TABLE_PLAYER,
    PLAYERS,
    PROTOCOL_20070,
    CardCells,
    Status,
    Table,
    TableError,
    decode_cards,
    decode_profile,
    encode,
)
from president_sdk.uecda_wire import (
    ACCEPTED,
    GAME_ON,
    GAME_OVER,
    MATCH_OVER,
    REFUSED,
    pack_int,
    read_table,
    write_int,
)

log = logging.getLogger("president.uecda")

DEFAULT_LISTEN: Final = ("127.0.0.1", 42485)
PROFILE_WAIT_S: Final = 2.0
"""How long a new client has to send its profile (the reference server's select, UECDA 3.1)."""
MAX_WAITING: Final = 16
"""Connections waiting to be seated beyond which a new one is closed at once (a flood of connections)."""
MAX_UNREAD: Final = 1 << 20
"""Bytes written to a client and not yet taken by it, beyond which it is dropped (a match's tables to a
client that reads nothing; a playing client is never more than one move behind)."""
GIVE_BACK_COUNT: Final[dict[Role, int]] = {Role.PRESIDENT: 2, Role.VICE_PRESIDENT: 1}

@dataclass(frozen=True, slots=True)
class Submission:
    """One table a client sent for a move, as it sent it, and what it became."""

    deal: int
    player: int
    table: bytes | None
    """The 480 bytes as sent; None from a client that has gone (a pass)."""
    cells: CardCells | None
    """None for a table that is not cards at all (malformed)."""
    accepted: bool


@dataclass
class Journal:
    """What the five seats did that the server's record does not keep: the submissions as written."""

    submissions: list[Submission] = field(default_factory=list)
    written: dict[int, CardCells] = field(default_factory=dict)
    """The cells of each accepted play, by its number among the match's moves: the table-after-move shows a
    play exactly as its client wrote it (a lone joker anywhere in rows 0-3)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, move: int, submission: Submission) -> None:
        with self.lock:
            self.submissions.append(submission)
            if submission.accepted and submission.cells is not None:
                self.written[move] = submission.cells

    def cells(self, move: int, play: Play) -> CardCells:
        with self.lock:
            found = self.written.pop(move, None)
        return found if found is not None else cells_of_play(play)


class _Client:
    """One contest client's connection: a client that has gone passes from then on (UECDA 1).

    Writes go to the loop without waiting (in order: `call_soon_threadsafe` keeps it), each one `write` of a
    whole message; only a read makes the seat's thread wait.  A client that stops reading is dropped once
    `MAX_UNREAD` bytes wait for it, rather than buffering without bound.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int, name: str,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.reader, self.writer, self.number, self.name, self.loop = reader, writer, number, name, loop
        self.gone = False

    def send_table(self, table: Table) -> None:
        self._send(encode(table))

    def send_int(self, value: int) -> None:
        self._send(pack_int(value))

    def _send(self, data: bytes) -> None:
        if not self.gone:
            self.loop.call_soon_threadsafe(self._write, data)

    def _write(self, data: bytes) -> None:
        if self.gone:
            return
        if self.writer.is_closing():
            self._leave("the connection closed")
        elif self.writer.transport.get_write_buffer_size() > MAX_UNREAD:
            self._leave(f"more than {MAX_UNREAD} bytes unread")
        else:
            self.writer.write(data)

    def read_table(self) -> bytes | None:
        """The client's next table, or None once it has gone."""
        if self.gone:
            return None
        try:
            return asyncio.run_coroutine_threadsafe(read_table(self.reader), self.loop).result()
        except (ConnectionError, OSError) as exc:
            self.loop.call_soon_threadsafe(self._leave, str(exc))
            self.gone = True
            return None

    def _leave(self, why: str) -> None:
        log.warning("contest player %d (%s) has gone (%s): it passes from now on", self.number, self.name, why)
        self.gone = True
        self.writer.close()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.writer.close)


class ContestSeat(Bot):
    """The seat of one contest client: what the seat sees becomes the client's tables, its tables our actions.

    Each table is built from this seat's own events only, so it can carry no card the seat may not see.
    A move's table-after-move waits for the events that follow the move (a revolution, a trick won), and its
    end flag for the next move or the deal's end, which say what the flag is.
    """

    def __init__(self, client: _Client, journal: Journal) -> None:
        self.client = client
        self.journal = journal
        self._reset_deal()
        self._moves = 0
        """Plays and passes seen in the match: the key of `Journal.written`."""
        self._after: tuple[CardCells, Status] | None = None
        """The table-after-move not sent yet, and its status but for the revolution."""
        self._flag_due = False
        self._mine = False
        """The move being reported is this seat's own: its hand table went out when it was asked."""

    @property
    def name(self) -> str:
        return self.client.name or f"contest-{self.client.number}"

    def _reset_deal(self) -> None:
        self.hand = CardSet()
        self.sizes = [0] * PLAYERS
        self.dealt_sizes: tuple[int, ...] = (0,) * PLAYERS
        self.seats: tuple[int, ...] = tuple(range(PLAYERS))
        self.ranks: tuple[int, ...] = (0,) * PLAYERS
        self.role = Role.NEUTRAL
        self.table: Play | None = None
        self.shown = CardCells()
        self.trick: list[Play] = []
        self.revolution = False

    # ------------------------------------------------------------------ what the seat sees

    def on_event(self, event: Event) -> None:
        if isinstance(event, (Played, Passed)):
            self._flush(GAME_ON)
            self._move(event)
        elif isinstance(event, DealStarted):
            self._reset_deal()
            self.seats = event.seats
            self.sizes, self.dealt_sizes = list(event.hand_sizes), event.hand_sizes
            fresh = self.rules is not None and self.rules.fresh_deal(event.deal)
            self.ranks = (0,) * PLAYERS if fresh else tuple(CONTEST_RANK[role] for role in event.roles)
            self.role = Role.NEUTRAL if fresh else event.roles[self.player]
        elif isinstance(event, HandDealt):
            self.hand = event.cards
            if self.role not in GIVE_BACK_COUNT:  # the President and Vice see theirs after the tribute
                self._send_deal_table(0)
        elif isinstance(event, CardsGiven):
            self.sizes[event.giver] -= event.count
            self.sizes[event.receiver] += event.count
            if event.cards is not None and event.giver == self.player:
                self.hand = self.hand - event.cards
            elif event.cards is not None and event.receiver == self.player:
                self.hand = self.hand + event.cards
        elif isinstance(event, RevolutionHappened):
            self.revolution = event.reversed
        elif isinstance(event, TrickWon):
            self.table, self.trick = None, []
        elif isinstance(event, DealEnded):
            self._flush(MATCH_OVER if self.rules is not None and event.deal == self.rules.deals else GAME_OVER)
        elif isinstance(event, MatchEnded):
            self._flush(MATCH_OVER)
            self.client.close()

    def _move(self, event: Played | Passed) -> None:
        mover = event.player
        if not self._mine:
            self.client.send_table(Table(self._hand_cells(), self._status(mover, your_turn=False)))
        self._mine = False
        self._moves += 1
        if isinstance(event, Played):
            self.sizes[mover] -= event.play.size
            if mover == self.player:
                self.hand = self.hand - event.play.cards
            self.table = event.play
            self.trick.append(event.play)
            self.shown = self.journal.cells(self._moves, event.play)
        self._after = (self.shown, self._status(mover, your_turn=False))
        self._flag_due = True

    def _flush(self, flag: int) -> None:
        """Send the last move's table-after-move (with the revolution its events reported) and its end flag."""
        if self._after is not None:
            cells, status = self._after
            self._after = None
            status = dataclasses.replace(status, table_empty=not len(cells), revolution=self.revolution)
            self.client.send_table(Table(cells, status))
        if self._flag_due:
            self._flag_due = False
            self.client.send_int(flag)
        if self.table is None:
            self.shown = CardCells()

    def _hand_cells(self) -> CardCells:
        return CardCells.hand(self.hand)

    def _status(self, player: int, *, your_turn: bool, exchange: bool = False, give_back: int = 0) -> Status:
        rules = self.rules
        lock = back = 0
        if rules is not None and self.trick:
            lock, back = trick_state(tables_for(rules), self.trick)
        return Status(exchange=exchange, give_back=give_back, your_turn=your_turn, player=player,
                      table_empty=self.table is None, eleven_back=bool(back), revolution=self.revolution,
                      suit_lock=bool(lock), card_counts=tuple(self.dealt_sizes if exchange else self.sizes),
                      ranks=self.ranks, seats=self.seats)

    def _send_deal_table(self, give_back: int) -> None:
        self.client.send_table(Table(self._hand_cells(), self._status(DEAL_TABLE_PLAYER, your_turn=False,
                                                                         exchange=True, give_back=give_back)))

    # ------------------------------------------------------------------ what the client answers

    def give_back(self, obs: Observation) -> Action:
        """The client's give-back; an invalid one is the strongest cards held (UECDA 3.4)."""
        self.hand = obs.hand
        self._send_deal_table(obs.owed)
        submitted = self.client.read_table()
        cards = _cards(submitted)
        for action in obs.legal_actions:
            if isinstance(action, GiveBack) and cards is not None and action.cards == cards:
                return action
        strongest = obs.rules.best_first
        best = sorted(obs.hand, key=strongest.index)[:obs.owed]
        log.info("contest player %d gave back an invalid table; the strongest cards go instead", self.player)
        return next(a for a in obs.legal_actions if isinstance(a, GiveBack) and a.cards == CardSet(best))

    def play(self, obs: Observation) -> Action:
        self._flush(GAME_ON)
        self.client.send_table(Table(self._hand_cells(), self._status(self.player, your_turn=True)))
        submitted = self.client.read_table()
        cells = _cells(submitted)
        action = None if cells is None else action_of_cells(cells, obs.legal_actions)
        accepted = action is not None and action is not PASS
        empty = obs.table is None
        self.client.send_int(ACCEPTED if accepted or (empty and cells is not None and not len(cells)) else REFUSED)
        self.journal.add(self._moves + 1, Submission(obs.deal, self.player, submitted, cells, accepted))
        self._mine = True
        return action if accepted and action is not None else PASS


def _cells(submitted: bytes | None) -> CardCells | None:
    """A submission's cells: none for a client gone (a pass), None for a malformed table (refused)."""
    if submitted is None:
        return CardCells()
    try:
        return decode_cards(submitted)
    except TableError:
        return None


def _cards(submitted: bytes | None) -> CardSet | None:
    """A give-back's cards; None for a malformed table or a client gone (both invalid)."""
    cells = None if submitted is None else _cells(submitted)
    return None if cells is None else cells.cards


# ---------------------------------------------------------------------------- seating the five


@dataclass(frozen=True, slots=True)
class Arrival:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter


async def seat_five(arrivals: asyncio.Queue[Arrival], *, profile_wait: float = PROFILE_WAIT_S
                    ) -> list[tuple[Arrival, str]]:
    """Five clients in accept order, each with its name; one that sends no 20070 profile in time is closed.

    The reference server would assume the 2006 protocol (host-order ints) for it; this bridge speaks 20070
    only, so it says why in its log and waits for another client.
    """
    seated: list[tuple[Arrival, str]] = []
    while len(seated) < PLAYERS:
        arrival = await arrivals.get()
        address = arrival.writer.get_extra_info("peername")
        peer = f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address)
        try:
            profile = decode_profile(await read_table(arrival.reader, timeout=profile_wait))
        except TimeoutError:
            log.warning("a client at %s sent no profile in %g s: closed (this bridge speaks protocol %d only)",
                        peer, profile_wait, PROTOCOL_20070)
            profile = None
        except (ConnectionError, TableError) as exc:
            log.warning("a client at %s sent no valid profile (%s): closed", peer, exc)
            profile = None
        if profile is not None and profile.version != PROTOCOL_20070:
            log.warning("a client at %s speaks protocol %d: closed (this bridge speaks %d only)", peer,
                        profile.version, PROTOCOL_20070)
            profile = None
        if profile is None:
            arrival.writer.close()
            continue
        await write_int(arrival.writer, len(seated))
        seated.append((arrival, profile.name))
        log.info("contest player %d: %s (from %s)", len(seated) - 1, profile.name, peer)
    return seated


def contest_rules(games: int, *, reseat_every: int | None = None) -> Rules:
    """The `daifugo` preset for a match of `games` games."""
    overrides: dict[str, Any] = {"deals": games}
    if reseat_every is not None:
        overrides["reseat_every"] = reseat_every
    return Rules.preset("daifugo", **overrides)


# ---------------------------------------------------------------------------- one match


@dataclass(frozen=True, slots=True)
class BridgeResult:
    match_id: str
    names: tuple[str, ...]
    """The five clients' names, by player number."""
    totals: tuple[int, ...]
    """Points by player number (5-4-3-2-1 a game)."""
    record: MatchRecord
    """The server's record of the match."""
    submissions: tuple[Submission, ...]


class Listener:
    """The bridge's TCP port: clients queue up in accept order until five are seated; then it closes, so a
    sixth finds nothing listening (as with the reference server, which accepts exactly five)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.arrivals: asyncio.Queue[Arrival] = asyncio.Queue()
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Listener:
        async def arrived(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if self.arrivals.qsize() >= MAX_WAITING:
                log.warning("%d connections already wait to be seated: one more closed", MAX_WAITING)
                writer.close()
                return
            await self.arrivals.put(Arrival(reader, writer))

        self._server = await asyncio.start_server(arrived, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def seat_five(self, *, profile_wait: float = PROFILE_WAIT_S) -> list[tuple[Arrival, str]]:
        seated = await seat_five(self.arrivals, profile_wait=profile_wait)
        self.close()
        return seated

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
        while not self.arrivals.empty():
            self.arrivals.get_nowait().writer.close()

    async def __aexit__(self, *_: object) -> None:
        self.close()


def seat_name(name: str, number: int) -> str:
    """A client's name as a seat's display name: its printable part, or ``contest-N``."""
    shown = "".join(ch for ch in name if ch.isprintable()).strip()
    return shown or f"contest-{number}"


async def play_match(seated: list[tuple[Arrival, str]], server: str, admin_token: str, rules: Rules, *,
                     seed: int | None = None, created: asyncio.Future[str] | None = None) -> BridgeResult:
    """Create the match on `server` with one seat per client and play it out; `created` gets its id."""
    loop = asyncio.get_running_loop()
    names = tuple(seat_name(name, number) for number, (_, name) in enumerate(seated))
    admin = (("authorization", f"Bearer {admin_token}"),)
    async with grpc.aio.insecure_channel(server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        reply = await stub.CreateMatch(pb.CreateMatchRequest(
            preset="daifugo", rules=convert.rules_to_proto(rules), seed=seed, seat_names=names,
            clock=pb.ClockSettings(move_time_limit_ms=0)), metadata=admin, timeout=30)
        if created is not None:
            created.set_result(reply.match_id)
        journal = Journal()
        clients = [_Client(arrival.reader, arrival.writer, number, names[number], loop)
                   for number, (arrival, _) in enumerate(seated)]
        seats = [ContestSeat(client, journal) for client in clients]
        try:
            results = await asyncio.gather(*(
                asyncio.to_thread(run, seat, server, token.token, name=names[number])
                for number, (seat, token) in enumerate(zip(seats, reply.seats, strict=True))))
        finally:
            for client in clients:
                client.writer.close()
        replay = await stub.GetReplay(pb.GetReplayRequest(match_id=reply.match_id), metadata=admin, timeout=30)
    return BridgeResult(reply.match_id, names, results[0].totals, convert.replay_from_proto(replay.replay),
                        tuple(journal.submissions))
