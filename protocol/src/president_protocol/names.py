"""The contract's rule for a display name (CreateMatch's seat names, JoinMatch's and Hello's name, a
ListMatches player): the server refuses any other as MALFORMED, and the SDK checks a name before it connects."""

from __future__ import annotations

MAX_NAME_CHARS = 64


def is_display_name(name: str) -> bool:
    """At most `MAX_NAME_CHARS` characters, every one printable (a page shows it as it is)."""
    return len(name) <= MAX_NAME_CHARS and name.isprintable()
