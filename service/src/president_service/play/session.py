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
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import grpc
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError, abort
from president_service.play.accounts import Account
from president_service.play.acts import answer, apply_act
from president_service.play.feeds import SeatFeed, shared_events
from president_service.play.match_runner import MatchRunner
from president_service.play.registry import Registry
from president_service.play.request_guard import next_request, opening_request
from president_service.play.stream_ends import DRAIN_SLICES, Heard, hear_out
from president_service.play.turns import Wake

log = logging.getLogger(__name__)

SessionContext = grpc.aio.ServicerContext[pb.SessionRequest, pb.SessionResponse]
ANSWERS_HELD = 32
"""Answers to acts one match's feed may hold for its next batch; more are written by the reader, which waits
(the contract's Session documents the number)."""


class SessionGoneError(Exception):
    """The session's call is over: nothing more can be sent on it."""


def notice(exc: ServiceError, match_id: str = "") -> pb.SessionResponse:
    retry = 0 if exc.retry_after_s is None else int(exc.retry_after_s * 1000)
    return pb.SessionResponse(notice=pb.Notice(reason=exc.reason.name, message=exc.message,
                                               retry_after_ms=retry, match_id=match_id))


@dataclass(eq=False, slots=True)
class MatchFeed:
    """One match of a session: its seat's feed, what to send first, and the answers to acts it is to send
    next (fewer than `ANSWERS_HELD`).  No task of its own: its wake-up puts it in the session's ready queue,
    which the session's feeder serves."""

    session: Session
    match_id: str
    feed: SeatFeed
    first: list[pb.PlayResponse]
    """Sent in its next batch before anything: the Welcome."""
    wake: Wake = field(init=False)
    """Set by its match whenever there is news (`ready` is its `then`)."""
    answers: list[pb.PlayResponse] = field(default_factory=list)
    done: bool = False
    """Its MatchOver is sent (or being written): it leaves the session once that is written."""

    def ready(self) -> None:
        session = self.session
        if not session.ending and session.feeds.get(self.match_id) is self:
            session.ready[self.match_id] = self
            session.has_ready.set()


@dataclass(eq=False)
class Session:
    """One open Session of an account."""

    account: Account
    context: SessionContext
    version: str = ""
    """The hosted version it plays as (opened with its lease's token); empty: the account's own bot."""
    checked: bool = False
    """Whether it (the account, or its version) passed its check match when it opened."""
    appetite: pb.Appetite = field(default_factory=pb.Appetite)
    feeds: dict[str, MatchFeed] = field(default_factory=dict)
    """Match id -> what feeds that match."""
    cursors: dict[str, int] = field(default_factory=dict)
    """Where to resume each match (from SessionHello)."""
    defer: bool = False
    """SessionHello.defer_events: a match's batch waits until it asks something of the client."""
    batch: bool = False
    """SessionHello.batch_matches: updates waiting together go out as one MatchUpdates."""
    ending: bool = False
    """Set when the session is to end: by the client (`why` None) or the server (`why`)."""
    why: ServiceError | None = None
    """Why the server ends this session (replaced, revoked, draining)."""
    heard: Heard = field(default_factory=Heard)
    """The turns the client settled, by match, for hearing it out as the server ends the session."""
    _outbox: list[_Outgoing] = field(default_factory=list)
    _queued: asyncio.Event = field(default_factory=asyncio.Event)
    _writer: asyncio.Task[None] | None = None
    """Writes what is queued, one write at a time; started by the first message."""
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    ready: dict[str, MatchFeed] = field(default_factory=dict)
    """The feeds whose wake-up was set since the feeder last served them, in that order."""
    has_ready: asyncio.Event = field(default_factory=asyncio.Event)
    feeder: asyncio.Task[None] | None = None
    """Serves the ready feeds (`Sessions._serve_feeds`)."""

    async def send(self, message: pb.SessionResponse) -> None:
        """Write one message; SessionGoneError (the session then ends) when the call is over."""
        await self._queue(_Outgoing(message=message))

    async def send_update(self, match_id: str, messages: list[pb.PlayResponse]) -> None:
        """Write one match's messages (with other matches' waiting updates, when batching)."""
        await self._queue(_Outgoing(match_id=match_id, messages=messages))

    def post(self, message: pb.SessionResponse) -> None:
        """Queue one message no one waits for (dropped if the call is over)."""
        with contextlib.suppress(SessionGoneError):
            self._post(_Outgoing(message=message))

    def post_update(self, match_id: str, messages: list[pb.PlayResponse]) -> asyncio.Future[None]:
        """Queue one match's messages; the future is done once they are written."""
        return self._post(_Outgoing(match_id=match_id, messages=messages))

    async def _queue(self, item: _Outgoing) -> None:
        """Queue `item` for the writer and wait until it is written."""
        await self._post(item)

    def _post(self, item: _Outgoing) -> asyncio.Future[None]:
        """Queue `item` for the writer (while the server ends the session, only as it hears the client out)."""
        if self.ending and self.why is not None and not self.heard.until:
            raise SessionGoneError
        loop = asyncio.get_running_loop()
        item.done = done = loop.create_future()
        done.add_done_callback(_retrieved)  # a feeder round that ends at its first failed write awaits no other
        self._outbox.append(item)
        self._queued.set()
        if self._writer is None:
            self._writer = loop.create_task(self._write_all())
        return done

    async def _write_all(self) -> None:
        try:
            while True:
                await self._queued.wait()
                self._queued.clear()
                while self._outbox:
                    items, self._outbox = self._outbox, []
                    if not await self._write(items):
                        return
                    del items  # not kept while waiting for more
        finally:
            for item in self._outbox:
                _settle(item, SessionGoneError())
            self._outbox = []

    def stop_writing(self) -> None:
        """The session is over: what is still queued is not written (its senders get SessionGoneError)."""
        if self._writer is not None:
            self._writer.cancel()

    async def _write(self, items: list[_Outgoing]) -> bool:
        """Write `items` in order, consecutive updates as one MatchUpdates when batching; settle each item.

        False once the call is over."""
        groups: list[list[_Outgoing]] = []
        for item in items:
            if groups and self.batch and item.match_id and groups[-1][0].match_id:
                groups[-1].append(item)
            else:
                groups.append([item])
        for index, group in enumerate(groups):
            try:
                await self.context.write(_message(group))
            except BaseException as exc:  # grpc raises its own internal types once the call has ended
                for unsent in groups[index:]:
                    for item in unsent:
                        _settle(item, SessionGoneError())
                if isinstance(exc, asyncio.CancelledError):
                    raise
                log.info("the session of %s ended while writing (%s)", self.account.name, type(exc).__name__)
                self.close(self.why)
                return False
            for item in group:
                _settle(item, None)
        return True

    async def tell(self, message: pb.SessionResponse) -> None:
        """Send if the session is still there (a message to another account's session)."""
        with contextlib.suppress(SessionGoneError):
            await self.send(message)

    def close(self, why: ServiceError | None) -> None:
        """End the session: with `why` as the call's status, or normally (None: the client is done)."""
        if not self.ending:
            self.ending, self.why = True, why
        self._wake.set()

    @property
    def max_matches(self) -> int:
        return max(1, self.appetite.max_matches)


@dataclass(eq=False, kw_only=True)
class _Outgoing:
    """A message waiting to be written on a session: a whole one, or one match's update."""

    message: pb.SessionResponse | None = None
    match_id: str = ""
    messages: list[pb.PlayResponse] = field(default_factory=list)
    done: asyncio.Future[None] | None = None


def _serve_feed(session: Session, match_id: str, feeding: MatchFeed) -> asyncio.Future[None] | None:
    """Queue what one ready match has due (its Welcome first, then the held answers, then its feed's messages),
    unless the session defers and nothing asks for the client; the future of its write, or None.  Nothing queued
    stays referenced here once written (a message holds its protobuf arena's native memory)."""
    feed = feeding.feed
    feeding.wake.clear()
    if session.defer and not feeding.first and not feed.asks() and not any(
            a.HasField("action_rejected") for a in feeding.answers):
        return None
    messages, feeding.done = feed.due()
    batch = feeding.first + feeding.answers + messages
    feeding.first, feeding.answers = [], []
    return session.post_update(match_id, batch) if batch else None


def _retrieved(future: asyncio.Future[None]) -> None:
    """A queued message's outcome, taken so that a session's end (SessionGoneError) is not logged as unhandled."""
    if not future.cancelled():
        future.exception()


def _message(group: list[_Outgoing]) -> pb.SessionResponse:
    if group[0].message is not None:
        return group[0].message
    updates = [pb.MatchUpdate(match_id=item.match_id, messages=item.messages) for item in group]
    if len(updates) == 1:
        return pb.SessionResponse(match=updates[0])
    return pb.SessionResponse(updates=pb.MatchUpdates(updates=updates))


def _settle(item: _Outgoing, error: BaseException | None) -> None:
    done = item.done
    if done is not None and not done.done():  # a sender that was cancelled no longer waits
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)




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
                          if (written := _serve_feed(session, match_id, feeding)) is not None]
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
