"""The suite's gRPC side: the bot's calls of Play and Session, each a `Connection` read and written by the referee.

Only the tokens a case opened are let in; every other token is refused as
the real server refuses it.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Iterator

import grpc
from president_protocol.status import refusal_status
from president_protocol.v1 import president_pb2 as pb

from president_harness.conformance.cases import ContractError, Mode
from president_harness.conformance.table import Table

SERVICE = pb.DESCRIPTOR.services_by_name["PresidentService"].full_name

CLOSED = "closed"
"""What a connection's inbox gets when the call ends."""
_END = "end"
_DROP = "drop"


class Connection:
    """One call of the bot: what it sent (read by a thread of its own) and what it is to be sent."""

    def __init__(self, requests: Iterator[object], context: grpc.ServicerContext) -> None:
        self.inbox: queue.Queue[object] = queue.Queue()
        self._outbox: queue.Queue[object] = queue.Queue()
        context.add_callback(self._gone)
        threading.Thread(target=self._read, args=(requests,), daemon=True).start()

    def _read(self, requests: Iterator[object]) -> None:
        with contextlib.suppress(grpc.RpcError):  # raised once the call is cancelled
            for request in requests:
                self.inbox.put(request)
        self.inbox.put(CLOSED)

    def _gone(self) -> None:
        self.inbox.put(CLOSED)
        self._outbox.put(_END)

    def responses(self, context: grpc.ServicerContext) -> Iterator[object]:
        while True:
            item = self._outbox.get()
            if item == _END:
                return
            if item == _DROP:
                context.abort(grpc.StatusCode.UNAVAILABLE, "the conformance suite dropped the connection")
            yield item

    def send(self, message: object) -> None:
        self._outbox.put(message)

    def end(self) -> None:
        """End the call with status OK (after MatchOver)."""
        self._outbox.put(_END)

    def drop(self) -> None:
        """End the call with UNAVAILABLE, as a server going away does."""
        self._outbox.put(_DROP)

    def receive(self, timeout: float) -> object | None:
        """The next request, CLOSED, or None after `timeout` seconds."""
        try:
            return self.inbox.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None


class SuiteServer:
    """Play and Session for the tokens a case opened; every other token is refused as the real server does."""

    def __init__(self) -> None:
        self._doors: dict[tuple[Mode, str], queue.Queue[Connection]] = {}
        self._lock = threading.Lock()

    def handler(self) -> grpc.GenericRpcHandler:
        """The two streams of president.v1.PresidentService (any other RPC is UNIMPLEMENTED)."""
        return grpc.method_handlers_generic_handler(SERVICE, {
            "Play": grpc.stream_stream_rpc_method_handler(
                lambda requests, context: self._call(Mode.PLAY, requests, context),
                request_deserializer=pb.PlayRequest.FromString, response_serializer=pb.PlayResponse.SerializeToString),
            "Session": grpc.stream_stream_rpc_method_handler(
                lambda requests, context: self._call(Mode.SESSION, requests, context),
                request_deserializer=pb.SessionRequest.FromString,
                response_serializer=pb.SessionResponse.SerializeToString),
        })

    def open(self, mode: Mode, token: str) -> queue.Queue[Connection]:
        door: queue.Queue[Connection] = queue.Queue()
        with self._lock:
            self._doors[mode, token] = door
        return door

    def close(self, mode: Mode, token: str) -> None:
        with self._lock:
            self._doors.pop((mode, token), None)

    def _call(self, mode: Mode, requests: Iterator[object], context: grpc.ServicerContext) -> Iterator[object]:
        metadata = dict(context.invocation_metadata())
        auth = str(metadata.get("authorization", ""))
        if not auth.startswith("Bearer "):
            context.abort_with_status(refusal_status(
                grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN", "send the metadata authorization: Bearer <token>"))
        with self._lock:
            door = self._doors.get((mode, auth.removeprefix("Bearer ")))
        if door is None:
            kind = "a seat's" if mode is Mode.PLAY else "an account's"
            context.abort_with_status(refusal_status(
                grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN", f"this token is not {kind}"))
        assert door is not None
        connection = Connection(requests, context)
        door.put(connection)
        return connection.responses(context)


class Channel:
    """The bot's connection for a case's tables: a Play stream for one table, or a Session for all of them."""

    def __init__(self, mode: Mode, connection: Connection, tables: list[Table]) -> None:
        self.mode = mode
        self.connection = connection
        self.tables = {t.match_id: t for t in tables}

    def send(self, table: Table, messages: list[pb.PlayResponse]) -> None:
        if not messages:
            return
        if self.mode is Mode.PLAY:
            for message in messages:
                self.connection.send(message)
        else:
            self.connection.send(pb.SessionResponse(match=pb.MatchUpdate(match_id=table.match_id, messages=messages)))

    def acts(self, timeout: float) -> list[tuple[Table, pb.Act]] | None:
        """The acts of the bot's next message (others are read past), [] when its call closed, None on timeout."""
        until = time.monotonic() + timeout
        while True:
            got = self.connection.receive(until - time.monotonic())
            if got is None:
                return None
            if got == CLOSED:
                return []
            if isinstance(got, pb.PlayRequest):
                if got.WhichOneof("kind") == "hello":
                    raise ContractError("a second Hello on one Play stream")
                return [(next(iter(self.tables.values())), got.act)]
            assert isinstance(got, pb.SessionRequest)
            kind = got.WhichOneof("kind")
            if kind == "hello":
                raise ContractError("a second SessionHello on one Session")
            acts = [got.act] if kind == "act" else list(got.acts.acts) if kind == "acts" else []
            if acts:
                return [(self._table(a.match_id), a.act) for a in acts]

    def _table(self, match_id: str) -> Table:
        table = self.tables.get(match_id)
        if table is None:
            raise ContractError(f"an act for match {match_id!r}, which is not one of this account's")
        return table

