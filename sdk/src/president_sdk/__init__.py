"""The bot SDK of the President game service: write a `Bot`, try it with `play_local`, play it with `run`.

A bot is one class with one method (`Bot.play`); it is given the engine's
`Observation` and returns an action.  The built-in levels are `builtin_bot`.
The wire contract it speaks is `president_protocol`.
"""

from president_engine import (
    PASS,
    Action,
    Card,
    CardSet,
    GiveBack,
    Observation,
    Phase,
    Play,
    Rank,
    Request,
    Rules,
    Suit,
    fallback_action,
)

from president_sdk.bot import Bot
from president_sdk.bots import BUILTIN_BOTS, EasyBot, HardBot, NormalBot, RandomBot, builtin_bot
from president_sdk.counting import unseen
from president_sdk.legal import (
    can_pass,
    going_out,
    highest_play,
    lowest_play,
    natural_plays,
    plays,
    plays_of_rank,
    plays_of_size,
    whole_group_plays,
)
from president_sdk.local import BotError, LocalResult, play_local
from president_sdk.remote import RunnerError, run

__all__ = [
    "BUILTIN_BOTS",
    "PASS",
    "Action",
    "Bot",
    "BotError",
    "Card",
    "CardSet",
    "EasyBot",
    "GiveBack",
    "HardBot",
    "LocalResult",
    "NormalBot",
    "Observation",
    "Phase",
    "Play",
    "RandomBot",
    "Rank",
    "Request",
    "Rules",
    "RunnerError",
    "Suit",
    "builtin_bot",
    "can_pass",
    "fallback_action",
    "going_out",
    "highest_play",
    "lowest_play",
    "natural_plays",
    "play_local",
    "plays",
    "plays_of_rank",
    "plays_of_size",
    "run",
    "unseen",
    "whole_group_plays",
]
