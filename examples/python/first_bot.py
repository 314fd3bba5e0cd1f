# examples/python/first_bot.py
from president_sdk import PASS, Bot, can_pass, plays


class FirstBot(Bot):
    def play(self, obs):
        options = plays(obs)  # the legal plays, weakest first
        cheap = [p for p in options if p.rank is not obs.top_rank]
        if cheap:
            return cheap[0]
        return PASS if can_pass(obs) else options[0]
