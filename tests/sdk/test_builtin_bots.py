"""Every built-in bot plays whole matches of every preset and of random option sets, legally."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from president_engine import PRESETS, Rank, Rules, RulesError, Suit
from president_engine.events import RevolutionHappened
from president_sdk import BUILTIN_BOTS, Bot, builtin_bot, play_local
from president_sdk.bots import ExpertBot

LEVELS = list(BUILTIN_BOTS)


def _bot(level: str) -> Bot:
    """A bot of `level`; the expert with a small playout cap and no time budget, so these tests stay quick."""
    return ExpertBot(seed=1, budget=None, playouts=12) if level == "expert" else builtin_bot(level)


def _table(players: int, first: int = 0) -> list[Any]:
    """One bot of each level in turn, starting at `first`."""
    return [_bot(LEVELS[(first + i) % len(LEVELS)]) for i in range(players)]


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("level", LEVELS)
def test_each_level_plays_every_preset(preset: str, level: str) -> None:
    rules = Rules.preset(preset, deals=4)
    bots = [_bot(level), *_table(rules.players - 1, LEVELS.index(level) + 1)]
    result = play_local(bots, rules, seed=11)  # strict: an illegal answer raises BotError
    assert result.fault_count == 0
    assert len(result.places) == 4


CONTEST = {"players": 5, "jokers": 1, "sequences": True, "eight_stop": True, "suit_lock": True,
           "joker_spade_three": True, "jack_back": True, "revolution": True, "trick_end": "all_pass",
           "pass_is_final": True, "pass_count": True, "leader_may_pass": True, "pass_limit": 20,
           "tribute_suits": "S H D C", "deals": 3}
"""Every Daifugō option of the UECda contest at once (docs/RULES-DECISIONS.md, Daifugō options)."""


@pytest.mark.parametrize("level", LEVELS)
def test_each_level_plays_the_contests_options(level: str) -> None:
    rules = Rules.preset("cardverse", **CONTEST)
    bots = [_bot(level), *_table(rules.players - 1, LEVELS.index(level) + 1)]
    result = play_local(bots, rules, seed=7)  # strict: an illegal answer raises BotError
    assert result.fault_count == 0 and [len(places) for places in result.places] == [5, 5, 5]


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="known: random, easy, normal, hard, expert"):
        builtin_bot("grandmaster")


def test_levels_are_listed_weakest_first_and_expert_takes_its_seed() -> None:
    assert LEVELS == ["random", "easy", "normal", "hard", "expert"]
    bot = builtin_bot("expert", seed=3)
    assert isinstance(bot, ExpertBot) and bot.budget is not None


def test_bots_play_on_after_revolutions() -> None:
    """A smoke check that revolutions happen and the bots play on in the reversed order."""
    revolutions = 0
    for seed in range(30):
        result = play_local(_table(4, seed), Rules.preset("cardverse", deals=2), seed=seed)
        revolutions += sum(isinstance(e, RevolutionHappened) for e in result.match.events)
    assert revolutions > 0


@st.composite
def option_sets(draw: st.DrawFn) -> Rules:
    preset = draw(st.sampled_from(sorted(PRESETS)))
    players = draw(st.integers(3, 6))
    decks = draw(st.integers(1, 2))
    options: dict[str, Any] = {
        "players": players,
        "decks": decks,
        "jokers": draw(st.integers(0, 2)),
        "joker_wild": draw(st.booleans()),
        "joker_alone": draw(st.sampled_from(["high", "low", "declared"])),
        "beat": draw(st.sampled_from(["equal_or_higher", "strictly_higher"])),
        "trick_end": draw(st.sampled_from(["all_pass", "one_orbit"])),
        "pass_is_final": draw(st.booleans()),
        "revolution": draw(st.booleans()),
        "revolution_triggers": draw(st.sets(st.sampled_from(["four_of_a_kind", "four_singles"]), min_size=1)),
        "revolution_effect": draw(st.sampled_from(["ranks", "ranks_and_direction"])),
        "equal_skip": draw(st.booleans()),
        "exchange": draw(st.booleans()),
        "first_lead": draw(st.sampled_from(["seat0", "three_of_clubs"])),
        "next_lead": draw(st.sampled_from(["president", "scum"])),
        "seating": draw(st.sampled_from(["fixed", "by_rank"])),
        "deals": draw(st.integers(1, 3)),
    }
    if options["joker_alone"] == "declared":
        options["wild_ranks"] = draw(st.sets(st.sampled_from([Rank.SIX, Rank.SEVEN, Rank.TWO]), max_size=2))
        options["wild_lead_rank"] = draw(st.sampled_from([Rank.SIX, Rank.THREE, Rank.TEN]))
    else:
        options["wild_ranks"] = []
    options["exchange_requests"] = options["exchange"] and draw(st.booleans())
    if decks == 1 and draw(st.booleans()):
        options["suit_order"] = draw(st.permutations(list(Suit)))
    if draw(st.booleans()):
        options["rank_order"] = draw(st.permutations(list(Rules().rank_order)))
    try:
        return Rules.preset(preset, **options)
    except RulesError:
        assume(False)
        raise


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(rules=option_sets(), seed=st.integers(0, 10_000), first=st.integers(0, 3))
def test_all_levels_play_random_option_sets(rules: Rules, seed: int, first: int) -> None:
    result = play_local(_table(rules.players, first), rules, seed=seed)
    assert result.fault_count == 0
    assert len(result.places) == rules.deals
