"""One open Session stream: its state, its matches' feeds, and the one writer of its messages.

A match's feed has no task of its own: its wake-up puts it in the session's ready queue, and `serve_feed`
queues what it has due.  Messages wait their turn to be written, one write at a time on the call; with
`SessionHello.batch_matches` the updates that have piled up meanwhile go out as one `MatchUpdates`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

import grpc
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import ServiceError
from president_service.play.accounts import Account
from president_service.play.feeds import SeatFeed
from president_service.play.stream_ends import Heard
from president_service.play.turns import Wake

log = logging.getLogger(__name__)

SessionContext = grpc.aio.ServicerContext[pb.SessionRequest, pb.SessionResponse]



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


def serve_feed(session: Session, match_id: str, feeding: MatchFeed) -> asyncio.Future[None] | None:
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
