"""A person's match against a bot account: the bot, house bots in the other seats, and one seat for the person.

The server plays no bot itself: the bot and the house bots play on their
accounts' Sessions, so each must be connected now.  The person's seat is an
ordinary seat with its own token (played from the browser's /play page);
the match is not rated.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from president_engine import Rules

from president_service.base.errors import Reason, ServiceError
from president_service.play.accounts import Accounts
from president_service.play.clock import ClockSettings
from president_service.play.match_request import MatchRequest, shorten
from president_service.play.match_runner import MatchRunner
from president_service.play.registry import Registry
from president_service.play.session import Sessions

PERSON = "you"
"""The person's seat's name."""
PERSON_CLOCK = ClockSettings(move_ms=60_000, bank_ms=60_000, max_strikes=3)
"""A person's clock: a minute a move, and a minute more in the bank."""


def opponents(accounts: Accounts, sessions: Sessions, board: tuple[str, int], seats: Sequence[str],
              *, queues: tuple[tuple[str, int], ...]) -> list[int]:
    """The players of a match on `board` whose account a person may start a match against now (`seats`: each
    player's account, empty for a seat played with its token): connected bots that are not house bots, on an arena
    board."""
    if board not in queues:
        return []
    found = []
    for player, name in enumerate(seats):
        try:
            account = accounts.get(name) if name else None
        except ServiceError:  # an account that is gone: nobody to play against
            account = None
        if account is not None and not account.house and not account.revoked and name in sessions.by_account:
            found.append(player)
    return found


def human_match(registry: Registry, accounts: Accounts, sessions: Sessions, board: tuple[str, int], account: str,
                *, deals: int, queues: tuple[tuple[str, int], ...]) -> tuple[MatchRunner, int, str]:
    """A new match of `account` against a person, on an arena board, the other seats connected house bots;
    returns it, the person's player and the seat's token."""
    if board not in queues:
        raise ServiceError(Reason.BAD_OPTION, f"board: one of the arena's ({', '.join(f'{p}:{n}' for p, n in queues)})",
                           {"option": "board"})
    accounts.usable(account)
    if account not in sessions.by_account:
        raise ServiceError(Reason.UNKNOWN_ACCOUNT, f"{shorten(account)} is not connected now")
    preset, players = board
    houses = sorted(name for name in sessions.by_account
                    if name != account and accounts.get(name).house and not accounts.get(name).revoked)
    if len(houses) < players - 2:
        raise ServiceError(Reason.NO_FREE_SEAT, f"{len(houses)} house bots are connected and a match of {players}"
                                                f" players needs {players - 2} (the organiser runs president house)")
    rng = random.SystemRandom()
    seated = ["", account, *rng.sample(houses, players - 2)]
    rng.shuffle(seated)
    person = seated.index("")
    runner, tokens = registry.create(MatchRequest(
        preset=preset, rules=Rules.preset(preset, players=players, deals=deals), seed=None, hands=(),
        clock=PERSON_CLOCK, names=tuple(PERSON if not name else "" for name in seated), open_seats=False,
        accounts=tuple(seated)))
    return runner, person, tokens[person]
