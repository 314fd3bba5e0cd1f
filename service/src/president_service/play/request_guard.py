"""Bytes that are not a request, or a request carrying what this server's contract does not have: answered
INVALID_ARGUMENT (MALFORMED), logged as one rate-limited line.

gRPC parses a request before any handler runs, and a body that does not
parse would otherwise end the call as UNKNOWN with a traceback in the log.
`GuardedServer` stands in for the server while the services are added: each
method's parser it passes on returns a `Refused` marker instead of raising,
and each handler refuses that with a status carrying ErrorInfo.  The same
parser checks every parsed message at every depth (`check_message`): a
field this server does not know, or a timestamp or duration that is not one,
is refused alike for every RPC, before any handler could store it.  Handlers
that read their stream with ``context.read()`` (the Play stream, the
Session) get the marker from `read` and refuse it themselves (`next_request`).

It also caps the server's health `Watch` streams, which have no other bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import ipaddress
import logging
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import unquote

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError
from president_service.base.limits import RETRY_FULL_S
from president_service.base.throttled_log import Throttle, held_back

log = logging.getLogger(__name__)

HEALTH_WATCH = "/grpc.health.v1.Health/Watch"
_Request = TypeVar("_Request", pb.PlayRequest, pb.SessionRequest)
MIN_TIMESTAMP_S = -62_135_596_800
"""0001-01-01T00:00:00Z, the earliest google.protobuf.Timestamp."""
MAX_TIMESTAMP_S = 253_402_300_799
"""9999-12-31T23:59:59Z, the latest google.protobuf.Timestamp."""
MAX_DURATION_S = 315_576_000_000
"""About 10,000 years, the longest google.protobuf.Duration."""
_NANOS = 1_000_000_000


class Refused:
    """What the parser returns for bytes that are not the method's request message, or one it refuses."""

    def __init__(self, error: ServiceError) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"Refused({self.error.message!r})"


MALFORMED_REQUEST: Any = Refused(ServiceError(Reason.MALFORMED,
                                              "the request could not be parsed as its president.v1 message"))


def check_message(message: Message, path: str = "") -> None:
    """MALFORMED when `message`, or a message inside it at any depth, carries a field this server's contract does
    not have, an enum value it does not have, or a google.protobuf.Timestamp or Duration outside its range."""
    if not _sound(message):  # every request passes here: the fast walk first, the one that names the field after
        _refuse_unsound(message, path or message.DESCRIPTOR.name)
        raise ServiceError(Reason.MALFORMED, f"{path or message.DESCRIPTOR.name}: not a valid message")


@dataclass(frozen=True, slots=True)
class _FieldKind:
    enum: frozenset[int] | None
    """The values of an enum field."""
    messages: bool
    """A message field, repeated or not, or a map whose values are messages."""
    map_values: bool


@functools.cache
def _field_kind(field: FieldDescriptor) -> _FieldKind:
    enum = None if field.enum_type is None else frozenset(field.enum_type.values_by_number)
    entry = field.message_type
    map_values = entry is not None and entry.GetOptions().map_entry
    messages = entry is not None and (not map_values or entry.fields_by_name["value"].message_type is not None)
    return _FieldKind(enum=enum, messages=messages, map_values=map_values)


def _fields(message: Message) -> Iterator[tuple[FieldDescriptor, _FieldKind, list[tuple[str, Any]]]]:
    """Each set field of `message`, what kind it is, and its values with where each is (an index, a key, or "")."""
    for field, value in message.ListFields():
        kind = _field_kind(field)
        if kind.map_values:
            values = [(f"[{key!r}]", item) for key, item in value.items()]
        elif field.is_repeated:
            values = [(f"[{index}]", item) for index, item in enumerate(value)]
        else:
            values = [("", value)]
        yield field, kind, values


def _sound(message: Message) -> bool:
    """Whether `check_message` passes `message`, without naming anything (its fast path)."""
    if len(UnknownFieldSet(message)) or not _sound_value(message):
        return False
    for field, value in message.ListFields():
        kind = _field_kind(field)
        if kind.enum is not None and not (kind.enum.issuperset(value) if field.is_repeated else value in kind.enum):
            return False
        if kind.messages:
            items = value.values() if kind.map_values else value if field.is_repeated else (value,)
            if not all(map(_sound, items)):
                return False
    return True


def _sound_value(message: Message) -> bool:
    """Whether a Timestamp or Duration is within its range (True for any other message)."""
    kind = message.DESCRIPTOR.full_name
    if kind == "google.protobuf.Timestamp":
        seconds: int = message.seconds  # type: ignore[attr-defined]
        nanos: int = message.nanos  # type: ignore[attr-defined]
        return MIN_TIMESTAMP_S <= seconds <= MAX_TIMESTAMP_S and 0 <= nanos < _NANOS
    if kind == "google.protobuf.Duration":
        seconds, nanos = message.seconds, message.nanos  # type: ignore[attr-defined]
        return abs(seconds) <= MAX_DURATION_S and abs(nanos) < _NANOS and seconds * nanos >= 0
    return True


def _refuse_unsound(message: Message, where: str) -> None:
    """Raise MALFORMED naming the first thing `_sound` refuses in `message` (at `where`)."""
    unknown = UnknownFieldSet(message)
    if len(unknown):
        numbers = sorted({unknown[i].field_number for i in range(len(unknown))})
        listed = ", ".join(map(str, numbers[:5]))
        raise ServiceError(Reason.MALFORMED, f"{where}: unknown field number{'s' if len(numbers) > 1 else ''}"
                                             f" {listed} (a newer client than this server?)", {"field": where})
    if not _sound_value(message):
        raise ServiceError(Reason.MALFORMED, f"{where}: not a {message.DESCRIPTOR.name.lower()} (a timestamp's"
                                             " seconds from year 1 to 9999, nanos 0 to 999,999,999)", {"field": where})
    for field, kind, values in _fields(message):
        for at, value in values:
            inner = f"{where}.{field.name}{at}"
            if kind.enum is not None and value not in kind.enum:
                assert field.enum_type is not None
                raise ServiceError(Reason.MALFORMED, f"{inner}: not a value of {field.enum_type.name} (a newer"
                                                     " client than this server?)", {"field": inner})
            if kind.messages:
                _refuse_unsound(value, inner)


def parsed(parse: Callable[[bytes], Any], data: bytes) -> Any:
    """The request `parse` makes of `data`, checked (`check_message`); a `Refused` marker for a refused one."""
    try:
        request = parse(data)
    except Exception:
        return MALFORMED_REQUEST
    if isinstance(request, Message):
        try:
            check_message(request)
        except ServiceError as exc:
            return Refused(exc)
    return request


async def next_request(context: grpc.aio.ServicerContext[_Request, Any]) -> _Request | None:
    """A stream's next message; None once the client has finished sending; MALFORMED for bytes that are not one."""
    request = await context.read()
    if isinstance(request, Refused):
        raise request.error
    return None if request is grpc.aio.EOF else request


async def opening_request(context: grpc.aio.ServicerContext[_Request, Any], kind: str, stream: str,
                          window_s: float) -> _Request:
    """A stream's first message, which must be `kind` (its hello) and come within `window_s` of the opening:
    MALFORMED otherwise, so a client that opens a stream and says nothing holds nothing for long."""
    try:
        first = await asyncio.wait_for(next_request(context), window_s)
    except TimeoutError:
        raise ServiceError(Reason.MALFORMED, f"the {stream} must open with its {kind}, sent within {window_s:g} s;"
                                             " none came", {"expected": kind, "window_s": f"{window_s:g}"}) from None
    if first is None or first.WhichOneof("kind") != kind:
        raise ServiceError(Reason.MALFORMED, f"the {stream} must open with its {kind}, sent within {window_s:g} s",
                           {"expected": kind, "window_s": f"{window_s:g}"})
    return first


class OpeningStreams:
    """The streams opening now (taken, their hello not yet read), on the whole server and by client address.

    A client address is the peer's IP without its port; a peer on a Unix socket has none (it is local, and its
    file's mode says who may connect) and counts only on the whole server."""

    def __init__(self) -> None:
        self.total = 0
        self._by_peer: dict[str, int] = {}

    def of(self, peer: str) -> int:
        """Streams opening now from `peer`'s address."""
        address = client_address(peer)
        return 0 if address is None else self._by_peer.get(address, 0)

    def admit(self, peer: str, *, per_peer: int, total: int | None, retry_after_s: float) -> Callable[[], None]:
        """Count a new stream from `peer` (TOO_MANY_STREAMS with a retry hint past `per_peer` from its address,
        or past `total` on the whole server when given); what is returned uncounts it, once."""
        address = client_address(peer)
        if address is not None and self._by_peer.get(address, 0) >= per_peer:
            raise ServiceError(Reason.TOO_MANY_STREAMS, f"{per_peer} streams from {address} are opening without"
                                                        " their hello yet, this server's limit per client",
                               {"peer": address}, retry_after_s=retry_after_s)
        if total is not None and self.total >= total:
            raise ServiceError(Reason.TOO_MANY_STREAMS, f"this server has {self.total} Play streams opening, its"
                                                        " limit", retry_after_s=RETRY_FULL_S)
        counted_total = total is not None
        if counted_total:
            self.total += 1
        if address is not None:
            self._by_peer[address] = self._by_peer.get(address, 0) + 1
        counted = True

        def opened() -> None:
            nonlocal counted
            if not counted:
                return
            counted = False
            if counted_total:
                self.total -= 1
            if address is not None:
                left = self._by_peer[address] - 1
                if left:
                    self._by_peer[address] = left
                else:
                    del self._by_peer[address]
        return opened


def client_address(peer: str) -> str | None:
    """The client address of a gRPC peer ("ipv4:1.2.3.4:5", "ipv6:%5B2001:db8::1%5D:5") without its port: the IPv4
    address, or the IPv6 address's /64 network ("2001:db8::/64": one client is given a whole /64 as easily as one
    address); None for a Unix socket's peer."""
    family, _, rest = peer.partition(":")
    if family not in ("ipv4", "ipv6"):
        return None
    address = unquote(rest.rpartition(":")[0] or rest)
    if family == "ipv6":
        with contextlib.suppress(ValueError):
            return str(ipaddress.IPv6Network(f"{address.strip('[]')}/64", strict=False))
    return address


class GuardedServer:
    """The parts of a `grpc.aio.Server` that ``add_*_to_server`` functions call, guarding every handler."""

    def __init__(self, server: grpc.aio.Server, *, max_health_watches: int) -> None:
        self._server = server
        self._malformed = Throttle()
        self._max_watches = max_health_watches
        self._watches = 0

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self._server.add_generic_rpc_handlers(tuple(_GuardedGeneric(h, self) for h in handlers))

    def add_registered_method_handlers(self, service: str,
                                       handlers: Mapping[str, grpc.RpcMethodHandler[Any, Any]]) -> None:
        guarded = {name: self.guard(f"/{service}/{name}", handler) for name, handler in handlers.items()}
        self._server.add_registered_method_handlers(service, guarded)

    def guard(self, method: str, handler: grpc.RpcMethodHandler[Any, Any]) -> grpc.RpcMethodHandler[Any, Any]:
        """The same handler, refusing requests that do not parse (and capping health watches)."""
        parse: Callable[[bytes], Any] | None = handler.request_deserializer
        if parse is None:
            return handler

        def safe_parse(data: bytes) -> Any:
            return parsed(parse, data)

        changes: dict[str, Any] = {"request_deserializer": safe_parse}
        for kind in ("unary_unary", "unary_stream", "stream_unary", "stream_stream"):
            behaviour = getattr(handler, kind)
            if behaviour is not None:
                wrapped = self._wrap(method, behaviour, streaming_requests=kind.startswith("stream"))
                changes[kind] = self._capped(wrapped) if method == HEALTH_WATCH else wrapped
        return handler._replace(**changes)  # type: ignore[attr-defined, no-any-return]

    def _refuse(self, method: str, context: grpc.aio.ServicerContext[Any, Any], request: Refused) -> Any:
        if (held := self._malformed.admit()) is not None:
            log.warning("malformed request to %s from %s: %s%s", method, context.peer(), request.error.message,
                        held_back(held))
        return context.abort_with_status(request.error.to_status())

    def _wrap(self, method: str, behaviour: Callable[..., Any], *, streaming_requests: bool) -> Callable[..., Any]:
        guard = self

        def checked(requests: AsyncIterator[Any], context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
            async def gen() -> AsyncIterator[Any]:
                async for request in requests:
                    if isinstance(request, Refused):
                        await guard._refuse(method, context, request)
                    yield request
            return gen()

        def first(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            return checked(request, context) if streaming_requests else request

        if inspect.isasyncgenfunction(behaviour):
            async def stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
                if not streaming_requests and isinstance(request, Refused):
                    await guard._refuse(method, context, request)
                async for response in behaviour(first(request, context), context):
                    yield response
            return stream

        async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if not streaming_requests and isinstance(request, Refused):
                await guard._refuse(method, context, request)
            return await behaviour(first(request, context), context)
        return call

    def _capped(self, behaviour: Callable[..., Any]) -> Callable[..., Any]:
        guard = self

        async def capped(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if guard._watches >= guard._max_watches:
                error = ServiceError(Reason.TOO_MANY_STREAMS, f"at most {guard._max_watches} health watches",
                                     retry_after_s=RETRY_FULL_S)
                await context.abort_with_status(error.to_status())
            guard._watches += 1
            try:
                return await behaviour(request, context)
            finally:
                guard._watches -= 1
        return capped


class _GuardedGeneric(grpc.GenericRpcHandler):
    def __init__(self, inner: grpc.GenericRpcHandler, guard: GuardedServer) -> None:
        self._inner = inner
        self._guard = guard

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = self._inner.service(handler_call_details)
        return None if handler is None else self._guard.guard(handler_call_details.method, handler)
