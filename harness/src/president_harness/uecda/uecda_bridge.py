"""Bridge A: five UECda contest clients play a match on a server of ours (shared/UECDA.md sections 1-3).

(`uecda_engine.py` plays the same seats on the engine in this process instead, without a server.)

The bridge listens where a contest server would (127.0.0.1:42485), takes five clients in accept order (their
player numbers), or fewer with the other seats given to built-in levels or the server's accounts, and
creates a `daifugo` match on our server.  Each client's seat is played by a `ContestSeat`
(president_sdk.uecda.seat), an SDK bot whose moves come from its client.  The server runs the rules, the
clock-free turn order, the log on disk and the web page; the bridge only translates.

Threads: the seats run the SDK's blocking runner, one thread each; the sockets live on the bridge's event
loop, where a seat queues its writes and waits for its client's reads (`ContestLine`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import grpc
from president_engine import Match, MatchRecord, Rules
from president_engine.events import DealEnded, Event
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk.bot import Bot
from president_sdk.bots import builtin_bot
from president_sdk.remote import run
from president_sdk.uecda.seat import PROFILE_WAIT_S, ContestLine, ContestSeat, Journal, Submission, read_profile
from president_sdk.uecda.table import MAX_NAME, PLAYERS
from president_sdk.uecda.wire import write_int

if TYPE_CHECKING:
    from president_harness.uecda.uecda_log import GameRecorder, LoggedGame, ScenarioDeal

log = logging.getLogger("president.uecda")

DEFAULT_LISTEN: Final = ("127.0.0.1", 42485)
MAX_WAITING: Final = 16
"""Connections waiting to be seated beyond which a new one is closed at once (a flood of connections)."""
# ---------------------------------------------------------------------------- seating the players


@dataclass(frozen=True, slots=True)
class Arrival:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter


async def seat_clients(arrivals: asyncio.Queue[Arrival], count: int = PLAYERS, *,
                       profile_wait: float = PROFILE_WAIT_S) -> list[tuple[Arrival, str]]:
    """`count` clients in accept order (players 0, 1, ...), each with its name; one that sends no 20070 profile
    in time is closed, with the reason in the log, and another awaited."""
    seated: list[tuple[Arrival, str]] = []
    while len(seated) < count:
        arrival = await arrivals.get()
        address = arrival.writer.get_extra_info("peername")
        peer = f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address)
        profile = await read_profile(arrival.reader, peer, wait=profile_wait)
        if profile is None:
            arrival.writer.close()
            continue
        await write_int(arrival.writer, len(seated))
        seated.append((arrival, profile.name))
        log.info("contest player %d: %s (from %s)", len(seated) - 1, profile.name, peer)
    return seated


@dataclass(frozen=True, slots=True)
class OtherSeat:
    """A seat of the contest match not played by a contest client: a built-in level, played by the bridge, or
    an account of the server, whose own bot plays it over its Session."""

    builtin: str = ""
    account: str = ""

    @classmethod
    def parse(cls, text: str) -> OtherSeat:
        """``builtin:LEVEL`` or ``account:NAME``; ValueError for anything else."""
        kind, _, name = text.partition(":")
        if kind == "builtin" and name:
            builtin_bot(name)  # ValueError naming the known levels
            return cls(builtin=name)
        if kind == "account" and name:
            return cls(account=name)
        raise ValueError(f"{text!r}: builtin:LEVEL or account:NAME")

    @property
    def name(self) -> str:
        return self.account or self.builtin


CONTEST_RESEAT_EVERY: Final = 5
"""RULE_SEKIGAE_NUM of the contest's shipped configuration (the reference server's code and the `daifugo`
preset say 3)."""


def contest_rules(games: int, *, reseat_every: int = CONTEST_RESEAT_EVERY) -> Rules:
    """The `daifugo` preset for a match of `games` games, reseating as the contest's shipped configuration does."""
    overrides: dict[str, Any] = {"deals": games, "reseat_every": reseat_every}
    return Rules.preset("daifugo", **overrides)


# ---------------------------------------------------------------------------- one match


@dataclass(frozen=True, slots=True)
class BridgeResult:
    match_id: str
    names: tuple[str, ...]
    """The five players' names, by player number."""
    totals: tuple[int, ...]
    """Points by player number (5-4-3-2-1 a game)."""
    record: MatchRecord
    """The server's record of the match."""
    submissions: tuple[Submission, ...]


class Listener:
    """The bridge's TCP port: clients queue up in accept order until the match's are seated; then it closes,
    so one more finds nothing listening (as with the reference server, which accepts exactly five)."""

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

    async def seat_clients(self, count: int = PLAYERS, *, profile_wait: float = PROFILE_WAIT_S
                           ) -> list[tuple[Arrival, str]]:
        seated = await seat_clients(self.arrivals, count, profile_wait=profile_wait)
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


def contest_names(seated: Sequence[tuple[Arrival, str]], others: Sequence[OtherSeat] = ()) -> tuple[str, ...]:
    """The five players' names: the seated clients' (`seat_name`), then the other seats'."""
    return (*(seat_name(name, number) for number, (_, name) in enumerate(seated)), *(other.name for other in others))


def match_request(names: Sequence[str], rules: Rules, *, others: Sequence[OtherSeat] = (),
                  deals: Sequence[ScenarioDeal] = (), seed: int | None = None) -> pb.CreateMatchRequest:
    """The CreateMatch request of a contest match: the clients' names first, then `others`; `deals` the first
    games' seats, hands and pass-limit orders (a scenario)."""
    clients = len(names) - len(others)
    return pb.CreateMatchRequest(
        preset="daifugo", rules=convert.rules_to_proto(rules), seed=seed, seat_names=names,
        deals=[pb.DealHands(seats=deal.seats, hands=[pb.Hand(cards=convert.cards_to_proto(h)) for h in deal.hands],
                            pass_order=deal.pass_order) for deal in deals],
        seat_accounts=[""] * clients + [other.account for other in others],
        clock=pb.ClockSettings(move_time_limit_ms=0))


def request_bytes(rules: Rules, *, others: Sequence[OtherSeat] = (),
                  deals: Sequence[ScenarioDeal] = ()) -> int:
    """The most bytes the match's CreateMatch request can take, whatever names the clients send (known before
    any client is seated, so that a request a server would refuse is refused before anyone waits)."""
    longest = "\N{GRINNING FACE}" * MAX_NAME  # four bytes a character, the most UTF-8 takes
    names = [longest] * (PLAYERS - len(others)) + [other.name for other in others]
    return match_request(names, rules, others=others, deals=deals, seed=2**63 - 1).ByteSize()


class WatchedSeat(ContestSeat):
    """A contest client's seat that also tells the bridge each deal's end (`ended`, called on the seat's thread)."""

    def __init__(self, client: ContestLine, journal: Journal, ended: Callable[[], None]) -> None:
        super().__init__(client, journal)
        self._ended = ended

    def on_event(self, event: Event) -> None:
        super().on_event(event)
        if isinstance(event, DealEnded):
            self._ended()


class ServerLog:
    """The games of a match on a server as section 7 logs them, fetched as their deals end: the finished deals'
    record (GetReplay's `finished_deals`, admin only: the hands as dealt and the exchange are hidden until then)
    applied to a copy of the match here, whose events and the clients' submissions make each game's lines."""

    def __init__(self, stub: pb_grpc.PresidentServiceAsyncStub, match_id: str, admin: tuple[tuple[str, str], ...],
                 journal: Journal, deals: Sequence[ScenarioDeal], on_game: Callable[[LoggedGame], None]) -> None:
        self._stub, self._match_id, self._admin = stub, match_id, admin
        self._journal, self._scenario, self._on_game = journal, deals, on_game
        self._match: Match | None = None
        self._recorder: GameRecorder | None = None
        self._deals = self._events = self._submitted = 0

    async def catch_up(self) -> None:
        """Fetch the deals that ended since the last call and hand their games to `on_game`."""
        from president_harness.uecda.uecda_log import GameRecorder, scenario_match

        reply = await self._stub.GetReplay(pb.GetReplayRequest(match_id=self._match_id, finished_deals=True,
                                                                from_deal=self._deals + 1),
                                           metadata=self._admin, timeout=30)
        record = convert.replay_from_proto(reply.replay)
        if self._match is None:  # the server's match, dealt here from its rules, seed and the scenario
            self._match = scenario_match(record.rules, self._scenario, record.seed)
            self._recorder = GameRecorder(record.rules)
        match, recorder = self._match, self._recorder
        assert recorder is not None
        for deal in record.deals:
            if match.deal_hands[-1] != deal.hands:
                raise RuntimeError(f"deal {self._deals + 1}: the server's hands are not the ones dealt here")
            for _, action in deal.actions:
                match.apply(action)
            self._deals += 1
        with self._journal.lock:
            submissions = self._journal.submissions[self._submitted:]
        self._submitted += len(submissions)
        for submission in submissions:
            recorder.submitted(submission)
        events = match.events[self._events:]
        self._events = len(match.events)
        for event in events:
            game = recorder.event(event)
            if game is not None:
                self._on_game(game)


async def play_match(seated: list[tuple[Arrival, str]], server: str, admin_token: str, rules: Rules, *,
                     others: Sequence[OtherSeat] = (), deals: Sequence[ScenarioDeal] = (),
                     seed: int | None = None, created: asyncio.Future[str] | None = None,
                     on_game: Callable[[LoggedGame], None] | None = None) -> BridgeResult:
    """Create the match on `server` and play it out: the seated clients are players 0, 1, ..., `others` the
    players after them; `deals` the first games' seats, hands by seat and pass-limit orders (a scenario),
    instead of the draws and the shuffle; `created` gets the match's id as soon as it exists; `on_game` each
    game's log entry as the game ends."""
    if len(seated) + len(others) != PLAYERS:
        raise ValueError(f"{len(seated)} contest clients and {len(others)} other seats: the contest has {PLAYERS}")
    loop = asyncio.get_running_loop()
    names = contest_names(seated, others)
    admin = (("authorization", f"Bearer {admin_token}"),)
    async with grpc.aio.insecure_channel(server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        reply = await stub.CreateMatch(match_request(names, rules, others=others, deals=deals, seed=seed),
                                       metadata=admin, timeout=30)
        if created is not None:
            created.set_result(reply.match_id)
        journal = Journal()
        ended = asyncio.Event()
        server_log = None if on_game is None else ServerLog(stub, reply.match_id, admin, journal, deals, on_game)
        clients = [ContestLine(arrival.reader, arrival.writer, number, names[number], loop)
                   for number, (arrival, _) in enumerate(seated)]

        def deal_ended() -> None:
            loop.call_soon_threadsafe(ended.set)

        bots: list[Bot | None] = [WatchedSeat(client, journal, deal_ended) if number == 0
                                  else ContestSeat(client, journal)
                                  for number, client in enumerate(clients)]
        bots += [builtin_bot(other.builtin) if other.builtin else None for other in others]

        async def follow(log: ServerLog) -> None:
            while True:
                await ended.wait()
                ended.clear()
                await log.catch_up()

        follower = None if server_log is None else asyncio.create_task(follow(server_log))
        try:
            results = await asyncio.gather(*(
                asyncio.to_thread(run, bot, server, token.token, name=names[number])
                for number, (bot, token) in enumerate(zip(bots, reply.seats, strict=True)) if bot is not None))
        finally:
            for client in clients:
                client.writer.close()
            if follower is not None:
                if follower.done():  # it failed: its error is the match's
                    follower.result()
                follower.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await follower
        if server_log is not None:
            await server_log.catch_up()  # the games whose end the first seat had not told yet
        replay = await stub.GetReplay(pb.GetReplayRequest(match_id=reply.match_id), metadata=admin, timeout=30)
    return BridgeResult(reply.match_id, names, results[0].totals, convert.replay_from_proto(replay.replay),
                        tuple(journal.submissions))
