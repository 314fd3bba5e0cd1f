"""The Session stream: one connection of a bot account for all its matches, and its challenges.

After `SessionHello` the server sends `SessionWelcome`, then runs one
`SeatFeed` per live match of the account, each sending what a Play stream of
that seat would send, batched per match (a move's events and the prompt they
make due travel in one message).  A match the account is seated in later
(by an organiser, the arena or a challenge) joins the running session.  The
reader applies `MatchAct`s and hands each answer to its match's feed, which
sends it first in its next batch, ahead of the events the act caused (as the
Play stream orders them), and so with them in one message.  A feed holds at
most `ANSWERS_HELD` answers: past that the reader sends them itself and waits
until they are written, reading nothing more meanwhile, so a client that
sends acts and never reads is held back by flow control instead of growing
the server.  A resume cursor for a match of the account that ended while it
was away gets that match's remaining events and MatchOver, as a Play stream
of the seat would; an act for such a match is answered by a Notice with the
reason its turn is refused (DUPLICATE_ACTION for one already applied).  With
`SessionHello.defer_events` a feed holds its batch until something in it asks
for the client (a prompt, a deadline, a refusal, the end): about one message
per own turn instead of one per move.  Messages wait their turn to be written
(one write at a time on a call); with `SessionHello.batch_matches` the
updates that have piled up meanwhile go out as one `MatchUpdates`, so under
load a client of many matches gets far fewer messages.  An account has one
session: a new one replaces the old (a reconnect whose old connection is not
yet noticed dead).  A session the server ends (replaced, revoked, draining)
serves its feeds no more and first hears its client out, as a Play stream
does (`stream_ends`): while a prompt it sent is unanswered, it reads and
answers on, so that the call does not end under the client's answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import grpc
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError, abort
from president_service.play.accounts import Account
from president_service.play.acts import answer, apply_act
from president_service.play.feeds import SeatFeed, shared_events
from president_service.play.match_runner import MatchRunner
from president_service.play.registry import Registry
from president_service.play.request_guard import next_request, opening_request
from president_service.play.session_writer import (
    MatchFeed,
    Session,
    SessionContext,
    SessionGoneError,
    notice,
    serve_feed,
)
from president_service.play.stream_ends import DRAIN_SLICES, hear_out

log = logging.getLogger(__name__)

ANSWERS_HELD = 32
"""Answers to acts one match's feed may hold for its next batch; more are written by the reader, which waits
(the contract's Session documents the number)."""


class Sessions:
    """Every open Session, by account; the registry tells it when an account is seated in a new match."""

    def __init__(self, registry: Registry, *, arena: bool = True) -> None:
        self._registry = registry
        self._arena = arena
        """Whether the server's arena forms matches (check matches among them): the Welcome says when not."""
        self.by_account: dict[str, Session] = {}
        self.on_change: list[Callable[[], None]] = []
        """Told when a session opens, closes or changes what it accepts (the arena matches up again)."""
        self.on_request: dict[str, Callable[[Session, pb.SessionRequest], Awaitable[None]]] = {}
        """Handlers of the other client messages (challenge, answer), by kind."""
        registry.on_seated.append(self._seated)

    def _changed(self) -> None:
        for listener in self.on_change:
            listener()

    def _seated(self, account: str, runner: MatchRunner, player: int) -> None:
        session = self.by_account.get(account)
        if session is not None and not session.ending:
            self._start_feed(session, runner, player)

    def close_account(self, account: str, why: ServiceError) -> None:
        session = self.by_account.get(account)
        if session is not None:
            session.close(why)

    def close_all(self, why: ServiceError) -> None:
        for session in list(self.by_account.values()):
            session.close(why)

    def close_version(self, version_id: str, why: ServiceError) -> None:
        for session in list(self.by_account.values()):
            if session.version == version_id:
                session.close(why)

    async def serve(self, account: Account, context: SessionContext, *, version: str = "",
                    checked: bool = False, opened: Callable[[], None] = lambda: None) -> None:
        """Run one Session until the client ends it or the server closes it (`opened`: called once its hello is
        read, or it ends)."""
        try:
            first = await opening_request(context, "hello", "Session", self._registry.limits.hello_window_s)
        except ServiceError as exc:
            await abort(context, exc)
        finally:
            opened()
        session = Session(account=account, context=context, version=version, checked=checked,
                          appetite=first.hello.accepts,
                          cursors={c.match_id: c.last_seq for c in first.hello.resume},
                          defer=first.hello.defer_events, batch=first.hello.batch_matches)
        resumed, unread = await self._resumed_seats(account.name, list(session.cursors))
        previous = self.by_account.get(account.name)
        if previous is not None:
            previous.close(ServiceError(Reason.TOO_MANY_STREAMS, "replaced by a newer session of this account"))
        self.by_account[account.name] = session
        reader: asyncio.Task[None] | None = None
        try:
            seats = self._registry.seats_of(account.name)
            live = {runner.match_id for runner, _ in seats}
            seats += [(runner, player) for runner, player in resumed if runner.is_over and runner.match_id not in live]
            await session.send(pb.SessionResponse(welcome=pb.SessionWelcome(
                account=account.name, live_matches=[runner.match_id for runner, _ in seats],
                max_matches=self._registry.limits.account_matches,
                check_pending=not checked, batches=True, without_arena=not self._arena)))
            if unread:
                await session.send(notice(ServiceError(
                    Reason.ACCOUNT_LIMIT, f"{unread} resume cursors of matches not live were not looked up: at most"
                                          f" {self._registry.limits.account_matches} are (GetMatch tells a result)")))
            session.feeder = asyncio.get_running_loop().create_task(self._serve_feeds(session))
            session.feeder.add_done_callback(_log_failure)
            for runner, player in seats:
                self._start_feed(session, runner, player)
            reader = asyncio.get_running_loop().create_task(self._read(session))
            reader.add_done_callback(lambda _: session.close(None))
            self._changed()
            while not session.ending:
                session._wake.clear()
                await session._wake.wait()
            if session.why is not None:
                prompted = {match_id: feeding.feed.prompted_turn for match_id, feeding in session.feeds.items()}
                await hear_out(reader, session.heard, prompted, DRAIN_SLICES)
                await abort(context, session.why)
        finally:
            if self.by_account.get(account.name) is session:
                del self.by_account[account.name]
            if session.feeder is not None:
                session.feeder.cancel()
            for match_id in list(session.feeds):
                self._end_feed(session, match_id)
            session.stop_writing()
            if reader is not None:
                reader.cancel()
            self._changed()

    async def _resumed_seats(self, account: str, match_ids: list[str]) -> tuple[list[tuple[MatchRunner, int]], int]:
        """The account's seats in the matches its resume cursors name, live or over (one may have ended while
        it was away), and how many cursors were left unread.

        A match not live for the account is looked up in the store, for at most `account_matches` cursors (as
        many as it may play at once): a long list of them costs no more than that many GetMatch calls."""
        seats: list[tuple[MatchRunner, int]] = []
        lookups = self._registry.limits.account_matches
        unread = 0
        for match_id in match_ids:
            seat = self._registry.seat_of_account(account, match_id)
            if seat is None:
                if lookups == 0:
                    unread += 1
                    continue
                lookups -= 1
                seat = await self._ended_seat(account, match_id)
            if seat is not None:
                seats.append(seat)
        return seats, unread

    async def _ended_seat(self, account: str, match_id: str) -> tuple[MatchRunner, int] | None:
        """The account's seat in match `match_id` if that match is over (None for another's or an unknown one)."""
        try:
            runner = await self._registry.get(match_id)
        except ServiceError:
            return None
        if not runner.is_over or account not in runner.accounts:
            return None
        return runner, runner.accounts.index(account)

    def _start_feed(self, session: Session, runner: MatchRunner, player: int) -> None:
        match_id = runner.match_id
        if match_id in session.feeds:
            return
        cursor = min(session.cursors.pop(match_id, 0), runner.last_seq)
        feed = SeatFeed(runner, player, shared_events(runner), cursor)
        feeding = MatchFeed(session, match_id, feed, [feed.welcome()])
        try:
            feeding.wake = runner.attach(player, then=feeding.ready)
        except ServiceError as exc:
            session.post(notice(exc, match_id))
            return
        session.feeds[match_id] = feeding
        feeding.wake.set()

    async def _serve_feeds(self, session: Session) -> None:
        """The session's one feeder: a round at a time, send what each ready match has due; the round's updates
        go out together (one MatchUpdates when batching), and the next round waits until they are written, so a
        client that does not read holds the feeder back (and the server's memory with it)."""
        try:
            while True:
                await session.has_ready.wait()
                session.has_ready.clear()
                ready, session.ready = session.ready, {}
                writes = [written for match_id, feeding in ready.items()
                          if (written := serve_feed(session, match_id, feeding)) is not None]
                del ready
                for written in writes:
                    await written
                for match_id, feeding in list(session.feeds.items()):
                    if feeding.done:
                        self._end_feed(session, match_id)
        except SessionGoneError:
            pass

    def _end_feed(self, session: Session, match_id: str) -> None:
        feeding = session.feeds.pop(match_id)
        if not session.ending:  # an ending session hears its client out on what its feeds prompted
            session.heard.turns.pop(match_id, None)
        session.ready.pop(match_id, None)
        runner = feeding.feed.runner
        runner.detach(feeding.feed.player, feeding.wake)
        if runner.is_over:
            self._changed()

    async def _read(self, session: Session) -> None:
        """Apply each client message as it arrives; a refused one gets a Notice or an ActionRejected.  As the server
        ends the session, stop once the client has settled every prompt (`stream_ends.hear_out`)."""
        try:
            while True:
                try:
                    request = await next_request(session.context)
                except ServiceError as exc:
                    await session.send(notice(exc))
                else:
                    if request is None:
                        return  # the client is done: the session ends normally
                    await self._handle(session, request)
                if session.heard.heard_out():
                    return
        except (grpc.aio.AbortError, SessionGoneError):
            pass  # the session's call ended (the client left, or the server ended the session)

    async def _handle(self, session: Session, request: pb.SessionRequest) -> None:
        kind = request.WhichOneof("kind")
        if kind == "act":
            await self._act(session, request.act)
        elif kind == "acts":
            for act in request.acts.acts:
                await self._act(session, act)
        elif kind == "accepts":
            session.appetite = request.accepts
            self._changed()
        elif kind in self.on_request:
            await self.on_request[kind](session, request)
        else:
            await session.send(notice(ServiceError(
                Reason.MALFORMED, f"{kind or 'an empty message'} is not taken here (SessionHello comes once,"
                                  " first)")))

    async def _act(self, session: Session, act: pb.MatchAct) -> None:
        match_id = act.match_id
        found = self._registry.seat_of_account(session.account.name, match_id)
        if found is None:
            await session.send(notice(await self._refusal_without_seat(session.account.name, act), match_id[:64]))
            return
        runner, player = found
        reply = answer(runner, player, act.act)
        session.heard.answered(act.act.turn_id, reply, match_id)
        feeding = session.feeds.get(match_id)
        if feeding is None or feeding.done or session.ending:  # ending: its feed is served no more
            await session.send_update(match_id, [reply])
            return
        feeding.answers.append(reply)  # first in the feed's next batch, with the events the act caused
        if len(feeding.answers) < ANSWERS_HELD:
            feeding.wake.set()
            return
        # The feed is still writing (the client reads slower than it acts): send its answers from here, in
        # order, and read no more until they are written.
        held, feeding.answers = feeding.answers, []
        await session.send_update(match_id, held)

    async def _refusal_without_seat(self, account: str, act: pb.MatchAct) -> ServiceError:
        """Why an act for a match the account has no live seat in is refused.

        For a match of the account that is over: DUPLICATE_ACTION for a turn its seat played (a client whose
        acknowledgement was lost with its connection learns the act was applied), else STALE_TURN or
        MATCH_OVER, checked as on the Play stream.  UNKNOWN_MATCH for any other match."""
        ended = await self._ended_seat(account, act.match_id)
        if ended is None:
            return ServiceError(Reason.UNKNOWN_MATCH, "this account has no seat in that match")
        runner, player = ended
        try:
            apply_act(runner, player, act.act.turn_id, act.act.action, act.act.fault)
        except ServiceError as exc:
            return exc
        raise AssertionError(f"match {runner.match_id} is over, yet took an action")


def _log_failure(task: asyncio.Task[None]) -> None:
    """A feed that failed rather than being cancelled: say so (and retrieve the exception)."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.warning("a Session's match feed failed", exc_info=exc)
