"""Refusals on the wire: one `Reason` per way a request can fail, each with its gRPC code.

Every refusal is raised as `ServiceError` anywhere in the service and turned
into a gRPC status carrying google.rpc.ErrorInfo (domain ``president.v1``;
`president_protocol.status` encodes it) at the edge, so a client can branch on `reason` instead of parsing messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, NoReturn

import grpc
from president_engine import IllegalActionError
from president_protocol.status import refusal_status
from president_protocol.v1 import president_pb2 as pb


class Reason(Enum):
    """Stable reason names (ErrorInfo.reason: the proto's ErrorReason without prefix) and their status codes."""

    MISSING_TOKEN = ("MISSING_TOKEN", grpc.StatusCode.UNAUTHENTICATED)
    BAD_TOKEN = ("BAD_TOKEN", grpc.StatusCode.UNAUTHENTICATED)
    NOT_ADMIN = ("NOT_ADMIN", grpc.StatusCode.PERMISSION_DENIED)
    UNKNOWN_MATCH = ("UNKNOWN_MATCH", grpc.StatusCode.NOT_FOUND)
    MALFORMED = ("MALFORMED", grpc.StatusCode.INVALID_ARGUMENT)
    BAD_OPTION = ("BAD_OPTION", grpc.StatusCode.INVALID_ARGUMENT)
    BAD_HANDS = ("BAD_HANDS", grpc.StatusCode.INVALID_ARGUMENT)
    BAD_SEQ = ("BAD_SEQ", grpc.StatusCode.OUT_OF_RANGE)
    NOT_YOUR_TURN = ("NOT_YOUR_TURN", grpc.StatusCode.FAILED_PRECONDITION)
    ILLEGAL_ACTION = ("ILLEGAL_ACTION", grpc.StatusCode.FAILED_PRECONDITION)
    STALE_TURN = ("STALE_TURN", grpc.StatusCode.FAILED_PRECONDITION)
    DUPLICATE_ACTION = ("DUPLICATE_ACTION", grpc.StatusCode.ALREADY_EXISTS)
    MATCH_OVER = ("MATCH_OVER", grpc.StatusCode.FAILED_PRECONDITION)
    MATCH_NOT_OVER = ("MATCH_NOT_OVER", grpc.StatusCode.FAILED_PRECONDITION)
    SEATS_NOT_OPEN = ("SEATS_NOT_OPEN", grpc.StatusCode.FAILED_PRECONDITION)
    NO_FREE_SEAT = ("NO_FREE_SEAT", grpc.StatusCode.FAILED_PRECONDITION)
    SEAT_TAKEN = ("SEAT_TAKEN", grpc.StatusCode.FAILED_PRECONDITION)
    DEAL_IN_PLAY = ("DEAL_IN_PLAY", grpc.StatusCode.PERMISSION_DENIED)
    UNKNOWN_ACCOUNT = ("UNKNOWN_ACCOUNT", grpc.StatusCode.NOT_FOUND)
    ACCOUNT_EXISTS = ("ACCOUNT_EXISTS", grpc.StatusCode.ALREADY_EXISTS)
    SEATED_TWICE = ("SEATED_TWICE", grpc.StatusCode.FAILED_PRECONDITION)
    ACCOUNT_LIMIT = ("ACCOUNT_LIMIT", grpc.StatusCode.RESOURCE_EXHAUSTED)
    TOO_LARGE = ("TOO_LARGE", grpc.StatusCode.RESOURCE_EXHAUSTED)
    UNKNOWN_VERSION = ("UNKNOWN_VERSION", grpc.StatusCode.NOT_FOUND)
    LEASE_EXPIRED = ("LEASE_EXPIRED", grpc.StatusCode.FAILED_PRECONDITION)
    UNKNOWN_TOURNAMENT = ("UNKNOWN_TOURNAMENT", grpc.StatusCode.NOT_FOUND)
    TOURNAMENT_STATE = ("TOURNAMENT_STATE", grpc.StatusCode.FAILED_PRECONDITION)
    VERSION_STATE = ("VERSION_STATE", grpc.StatusCode.FAILED_PRECONDITION)
    DEV_SEAT_WAITING = ("DEV_SEAT_WAITING", grpc.StatusCode.FAILED_PRECONDITION)
    TOO_MANY_MATCHES = ("TOO_MANY_MATCHES", grpc.StatusCode.RESOURCE_EXHAUSTED)
    TOO_MANY_STREAMS = ("TOO_MANY_STREAMS", grpc.StatusCode.RESOURCE_EXHAUSTED)
    SHUTTING_DOWN = ("SHUTTING_DOWN", grpc.StatusCode.UNAVAILABLE)
    STORAGE = ("STORAGE", grpc.StatusCode.UNAVAILABLE)

    @property
    def code(self) -> grpc.StatusCode:
        return self.value[1]

    @property
    def proto(self) -> pb.ErrorReason.ValueType:
        """The contract's ErrorReason value (every Reason has one: a test checks it)."""
        return pb.ErrorReason.Value("ERROR_REASON_" + self.name)


async def abort(context: grpc.aio.ServicerContext[Any, Any], exc: ServiceError) -> NoReturn:
    """End the call with `exc` as its status (every handler and stream refuses this way)."""
    await context.abort_with_status(exc.to_status())
    raise AssertionError("abort_with_status returns only by raising")


class ServiceError(Exception):
    """A refused request; nothing was changed by it."""

    def __init__(self, reason: Reason, message: str, metadata: Mapping[str, str] | None = None, *,
                 retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata or {})
        self.retry_after_s = retry_after_s
        """Sent as google.rpc.RetryInfo: when trying again makes sense (overload, a full server)."""

    @classmethod
    def illegal(cls, exc: IllegalActionError) -> ServiceError:
        """An engine refusal; the engine's IllegalReason and message travel in the metadata."""
        return cls(Reason.ILLEGAL_ACTION, str(exc), {"illegal_reason": exc.reason.value, "message": str(exc)})

    def to_status(self) -> grpc.Status:
        return refusal_status(self.reason.code, self.reason.name, self.message, self.metadata,
                              retry_after_s=self.retry_after_s)
