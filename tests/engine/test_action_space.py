"""The fixed action space: every legal action has exactly one index and comes back from it, for any rules.

Hypothesis draws rule sets over every option (decks, jokers, several wild
ranks, suit order, exchanges with requests, revolutions) and plays them
randomly; at every step each legal action's index must be in its section,
distinct from the others', map back to the very action the engine listed,
and be shared by the actions RULES 1.8 calls equivalent.  Rule sets beyond
`MAX_ACTIONS` must be refused naming the option.
"""

from __future__ import annotations

import random
from itertools import product
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from president_engine import PASS, CardSet, GiveBack, Match, Play, Rank, Request, Rules, RulesError
from president_engine.action_space import (
    MAX_ACTIONS,
    PASS_INDEX,
    ActionIndexError,
    ActionSpaceError,
    action_count,
    action_space,
)
from president_engine.cards import NATURAL_RANKS

CHECK_BACK = 40
"""At most this many listed actions per step are mapped back (request lists hold over a thousand)."""


@st.composite
def rule_sets(draw: st.DrawFn) -> Rules:
    options: dict[str, Any] = {
        "players": draw(st.integers(3, 6)),
        "decks": draw(st.sampled_from([1, 1, 2, 3])),
        "jokers": draw(st.integers(0, 2)),
        "joker_wild": draw(st.booleans()),
        "joker_alone": draw(st.sampled_from(["high", "low", "declared"])),
        "wild_ranks": draw(st.sampled_from([[], [], ["6"], ["2"], ["6", "9"], ["3", "9", "K"]])),
        "wild_lead_rank": draw(st.sampled_from(["6", "3", "K"])),
        "beat": draw(st.sampled_from(["equal_or_higher", "strictly_higher"])),
        "suit_order": draw(st.sampled_from([None, None, "D C H S"])),
        "trick_end": draw(st.sampled_from(["all_pass", "one_orbit"])),
        "revolution": draw(st.booleans()),
        "revolution_triggers": draw(st.sampled_from([["four_of_a_kind"], ["four_singles"]])),
        "equal_skip": draw(st.booleans()),
        "exchange": draw(st.booleans()),
        "exchange_requests": draw(st.booleans()),
        "deals": draw(st.integers(1, 3)),
    }
    if draw(st.booleans()):
        options["rank_order"] = draw(st.permutations([str(r) for r in NATURAL_RANKS]))
    try:
        rules = Rules.preset(draw(st.sampled_from(["italian", "norwegian", "cardverse"])), **options)
    except RulesError:
        assume(False)
        raise
    assume(action_count(rules) <= MAX_ACTIONS)
    return rules


def check_step(m: Match, rng: random.Random) -> None:
    space = action_space(m.rules)
    legal = m.legal_actions()
    indices = space.indices(legal)
    assert len(set(indices)) == len(indices), [str(a) for a in legal]
    for action, index in zip(legal, indices, strict=True):
        section = (range(PASS_INDEX, PASS_INDEX + 1) if action is PASS else space.plays if isinstance(action, Play)
                   else space.give_backs if isinstance(action, GiveBack) else space.requests)
        assert index in section, (str(action), index)
    assert m.to_act is not None
    mask = m.observation(m.to_act).action_mask()
    assert [i for i, bit in enumerate(mask) if bit] == sorted(indices)
    for action, index in rng.sample(list(zip(legal, indices, strict=True)), min(CHECK_BACK, len(legal))):
        assert space.action(index, legal) is action
        assert space.label(index)
        if isinstance(action, (Play, GiveBack)) and m.rules.suit_order is None:
            assert space.index(_other_suits(m, action)) == index


def _other_suits(m: Match, action: Play | GiveBack) -> Play | GiveBack:
    """The same choice made with other cards of the same ranks from the hand, when there are any (RULES 1.8)."""
    assert m.to_act is not None
    hand = m.hand(m.to_act)
    cards = []
    for rank in Rank:
        wanted = action.cards.count_rank(rank)
        cards += [card for card in hand if card.rank is rank][::-1][:wanted]  # the highest suits, not the lowest
    other = CardSet(cards)
    if isinstance(action, Play):
        return Play(other, action.declared, rank=action.rank)
    return GiveBack(other)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), seed=st.integers(0, 10_000))
def test_every_legal_action_has_one_index_and_comes_back_from_it(rules: Rules, seed: int) -> None:
    space = action_space(rules)
    assert space.size == action_count(rules) <= MAX_ACTIONS
    rng = random.Random(seed)
    m = Match(rules, seed=seed)
    while not m.is_over:
        check_step(m, rng)
        m.apply(rng.choice(m.legal_actions()))


@pytest.mark.parametrize(("preset", "players", "size"), [
    ("italian", 5, 53), ("cardverse", 4, 157), ("cardverse", 3, 144), ("norwegian", 4, 1776), ("norwegian", 3, 1763)])
def test_preset_sizes(preset: str, players: int, size: int) -> None:
    assert action_space(Rules.preset(preset, players=players)).size == size


def test_the_sections_follow_the_layout() -> None:
    space = action_space(Rules.preset("norwegian"))
    assert space.index(PASS) == PASS_INDEX == 0
    assert space.plays.start == 1 and space.give_backs.start == space.plays.stop
    assert space.requests.start == space.give_backs.stop and space.requests.stop == space.size
    assert space.label(space.plays.start) == "6 -> 3"  # one wild six standing for a three
    assert space.label(space.requests.start) == "request"
    assert space.index(Request(CardSet())) == space.requests.start
    assert space.label(space.index(Play(CardSet("6H 6S"), Rank.KING))) == "6 6 -> K"
    assert space.label(space.index(Play(CardSet("KC 6S")))) == "K 6 -> K"
    assert space.label(space.index(GiveBack(CardSet("3C 3D")))) == "give 3 3"


def test_plays_of_wild_cards_alone_share_the_index_of_the_rank_they_stand_for() -> None:
    """A lead of jokers as wild_lead_rank and a follow declaring that rank never share a turn: one index."""
    space = action_space(Rules.preset("norwegian", jokers=2, wild_ranks=[], wild_lead_rank="7"))
    lead = Play(CardSet("JK JK"), rank=Rank.SEVEN)
    follow = Play(CardSet("JK JK"), Rank.SEVEN, rank=Rank.SEVEN)
    assert space.index(lead) == space.index(follow)
    assert space.index(Play(CardSet("JK JK"), Rank.EIGHT)) != space.index(follow)


def test_suit_order_numbers_every_set_of_cards() -> None:
    space = action_space(Rules.preset("italian", suit_order="D C H S"))
    assert len(space.plays) == 13 * 15
    assert space.index(Play(CardSet("9C 9D"))) != space.index(Play(CardSet("9H 9S")))
    assert space.label(space.index(Play(CardSet("9C 9S")))) == "9C 9S -> 9"


@pytest.mark.parametrize(("overrides", "option"), [
    ({"decks": 7, "jokers": 2}, "decks"),
    ({"wild_ranks": ["6", "9", "2", "5", "K"]}, "wild_ranks"),
    ({"wild_ranks": ["6", "9"], "suit_order": "D C H S", "jokers": 2}, "wild_ranks"),
])
def test_rules_beyond_the_bound_are_refused_naming_the_option(overrides: dict[str, Any], option: str) -> None:
    rules = Rules.preset("norwegian", **overrides)
    with pytest.raises(ActionSpaceError) as caught:
        action_space(rules)
    assert caught.value.option == option
    assert str(action_count(rules)) in str(caught.value) and isinstance(caught.value, RulesError)


def test_actions_outside_the_space_are_refused() -> None:
    cardverse = action_space(Rules.preset("cardverse"))
    with pytest.raises(ActionIndexError):
        cardverse.index(Play(CardSet("3C 4C")))
    with pytest.raises(ActionIndexError):
        cardverse.index(Request(CardSet("AS")))
    with pytest.raises(ActionIndexError):
        action_space(Rules.preset("italian")).index(GiveBack(CardSet("3C")))
    with pytest.raises(ActionIndexError):
        cardverse.label(cardverse.size)
    m = Match(Rules.preset("cardverse"), seed=1)
    with pytest.raises(ActionIndexError, match="not a legal action now"):
        cardverse.action(PASS_INDEX, m.legal_actions())  # the leader cannot pass


def test_every_rule_set_with_one_kind_of_wild_card_fits() -> None:
    """Over every option that changes the count: refusals need two kinds of wild card (docs/learning.md)."""
    largest = 0
    for players, decks, jokers, joker_wild, joker_alone, wild_ranks, suit_order, requests in product(
            (3, 4), range(1, 8), range(3), (True, False), ("high", "low", "declared"), ([], ["6"]),
            (None, "D C H S"), (False, True)):
        try:
            rules = Rules(players=players, decks=decks, jokers=jokers, joker_wild=joker_wild, joker_alone=joker_alone,
                          wild_ranks=wild_ranks, suit_order=suit_order, exchange=True, exchange_requests=requests)
        except RulesError:
            continue
        if len(rules.wild_ranks) + (rules.jokers > 0 and rules.joker_wild) <= 1:
            largest = max(largest, action_count(rules))
    assert largest == 11644 <= MAX_ACTIONS
