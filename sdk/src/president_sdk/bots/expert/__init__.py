"""The `expert` level: determinized Monte Carlo search on the engine (see bot.py).

Installed from a wheel built with a C compiler, its search is mypyc's and its playouts C's (sdk/setup.py).
"""

from president_sdk.bots.expert.bot import ExpertBot

__all__ = ["ExpertBot"]
