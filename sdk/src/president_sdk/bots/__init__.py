"""The built-in bots, by level: ``random`` < ``easy`` < ``normal`` < ``hard`` < ``expert``.

Each is an ordinary `Bot` written against the SDK and sees only its own
observation (and the events shown to it).  ``builtin_bot("hard")`` makes a
fresh one.  Only ``random`` and ``expert`` draw random numbers;
``builtin_bot("random", seed=s)`` draws the same ones for the same s (a
duplicate ladder seeds every seating of a board alike), and so does
``expert`` as long as its playout cap, not its time budget, ends each search.
"""

from __future__ import annotations

from collections.abc import Callable

from president_sdk.bot import Bot
from president_sdk.bots.easy import EasyBot
from president_sdk.bots.expert import ExpertBot
from president_sdk.bots.hard import HardBot
from president_sdk.bots.normal import NormalBot
from president_sdk.bots.random import RandomBot

BUILTIN_BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "easy": lambda _seed: EasyBot(),
    "normal": lambda _seed: NormalBot(),
    "hard": lambda _seed: HardBot(),
    "expert": ExpertBot,
}
"""Built-in levels, weakest first: each makes a bot from a seed (None: fresh entropy); random and expert use it."""
SEARCHING_LEVELS = frozenset({"expert"})
"""Levels whose every decision spends its budget of CPU time (the others answer in microseconds): a client
playing many of them gives them processes of their own, so that they decide on every core."""


def builtin_bot(name: str, *, seed: int | None = None) -> Bot:
    """A new built-in bot of level `name` (random, easy, normal, hard, expert); `seed` fixes its draws."""
    try:
        factory = BUILTIN_BOTS[name.lower()]
    except KeyError:
        raise ValueError(f"no built-in bot {name!r} (known: {', '.join(BUILTIN_BOTS)})") from None
    return factory(seed)


__all__ = ["BUILTIN_BOTS", "SEARCHING_LEVELS", "EasyBot", "ExpertBot", "HardBot", "NormalBot", "RandomBot",
           "builtin_bot"]
