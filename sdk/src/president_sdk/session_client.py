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
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import grpc
from president_engine import Action, Event, Fault, Observation, Rules, fallback_action
from president_engine.events import MatchEnded
from president_engine.narrate import counted
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_sdk.bot import Bot, listens
from president_sdk.bot_threads import BotThreads
from president_sdk.challenge import Challenge
from president_sdk.faults import Faults, describe_faults
from president_sdk.guard import Decision, decide, judge, replace_answer
from president_sdk.remote import DEFAULT_SERVER, RETRY_DELAYS_S, SAFETY_MARGIN_S, RunnerError, rpc_error

log = logging.getLogger("president.session")

BotFactory = Callable[[int | None], Bot]
"""A new bot for one match, given the seed its creator chose for the bot's draws (None: none)."""
_TURNS_KEPT = 8
"""Answers kept per match, by turn: a resumed prompt or a late refusal finds what was sent."""
_CHALLENGE_ANSWER_S = 10.0
"""How long `Bot.accept_challenge` may think."""
RECONNECT_OPTIONS = (("grpc.initial_reconnect_backoff_ms", 200), ("grpc.min_reconnect_backoff_ms", 200),
                     ("grpc.max_reconnect_backoff_ms", 2000))
"""Channel options for a client that outlives a server restart: gRPC tries the address again within 2 s (its
defaults back off to 2 minutes, and calls fail at once meanwhile)."""
_RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED,
              grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)


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
    """One match of the session, kept across connections."""

    match_id: str
    bot: Bot | None = None
    listens: bool = False
    player: int = -1
    rules: Rules | None = None
    names: tuple[str, ...] = ()
    last_seq: int = 0
    result: MatchEnded | None = None
    end_seen: bool = False
    """Whether the match's MatchEnded event arrived: the bot hears of the end once, over any connections."""
    answered: dict[int, tuple[Action, pb.BotFault.ValueType]] = field(default_factory=dict)
    """The acts sent for the last turns: a prompt repeated after a resume gets the same answer."""
    prompts: dict[int, Observation] = field(default_factory=dict)
    deadline: float | None = None
    """When the open turn's answer is due (wall clock), from its Prompt or a later TurnDeadline."""
    clock_started: asyncio.Event | None = None
    """Set when a TurnDeadline arrives: a decision already under way gets the deadline."""
    events: list[tuple[pb.Event, Event]] = field(default_factory=list)
    """Events for the bot's hooks, handed over with its next call."""
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
        self._threads = BotThreads() if threaded else None
        self._move_timeout = move_timeout
        self._accept = accept_challenges
        self._retry_delays = tuple(retry_delays)
        self._on_finished = on_finished
        self._on_notice = on_notice or _log_notice
        self._matches: dict[str, _Match] = {}
        self._call: grpc.aio.StreamStreamCall[pb.SessionRequest, pb.SessionResponse] | None = None
        self._stub: pb_grpc.PresidentServiceAsyncStub | None = None
        self._sent_here: set[tuple[str, int]] = set()
        """(match, turn) answered on this connection: the server may prompt again (its clock started)."""
        self._writing = asyncio.Lock()
        self._welcomed = False
        self._ever_welcomed = False
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
        delays = iter(self._retry_delays)
        try:
            while True:
                try:
                    await self._connect()
                    message, reason, code = "the server ended the session", "", grpc.StatusCode.UNAVAILABLE
                except grpc.aio.AioRpcError as exc:
                    reason, message = rpc_error(exc)
                    code = exc.code()
                if code not in _RETRYABLE or reason in ("BAD_TOKEN", "MISSING_TOKEN"):
                    raise RunnerError(_explain(reason, message, self.server), reason=reason) from None
                if not self._ever_welcomed and code is grpc.StatusCode.UNAVAILABLE and not reason:
                    raise RunnerError(f"cannot reach {self.server}: is the server running, and is the address"
                                      " right?", reason="UNREACHABLE") from None
                if self._welcomed:
                    self._welcomed = False
                    delays = iter(self._retry_delays)
                delay = next(delays, None)
                if delay is None:
                    raise RunnerError(f"server gone: cannot reach {self.server} ({message})", reason=reason)
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
        self._call, self._sent_here, self._acts, self._batches = call, set(), [], False
        resume = [pb.MatchCursor(match_id=m.match_id, last_seq=m.last_seq) for m in self._matches.values()]
        try:
            await call.write(pb.SessionRequest(hello=pb.SessionHello(
                accepts=self._appetite.to_proto(), resume=resume, defer_events=self._defer,
                batch_matches=self._batch)))
            while True:
                read = await call.read()
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
        self._welcomed = self._ever_welcomed = True
        self._batches = self._batch and welcome.batches
        live = set(welcome.live_matches)
        for match in list(self._matches.values()):
            if match.match_id not in live:  # it ended while this client was away
                asyncio.get_running_loop().create_task(self._ended_away(match))
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
            match = self._matches[update.match_id] = _Match(match_id=update.match_id)
            self.stats.live = len(self._matches)
            if self._threads is not None:
                match.inbox = asyncio.Queue()
                match.task = asyncio.get_running_loop().create_task(self._serve(match))
        if match.inbox is not None:
            for message in update.messages:
                if message.HasField("turn_deadline"):  # seen here, not behind the decision it is for
                    match.deadline = message.turn_deadline.deadline.ToNanoseconds() / 1e9
                    if match.clock_started is not None:
                        match.clock_started.set()
            match.inbox.put_nowait(update.messages)
        else:
            await self._handle(match, update.messages)

    async def _serve(self, match: _Match) -> None:
        """A match's messages in order, in its own task: its bot's thinking holds up no other match."""
        assert match.inbox is not None
        while match.result is None:
            await self._handle(match, await match.inbox.get())

    async def _handle(self, match: _Match, messages: Sequence[pb.PlayResponse]) -> None:
        for message in messages:
            kind = message.WhichOneof("kind")
            if kind == "event":
                self._event(match, message.event)
            elif kind == "prompt":
                await self._prompt(match, message.prompt)
            elif kind == "welcome":
                self._seat(match, message.welcome)
            elif kind == "snapshot":
                match.last_seq = max(match.last_seq, message.snapshot.last_seq)
            elif kind == "action_rejected":
                await self._rejected(match, message.action_rejected)
            elif kind == "match_over":
                await self._finish(match, convert.match_result_from_proto(message.match_over.result))
                return
        if match.events and match.bot is not None:
            await self._call_bot(match.bot, match, None)

    def _seat(self, match: _Match, welcome: pb.Welcome) -> None:
        match.rules = convert.rules_from_proto(welcome.rules)
        match.player = welcome.player
        match.names = tuple(welcome.names)
        if match.bot is None:
            match.bot = self._factory(welcome.bot_seed if welcome.HasField("bot_seed") else None)
            match.listens = listens(match.bot)
        match.bot.raw = welcome
        match.bot.seat(match.player, match.rules)

    def _event(self, match: _Match, message: pb.Event) -> None:
        if message.seq <= match.last_seq:
            return  # seen before a reconnection
        match.last_seq = message.seq
        match.end_seen = match.end_seen or message.HasField("match_ended")
        if match.listens:
            event = convert.event_from_proto(message)
            if event is not None:
                match.events.append((message, event))

    async def _prompt(self, match: _Match, prompt: pb.Prompt) -> None:
        turn = prompt.turn_id
        if (match.match_id, turn) in self._sent_here or match.bot is None or match.rules is None:
            return
        self._sent_here.add((match.match_id, turn))
        sent = match.answered.get(turn)
        if sent is None:
            obs = convert.prompt_from_proto(prompt, match.rules)
            match.deadline = prompt.deadline.ToNanoseconds() / 1e9 if prompt.HasField("deadline") else None
            match.bot.raw = prompt
            decision = await self._call_bot(match.bot, match, obs)
            assert decision is not None
            sent = decision.action, convert.fault_to_proto(decision.fault)
            for old in [t for t in match.answered if t < turn - _TURNS_KEPT]:
                del match.answered[old], match.prompts[old]
            match.answered[turn], match.prompts[turn] = sent, obs
        action, fault = sent
        await self._act(pb.MatchAct(match_id=match.match_id, act=pb.Act(
            turn_id=turn, action=convert.action_to_proto(action), fault=fault)))

    async def _call_bot(self, bot: Bot, match: _Match, obs: Observation | None) -> Decision | None:
        """Hand the bot its pending events, then (with `obs`) ask it for a move before the turn's deadline."""
        events, match.events = match.events, []
        if self._threads is None:
            _notify(bot, events)
            return None if obs is None else decide(bot, obs)

        def work() -> object:
            _notify(bot, events)
            return None if obs is None else bot.decide(obs)

        future = asyncio.wrap_future(self._threads.submit(work))
        if obs is None:
            await future
            return None
        started = time.monotonic()
        match.clock_started = clock = asyncio.Event()
        try:
            while not future.done():
                if match.deadline is not None:
                    timeout = max(0.05, match.deadline - time.time() - SAFETY_MARGIN_S)
                elif self._move_timeout is not None:
                    timeout = max(0.0, started + self._move_timeout - time.monotonic())
                else:
                    timeout = None
                clock.clear()
                waiting = asyncio.ensure_future(clock.wait())
                await asyncio.wait((future, waiting), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
                if not future.done() and not clock.is_set():
                    future.cancel()
                    return replace_answer(bot, obs, Fault.TIMEOUT,
                                          f"did not answer within {time.monotonic() - started:.3g} s")
        finally:
            match.clock_started = None
        error = future.exception()
        if error is not None:
            trace = "".join(traceback.format_exception(error))
            return replace_answer(bot, obs, Fault.ERROR, f"raised {type(error).__name__}: {error}", trace)
        return judge(bot, obs, future.result())

    async def _rejected(self, match: _Match, msg: pb.ActionRejected) -> None:
        """The server refused an answer: log it in the bot's output; send the fallback action once."""
        bot, obs = match.bot, match.prompts.get(msg.turn_id)
        answered = match.answered.get(msg.turn_id)
        sent = None if answered is None else answered[0]
        if bot is None:
            return
        bot.log.error("%s: match %s: the server refused %s for turn %d: %s %s %s", bot.name, match.match_id, sent,
                      msg.turn_id, msg.reason, msg.illegal_reason, msg.message)
        if obs is None or msg.error_reason != pb.ERROR_REASON_ILLEGAL_ACTION:
            return
        fallback = fallback_action(obs.legal_actions)
        if fallback == sent:
            return
        match.answered[msg.turn_id] = fallback, pb.BOT_FAULT_UNSPECIFIED  # the server counted its refusal itself
        bot.log.error("%s: playing %s instead", bot.name, fallback)
        bot.faults[Fault.INVALID] += 1
        await self._act(pb.MatchAct(match_id=match.match_id, act=pb.Act(
            turn_id=msg.turn_id, action=convert.action_to_proto(fallback))))

    async def _finish(self, match: _Match, result: MatchEnded) -> None:
        if match.result is not None:
            return
        match.result = result
        self._matches.pop(match.match_id, None)
        self.stats.live = len(self._matches)
        bot = match.bot
        if bot is None:
            return
        if match.listens and not match.end_seen:  # it ended while this client was away
            match.events.append((pb.Event(), result))
        if match.events:
            await self._call_bot(bot, match, None)
        finished = FinishedMatch(match_id=match.match_id, player=match.player, bot=bot.name, result=result,
                                 faults=Faults(bot.faults), names=match.names)
        self.stats.finished.append(finished)
        if self._on_finished is not None:
            self._on_finished(finished)

    async def _ended_away(self, match: _Match) -> None:
        """A match that ended while this client was not connected: its result from GetMatch."""
        assert self._stub is not None
        try:
            summary = (await self._stub.GetMatch(pb.GetMatchRequest(match_id=match.match_id), timeout=30)).match
        except grpc.aio.AioRpcError as exc:
            log.warning("match %s ended while away; its result could not be read: %s", match.match_id,
                        rpc_error(exc)[1])
            return
        if summary.HasField("result"):
            await self._finish(match, convert.match_result_from_proto(summary.result))
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
            if self._threads is None:
                return bool(lobby.accept_challenge(challenge))
            work = asyncio.wrap_future(self._threads.submit(lambda: bool(lobby.accept_challenge(challenge))))
            return await asyncio.wait_for(work, _CHALLENGE_ANSWER_S)
        except Exception:
            lobby.log.exception("%s: accept_challenge failed or took over %g s; declined", lobby.name,
                                _CHALLENGE_ANSWER_S)
            return False


def _notify(bot: Bot, events: Sequence[tuple[pb.Event, Event]]) -> None:
    """Events go to the bot's hooks; a hook that raises is logged, never fatal."""
    for raw, event in events:
        bot.raw = raw
        try:
            bot.notify(event)
        except Exception:
            bot.log.exception("%s raised in an event hook (ignored)", bot.name)


def _log_notice(notice: pb.Notice) -> None:
    """A refusal is a warning; the arena's verdict on a check match (CHECK_PASSED, CHECK_FAILED) is news.

    The server's message is written for people and stands alone: its reason code is for programs."""
    where = f" (match {notice.match_id})" if notice.match_id and notice.match_id not in notice.message else ""
    level = logging.INFO if notice.reason == "CHECK_PASSED" else logging.WARNING
    log.log(level, "%s%s", notice.message, where)


def _explain(reason: str, message: str, server: str) -> str:
    if reason == "BAD_TOKEN":
        return f"bad account token: {server} refuses it: {message}"
    if reason == "MISSING_TOKEN":
        return f"no account token was sent ({message})"
    if reason == "TOO_MANY_STREAMS":
        return f"this account is connected from elsewhere, or the server is full ({message})"
    return f"the server refused the session: {reason or 'error'}: {message}"
