"""The ladder's bot accounts on its server: one per Session bot (per worker, per slot), made or given a new token.

Names are derived from the ladder (its name and db), so a resumed ladder, or
the same ladder on a shared server, finds its accounts again; an account
that exists already gets a new token (the old one stops working).
"""

from __future__ import annotations

import hashlib
import re

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

from president_harness.rpc_errors import describe_rpc_error, error_reason


class AccountError(RuntimeError):
    """The ladder's accounts could not be made on its server."""


def account_name(ladder: str, bot: str, worker: int, slot: int) -> str:
    """A valid account name (1 to 32 of letters, digits, '-', '_', '.') for one bot of one ladder."""
    key = hashlib.sha256(f"{ladder}/{bot}".encode()).hexdigest()[:6]
    readable = re.sub(r"[^A-Za-z0-9_.-]", "_", bot)[:16]
    return f"L{key}.{worker}.{slot}.{readable}"


def ladder_account(stub: pb_grpc.PresidentServiceStub, admin_token: str, name: str, owner: str, server: str) -> str:
    """The token of account `name`: a new account, or a new token for the one that exists."""
    admin = (("authorization", f"Bearer {admin_token}"),)
    try:
        try:
            return str(stub.CreateAccount(pb.CreateAccountRequest(name=name, owner=owner), metadata=admin,
                                          timeout=30).token)
        except grpc.RpcError as exc:
            if error_reason(exc) != "ACCOUNT_EXISTS":
                raise
        return str(stub.RotateAccountToken(pb.RotateAccountTokenRequest(name=name), metadata=admin, timeout=30).token)
    except grpc.RpcError as exc:
        raise AccountError(f"the ladder's account {name}: {describe_rpc_error(exc, server)}") from None
