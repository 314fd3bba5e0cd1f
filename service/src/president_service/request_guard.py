"""Bytes that are not a request: answered INVALID_ARGUMENT (MALFORMED), logged as one rate-limited line.

gRPC parses a request before any handler runs, and a body that does not
parse would otherwise end the call as UNKNOWN with a traceback in the log.
`GuardedServer` stands in for the server while the services are added: each
method's parser it passes on returns `MALFORMED_REQUEST` instead of raising,
and each handler refuses that with a status carrying ErrorInfo.  Handlers that
read their stream with ``context.read()`` (the Play stream) get the marker
from `read` and refuse it themselves (`is_malformed`).

It also caps the server's health `Watch` streams, which have no other bound.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, TypeVar

import grpc
from president_protocol.v1 import president_pb2 as pb

from president_service.errors import Reason, ServiceError
from president_service.limits import RETRY_FULL_S
from president_service.throttled_log import Throttle, held_back

log = logging.getLogger(__name__)

HEALTH_WATCH = "/grpc.health.v1.Health/Watch"
HELLO_TIMEOUT_S = 5.0
"""How long a new Play stream or Session has to send its hello."""
_Request = TypeVar("_Request", pb.PlayRequest, pb.SessionRequest)


class _Malformed:
    """What the parser returns for bytes that are not the method's request message."""

    def __repr__(self) -> str:
        return "MALFORMED_REQUEST"


MALFORMED_REQUEST: Any = _Malformed()


def is_malformed(request: object) -> bool:
    return request is MALFORMED_REQUEST


def malformed_error() -> ServiceError:
    return ServiceError(Reason.MALFORMED, "the request could not be parsed as its president.v1 message")


async def next_request(context: grpc.aio.ServicerContext[_Request, Any]) -> _Request | None:
    """A stream's next message; None once the client has finished sending; MALFORMED for bytes that are not one."""
    request = await context.read()
    if is_malformed(request):
        raise malformed_error()
    return None if request is grpc.aio.EOF else request


async def opening_request(context: grpc.aio.ServicerContext[_Request, Any], kind: str, stream: str) -> _Request:
    """A stream's first message, which must be `kind` (its hello) and come within `HELLO_TIMEOUT_S` of the
    opening: MALFORMED otherwise, so a client that opens a stream and says nothing holds nothing for long."""
    try:
        first = await asyncio.wait_for(next_request(context), HELLO_TIMEOUT_S)
    except TimeoutError:
        first = None
    if first is None or first.WhichOneof("kind") != kind:
        raise ServiceError(Reason.MALFORMED, f"the {stream} must open with its {kind}, sent within"
                                             f" {HELLO_TIMEOUT_S:g} s")
    return first


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
            try:
                return parse(data)
            except Exception:
                return MALFORMED_REQUEST

        changes: dict[str, Any] = {"request_deserializer": safe_parse}
        for kind in ("unary_unary", "unary_stream", "stream_unary", "stream_stream"):
            behaviour = getattr(handler, kind)
            if behaviour is not None:
                wrapped = self._wrap(method, behaviour, streaming_requests=kind.startswith("stream"))
                changes[kind] = self._capped(wrapped) if method == HEALTH_WATCH else wrapped
        return handler._replace(**changes)  # type: ignore[attr-defined, no-any-return]

    def _refuse(self, method: str, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        if (held := self._malformed.admit()) is not None:
            log.warning("malformed request to %s from %s%s", method, context.peer(), held_back(held))
        return context.abort_with_status(malformed_error().to_status())

    def _wrap(self, method: str, behaviour: Callable[..., Any], *, streaming_requests: bool) -> Callable[..., Any]:
        guard = self

        def checked(requests: AsyncIterator[Any], context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
            async def gen() -> AsyncIterator[Any]:
                async for request in requests:
                    if is_malformed(request):
                        await guard._refuse(method, context)
                    yield request
            return gen()

        def first(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            return checked(request, context) if streaming_requests else request

        if inspect.isasyncgenfunction(behaviour):
            async def stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
                if not streaming_requests and is_malformed(request):
                    await guard._refuse(method, context)
                async for response in behaviour(first(request, context), context):
                    yield response
            return stream

        async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if not streaming_requests and is_malformed(request):
                await guard._refuse(method, context)
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
