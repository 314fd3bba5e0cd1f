"""The bot SDK of the President game service: write a `Bot`, try it with `play_local`, play it with `run`.

A bot is one class with one method (`Bot.play`); it is given the engine's
`Observation` and returns an action.  The built-in levels are `builtin_bot`.
The wire contract it speaks is `president_protocol`.  A trained policy reads
the engine's fixed encoding: `observation_tensor(obs)`, `obs.action_mask()`
and `action_space(rules)` to turn the chosen index back into an action.
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
from president_engine.action_space import ActionSpace, action_space
from president_engine.observation_tensor import observation_fields, observation_tensor

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
from president_sdk.remote import run
from president_sdk.runner_errors import MatchAlreadyOverError, RunnerError

__all__ = [
    "BUILTIN_BOTS",
    "PASS",
    "Action",
    "ActionSpace",
    "Bot",
    "BotError",
    "Card",
    "CardSet",
    "EasyBot",
    "GiveBack",
    "HardBot",
    "LocalResult",
    "MatchAlreadyOverError",
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
    "action_space",
    "builtin_bot",
    "can_pass",
    "fallback_action",
    "going_out",
    "highest_play",
    "lowest_play",
    "natural_plays",
    "observation_fields",
    "observation_tensor",
    "play_local",
    "plays",
    "plays_of_rank",
    "plays_of_size",
    "run",
    "unseen",
    "whole_group_plays",
]
