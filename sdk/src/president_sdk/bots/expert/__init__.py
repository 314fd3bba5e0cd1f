# ruff: noqa: E402 (the package chooses its build, president_engine.build, before importing its modules)
"""The `expert` level: determinized Monte Carlo search on the engine (see bot.py).

Its search is compiled with the engine when the engine's compiled build runs (`president_engine.build`).
"""

from president_engine import build

build.redirect(__name__, __path__)


from president_sdk.bots.expert.bot import ExpertBot

__all__ = ["ExpertBot"]
