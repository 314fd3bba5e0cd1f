"""A UECda contest client playing one seat of ours: the seat's view out as the contest's tables, its answers in.

`ContestSeat` is an SDK bot whose moves come from a contest client on a TCP connection (`ContestLine`): it
turns what the seat may see into the contest's tables (only that seat's own hand ever goes out) and the
client's tables into actions (shared/UECDA.md sections 1-3).  Bridge A (president_harness.uecda.uecda_bridge) seats
five of them; `ContestCommand` starts a contest client program for one seat of any match, so that
``president-bot "uecda:./client"`` plays it wherever a bot of ours plays (a seat token, an account's matches,
ladders, the arena, tournaments).

Threads: the seat's methods run on the SDK runner's threads; the sockets live on an event loop (the
bridge's, or one of this module's own for `ContestCommand`), where a seat queues its writes and waits for
its client's reads.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import shlex
import shutil
import sys
import threading
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from president_engine import PASS, Action, CardSet, GiveBack, Observation, Phase, Play, Role, Rules
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

from president_sdk.bot import Bot
from president_sdk.uecda.plays import CONTEST_RANK, action_of_cells, cells_of_play
from president_sdk.uecda.table import (
    DEAL_TABLE_PLAYER,
    JOKER_ROW,
    PLAYERS,
    PROTOCOL_20070,
    CardCells,
    Profile,
    Status,
    Table,
    TableError,
    decode_cards,
    decode_profile,
    encode,
    unpack,
)
from president_sdk.uecda.wire import (
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

PROFILE_WAIT_S: Final = 2.0
"""How long a new client has to send its profile (the reference server's select, UECDA 3.1)."""
MAX_UNREAD: Final = 1 << 20
"""Bytes written to a client and not yet taken by it, beyond which it is dropped (a match's tables to a
client that reads nothing; a playing client is never more than one move behind)."""
GIVE_BACK_COUNT: Final[dict[Role, int]] = {Role.PRESIDENT: 2, Role.VICE_PRESIDENT: 1}
WRITTEN_KEPT: Final = 64
"""Moves for which a play's written cells are kept (every seat shows a move before the next few are made)."""

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
    _trick: tuple[int, tuple[int, int]] = (-1, (0, 0))
    """The last trick state worked out: the move it follows, and the suit lock and 11-back."""
    _after: tuple[int, bytes] = (-1, b"")
    """The last table-after-move encoded, and its move."""

    def add(self, move: int, submission: Submission) -> None:
        with self.lock:
            self.submissions.append(submission)
            if submission.accepted and submission.cells is not None:
                self.written[move] = submission.cells
                for old in [kept for kept in self.written if kept <= move - WRITTEN_KEPT]:
                    del self.written[old]

    def trick_state(self, move: int, rules: Rules, trick: Sequence[Play]) -> tuple[int, int]:
        """The suit lock and 11-back of `trick`, as it stands after move `move`: worked out once for every seat."""
        with self.lock:
            if self._trick[0] == move:
                return self._trick[1]
        state = trick_state(tables_for(rules), trick)
        with self.lock:
            self._trick = (move, state)
        return state

    def after_move(self, move: int, cells: CardCells, status: Status, revolution: bool) -> bytes:
        """The table-after-move of move `move` (the same for every player): the cards on the table and `status`
        with what the move's events settled, whether the table is empty and the revolution; encoded once."""
        with self.lock:
            if self._after[0] == move:
                return self._after[1]
        table = encode(Table(cells, Status(
            status.exchange, status.give_back, status.your_turn, status.player, not len(cells), status.eleven_back,
            revolution, status.suit_lock, status.card_counts, status.ranks, status.seats)))
        with self.lock:
            self._after = (move, table)
        return table

    def cells(self, move: int, play: Play) -> CardCells:
        """Move `move`'s play as its client wrote it, for every seat that shows it (else as a client writes it)."""
        with self.lock:
            found = self.written.get(move)
        return found if found is not None else cells_of_play(play)


class ContestLine:
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

    def send_bytes(self, table: bytes) -> None:
        """A table already encoded."""
        self._send(table)

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


class LoopLine(ContestLine):
    """A contest client's connection used on its loop's own thread (bridge A's match on the engine): each write
    goes out at once, and the seat's driver awaits the client's answer (`receive`) instead of blocking."""

    def _send(self, data: bytes) -> None:
        self._write(data)

    def read_table(self) -> bytes | None:
        raise RuntimeError("a LoopLine is read on its loop: await receive()")

    async def receive(self) -> bytes | None:
        """The client's next table, or None once it has gone."""
        if self.gone:
            return None
        try:
            return await read_table(self.reader)
        except (ConnectionError, OSError) as exc:
            self._leave(str(exc))
            return None

    def close(self) -> None:
        self.writer.close()


class ContestSeat(Bot):
    """The seat of one contest client: what the seat sees becomes the client's tables, its tables our actions.

    Each table is built from this seat's own events only, so it can carry no card the seat may not see.
    A move's table-after-move waits for the events that follow the move (a revolution, a trick won), and its
    end flag for the next move or the deal's end, which say what the flag is.
    """

    def __init__(self, client: ContestLine, journal: Journal) -> None:
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
        self._cells_of: CardSet | None = None
        self._cells = CardCells()
        """The cells of the hand `_cells_of`."""

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
        self._trick_state: tuple[int, int] | None = None
        """The suit lock and 11-back of `trick`, worked out once for the tables of one move (None: not yet)."""
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
            self.table, self.trick, self._trick_state = None, [], None
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
            self._trick_state = None
            self.shown = self.journal.cells(self._moves, event.play)
        self._after = (self.shown, self._status(mover, your_turn=False))
        self._flag_due = True

    def _flush(self, flag: int) -> None:
        """Send the last move's table-after-move (with the revolution its events reported) and its end flag."""
        if self._after is not None:
            cells, status = self._after
            self._after = None
            self.client.send_bytes(self.journal.after_move(self._moves, cells, status, self.revolution))
        if self._flag_due:
            self._flag_due = False
            self.client.send_int(flag)
        if self.table is None:
            self.shown = CardCells()

    def _hand_cells(self) -> CardCells:
        if self._cells_of is not self.hand:  # the same hand from move to move, until this seat plays
            self._cells_of, self._cells = self.hand, CardCells.hand(self.hand)
        return self._cells

    def _status(self, player: int, *, your_turn: bool, exchange: bool = False, give_back: int = 0) -> Status:
        rules = self.rules
        lock = back = 0
        if rules is not None and self.trick:
            if self._trick_state is None:
                self._trick_state = self.journal.trick_state(self._moves, rules, self.trick)
            lock, back = self._trick_state
        return Status(exchange=exchange, give_back=give_back, your_turn=your_turn, player=player,
                      table_empty=self.table is None, eleven_back=bool(back), revolution=self.revolution,
                      suit_lock=bool(lock), card_counts=tuple(self.dealt_sizes if exchange else self.sizes),
                      ranks=self.ranks, seats=self.seats)

    def _send_deal_table(self, give_back: int) -> None:
        self.client.send_table(Table(self._hand_cells(), self._status(DEAL_TABLE_PLAYER, your_turn=False,
                                                                         exchange=True, give_back=give_back)))

    # ------------------------------------------------------------------ what the client answers

    def decide_with(self, obs: Observation, submitted: bytes | None) -> Action:
        """The action of the client's answer `submitted` to `ask(obs)` (None: the client has gone)."""
        if obs.phase is Phase.GIVE_BACK:
            return self._given_back(obs, submitted)
        return self._played(obs, submitted)

    def ask(self, obs: Observation) -> None:
        """Send the client what it answers for `obs`: the deal table of a give-back, or the hand table of its turn."""
        if obs.phase is Phase.GIVE_BACK:
            self.hand = obs.hand
            self._send_deal_table(obs.owed)
        else:
            self._flush(GAME_ON)
            self.client.send_table(Table(self._hand_cells(), self._status(self.player, your_turn=True)))

    def give_back(self, obs: Observation) -> Action:
        """The client's give-back; an invalid one is the strongest cards held (UECDA 3.4)."""
        self.ask(obs)
        return self._given_back(obs, self.client.read_table())

    def _given_back(self, obs: Observation, submitted: bytes | None) -> Action:
        cards = _cards(submitted)
        for action in obs.legal_actions:
            if isinstance(action, GiveBack) and cards is not None and action.cards == cards:
                return action
        strongest = obs.rules.best_first
        best = sorted(obs.hand, key=strongest.index)[:obs.owed]
        log.info("contest player %d gave back an invalid table; the strongest cards go instead", self.player)
        return next(a for a in obs.legal_actions if isinstance(a, GiveBack) and a.cards == CardSet(best))

    def play(self, obs: Observation) -> Action:
        self.ask(obs)
        return self._played(obs, self.client.read_table())

    def _played(self, obs: Observation, submitted: bytes | None) -> Action:
        """The play of the client's table (a refused one is a pass), acknowledged to it and journaled."""
        cells = _cells(submitted)
        action = None if cells is None else action_of_cells(cells, obs.legal_actions)
        accepted = action is not None and action is not PASS
        empty = obs.table is None
        self.client.send_int(ACCEPTED if accepted or (empty and cells is not None and not len(cells)) else REFUSED)
        self.journal.add(self._moves + 1, Submission(obs.deal, self.player, submitted, cells, accepted))
        if not accepted and submitted is not None and (cells is None or len(cells)):
            log.warning("contest player %d (%s), game %d: refused (a pass): %s; it sent %s", self.player,
                        self.client.name, obs.deal, _why_refused(submitted) if cells is None else
                        "not a legal play on this table", sent_cells(submitted))
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


def _why_refused(submitted: bytes) -> str:
    try:
        decode_cards(submitted)
    except TableError as exc:
        return f"malformed ({exc})"
    return "malformed"


SENT_CELLS_SHOWN: Final = 20


def sent_cells(submitted: bytes) -> str:
    """The non-zero cells of a submission's rows 0-4, as ``[row][column]=value`` (the first 20 of them)."""
    grid = unpack(submitted)
    cells = [f"[{row}][{column}]={value}" for row in range(JOKER_ROW + 1) for column, value in enumerate(grid[row])
             if value]
    more = f" and {len(cells) - SENT_CELLS_SHOWN} more" if len(cells) > SENT_CELLS_SHOWN else ""
    return " ".join(cells[:SENT_CELLS_SHOWN]) + more if cells else "no card cells"


def _cards(submitted: bytes | None) -> CardSet | None:
    """A give-back's cards; None for a malformed table or a client gone (both invalid)."""
    cells = None if submitted is None else _cells(submitted)
    return None if cells is None else cells.cards




async def read_profile(reader: asyncio.StreamReader, peer: str, *, wait: float = PROFILE_WAIT_S) -> Profile | None:
    """A new client's 20070 profile; None (with the reason in the log) for none in time, a malformed one, or
    another protocol's (the reference server would assume the 2006 protocol; this one speaks 20070 only)."""
    try:
        profile = decode_profile(await read_table(reader, timeout=wait))
    except TimeoutError:
        log.warning("a client at %s sent no profile in %g s: closed (this server speaks protocol %d only)",
                    peer, wait, PROTOCOL_20070)
        return None
    except (ConnectionError, TableError) as exc:
        log.warning("a client at %s sent no valid profile (%s): closed", peer, exc)
        return None
    if profile.version != PROTOCOL_20070:
        log.warning("a client at %s speaks protocol %d: closed (this server speaks %d only)", peer,
                    profile.version, PROTOCOL_20070)
        return None
    return profile


# ---------------------------------------------------------------------------- one client program, one seat


CONNECT_S: Final = 30.0
"""How long a started contest client has to connect and send its profile (a JVM's start included)."""
REAP_S: Final = 5.0
"""How long a contest client may take to exit after its match is over before it is killed."""
LOCAL_HOST: Final = "127.0.0.1"
_Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class ContestClientError(RuntimeError):
    """A contest client program that cannot play its seat: it did not start, connect or send a profile."""


class ContestCommand(Bot):
    """A contest client program as a bot of ours (``president-bot "uecda:COMMAND"``): started anew for each
    match, when the bot is seated, it connects to a port of this process and plays that seat as a
    `ContestSeat`.

    The command gets the standard client's ``-h 127.0.0.1 -p PORT`` appended, unless it says where itself
    with ``{host}`` and ``{port}``.  Its program is looked up on PATH, then beside this Python (a venv's
    ``president-bot``, with no environment activated).  Its standard output is discarded (contest clients
    print their tables); its standard error is this process's.  Seated at a table of other than five players,
    or with more than one joker, it refuses the seat: the contest's tables have cells for neither.
    """

    def __init__(self, command: Sequence[str]) -> None:
        if not command:
            raise ValueError("no contest client command")
        self.command = list(command)
        self._seat: ContestSeat | None = None
        self._process: asyncio.subprocess.Process | None = None

    @classmethod
    def parse(cls, text: str) -> ContestCommand:
        """From a shell-quoted command line (``uecda:`` specs and ladder files give one)."""
        try:
            return cls(shlex.split(text))
        except ValueError as exc:
            raise ValueError(f"contest client command {text!r}: {exc}") from None

    @property
    def name(self) -> str:
        return self._seat.name if self._seat is not None else self.command[0].rpartition("/")[2]

    def program(self) -> str | None:
        """The program's path, None when neither PATH nor this Python's folder has it."""
        name = self.command[0]
        return shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))

    def argv(self, port: int) -> list[str]:
        command = [self.program() or self.command[0], *self.command[1:]]
        if any("{port}" in part for part in command):
            return [part.replace("{host}", LOCAL_HOST).replace("{port}", str(port)) for part in command]
        return [*command, "-h", LOCAL_HOST, "-p", str(port)]

    def seat(self, player: int, rules: Rules) -> None:
        super().seat(player, rules)
        if rules.players != PLAYERS or rules.jokers * rules.decks > 1:
            raise ValueError(f"a contest client plays {PLAYERS} players and at most one joker, not "
                             f"{rules.players} players and {rules.jokers * rules.decks} jokers")
        loop = _commands_loop()
        line, self._process = asyncio.run_coroutine_threadsafe(self._start(player, loop), loop).result()
        self._seat = ContestSeat(line, Journal())
        self._seat.seat(player, rules)

    async def _start(self, player: int, loop: asyncio.AbstractEventLoop
                     ) -> tuple[ContestLine, asyncio.subprocess.Process]:
        connected: asyncio.Queue[_Connection] = asyncio.Queue()
        server = await asyncio.start_server(lambda r, w: connected.put_nowait((r, w)), LOCAL_HOST, 0)
        argv = self.argv(server.sockets[0].getsockname()[1])
        try:
            process = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                           stdout=asyncio.subprocess.DEVNULL)
        except OSError as exc:
            server.close()
            raise ContestClientError(f"cannot start {shlex.join(argv)}: {exc.strerror or exc}") from None
        _running.add(process)
        try:
            async with asyncio.timeout(CONNECT_S):
                reader, writer = await _first_of(connected.get(), process)
                profile = await read_profile(reader, f"{LOCAL_HOST} ({argv[0]})", wait=CONNECT_S)
            if profile is None:
                raise TimeoutError
        except TimeoutError:
            await _kill(process)
            raise ContestClientError(f"{shlex.join(argv)} did not connect and send a profile in {CONNECT_S:g} s"
                                     ) from None
        except BaseException:
            await _kill(process)
            raise
        finally:
            server.close()
        await write_int(writer, player)
        log.info("contest client %s (%s) plays player %d", profile.name, argv[0], player)
        return ContestLine(reader, writer, player, profile.name, loop), process

    def _seated(self) -> ContestSeat:
        if self._seat is None:
            raise ContestClientError("the contest client was asked to play before it was seated")
        return self._seat

    def on_event(self, event: Event) -> None:
        self._seated().on_event(event)
        if isinstance(event, MatchEnded) and self._process is not None:
            asyncio.run_coroutine_threadsafe(_reap(self._process), _commands_loop())

    def give_back(self, obs: Observation) -> Action:
        return self._seated().give_back(obs)

    def play(self, obs: Observation) -> Action:
        return self._seated().play(obs)


async def _first_of(connection: Awaitable[_Connection], process: asyncio.subprocess.Process) -> _Connection:
    """The client's connection, unless its program exits first."""
    arrived = asyncio.ensure_future(connection)
    exited = asyncio.ensure_future(process.wait())
    done, _ = await asyncio.wait({arrived, exited}, return_when=asyncio.FIRST_COMPLETED)
    if arrived in done:
        exited.cancel()
        return arrived.result()
    arrived.cancel()
    raise ContestClientError(f"the contest client exited with status {exited.result()} before it connected")


async def _reap(process: asyncio.subprocess.Process) -> None:
    try:
        await asyncio.wait_for(process.wait(), REAP_S)
    except TimeoutError:
        log.warning("a contest client (pid %d) still ran %g s after its match: killed", process.pid, REAP_S)
    await _kill(process)


async def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.kill()
        await process.wait()
    _running.discard(process)


_running: set[asyncio.subprocess.Process] = set()
_loop_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _commands_loop() -> asyncio.AbstractEventLoop:
    """The loop of this process's contest client connections and programs, started on first use."""
    global _loop
    with _loop_lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="uecda-clients", daemon=True).start()
            atexit.register(_kill_running)
        return _loop


def _kill_running() -> None:
    """At exit, no contest client outlives the process that started it."""
    for process in list(_running):
        if process.returncode is None:
            process.kill()
