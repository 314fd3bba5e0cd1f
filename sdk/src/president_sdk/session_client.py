"""Play every match of a bot account over one connection: `SessionClient` (the client side of ``Session``).

The client opens the account's Session (its token in the
``authorization: Bearer`` metadata) and plays each match it is seated in
with a new bot from the factory, many matches at once.  Each decision is
made as on a Play stream (`guard`): under the prompt's deadline, with a
fault replaced by the fallback, counted in the bot's `faults` and reported
in `Act.fault`.  With `threaded` (the default) a bot's code runs in
`BotThreads`, so a slow bot stalls only its own match; without, on the event
loop (built-in bots, which are quick and never hang).  A bot without event
hooks gets no events converted, and with `defer_events` the server sends a
match's events only with the next prompt: about one message a move.  With
`batch` (and a server that takes batches) updates of several matches come in
one message, and the acts decided meanwhile go back in one: under load, many
fewer messages than moves.

After a dropped connection it connects again and resumes every match after
the last event it saw there (`MatchCursor`); an answer already given for a
turn is sent again rather than asked again.  A match that ended while it was
away is finished from `GetMatch`.  Challenges are answered by
`accept_challenges`, or, when that is None, by `Bot.accept_challenge`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
from president_engine import Observation
from president_engine.events import MatchEnded
from president_engine.narrate import counted
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_sdk.bot import Bot, listens
from president_sdk.challenge import Challenge
from president_sdk.connection import DEFAULT_SERVER, RECONNECT_OPTIONS, RETRY_DELAYS_S, Reconnection, rpc_error
from president_sdk.faults import Faults, describe_faults
from president_sdk.guard import THREADS, Decision, decide, notify_all, outcome, think
from president_sdk.runner_errors import RunnerError
from president_sdk.seat import Seat, seat_bot

log = logging.getLogger("president.session")

BotFactory = Callable[[int | None], Bot]
"""A new bot for one match, given the seed its creator chose for the bot's draws (None: none)."""
_CHALLENGE_ANSWER_S = 10.0
"""How long `Bot.accept_challenge` may think."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Appetite:
    """What the bot accepts to play (president.v1 Appetite): the arena's matchmaking reads it."""

    presets: tuple[str, ...] = ()
    """Empty: every preset."""
    players: tuple[int, ...] = ()
    """Empty: any number of players."""
    max_matches: int = 1
    """The most matches the arena gives it at once."""
    arena: bool = False
    """Whether the arena may put it in rated matches."""

    def to_proto(self) -> pb.Appetite:
        return pb.Appetite(presets=self.presets, players=self.players, max_matches=self.max_matches, arena=self.arena)


@dataclass(frozen=True, kw_only=True, slots=True)
class FinishedMatch:
    match_id: str
    player: int
    bot: str
    """The bot's name."""
    result: MatchEnded
    faults: Faults
    """The answers replaced by the fallback in this match."""
    names: tuple[str, ...] = ()
    """Each player's name, as the match's Welcome gave them (empty if the bot was never seated)."""

    @property
    def place(self) -> int | None:
        """The bot's place in the last deal (1 = first), if it played it."""
        places = self.result.last_places
        return places.index(self.player) + 1 if self.player in places else None

    def describe(self) -> str:
        """One line for a person."""
        players = len(self.result.totals)
        place = "" if self.place is None else f"place {self.place} of {players} in the last deal, "
        points = counted(self.result.totals[self.player], "point")
        return (f"match {self.match_id}: {self.bot} (player {self.player}) {place}{points};"
                f" winner {self._name(self.result.winner)};"
                f" {describe_faults(self.faults)}")

    def _name(self, player: int) -> str:
        """``house-hard (player 2)``, or ``player 2`` for a seat the Welcome named no one in."""
        name = self.names[player] if player < len(self.names) else ""
        return f"{name} (player {player})" if name else f"player {player}"


@dataclass(frozen=True, kw_only=True, slots=True)
class ArenaStanding:
    """Where the account stands on one arena leaderboard (GetLeaderboard), for its own terminal."""

    preset: str
    players: int
    rank: int
    """1 = first, in the leaderboard's order: by rating."""
    accounts: int
    """Accounts on the leaderboard."""
    rating: float
    """The rating the leaderboard shows, OpenSkill's conservative mu - 3 sigma (LeaderboardEntry.ordinal)."""
    mean_place: float
    mean_place_low: float
    mean_place_high: float
    matches: int
    """Rated matches the account has played there."""
    provisional: bool

    def describe(self) -> str:
        """One line for a person."""
        matches = f"{self.matches} match{'es' if self.matches != 1 else ''}"
        return (f"arena {self.preset}:{self.players}: rank {self.rank} of {self.accounts}, rating {self.rating:.2f},"
                f" mean place {self.mean_place:.2f} [{self.mean_place_low:.2f}, {self.mean_place_high:.2f}] after"
                f" {matches}{' (provisional)' if self.provisional else ''}")


@dataclass(kw_only=True)
class SessionStats:
    """What the session has done so far."""

    finished: list[FinishedMatch] = field(default_factory=list)
    live: int = 0
    """Matches being played now."""

    def summary(self) -> str:
        done = self.finished
        faults = Faults()
        for match in done:
            faults.update(match.faults)
        wins = sum(1 for m in done if m.result.winner == m.player)
        places = [m.place for m in done if m.place is not None]
        mean = f", mean place {sum(places) / len(places):.2f}" if places else ""
        return (f"{len(done)} match{'es' if len(done) != 1 else ''} finished ({wins} won{mean}),"
                f" {self.live} in play; {describe_faults(faults)}")


@dataclass(eq=False, kw_only=True)
class _Match:
    """One match of the session, kept across connections: its seat and bot, and the task that serves it."""

    seat: Seat
    bot: Bot | None = None
    clock_started: asyncio.Event | None = None
    """Set when a TurnDeadline arrives: a decision already under way gets the deadline."""
    inbox: asyncio.Queue[Sequence[pb.PlayResponse]] | None = None
    task: asyncio.Task[None] | None = None


class SessionClient:
    """One bot account's Session: run `run` (a coroutine) until it is cancelled or raises `RunnerError`."""

    def __init__(self, factory: BotFactory, token: str, *, server: str = DEFAULT_SERVER,
                 channel: grpc.aio.Channel | None = None, tls: bool = False, root_certificates: bytes | None = None,
                 appetite: Appetite | None = None, defer_events: bool = True, batch: bool = True,
                 threaded: bool = True,
                 move_timeout: float | None = None, accept_challenges: bool | None = None,
                 retry_delays: Sequence[float] = RETRY_DELAYS_S,
                 on_finished: Callable[[FinishedMatch], None] | None = None,
                 on_notice: Callable[[pb.Notice], None] | None = None) -> None:
        """`channel`: a grpc.aio channel to share with other clients (default: one of its own to `server`, with
        `RECONNECT_OPTIONS`)."""
        if not token:
            raise RunnerError("no account token given", reason="MISSING_TOKEN")
        self.server = server
        self.stats = SessionStats()
        self.account = ""
        """The account's name, from SessionWelcome."""
        self._factory = factory
        self._metadata = (("authorization", f"Bearer {token}"),)
        self._channel = channel
        self._tls, self._roots = tls, root_certificates
        self._appetite = appetite or Appetite()
        self._defer = defer_events
        self._batch = batch
        self._batches = False
        """The server takes MatchActs (SessionWelcome.batches)."""
        self._acts: list[pb.MatchAct] = []
        """Acts waiting to be written, together."""
        self._flushing: asyncio.Task[None] | None = None
        self._threaded = threaded
        self._move_timeout = move_timeout
        self._accept = accept_challenges
        self._on_finished = on_finished
        self._on_notice = on_notice or _log_notice
        self._matches: dict[str, _Match] = {}
        self._call: grpc.aio.StreamStreamCall[pb.SessionRequest, pb.SessionResponse] | None = None
        self._stub: pb_grpc.PresidentServiceAsyncStub | None = None
        self._writing = asyncio.Lock()
        self._reconnection = Reconnection(server, "account", retry_delays)
        self._lobby: Bot | None = None

    # ------------------------------------------------------------------ the connection

    async def run(self) -> None:
        """Play until cancelled; `RunnerError` when the account cannot play (bad token, server gone)."""
        channel = self._channel
        if channel is None:
            channel = (grpc.aio.secure_channel(self.server, grpc.ssl_channel_credentials(self._roots),
                                               options=RECONNECT_OPTIONS) if self._tls
                       else grpc.aio.insecure_channel(self.server, options=RECONNECT_OPTIONS))
        self._stub = pb_grpc.PresidentServiceStub(channel)
        try:
            while True:
                try:
                    await self._connect()
                    message, reason, code = "the server ended the session", "", grpc.StatusCode.UNAVAILABLE
                except grpc.aio.AioRpcError as exc:
                    if (running := asyncio.current_task()) is not None and running.cancelling():
                        # grpc turned this task's cancellation (Ctrl-C, SIGTERM) into the call's CANCELLED status:
                        # reconnecting would swallow it and play on for ever
                        raise asyncio.CancelledError from exc
                    reason, message = rpc_error(exc)
                    code = exc.code()
                delay = self._reconnection.after(code, reason, message)
                log.warning("the session with %s was lost (%s); reconnecting in %g s to resume %s",
                            self.server, message, delay, counted(len(self._matches), "match"))
                await asyncio.sleep(delay)
        finally:
            for match in list(self._matches.values()):
                if match.task is not None:
                    match.task.cancel()
            if self._flushing is not None:
                self._flushing.cancel()
            if self._channel is None:
                await channel.close(None)

    async def _connect(self) -> None:
        """One connection: hello, then every message until the call ends (returns) or fails (raises)."""
        assert self._stub is not None
        call = self._stub.Session(None, metadata=self._metadata)  # no request iterator: written with .write
        self._call, self._acts, self._batches = call, [], False
        for match in self._matches.values():
            match.seat.connected()
        resume = [pb.MatchCursor(match_id=m.seat.match_id, last_seq=m.seat.last_seq) for m in self._matches.values()]
        try:
            await call.write(pb.SessionRequest(hello=pb.SessionHello(
                accepts=self._appetite.to_proto(), resume=resume, defer_events=self._defer,
                batch_matches=self._batch)))
            task = asyncio.current_task()
            while True:
                read = await call.read()
                if task is not None and task.cancelling():
                    raise asyncio.CancelledError  # a cancellation swallowed on the way (by grpc or a wait): honour it
                if read is grpc.aio.EOF:
                    return
                response = cast(pb.SessionResponse, read)
                kind = response.WhichOneof("kind")
                if kind == "match":
                    await self._update(response.match)
                elif kind == "updates":
                    for update in response.updates.updates:
                        await self._update(update)
                elif kind == "welcome":
                    self._welcome(response.welcome)
                elif kind == "challenge":
                    asyncio.get_running_loop().create_task(self._offer(response.challenge))
                elif kind == "settled":
                    settled = response.settled
                    log.info("challenge %s: %s", settled.challenge_id,
                             f"match {settled.match_id}" if settled.accepted else f"not played ({settled.reason})")
                elif kind == "notice":
                    self._on_notice(response.notice)
        finally:
            self._call = None
            call.cancel()

    def _welcome(self, welcome: pb.SessionWelcome) -> None:
        self.account = welcome.account
        self._reconnection.welcomed()
        self._batches = self._batch and welcome.batches
        live = set(welcome.live_matches)
        for match in list(self._matches.values()):
            if match.seat.match_id not in live:  # it ended while this client was away
                asyncio.get_running_loop().create_task(self._ended_away(match))
        if welcome.without_arena:  # nothing will seat it but a challenge, a match or a tournament of the organiser's
            log.warning("account %s: %s; this server runs without the arena: no check match or arena match will"
                        " come here, only challenges and the organiser's matches and tournaments (the organiser"
                        " starts the server with --arena for them)", welcome.account,
                        counted(len(live), "live match"))
        else:
            log.info("account %s: %s%s", welcome.account, counted(len(live), "live match"),
                     "; a check match against the house bots comes first" if welcome.check_pending else "")

    async def _act(self, act: pb.MatchAct) -> None:
        """Send an act: with other acts decided meanwhile, in one message, when the server takes batches."""
        if not self._batches:
            await self._send(pb.SessionRequest(act=act))
            return
        self._acts.append(act)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        while self._acts:
            acts, self._acts = self._acts, []
            await self._send(pb.SessionRequest(act=acts[0]) if len(acts) == 1
                             else pb.SessionRequest(acts=pb.MatchActs(acts=acts)))

    async def _send(self, request: pb.SessionRequest) -> None:
        """Write on the current connection; a lost one is ignored (the read side reconnects and resumes)."""
        call = self._call
        if call is None:
            return
        async with self._writing:
            try:
                await call.write(request)
            except Exception as exc:  # grpc raises its own internal types once the call has ended
                log.debug("a write on a lost session failed (%s)", type(exc).__name__)

    # ------------------------------------------------------------------ matches

    async def _update(self, update: pb.MatchUpdate) -> None:
        match = self._matches.get(update.match_id)
        if match is None:
            match = self._matches[update.match_id] = _Match(seat=Seat(match_id=update.match_id))
            self.stats.live = len(self._matches)
            if self._threaded:
                match.inbox = asyncio.Queue()
                match.task = asyncio.get_running_loop().create_task(self._serve(match))
        if match.inbox is not None:
            for message in update.messages:
                if message.HasField("turn_deadline"):  # seen here, not behind the decision it is for
                    match.seat.turn_deadline(message.turn_deadline)
                    if match.clock_started is not None:
                        match.clock_started.set()
            match.inbox.put_nowait(update.messages)
        else:
            await self._handle(match, update.messages)

    async def _serve(self, match: _Match) -> None:
        """A match's messages in order, in its own task: its bot's thinking holds up no other match."""
        assert match.inbox is not None
        while match.seat.result is None:
            await self._handle(match, await match.inbox.get())

    async def _handle(self, match: _Match, messages: Sequence[pb.PlayResponse]) -> None:
        seat = match.seat
        try:
            for message in messages:
                kind = message.WhichOneof("kind")
                if kind == "event":
                    seat.event(message.event)
                elif kind == "prompt":
                    await self._prompt(match, message.prompt)
                elif kind == "welcome":
                    self._seat(match, message.welcome)
                elif kind == "snapshot":
                    seat.snapshot(message.snapshot)
                elif kind == "turn_deadline" and match.inbox is None:
                    seat.turn_deadline(message.turn_deadline)
                elif kind == "action_rejected" and match.bot is not None:
                    act = seat.rejected(message.action_rejected, match.bot)
                    if act is not None:
                        await self._act(pb.MatchAct(match_id=seat.match_id, act=act))
                elif kind == "match_over":
                    await self._finish(match, convert.match_result_from_proto(message.match_over.result),
                                       message.match_over)
                    return
        except RunnerError as exc:  # this match only: the server plays it out for the seat
            log.error("%s; leaving match %s to the server's fallback", exc, seat.match_id)
            self._drop(match)
            return
        if match.bot is not None:
            await self._hand_events(match.bot, match)

    def _seat(self, match: _Match, welcome: pb.Welcome) -> None:
        seat = match.seat
        seat.welcome(welcome)
        if match.bot is None:
            match.bot = self._factory(welcome.bot_seed if welcome.HasField("bot_seed") else None)
            seat.listens = listens(match.bot)
        match.bot.raw = welcome
        seat_bot(match.bot, seat)

    async def _prompt(self, match: _Match, prompt: pb.Prompt) -> None:
        seat, bot = match.seat, match.bot
        if bot is None:
            return
        asked = seat.prompt(prompt)
        if isinstance(asked, Observation):
            bot.raw = prompt
            asked = seat.answer(prompt, asked, await self._decide(bot, match, asked))
        if asked is not None:
            await self._act(pb.MatchAct(match_id=seat.match_id, act=asked))

    async def _hand_events(self, bot: Bot, match: _Match) -> None:
        events = match.seat.take_events()
        if not events:
            return
        if not self._threaded:
            notify_all(bot, events)
            return
        await asyncio.wrap_future(THREADS.submit(lambda: notify_all(bot, events)))

    async def _decide(self, bot: Bot, match: _Match, obs: Observation) -> Decision:
        """Hand the bot its pending events, then ask it for a move before the turn's deadline, which a
        TurnDeadline arriving meanwhile may set."""
        seat = match.seat
        if not self._threaded:
            notify_all(bot, seat.take_events())
            return decide(bot, obs)
        started = time.monotonic()
        thinking = think(bot, obs, seat.take_events())
        if isinstance(thinking, Decision):
            return thinking
        future = asyncio.wrap_future(thinking)
        match.clock_started = clock = asyncio.Event()
        try:
            while not future.done():
                timeout = seat.timeout(time.time(), None if self._move_timeout is None
                                       else max(0.0, started + self._move_timeout - time.monotonic()))
                clock.clear()
                waiting = asyncio.ensure_future(clock.wait())
                await asyncio.wait((future, waiting), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
                if not future.done() and not clock.is_set():
                    break
        finally:
            match.clock_started = None
        return outcome(bot, obs, thinking, time.monotonic() - started)

    def _drop(self, match: _Match) -> None:
        self._matches.pop(match.seat.match_id, None)
        self.stats.live = len(self._matches)
        if match.task is not None and match.task is not asyncio.current_task():
            match.task.cancel()

    async def _finish(self, match: _Match, result: MatchEnded, raw: Any) -> None:
        seat, bot = match.seat, match.bot
        if not seat.finish(result, raw):
            return
        self._matches.pop(seat.match_id, None)
        self.stats.live = len(self._matches)
        if bot is None:
            return
        await self._hand_events(bot, match)
        finished = FinishedMatch(match_id=seat.match_id, player=seat.player, bot=bot.name, result=result,
                                 faults=Faults(bot.faults), names=seat.names)
        self.stats.finished.append(finished)
        if self._on_finished is not None:
            self._on_finished(finished)

    async def _ended_away(self, match: _Match) -> None:
        """A match that ended while this client was not connected: its result from GetMatch."""
        assert self._stub is not None
        try:
            summary = (await self._stub.GetMatch(pb.GetMatchRequest(match_id=match.seat.match_id), timeout=30)).match
        except grpc.aio.AioRpcError as exc:
            log.warning("match %s ended while away; its result could not be read: %s", match.seat.match_id,
                        rpc_error(exc)[1])
            return
        if summary.HasField("result"):
            await self._finish(match, convert.match_result_from_proto(summary.result), summary)
        if match.task is not None:
            match.task.cancel()

    async def arena_standing(self, match_id: str) -> ArenaStanding | None:
        """Where the account stands on the leaderboard of a finished match's preset and player count (GetMatch and
        GetLeaderboard, both public); None when it is not on it, or the server cannot tell now."""
        if self._stub is None:
            return None
        try:
            summary = (await self._stub.GetMatch(pb.GetMatchRequest(match_id=match_id), timeout=10)).match
            board = await self._stub.GetLeaderboard(
                pb.GetLeaderboardRequest(preset=summary.preset, players=summary.rules.players), timeout=10)
        except grpc.aio.AioRpcError as exc:
            log.debug("the arena's leaderboard could not be read after match %s: %s", match_id, rpc_error(exc)[1])
            return None
        for rank, entry in enumerate(board.entries, 1):
            if entry.account == self.account:
                return ArenaStanding(preset=board.preset, players=board.players, rank=rank,
                                     accounts=len(board.entries), rating=entry.ordinal, mean_place=entry.mean_place,
                                     mean_place_low=entry.mean_place_low, mean_place_high=entry.mean_place_high,
                                     matches=entry.matches, provisional=entry.provisional)
        return None

    # ------------------------------------------------------------------ challenges

    async def _offer(self, offer: pb.ChallengeOffer) -> None:
        challenge = Challenge(challenge_id=offer.challenge_id, challenger=getattr(offer, "from"),
                              accounts=tuple(offer.accounts), preset=offer.preset,
                              rules=convert.rules_from_proto(offer.rules))
        accept = self._accept
        if accept is None:
            accept = await self._ask_lobby(challenge)
        log.info("challenge %s from %s (%s, %d players): %s", challenge.challenge_id, challenge.challenger,
                 challenge.preset, challenge.rules.players, "accepted" if accept else "declined")
        await self._send(pb.SessionRequest(answer=pb.ChallengeAnswer(challenge_id=offer.challenge_id, accept=accept)))

    async def _ask_lobby(self, challenge: Challenge) -> bool:
        """`Bot.accept_challenge` of a bot made to answer challenges; declined when it raises or is slow."""
        if self._lobby is None:
            self._lobby = self._factory(None)
        lobby = self._lobby
        try:
            if not self._threaded:
                return bool(lobby.accept_challenge(challenge))
            work = asyncio.wrap_future(THREADS.submit(lambda: bool(lobby.accept_challenge(challenge))))
            return await asyncio.wait_for(work, _CHALLENGE_ANSWER_S)
        except Exception:
            lobby.log.exception("%s: accept_challenge failed or took over %g s; declined", lobby.name,
                                _CHALLENGE_ANSWER_S)
            return False


def _log_notice(notice: pb.Notice) -> None:
    """A refusal is a warning; the arena's verdict on a check match (CHECK_PASSED, CHECK_FAILED) is news.

    The server's message is written for people and stands alone: its reason code is for programs."""
    where = f" (match {notice.match_id})" if notice.match_id and notice.match_id not in notice.message else ""
    level = logging.INFO if notice.reason == "CHECK_PASSED" else logging.WARNING
    log.log(level, "%s%s", notice.message, where)
