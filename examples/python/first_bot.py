"""A first President bot: its lowest cards, but the top rank (2s) only when it must lead."""
from president_sdk import PASS, Bot, can_pass, plays, top_rank


class FirstBot(Bot):
    def play(self, obs):
        options = plays(obs)  # the legal plays, weakest first
        cheap = [p for p in options if p.rank is not top_rank(obs)]
        if cheap:
            return cheap[0]
        return PASS if can_pass(obs) else options[0]
