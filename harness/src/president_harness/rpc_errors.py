"""A failed call in one line for a person: the server's reason and message, or why it could not be reached."""

from __future__ import annotations

import grpc
from president_protocol.status import read_refusal


def error_reason(exc: grpc.RpcError) -> str:
    """The ErrorInfo reason of a refusal (e.g. "BAD_OPTION"), or "" when the server gave none."""
    return read_refusal(exc).reason


def describe_rpc_error(exc: grpc.RpcError, server: str) -> str:
    refusal = read_refusal(exc)
    if refusal.code is grpc.StatusCode.UNAVAILABLE and not refusal.reason:
        return f"cannot reach {server}: is the server running, and is the address right?"
    return f"{refusal.reason or (refusal.code.name if refusal.code else 'error')}: {refusal.message}"
