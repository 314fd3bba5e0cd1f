"""`MatchesRpc`: creating, joining, playing, watching and looking up matches, and their replays."""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable
from contextlib import aclosing

import grpc
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError, abort
from president_service.play.acts import answer, apply_act, rejected
from president_service.play.feeds import SeatFeed, match_over, prompt_message, shared_events
from president_service.play.human_match import human_match, opponents
from president_service.play.match_request import check_name, read_match_request
from president_service.play.match_runner import MatchRunner
from president_service.play.messages import (
    finished_summary,
    hide_play,
    match_summary,
    result,
)
from president_service.play.request_guard import next_request, opening_request
from president_service.play.stream_ends import DRAIN_SLICES, OVER_SLICES, Heard, hear_out
from president_service.play.turns import Wake
from president_service.rpc.core import (
    LIST_LIMIT,
    MAX_DELAY_MS,
    Context,
    PlayContext,
    ServicerCore,
    guarded,
    refuse_opening,
    shutting_down,
)

log = logging.getLogger(__name__)


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


class MatchesRpc(ServicerCore):
    """Matches: create, join, play (a stream or unary calls), watch, look up, replay."""

    # ------------------------------------------------------------------ creating and joining

    @guarded
    async def CreateMatch(self, request: pb.CreateMatchRequest, context: Context) -> pb.CreateMatchResponse:  # noqa: N802
        self._open()
        self._admin.check(context.invocation_metadata())
        asked = read_match_request(request, self._default_clock)
        runner, tokens = self._registry.create(asked)
        return pb.CreateMatchResponse(
            match_id=runner.match_id, rules=convert.rules_to_proto(asked.rules),
            seats=[pb.SeatToken(player=p, token=t) for p, t in enumerate(tokens)])

    @guarded
    async def JoinMatch(self, request: pb.JoinMatchRequest, context: Context) -> pb.JoinMatchResponse:  # noqa: N802
        self._open()
        player, token = await self._registry.join(
            request.match_id, request.player if request.HasField("player") else None, request.name)
        return pb.JoinMatchResponse(match_id=request.match_id, seat=pb.SeatToken(player=player, token=token))

    @guarded
    async def RevokeDevSeat(self, request: pb.RevokeDevSeatRequest,  # noqa: N802
                            context: Context) -> pb.RevokeDevSeatResponse:
        self._open()
        self._admin.check(context.invocation_metadata())
        check_name(request.name, "name")
        return pb.RevokeDevSeatResponse(revoked=self._registry.dev_seats.revoke(request.name))

    # ------------------------------------------------------------------ playing without a stream

    @guarded
    async def SubmitAction(self, request: pb.SubmitActionRequest, context: Context) -> pb.SubmitActionResponse:  # noqa: N802
        runner, player = await self.polled_seat(context.invocation_metadata())
        apply_act(runner, player, request.turn_id, request.action, request.fault)
        return pb.SubmitActionResponse(turn_id=request.turn_id)

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

    @guarded
    async def GetTurn(self, request: pb.GetTurnRequest, context: Context) -> pb.GetTurnResponse:  # noqa: N802
        return turn_answer(*await self.polled_seat(context.invocation_metadata()))

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
            await refuse_opening(context, exc)
        try:
            try:
                runner, player = await self._registry.seat(context.invocation_metadata(), stream=True)
                self._admit_stream()
            except ServiceError as exc:
                await refuse_opening(context, exc)
            try:
                try:
                    wake = runner.attach(player, hello=True)  # counted against the seat's streams from its opening
                except ServiceError as exc:
                    await refuse_opening(context, exc)
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

    @guarded
    async def GetMatch(self, request: pb.GetMatchRequest, context: Context) -> pb.GetMatchResponse:  # noqa: N802
        return await self.summary(request.match_id, admin=self._admin.given(context.invocation_metadata()))

    async def summary(self, match_id: str, *, admin: bool = False) -> pb.GetMatchResponse:
        """GetMatch: a match's public summary, live or finished; unless admin, without how its deals went while
        another live match deals its cards (`hide_play`)."""
        return pb.GetMatchResponse(match=self._public_summary(await self._registry.get(match_id), admin))

    def _public_summary(self, runner: MatchRunner, admin: bool) -> pb.MatchSummary:
        summary = match_summary(runner)
        return summary if admin or not self._registry.deal_in_play(runner) else hide_play(summary)

    @guarded
    async def ListMatches(self, request: pb.ListMatchesRequest, context: Context) -> pb.ListMatchesResponse:  # noqa: N802
        return await self.summaries(request.status, page_size=request.page_size, offset=request.offset,
                                    player=request.player, admin=self._admin.given(context.invocation_metadata()))

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
            page, total = await self._registry.finished(min(page_size or LIST_LIMIT, LIST_LIMIT), offset, player)
            registry = self._registry
            out += [hide_play(finished_summary(done))
                    if not admin and registry.finished_in_play(done.match_id, done.ended_at)
                    else finished_summary(done) for done in page]
        out = [m for m in out if wanted in (pb.MATCH_STATUS_UNSPECIFIED, m.status)]
        out.sort(key=lambda m: -m.created_at.ToNanoseconds())
        return pb.ListMatchesResponse(matches=out, finished_total=total)

    @guarded
    async def GetReplay(self, request: pb.GetReplayRequest, context: Context) -> pb.GetReplayResponse:  # noqa: N802
        return await self.replay(request.match_id, admin=self._admin.given(context.invocation_metadata()),
                                 finished_deals=request.finished_deals, from_deal=request.from_deal)

    async def replay(self, match_id: str, *, admin: bool = False, finished_deals: bool = False,
                     from_deal: int = 0) -> pb.GetReplayResponse:
        """GetReplay: the full record of a finished match (MATCH_NOT_OVER before; DEAL_IN_PLAY unless admin);
        `finished_deals`: the deals over so far from `from_deal` on, of a live match for the admin alone."""
        runner = await self._registry.get(match_id)
        over = runner.match.is_over
        record = runner.finished_record(from_deal) if finished_deals and (admin or over) else runner.record()
        self._check_shown(runner, admin)
        return pb.GetReplayResponse(replay=convert.replay_to_proto(record, names=runner.names, result=result(runner)))
