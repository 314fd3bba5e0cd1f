"""The command bot of benchmarks/ladder_speed.py: the built-in normal level, loaded from a file as a user's bot is."""

from president_sdk.bots import NormalBot


class SpeedBot(NormalBot):
    """Plays exactly as ``builtin:normal``, so a ladder with it in place of the built-in gives the same results."""
