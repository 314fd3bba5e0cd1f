"""The contract's refusals on the wire: a gRPC status carrying google.rpc.ErrorInfo (and RetryInfo), and back.

Kept beside the generated code (as temporalio keeps its failure encoding),
so the server encodes a refusal and every client reads it in one place:
`refusal_status` builds the status a server aborts with, `read_refusal`
gives a client the reason, message, metadata and retry hint of any failed
call, blocking or asyncio.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import grpc
from google.protobuf import any_pb2
from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import DecodeError
from google.rpc.error_details_pb2 import ErrorInfo, RetryInfo
from google.rpc.status_pb2 import Status
from grpc_status import rpc_status

ERROR_DOMAIN = "president.v1"
"""The `domain` of every google.rpc.ErrorInfo the server sends."""
STATUS_DETAILS_KEY = "grpc-status-details-bin"
"""The trailer holding a refusal's google.rpc.Status."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Refusal:
    """What a failed call says: its code, the ErrorReason name without prefix ("" when none came), and more."""

    code: grpc.StatusCode | None
    """None for an error that is not a call's (the call never started)."""
    reason: str
    message: str
    metadata: Mapping[str, str] = field(default_factory=dict)
    retry_after_s: float | None = None
    """From google.rpc.RetryInfo: when trying again makes sense."""


def refusal_status(code: grpc.StatusCode, reason: str, message: str, metadata: Mapping[str, str] | None = None, *,
                   retry_after_s: float | None = None) -> grpc.Status:
    """The status a server ends a refused call with: `code`, `message`, ErrorInfo(reason), RetryInfo if given."""
    details: list[ErrorInfo | RetryInfo] = [ErrorInfo(reason=reason, domain=ERROR_DOMAIN, metadata=metadata or {})]
    if retry_after_s is not None:
        delay = Duration()
        delay.FromMilliseconds(int(retry_after_s * 1000))
        details.append(RetryInfo(retry_delay=delay))
    packed = []
    for detail in details:
        packed.append(any_pb2.Any())
        packed[-1].Pack(detail)
    number: int = code.value[0]
    return rpc_status.to_status(Status(code=number, message=message, details=packed))


def read_refusal(exc: BaseException) -> Refusal:
    """The refusal a failed call carries (reason "" when the server sent no ErrorInfo, e.g. it was not reached)."""
    if not isinstance(exc, (grpc.aio.AioRpcError, grpc.Call)):
        return Refusal(code=None, reason="", message=str(exc))
    reason, metadata, retry = "", {}, None
    for key, value in exc.trailing_metadata() or ():
        if key != STATUS_DETAILS_KEY or not isinstance(value, bytes):
            continue
        try:
            status = Status.FromString(value)
        except DecodeError:  # not a google.rpc.Status: no reason to read
            continue
        for detail in status.details:
            info, hint = ErrorInfo(), RetryInfo()
            if detail.Unpack(info):
                reason, metadata = info.reason, dict(info.metadata)
            elif detail.Unpack(hint):
                retry = hint.retry_delay.ToMilliseconds() / 1000
    return Refusal(code=exc.code(), reason=reason, message=exc.details() or "", metadata=metadata,
                   retry_after_s=retry)
