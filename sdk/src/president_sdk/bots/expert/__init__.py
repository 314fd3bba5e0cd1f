"""The `expert` level: determinized Monte Carlo search on the engine (see bot.py)."""

from president_sdk.bots.expert.bot import ExpertBot

__all__ = ["ExpertBot"]
