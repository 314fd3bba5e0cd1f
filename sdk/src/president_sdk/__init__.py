"""Client SDK for the President game service.

`president_sdk.proto.president.v1` holds the generated code of the public
contract (protos/president/v1/president.proto); `president_sdk.wire` converts
between its messages and the engine's types.
"""

# Bots (appended by the bot SDK): write a Bot, try it with play_local, run it with run().
from president_engine import PASS, Action, Card, CardSet, GiveBack, Observation, Phase, Play, Rank, Request, Rules, Suit

from president_sdk.bot import Bot
from president_sdk.bots import BUILTIN_BOTS, EasyBot, HardBot, NormalBot, RandomBot, builtin_bot
from president_sdk.counting import is_wild, strength, top_rank, unseen, wild_count
from president_sdk.legal import (
    can_pass,
    going_out,
    highest_play,
    lowest_play,
    natural_plays,
    plays,
    plays_of_rank,
    plays_of_size,
    safe_action,
    whole_group_plays,
)
from president_sdk.local import BotError, LocalResult, play_local
from president_sdk.runner import RunnerError, run

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
    "going_out",
    "highest_play",
    "is_wild",
    "lowest_play",
    "natural_plays",
    "play_local",
    "plays",
    "plays_of_rank",
    "plays_of_size",
    "run",
    "safe_action",
    "strength",
    "top_rank",
    "unseen",
    "whole_group_plays",
    "wild_count",
]
