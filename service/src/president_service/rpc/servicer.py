"""`PresidentServicer`: the president.v1 RPCs on top of the registry and the match runners.

Every refusal is a `ServiceError`, sent as a gRPC status with ErrorInfo; on
the Play stream a refused Act is answered by ActionRejected and the stream
stays open.  Streams never copy the log: they walk it with a cursor, redact
each entry for their receiver as they send it (a public entry is encoded once
per match, `SharedEvents`), and sleep on a wake-up.  A Play stream's reader
task answers an Act itself as soon as it is applied (the two share a write
lock), so the acknowledgement goes out before the events the Act caused and
does not wait for the stream's writer to wake.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable
from contextlib import ExitStack, aclosing, suppress
from typing import Any, NoReturn, TypeVar

import grpc
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_service.base.auth import AdminKey, bearer_token
from president_service.base.errors import Reason, ServiceError, abort
from president_service.base.limits import RETRY_FULL_S
from president_service.base.loop_lag import LoopLag
from president_service.hosting.bot_output import WINDOWS, BotOutput, Window
from president_service.hosting.version_records import PlayerRecords
from president_service.hosting.versions import CHUNK_BYTES, Version, Versions, read_submission, read_upload
from president_service.league.arena import Arena, ArenaSettings
from president_service.league.arena_ratings import Ratings
from president_service.league.tournaments.director import Tournaments
from president_service.play.accounts import Account
from president_service.play.acts import answer, apply_act, rejected
from president_service.play.clock import ClockSettings
from president_service.play.feeds import SeatFeed, match_over, prompt_message, shared_events
from president_service.play.human_match import human_match, opponents
from president_service.play.match_request import check_name, read_match_request
from president_service.play.match_runner import MatchRunner, Wake
from president_service.play.messages import (
    account_message,
    finished_summary,
    hide_play,
    match_summary,
    result,
    timestamp,
)
from president_service.play.registry import Registry
from president_service.play.request_guard import OpeningStreams, next_request, opening_request
from president_service.play.session import SessionContext, Sessions
from president_service.play.stream_ends import DRAIN_SLICES, OVER_SLICES, Heard, hear_out

log = logging.getLogger(__name__)
_T = TypeVar("_T")
_LIST_LIMIT = 200
"""Finished matches ListMatches shows at most on a page (newest first), and without a page size."""
MAX_DELAY_MS = 3_600_000
"""The longest delay a spectator may ask for (an hour): a stream held longer holds a slot for nothing."""
REFUSAL_READ_S = 1.0
"""How long a stream refused as it opens is read for its first message before its status is sent."""

Context = grpc.aio.ServicerContext[object, object]
PlayContext = grpc.aio.ServicerContext[pb.PlayRequest, pb.PlayResponse]


def shutting_down() -> ServiceError:
    return ServiceError(Reason.SHUTTING_DOWN, "the server is shutting down; reconnect to its successor")


async def _refuse_opening(context: grpc.aio.ServicerContext[Any, Any], exc: ServiceError) -> NoReturn:
    """End a stream refused as it opens (a bad token, a full server), once its first message is in.

    The client is writing its Hello meanwhile, and grpc's asyncio client reports a write that races the end
    of the call as INTERNAL instead of the status sent (grpc/grpc#36066): reading the Hello first (for at most
    `REFUSAL_READ_S`) lets the client see the reason the contract names.
    """
    with suppress(TimeoutError, grpc.RpcError):
        await asyncio.wait_for(context.read(), REFUSAL_READ_S)
    await abort(context, exc)


async def _guard(context: Context, work: Awaitable[_T]) -> _T:
    """Run a unary call's work; a ServiceError becomes its status."""
    try:
        return await work
    except ServiceError as exc:
        await abort(context, exc)


async def _half_closed(context: Context) -> None:
    """Return only if the client half-closed its request stream, which has just ended.

    grpc's asyncio server ends a request stream the same way whether the client half-closed it or cancelled the
    call (or went away): a failed read reads as the end.  The call's initial metadata is therefore sent first: on a
    call that is over the batch fails, or the handler is cancelled meanwhile, and an upload cut short stores nothing.
    """
    try:
        await context.send_initial_metadata(())
    except Exception as exc:  # any failure means the call is over (CancelledError passes through)
        raise ServiceError(Reason.MALFORMED, "the upload did not end with the client's half-close; nothing was"
                                             " stored") from exc


async def _answer_next(context: PlayContext, send: Callable[[pb.PlayResponse], Awaitable[None]],
                       runner: MatchRunner, player: int, heard: Heard) -> bool:
    """Read the next message and answer it; False at the end of the client's stream.  A function of its own so
    that no message read or answered stays referenced while the next is awaited (each holds native memory)."""
    try:
        request = await next_request(context)
    except ServiceError as exc:
        runner.refused(player)
        await send(rejected(0, exc))
        return True
    if request is None:
        return False
    if request.WhichOneof("kind") != "act":
        error = ServiceError(Reason.MALFORMED, "Hello comes once, first; then only Act")
        await send(rejected(request.act.turn_id, error))
    else:
        response = answer(runner, player, request.act)
        heard.answered(request.act.turn_id, response)
        await send(response)
    return True


def _log_reader_failure(reader: asyncio.Task[None]) -> None:
    """A Play stream's reader that failed rather than being cancelled: say so (and retrieve the exception)."""
    if not reader.cancelled() and (exc := reader.exception()) is not None:
        log.warning("a Play stream's reader failed", exc_info=exc)


def turn_answer(runner: MatchRunner, player: int) -> pb.GetTurnResponse:
    """GetTurn's answer for a seat: its prompt if it is to act, the match's status and, once over, its result."""
    turn = runner.turn_for(player)
    summary = match_summary(runner)
    return pb.GetTurnResponse(prompt=None if turn is None else prompt_message(turn), status=summary.status,
                              result=summary.result if summary.HasField("result") else None)


class PresidentServicer(pb_grpc.PresidentServiceServicer):
    def __init__(self, registry: Registry, admin: AdminKey, default_clock: ClockSettings,
                 arena: ArenaSettings | None = None) -> None:
        self._registry = registry
        self._admin = admin
        self._default_clock = default_clock
        self.sessions = Sessions(registry, arena=(arena or ArenaSettings()).enabled)
        self.versions = Versions(registry.store, registry.limits)
        self.records = PlayerRecords(registry.store)
        registry.finishing.append(self.records.finishing)
        self.bot_output = BotOutput(registry.store)
        self.arena = Arena(registry, registry.accounts, self.sessions, Ratings(registry.store),
                           arena or ArenaSettings(), registry.limits, self.versions)
        self.tournaments = Tournaments(registry, self.sessions, self.versions, default_clock)
        self.arena.reserved = self.tournaments.reserved  # a due tournament table comes before arena matchmaking
        self.draining = False
        """Set when the server stops: new calls are refused, running ones finish."""
        self._streams = 0
        """Play and Spectate streams open now."""
        self._opening = OpeningStreams()
        """Play streams taken but not yet welcomed (on the server and by client), and Sessions before their hello
        (by client)."""
        self.loop_lag = LoopLag()
        """How far behind the event loop runs (started with the server): new Play streams are refused past a bound."""

    def _open(self) -> None:
        if self.draining:
            raise shutting_down()

    def _admit_stream(self) -> None:
        """Count a new Play or Spectate stream against the server's limit (the caller uncounts it)."""
        limit = self._registry.limits.max_streams
        if self._streams >= limit:
            raise ServiceError(Reason.TOO_MANY_STREAMS, f"this server has {limit} streams open, its limit",
                               retry_after_s=RETRY_FULL_S)
        self._streams += 1

    @property
    def opening_streams(self) -> int:
        """Play streams taken but not yet welcomed (bounded by `Limits.max_opening_streams`)."""
        return self._opening.total

    def opening_from(self, peer: str) -> int:
        """Play streams and Sessions opening now from `peer`'s address (bounded by `Limits.max_opening_per_peer`)."""
        return self._opening.of(peer)

    def _admit_opening(self, context: grpc.aio.ServicerContext[Any, Any], *, play: bool) -> Callable[[], None]:
        """Refuse a new Play stream (`play`) or Session at once (TOO_MANY_STREAMS, with a retry hint) when the server
        is past its bounds: its loop runs more than `max_loop_lag_s` behind (a Play stream), `max_opening_streams`
        Play streams are already opening, or `max_opening_per_peer` streams of its client's address are.  Else
        count it as opening; what is returned uncounts it, once (its hello is read or Welcome sent, or it ends)."""
        limits = self._registry.limits
        if play and (lag := self.loop_lag.lag) > limits.max_loop_lag_s:
            raise ServiceError(Reason.TOO_MANY_STREAMS, f"this server is overloaded (it runs {lag:.2f} s behind, its"
                                                        f" bound {limits.max_loop_lag_s:g} s)",
                               retry_after_s=RETRY_FULL_S)
        return self._opening.admit(context.peer(), per_peer=limits.max_opening_per_peer,
                                   total=limits.max_opening_streams if play else None,
                                   retry_after_s=limits.hello_window_s)

    # ------------------------------------------------------------------ creating and joining

    async def CreateMatch(self, request: pb.CreateMatchRequest, context: Context) -> pb.CreateMatchResponse:  # noqa: N802
        return await _guard(context, self._create(request, context))

    async def _create(self, request: pb.CreateMatchRequest, context: Context) -> pb.CreateMatchResponse:
        self._open()
        self._admin.check(context.invocation_metadata())
        asked = read_match_request(request, self._default_clock)
        runner, tokens = self._registry.create(asked)
        return pb.CreateMatchResponse(
            match_id=runner.match_id, rules=convert.rules_to_proto(asked.rules),
            seats=[pb.SeatToken(player=p, token=t) for p, t in enumerate(tokens)])

    async def JoinMatch(self, request: pb.JoinMatchRequest, context: Context) -> pb.JoinMatchResponse:  # noqa: N802
        async def join() -> pb.JoinMatchResponse:
            self._open()
            player, token = await self._registry.join(
                request.match_id, request.player if request.HasField("player") else None, request.name)
            return pb.JoinMatchResponse(match_id=request.match_id, seat=pb.SeatToken(player=player, token=token))
        return await _guard(context, join())

    async def RevokeDevSeat(self, request: pb.RevokeDevSeatRequest,  # noqa: N802
                            context: Context) -> pb.RevokeDevSeatResponse:
        async def revoke() -> pb.RevokeDevSeatResponse:
            self._open()
            self._admin.check(context.invocation_metadata())
            check_name(request.name, "name")
            return pb.RevokeDevSeatResponse(revoked=self._registry.dev_seats.revoke(request.name))
        return await _guard(context, revoke())

    # ------------------------------------------------------------------ playing without a stream

    async def SubmitAction(self, request: pb.SubmitActionRequest, context: Context) -> pb.SubmitActionResponse:  # noqa: N802
        async def submit() -> pb.SubmitActionResponse:
            runner, player = await self.polled_seat(context.invocation_metadata())
            apply_act(runner, player, request.turn_id, request.action, request.fault)
            return pb.SubmitActionResponse(turn_id=request.turn_id)
        return await _guard(context, submit())

    async def polled_seat(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> tuple[MatchRunner, int]:
        """The match and player of the seat token in `metadata`, its client counted as there (a unary call's)."""
        self._open()
        runner, player = await self._registry.seat(metadata)
        runner.polled(player)
        return runner, player

    def human_match(self, board: tuple[str, int], account: str) -> tuple[MatchRunner, int, str]:
        """A person's match against `account` (human_match): the match, the person's player and seat token."""
        self._open()
        settings = self.arena.settings
        return human_match(self._registry, self._registry.accounts, self.sessions, board, account,
                           deals=settings.deals, queues=settings.queues)

    def opponents(self, summary: pb.MatchSummary) -> list[int]:
        """The players of the match whose bot a person may play against now (human_match.opponents)."""
        return opponents(self._registry.accounts, self.sessions, (summary.preset, len(summary.players)),
                         [p.account for p in summary.players], queues=self.arena.settings.queues)

    async def GetTurn(self, request: pb.GetTurnRequest, context: Context) -> pb.GetTurnResponse:  # noqa: N802
        async def get() -> pb.GetTurnResponse:
            return turn_answer(*await self.polled_seat(context.invocation_metadata()))
        return await _guard(context, get())

    # ------------------------------------------------------------------ the Play stream

    async def Play(self, request_iterator: AsyncIterator[pb.PlayRequest],  # type: ignore[override]  # noqa: N802
                   context: PlayContext) -> None:
        # The coroutine form of a streaming handler (context.read/write), not a generator, so that the
        # reader task can write too; it also holds less memory per open stream (docs/TEAM-NOTES.md).
        try:
            self._open()
            # Before anything else: refused at once when the server is past its bounds.
            opened = self._admit_opening(context, play=True)
        except ServiceError as exc:
            await _refuse_opening(context, exc)
        try:
            try:
                runner, player = await self._registry.seat(context.invocation_metadata(), stream=True)
                self._admit_stream()
            except ServiceError as exc:
                await _refuse_opening(context, exc)
            try:
                try:
                    wake = runner.attach(player, hello=True)  # counted against the seat's streams from its opening
                except ServiceError as exc:
                    await _refuse_opening(context, exc)
                try:
                    await self._play(context, runner, player, wake, opened)
                finally:
                    runner.detach(player, wake)
            finally:
                self._streams -= 1
        finally:
            opened()

    async def _play(self, context: PlayContext, runner: MatchRunner, player: int, wake: Wake,
                    opened: Callable[[], None]) -> None:
        try:
            first = await opening_request(context, "hello", "Play stream", self._registry.limits.hello_window_s)
            cursor = first.hello.last_seq
            if cursor > runner.last_seq:
                raise ServiceError(Reason.BAD_SEQ, f"last_seq {cursor} is beyond the last event {runner.last_seq}")
            self._registry.name_seat(runner, player, first.hello.name)
        except ServiceError as exc:
            await abort(context, exc)
        runner.connected(player)
        writing = asyncio.Lock()  # one write at a time on a call: this writer's and the reader's answers

        async def send(message: pb.PlayResponse) -> None:
            async with writing:
                await context.write(message)

        feed = SeatFeed(runner, player, shared_events(runner), cursor)
        heard = Heard()
        reader: asyncio.Task[None] | None = None

        async def send_due() -> tuple[bool, bool]:
            """Send what is due; whether anything was, and whether it ended with MatchOver.  A function of its own
            so that nothing sent stays referenced while the stream waits (a message holds native memory)."""
            messages, done = feed.due()
            for message in messages:
                if done and message is messages[-1] and reader is not None:  # MatchOver: the call ends next
                    await hear_out(reader, heard, {"": feed.prompted_turn}, OVER_SLICES)
                await send(message)
            return bool(messages), done

        try:
            await send(feed.welcome())
            opened()
            while True:
                wake.clear()
                sent, done = await send_due()
                if done:
                    return
                if reader is None:
                    # Acts are read once the snapshot is out, so that no answer comes before it.
                    reader = asyncio.get_running_loop().create_task(
                        self._read_acts(context, send, runner, player, heard))
                if sent:
                    continue  # more may have come while these were sent
                if self.draining:
                    await hear_out(reader, heard, {"": feed.prompted_turn}, DRAIN_SLICES)
                    await abort(context, shutting_down())
                await wake.wait()
        finally:
            if reader is not None:
                reader.cancel()
                reader.add_done_callback(_log_reader_failure)

    @staticmethod
    async def _read_acts(context: PlayContext, send: Callable[[pb.PlayResponse], Awaitable[None]],
                         runner: MatchRunner, player: int, heard: Heard) -> None:
        """Apply each Act as it arrives and answer it at once, ahead of the events it caused; once the writer ends
        the call (`heard.until`), stop when the client has settled its last prompt."""
        try:
            while await _answer_next(context, send, runner, player, heard):
                if heard.heard_out():
                    return
        except grpc.aio.AbortError:
            pass  # the writer ended the call with an error status (a refusal, or the server draining)


    # ------------------------------------------------------------------ watching and looking up
    # The public methods below are what a spectator may reach; the web pages (president_service.web) call
    # them too, so a page gets the same messages, the same redaction and the same refusals as a gRPC client.

    def _check_shown(self, runner: MatchRunner, admin: bool) -> None:
        """DEAL_IN_PLAY unless admin: a match whose cards another live match deals shows nothing of its play."""
        if not admin and self._registry.deal_in_play(runner):
            raise ServiceError(Reason.DEAL_IN_PLAY, "another live match deals the same cards (a duplicate board):"
                                                    " its play is shown once every match of the deal is over,"
                                                    " or with the admin token", retry_after_s=RETRY_FULL_S)

    def shown(self, match_id: str) -> bool:
        """Whether a spectator without the admin token may see this match's play now: False while another live
        match deals its cards (as far as the server knows without loading a finished match: `summary` knows)."""
        runner = self._registry.live.get(match_id) or self._registry.cached(match_id)
        if runner is not None:
            return not self._registry.deal_in_play(runner)
        return not self._registry.finished_in_play(match_id, math.inf)

    async def Spectate(self, request: pb.SpectateRequest, context: Context) -> AsyncIterator[pb.SpectateResponse]:  # noqa: N802
        admin = self._admin.given(context.invocation_metadata())
        try:
            async with aclosing(self.spectate(request.match_id, from_seq=request.from_seq,
                                              delay_ms=request.delay_ms, admin=admin)) as messages:
                async for message in messages:
                    yield message
        except ServiceError as exc:
            await abort(context, exc)

    async def spectate(self, match_id: str, *, from_seq: int = 0, delay_ms: int = 0,
                       admin: bool = False) -> AsyncGenerator[pb.SpectateResponse, None]:
        """The Spectate stream's messages: a snapshot (from_seq 0), public events as they happen, MatchOver.

        A refusal is a ServiceError before the first message; SHUTTING_DOWN ends the stream when the server
        drains.  The stream counts against the server's and the match's limits until it is closed.
        """
        self._open()
        if delay_ms > MAX_DELAY_MS:
            raise ServiceError(Reason.BAD_OPTION, f"delay_ms: at most {MAX_DELAY_MS} (an hour)", {"option": "delay_ms"})
        runner = await self._registry.get(match_id)
        self._check_shown(runner, admin)
        if from_seq > runner.last_seq + 1:
            raise ServiceError(Reason.BAD_SEQ, f"from_seq {from_seq} is beyond the last event {runner.last_seq}")
        self._admit_stream()
        try:
            wake = runner.attach(None)
        except ServiceError:
            self._streams -= 1
            raise
        delay = delay_ms / 1000
        loop = asyncio.get_running_loop()
        shared = shared_events(runner)
        try:
            cursor = max(0, from_seq - 1)
            if from_seq == 0 and not delay:
                # A delayed spectator gets no snapshot (it would show the present): the events from the start.
                cursor = runner.last_seq
                yield pb.SpectateResponse(snapshot=pb.Snapshot(
                    observation=convert.public_observation_to_proto(runner.match.public_observation()),
                    last_seq=cursor))
            while True:
                wake.clear()
                log = runner.log
                while cursor < len(log):
                    due = runner.times[cursor] + delay
                    if due > loop.time():
                        await asyncio.sleep(due - loop.time())
                    cursor += 1
                    message = shared.for_spectator(log[cursor - 1], cursor)
                    if message is not None:
                        yield message
                if runner.is_over and cursor == len(log):
                    yield pb.SpectateResponse(match_over=match_over(runner))
                    return
                if self.draining:
                    raise shutting_down()
                await wake.wait()
        finally:
            runner.detach(None, wake)
            self._streams -= 1

    async def GetMatch(self, request: pb.GetMatchRequest, context: Context) -> pb.GetMatchResponse:  # noqa: N802
        return await _guard(context, self.summary(request.match_id,
                                                  admin=self._admin.given(context.invocation_metadata())))

    async def summary(self, match_id: str, *, admin: bool = False) -> pb.GetMatchResponse:
        """GetMatch: a match's public summary, live or finished; unless admin, without how its deals went while
        another live match deals its cards (`hide_play`)."""
        return pb.GetMatchResponse(match=self._public_summary(await self._registry.get(match_id), admin))

    def _public_summary(self, runner: MatchRunner, admin: bool) -> pb.MatchSummary:
        summary = match_summary(runner)
        return summary if admin or not self._registry.deal_in_play(runner) else hide_play(summary)

    async def ListMatches(self, request: pb.ListMatchesRequest, context: Context) -> pb.ListMatchesResponse:  # noqa: N802
        return await _guard(context, self.summaries(request.status, page_size=request.page_size,
                                                    offset=request.offset, player=request.player,
                                                    admin=self._admin.given(context.invocation_metadata())))

    async def summaries(self, wanted: pb.MatchStatus.ValueType, *, page_size: int = 0, offset: int = 0,
                        player: str = "", admin: bool = False) -> pb.ListMatchesResponse:
        """ListMatches: every live match and a page of the finished ones, newest first (status 0: any; `player`:
        only matches with a player of that name), with how many finished matches there are in all; unless admin,
        a match whose cards another live match deals without how its deals went (`hide_play`)."""
        check_name(player, "player")
        live = [r for r in self._registry.live.values() if not player or player in r.names]
        out = [self._public_summary(r, admin) for r in sorted(live, key=lambda r: -r.created_at)]
        total = 0
        if wanted in (pb.MATCH_STATUS_UNSPECIFIED, pb.MATCH_STATUS_OVER):
            page, total = await self._registry.finished(min(page_size or _LIST_LIMIT, _LIST_LIMIT), offset, player)
            registry = self._registry
            out += [hide_play(finished_summary(done))
                    if not admin and registry.finished_in_play(done.match_id, done.ended_at)
                    else finished_summary(done) for done in page]
        out = [m for m in out if wanted in (pb.MATCH_STATUS_UNSPECIFIED, m.status)]
        out.sort(key=lambda m: -m.created_at.ToNanoseconds())
        return pb.ListMatchesResponse(matches=out, finished_total=total)

    # ------------------------------------------------------------------ accounts, sessions, the arena

    async def CreateAccount(self, request: pb.CreateAccountRequest,  # noqa: N802
                            context: Context) -> pb.CreateAccountResponse:
        async def create() -> pb.CreateAccountResponse:
            self._open()
            self._admin.check(context.invocation_metadata())
            account, token = self._registry.accounts.create(request.name, request.owner, house=request.house)
            return pb.CreateAccountResponse(account=account_message(account), token=token)
        return await _guard(context, create())

    async def RotateAccountToken(self, request: pb.RotateAccountTokenRequest,  # noqa: N802
                                 context: Context) -> pb.RotateAccountTokenResponse:
        async def rotate() -> pb.RotateAccountTokenResponse:
            self._open()
            self._admin.check(context.invocation_metadata())
            token = self._registry.accounts.rotate(request.name)
            rotated = ServiceError(Reason.BAD_TOKEN, "the account's token was rotated: connect with the new one")
            self.sessions.close_account(request.name, rotated)
            return pb.RotateAccountTokenResponse(token=token)
        return await _guard(context, rotate())

    async def RevokeAccount(self, request: pb.RevokeAccountRequest,  # noqa: N802
                            context: Context) -> pb.RevokeAccountResponse:
        async def revoke() -> pb.RevokeAccountResponse:
            self._open()
            self._admin.check(context.invocation_metadata())
            account = self._registry.accounts.revoke(request.name)
            self.sessions.close_account(request.name, ServiceError(Reason.BAD_TOKEN, "the account was revoked"))
            return pb.RevokeAccountResponse(account=account_message(account))
        return await _guard(context, revoke())

    async def ListAccounts(self, request: pb.ListAccountsRequest,  # noqa: N802
                           context: Context) -> pb.ListAccountsResponse:
        async def listing() -> pb.ListAccountsResponse:
            self._admin.check(context.invocation_metadata())
            return pb.ListAccountsResponse(accounts=[account_message(a) for a in self._registry.accounts.all()])
        return await _guard(context, listing())

    async def Session(self, request_iterator: AsyncIterator[pb.SessionRequest],  # type: ignore[override]  # noqa: N802
                      context: SessionContext) -> None:
        try:
            self._open()
            opened = self._admit_opening(context, play=False)
        except ServiceError as exc:
            await _refuse_opening(context, exc)
        try:
            try:
                account, version = self._session_player(context.invocation_metadata())
                self._admit_stream()
            except ServiceError as exc:
                await _refuse_opening(context, exc)
            try:
                await self.sessions.serve(account, context, version=version.version_id if version else "",
                                          checked=version.checked if version else account.checked, opened=opened)
            finally:
                self._streams -= 1
        finally:
            opened()

    def _session_player(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> tuple[Account, Version | None]:
        """Who a Session plays as: an account (its own token), or a hosted version of it (its lease's token)."""
        try:
            return self._registry.accounts.authenticate(metadata), None
        except ServiceError as exc:
            if exc.reason is not Reason.BAD_TOKEN or (version := self.versions.hosted(bearer_token(metadata))) is None:
                raise
            account = self._registry.accounts.get(version.account)
            if account.revoked:
                raise ServiceError(Reason.BAD_TOKEN, f"the account {account.name} is revoked") from None
            return account, version

    async def GetLeaderboard(self, request: pb.GetLeaderboardRequest,  # noqa: N802
                             context: Context) -> pb.GetLeaderboardResponse:
        async def board() -> pb.GetLeaderboardResponse:
            return self.arena.leaderboard((request.preset or "cardverse", request.players or 4))
        return await _guard(context, board())

    # ------------------------------------------------------------------ tournaments

    async def CreateTournament(self, request: pb.CreateTournamentRequest,  # noqa: N802
                               context: Context) -> pb.CreateTournamentResponse:
        async def create() -> pb.CreateTournamentResponse:
            self._open()
            self._admin.check(context.invocation_metadata())
            return pb.CreateTournamentResponse(tournament=self.tournaments.create(request.spec))
        return await _guard(context, create())

    async def ControlTournament(self, request: pb.ControlTournamentRequest,  # noqa: N802
                                context: Context) -> pb.ControlTournamentResponse:
        async def control() -> pb.ControlTournamentResponse:
            self._open()
            self._admin.check(context.invocation_metadata())
            return pb.ControlTournamentResponse(
                tournament=self.tournaments.control(request.tournament_id, request.control))
        return await _guard(context, control())

    async def GetTournament(self, request: pb.GetTournamentRequest,  # noqa: N802
                            context: Context) -> pb.GetTournamentResponse:
        async def get() -> pb.GetTournamentResponse:
            return pb.GetTournamentResponse(tournament=self.tournaments.message(request.tournament_id))
        return await _guard(context, get())

    async def ListTournaments(self, request: pb.ListTournamentsRequest,  # noqa: N802
                              context: Context) -> pb.ListTournamentsResponse:
        async def listing() -> pb.ListTournamentsResponse:
            return pb.ListTournamentsResponse(tournaments=self.tournaments.listing())
        return await _guard(context, listing())

    async def GetReplay(self, request: pb.GetReplayRequest, context: Context) -> pb.GetReplayResponse:  # noqa: N802
        return await _guard(context, self.replay(request.match_id,
                                                 admin=self._admin.given(context.invocation_metadata())))

    async def replay(self, match_id: str, *, admin: bool = False) -> pb.GetReplayResponse:
        """GetReplay: the full record of a finished match (MATCH_NOT_OVER before; DEAL_IN_PLAY unless admin)."""
        runner = await self._registry.get(match_id)
        record = runner.record()
        self._check_shown(runner, admin)
        ended = result(runner)
        assert ended is not None
        return pb.GetReplayResponse(replay=convert.replay_to_proto(record, names=runner.names, result=ended))

    # ------------------------------------------------------------------ submissions, versions, builds
    # The server stores and serves archives; it never unpacks or runs one (a builder does, in its sandbox).

    async def SubmitBot(self, request_iterator: AsyncIterator[pb.SubmitBotRequest],  # noqa: N802
                        context: Context) -> pb.SubmitBotResponse:
        async def submit() -> pb.SubmitBotResponse:
            self._open()
            account = self._registry.accounts.authenticate(context.invocation_metadata())
            with self.versions.uploading(f"the account {account.name}"):
                manifest, archive = await read_submission(request_iterator, self._registry.limits.archive_bytes,
                                                          lambda: _half_closed(context))
            version, existed = self.versions.submit(account.name, manifest, archive)
            return pb.SubmitBotResponse(version=self.versions.message(version), existed=existed)
        return await _guard(context, submit())

    async def ListVersions(self, request: pb.ListVersionsRequest,  # noqa: N802
                           context: Context) -> pb.ListVersionsResponse:
        async def listing() -> pb.ListVersionsResponse:
            return self.version_listing(context.invocation_metadata())
        return await _guard(context, listing())

    def version_listing(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> pb.ListVersionsResponse:
        """ListVersions: the versions of the account whose token `metadata` carries (the admin token: every
        account's), newest first, each with its record and the wait before its next check match (the web's
        /api/versions calls it too, with the request's Authorization header)."""
        owner = None if self._admin.given(metadata) else self._registry.accounts.authenticate(metadata).name
        versions = self.versions.listing(owner)
        records = self.records.of(v.player for v in versions if v.player)
        for version in versions:
            if version.player in records:
                version.record.CopyFrom(records[version.player])
            if version.current and not version.checked and (at := self.arena.next_check_at(version.account)):
                version.next_check_at.CopyFrom(timestamp(at))
        return pb.ListVersionsResponse(versions=versions, without_arena=not self.arena.settings.enabled,
                                       every_account=owner is None)

    async def GetBuildLog(self, request: pb.GetBuildLogRequest,  # noqa: N802
                          context: Context) -> pb.GetBuildLogResponse:
        async def build_log() -> pb.GetBuildLogResponse:
            return self.build_log(context.invocation_metadata(), request.version_id)
        return await _guard(context, build_log())

    def build_log(self, metadata: Iterable[tuple[str, str | bytes]] | None,
                  version_id: str) -> pb.GetBuildLogResponse:
        """GetBuildLog: a version and its build log, for its account's token or the admin token; UNKNOWN_VERSION
        for another account's (the web's /api/versions/ID/log calls it too)."""
        owner = None if self._admin.given(metadata) else self._registry.accounts.authenticate(metadata).name
        version = self.versions.get(version_id, owner)
        return pb.GetBuildLogResponse(version=self.versions.message(version),
                                      log=self.versions.log(version.version_id))

    async def SetCurrentVersion(self, request: pb.SetCurrentVersionRequest,  # noqa: N802
                                context: Context) -> pb.SetCurrentVersionResponse:
        async def choose() -> pb.SetCurrentVersionResponse:
            return self.set_current_version(context.invocation_metadata(), request.version_id)
        return await _guard(context, choose())

    def set_current_version(self, metadata: Iterable[tuple[str, str | bytes]] | None,
                            version_id: str) -> pb.SetCurrentVersionResponse:
        """SetCurrentVersion, for the account whose token `metadata` carries (the web's POST
        /api/versions/ID/current calls it too).  The hosts learn of it at their next lease renewal."""
        self._open()
        account = self._registry.accounts.authenticate(metadata)
        return pb.SetCurrentVersionResponse(version=self.versions.message(self.versions.choose(account.name,
                                                                                               version_id)))

    async def ReportBotOutput(self, request: pb.ReportBotOutputRequest,  # noqa: N802
                              context: Context) -> pb.ReportBotOutputResponse:
        async def report() -> pb.ReportBotOutputResponse:
            self._admin.check(context.invocation_metadata())
            self.bot_output.report(self.versions.get(request.version_id, None).version_id, request.lines)
            return pb.ReportBotOutputResponse()
        return await _guard(context, report())

    async def GetBotOutput(self, request: pb.GetBotOutputRequest,  # noqa: N802
                           context: Context) -> pb.GetBotOutputResponse:
        async def output() -> pb.GetBotOutputResponse:
            return await self.bot_output_of(context.invocation_metadata(), request.version_id, request.match_id)
        return await _guard(context, output())

    async def bot_output_of(self, metadata: Iterable[tuple[str, str | bytes]] | None, version_id: str,
                            match_id: str) -> pb.GetBotOutputResponse:
        """GetBotOutput, for the version's account's token or the admin token (the web's /api/versions/ID/output
        calls it too): the lines of a finished match of the version, or of no match, less those a match not
        over, or whose deal is in play, may hold (`bot_output`)."""
        admin = self._admin.given(metadata)
        owner = None if admin else self._registry.accounts.authenticate(metadata).name
        version = self.versions.get(version_id, owner)
        oldest = self.bot_output.oldest(version.version_id)
        store = self._registry.store
        windows = [] if oldest is None else [Window(*row) for row in await store.windows(version.player, oldest,
                                                                                           WINDOWS)]
        match = None
        if match_id:
            found = [Window(*row) for row in await store.windows(version.player, 0.0, 1, match_id[:64])]
            if not found:
                raise ServiceError(Reason.UNKNOWN_MATCH, f"{version.player} played no match {match_id[:64]!r}")
            match = found[0]
            windows = [w for w in windows if w.match_id != match.match_id] + [match]
            if match.end is None:
                raise ServiceError(Reason.MATCH_NOT_OVER, "its bot's output is shown once the match is over")
            self._check_shown(await self._registry.get(match.match_id), admin)
        registry = self._registry
        shown = self.bot_output.shown(version.version_id, match, windows, lambda w: w is not match and (
            w.end is None or (not admin and registry.finished_in_play(w.match_id, w.end))))
        return pb.GetBotOutputResponse(version=self.versions.message(version), lines=shown.lines,
                                       held_back=shown.held_back, dropped=shown.dropped)

    async def LeaseBuild(self, request: pb.LeaseBuildRequest, context: Context) -> pb.LeaseBuildResponse:  # noqa: N802
        async def lease() -> pb.LeaseBuildResponse:
            self._open()
            self._admin.check(context.invocation_metadata())
            leased = self.versions.lease(request.builder)
            if leased is None:
                return pb.LeaseBuildResponse()
            version, lease_id, until = leased
            return pb.LeaseBuildResponse(version=self.versions.message(version), lease_id=lease_id,
                                         lease_expires_at=timestamp(until))
        return await _guard(context, lease())

    async def FetchVersion(self, request: pb.FetchVersionRequest,  # noqa: N802
                           context: Context) -> AsyncIterator[pb.FetchVersionResponse]:
        try:
            self._admin.check(context.invocation_metadata())
            chunks = self.versions.archive(request.version_id, built=request.built)
            first = next(chunks)  # a refusal comes before the first message
        except ServiceError as exc:
            await abort(context, exc)
        assert len(first) <= CHUNK_BYTES
        yield pb.FetchVersionResponse(chunk=first)
        for chunk in chunks:
            yield pb.FetchVersionResponse(chunk=chunk)

    async def UploadBuild(self, request_iterator: AsyncIterator[pb.UploadBuildRequest],  # noqa: N802
                          context: Context) -> pb.UploadBuildResponse:
        async def upload() -> pb.UploadBuildResponse:
            self._open()
            self._admin.check(context.invocation_metadata())
            with ExitStack() as held:
                def admit(lease: pb.BuildLease) -> None:
                    """Refuse a lease no longer held before any chunk is read; else hold an upload slot."""
                    self.versions.check_lease(lease.version_id, lease.lease_id)
                    held.enter_context(self.versions.uploading(f"the build of {lease.version_id[:64]}"))
                lease, archive = await read_upload(request_iterator, self._registry.limits.built_archive_bytes, admit,
                                                   lambda: _half_closed(context))
            version = self.versions.upload_built(lease.version_id, lease.lease_id, archive)
            return pb.UploadBuildResponse(version=self.versions.message(version))
        return await _guard(context, upload())

    async def ReportBuild(self, request: pb.ReportBuildRequest, context: Context) -> pb.ReportBuildResponse:  # noqa: N802
        async def report() -> pb.ReportBuildResponse:
            self._admin.check(context.invocation_metadata())
            version = self.versions.report(request.version_id, request.lease_id, ready=request.ready,
                                           reason=request.reason, log=request.log)
            return pb.ReportBuildResponse(version=self.versions.message(version))
        return await _guard(context, report())

    async def LeaseHosting(self, request: pb.LeaseHostingRequest,  # noqa: N802
                           context: Context) -> pb.LeaseHostingResponse:
        async def lease() -> pb.LeaseHostingResponse:
            self._open()
            self._admin.check(context.invocation_metadata())

            def playable(account: str) -> bool:
                return not self._registry.accounts.get(account).revoked
            start, keep, stop, until = self.versions.host(request.host, request.capacity, list(request.running),
                                                          playable)
            for version_id in stop:  # its bot may still be connected: a Session under a lease no longer held ends
                self.sessions.close_version(version_id, ServiceError(
                    Reason.BAD_TOKEN, "this version's hosting lease ended (retired, replaced or moved)"))
            return pb.LeaseHostingResponse(
                start=[pb.HostedVersion(version=self.versions.message(v), token=token) for v, token in start],
                keep=keep, stop=stop, lease_expires_at=timestamp(until))
        return await _guard(context, lease())
