"""The built-in bots, by level: ``random`` < ``easy`` < ``normal`` < ``hard``.

Each is an ordinary `Bot` written against the SDK and sees only its own
observation.  ``builtin_bot("hard")`` makes a fresh one.
"""

from __future__ import annotations

from collections.abc import Callable

from president_sdk.bot import Bot
from president_sdk.bots.easy import EasyBot
from president_sdk.bots.hard import HardBot
from president_sdk.bots.normal import NormalBot
from president_sdk.bots.random import RandomBot

BUILTIN_BOTS: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "easy": EasyBot,
    "normal": NormalBot,
    "hard": HardBot,
}
"""Built-in levels, weakest first."""


def builtin_bot(name: str) -> Bot:
    """A new built-in bot of level `name` (random, easy, normal, hard)."""
    try:
        factory = BUILTIN_BOTS[name.lower()]
    except KeyError:
        raise ValueError(f"no built-in bot {name!r} (known: {', '.join(BUILTIN_BOTS)})") from None
    return factory()


__all__ = ["BUILTIN_BOTS", "EasyBot", "HardBot", "NormalBot", "RandomBot", "builtin_bot"]
