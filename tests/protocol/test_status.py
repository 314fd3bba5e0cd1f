"""A refusal on the wire: what the server encodes (`refusal_status`) every client reads back (`read_refusal`)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from president_protocol.status import Refusal, read_refusal, refusal_status

_METHOD = "/test.Refuser/Refuse"


class _Refuser(grpc.GenericRpcHandler):
    def __init__(self, status: grpc.Status) -> None:
        self._status = status

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        async def refuse(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
            await context.abort_with_status(self._status)
            raise AssertionError("unreachable")
        return grpc.unary_unary_rpc_method_handler(refuse)


async def _refused(status: grpc.Status) -> tuple[Refusal, Refusal]:
    """The refusal as a blocking client and as an asyncio client read it, from a real server on loopback."""
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((_Refuser(status),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            with pytest.raises(grpc.aio.AioRpcError) as aio:
                await channel.unary_unary(_METHOD)(b"")
        def blocking() -> grpc.RpcError:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel, pytest.raises(grpc.RpcError) as sync:
                channel.unary_unary(_METHOD)(b"")
            return sync.value
        sync = await asyncio.to_thread(blocking)
        return read_refusal(aio.value), read_refusal(sync)
    finally:
        await server.stop(0)


def test_a_refusal_reads_back_with_its_reason_metadata_and_retry_hint() -> None:
    status = refusal_status(grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_MATCHES", "full", {"limit": "3"},
                            retry_after_s=2.5)
    for refusal in asyncio.run(_refused(status)):
        assert refusal == Refusal(code=grpc.StatusCode.RESOURCE_EXHAUSTED, reason="TOO_MANY_MATCHES",
                                  message="full", metadata={"limit": "3"}, retry_after_s=2.5)


class _Plain(grpc.Status):
    """A status with no google.rpc details, as a proxy or another server might send."""

    code = grpc.StatusCode.UNAVAILABLE
    details = "no route"
    trailing_metadata = ()


def test_a_status_without_error_info_has_no_reason() -> None:
    for refusal in asyncio.run(_refused(_Plain())):
        assert refusal == Refusal(code=grpc.StatusCode.UNAVAILABLE, reason="", message="no route")


def test_an_error_that_is_no_call_is_its_text() -> None:
    assert read_refusal(ValueError("nope")) == Refusal(code=None, reason="", message="nope")
