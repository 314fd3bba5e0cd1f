"""The server's admin token as the organiser's commands take it: --admin-token, else PRESIDENT_ADMIN_TOKEN."""

from __future__ import annotations

import os
import sys

ADMIN_TOKEN_ENV = "PRESIDENT_ADMIN_TOKEN"
Metadata = tuple[tuple[str, str], ...]


def admin_token(given: str | None) -> str:
    """The token given on the command line, else the environment's ("" for none)."""
    return given or os.environ.get(ADMIN_TOKEN_ENV, "")


def admin_metadata(given: str | None, command: str) -> Metadata | None:
    """The call metadata carrying the admin token; None, after one line saying how to give it, when there is
    none."""
    token = admin_token(given)
    if not token:
        print(f"president {command}: give --admin-token or set {ADMIN_TOKEN_ENV}", file=sys.stderr)
        return None
    return (("authorization", f"Bearer {token}"),)
