"""A failed call in one line for a person: the server's reason and message, or why it could not be reached."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


def error_reason(exc: grpc.RpcError) -> str:
    """The ErrorInfo reason of a refusal (e.g. "BAD_OPTION"), or "" when the server gave none."""
    if not isinstance(exc, grpc.Call):
        return ""
    try:
        status = rpc_status.from_call(exc)
    except ValueError:
        return ""
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


def describe_rpc_error(exc: grpc.RpcError, server: str) -> str:
    code = exc.code() if isinstance(exc, grpc.Call) else None
    details = (exc.details() if isinstance(exc, grpc.Call) else str(exc)) or ""
    reason = error_reason(exc)
    if code is grpc.StatusCode.UNAVAILABLE and not reason:
        return f"cannot reach {server}: is the server running, and is the address right?"
    return f"{reason or (code.name if code else 'error')}: {details}"
