"""Bearer tokens: seat tokens and the admin token.

Tokens are random secrets handed out once; the server keeps only their
SHA-256 hashes (the database never holds a usable token) and compares hashes
with `hmac.compare_digest`, checking every seat, so timing reveals nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable

from president_service.base.errors import Reason, ServiceError

_SCHEME = "bearer "


def new_token() -> str:
    """A fresh 256-bit secret as hex: safe in URLs, shells and command lines (never starts with '-')."""
    return secrets.token_hex(32)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def bearer_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The token of the ``authorization: Bearer <token>`` header; MISSING_TOKEN or BAD_TOKEN otherwise."""
    for key, value in metadata or ():
        if key.lower() != "authorization":
            continue
        text = value.decode(errors="replace") if isinstance(value, bytes) else value
        if not text.lower().startswith(_SCHEME) or not text[len(_SCHEME):].strip():
            raise ServiceError(Reason.BAD_TOKEN, "the authorization header must be 'Bearer <token>'")
        return text[len(_SCHEME):].strip()
    raise ServiceError(Reason.MISSING_TOKEN, "send the token as metadata 'authorization: Bearer <token>'")


class AdminKey:
    """The admin token given at start; required to create matches and to manage accounts."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("the admin token must not be empty")
        self._hash = token_hash(token)

    def check(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> None:
        if not hmac.compare_digest(token_hash(bearer_token(metadata)), self._hash):
            raise ServiceError(Reason.NOT_ADMIN, "only the admin token may create matches and manage accounts:"
                                                 " the token sent is not it")

    def given(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> bool:
        """True when `metadata` carries the admin token (no error either way)."""
        try:
            self.check(metadata)
        except ServiceError:
            return False
        return True
