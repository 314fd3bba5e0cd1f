"""RULES 2: option values, refused combinations (errors name the option), JSON forms, presets."""

from __future__ import annotations

from typing import Any

import pytest
from president_engine import JOKER, PRESETS, Beat, Card, CardSet, JokerAlone, Rank, Rules, RulesError, Suit, TrickEnd
from president_engine.cards import full_deck
from president_engine.rules import DAIFUGO_OPTIONS, OPTION_NAMES


@pytest.mark.parametrize(("options", "option"), [
    ({"players": 2}, "players"),
    ({"players": 53}, "players"),
    ({"players": 55, "jokers": 2}, "players"),
    ({"decks": 0}, "decks"),
    ({"decks": 8}, "decks"),
    ({"jokers": 3}, "jokers"),
    ({"jokers": -1}, "jokers"),
    ({"rank_order": "3 4 5 6 7 8 9 10 J Q K A"}, "rank_order"),
    ({"rank_order": "3 3 5 6 7 8 9 10 J Q K A 2"}, "rank_order"),
    ({"wild_lead_rank": "JK"}, "wild_lead_rank"),
    ({"wild_ranks": "JK", "joker_alone": "declared"}, "wild_ranks"),
    ({"wild_ranks": "2 3 4 5 6 7 8 9 10 J Q K A", "joker_alone": "declared"}, "wild_ranks"),
    ({"wild_ranks": "6", "joker_alone": "high"}, "wild_ranks"),
    ({"wild_ranks": "6", "joker_alone": "low"}, "wild_ranks"),
    ({"joker_alone": "declared", "joker_wild": False, "jokers": 1}, "joker_alone"),
    ({"suit_order": "C D H"}, "suit_order"),
    ({"suit_order": "C D H H"}, "suit_order"),
    ({"suit_order": "C D H S", "decks": 2}, "suit_order"),
    ({"revolution": True, "revolution_triggers": []}, "revolution_triggers"),
    ({"exchange_requests": True}, "exchange_requests"),
    ({"exchange": True, "players": 27}, "exchange"),
    ({"points": [3, 2, 1]}, "points"),
    ({"points": [3, 2, 1, -1]}, "points"),
    ({"points": [0, 0, 0, 0], "target_score": 5}, "points"),
    ({"deals": 0}, "deals"),
    ({"target_score": 0}, "target_score"),
    ({"beat": "sometimes"}, "beat"),
    ({"trick_end": "never"}, "trick_end"),
    ({"revolution": 1}, "revolution"),
    ({"players": "4"}, "players"),
    ({"players": True}, "players"),
    ({"rank_order": "3 4 X"}, "rank_order"),
    ({"revolution_triggers": ["five"]}, "revolution_triggers"),
    ({"colour": "red"}, "colour"),
])
def test_refused_options_name_the_option(options: dict[str, Any], option: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_dict(options)
    assert info.value.option == option
    assert str(info.value).startswith(option + ":")
    with pytest.raises(RulesError) as info:
        Rules.preset("italian", **options)  # italian: no exchange, 5 players
    assert info.value.option == option


def test_unknown_preset() -> None:
    with pytest.raises(RulesError) as info:
        Rules.preset("klondike")
    assert info.value.option == "preset"


def test_combinations_that_are_allowed() -> None:
    Rules(joker_alone="declared", joker_wild=False)  # no jokers in the deck: fine
    Rules(wild_ranks="6", joker_alone="declared", jokers=2)
    Rules(players=52)
    Rules(players=26, exchange=True)
    Rules(decks=7, jokers=2, players=3)
    Rules(revolution=False, revolution_triggers=[])  # no revolution: triggers do not matter
    Rules(target_score=3, points=[1, 0, 0, 0])


def test_constructor_accepts_json_forms_like_preset() -> None:
    rules = Rules(beat="strictly_higher", suit_order="D C H S", wild_ranks=["6"], joker_alone="declared",
                  rank_order="3 4 5 6 7 8 9 10 J Q K A 2", trick_end="one_orbit")
    assert rules.beat is Beat.STRICTLY_HIGHER and rules.trick_end is TrickEnd.ONE_ORBIT
    assert rules.suit_order == (Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS, Suit.SPADES)
    assert rules.wild_ranks == frozenset({Rank.SIX}) and rules.joker_alone is JokerAlone.DECLARED
    assert rules == Rules(beat=Beat.STRICTLY_HIGHER, suit_order=(Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS, Suit.SPADES),
                          wild_ranks=frozenset({Rank.SIX}), joker_alone=JokerAlone.DECLARED,
                          trick_end=TrickEnd.ONE_ORBIT)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_to_dict_round_trip_lists_every_option(name: str) -> None:
    rules = Rules.preset(name)
    data = rules.to_dict()
    assert tuple(data)[:len(OPTION_NAMES)] == OPTION_NAMES
    assert set(tuple(data)[len(OPTION_NAMES):]) <= set(DAIFUGO_OPTIONS)
    assert Rules.from_dict(data) == rules
    import json
    assert Rules.from_dict(json.loads(json.dumps(data))) == rules


@pytest.mark.parametrize(("name", "expected"), [
    ("italian", {"players": 5, "points": [2, 1, 0, 0, 0], "joker_alone": "high", "wild_ranks": [],
                 "beat": "equal_or_higher", "trick_end": "all_pass", "pass_is_final": False, "revolution": False,
                 "revolution_triggers": ["four_of_a_kind", "four_singles"],
                 "revolution_effect": "ranks_and_direction", "exchange": False, "exchange_requests": False,
                 "first_lead": "seat0", "next_lead": "president", "seating": "by_rank", "deals": 1,
                 "target_score": None, "suit_order": None, "decks": 1, "jokers": 0, "joker_wild": True,
                 "wild_lead_rank": "6", "equal_skip": False}),
    ("norwegian", {"players": 4, "points": [4, 3, 2, 1], "joker_alone": "declared", "wild_ranks": ["6"],
                   "beat": "equal_or_higher", "trick_end": "one_orbit", "pass_is_final": False,
                   "revolution": False, "exchange": True, "exchange_requests": True,
                   "first_lead": "three_of_clubs", "next_lead": "scum", "seating": "fixed", "deals": 1,
                   "wild_lead_rank": "6", "joker_wild": True, "equal_skip": False}),
    ("cardverse", {"players": 4, "points": [4, 3, 2, 1], "joker_alone": "high", "wild_ranks": [],
                   "beat": "strictly_higher", "trick_end": "all_pass", "pass_is_final": True, "revolution": True,
                   "revolution_triggers": ["four_of_a_kind"], "revolution_effect": "ranks", "exchange": True,
                   "exchange_requests": False, "first_lead": "seat0", "next_lead": "scum", "seating": "fixed",
                   "deals": 1, "jokers": 0, "equal_skip": False}),
])
def test_preset_table(name: str, expected: dict[str, Any]) -> None:
    data = Rules.preset(name).to_dict()
    assert data["rank_order"] == ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
    for option, value in expected.items():
        assert data[option] == value, option


def test_preset_points_follow_the_number_of_players() -> None:
    assert Rules.preset("cardverse", players=6).points == (6, 5, 4, 3, 2, 1)
    assert Rules.preset("italian", players=7).points == (2, 1, 0, 0, 0, 0, 0)
    assert Rules.preset("norwegian", players=3, points=[1, 1, 0]).points == (1, 1, 0)


def test_every_option_may_be_changed_on_any_preset() -> None:
    """...that its Daifugō options allow: the contest's cells need one joker and no suit order."""
    for name in PRESETS:
        assert Rules.preset(name, equal_skip=True).equal_skip
        if name == "daifugo":
            for option, value in (("suit_order", "D C H S"), ("jokers", 2)):
                with pytest.raises(RulesError, match=r"^(sequences|suit_lock)"):
                    Rules.preset(name, **{option: value})
            continue
        assert Rules.preset(name, suit_order="D C H S").suit_order is not None
        assert Rules.preset(name, jokers=2).jokers == 2


def test_rules_built_from_lists_are_hashable_and_playable() -> None:
    """Options given as lists (JSON style) are stored as tuples, so the rules can key the engine's caches."""
    rules = Rules(players=3, points=[5, 2, 0], rank_order=[*"3456789", "10", "J", "Q", "K", "A", "2"])
    assert isinstance(rules.points, tuple) and isinstance(rules.rank_order, tuple)
    assert hash(rules) == hash(Rules(players=3, points=(5, 2, 0)))


def test_rule_facts_derived_from_the_options() -> None:
    """RULES 1 and 1.3: the facts the engine's tables and the SDK's helpers share."""
    norwegian = Rules.preset("norwegian", jokers=1)
    assert norwegian.natural_ranks == tuple(r for r in norwegian.rank_order if r is not Rank.SIX)
    assert norwegian.strength(Rank.THREE) == 0 and norwegian.strength(Rank.TWO) == 12
    assert norwegian.strength(Rank.THREE, reversed=True) == 12 and norwegian.strength(Rank.TWO, reversed=True) == 0
    assert norwegian.joker_strength == 13 == norwegian.strength(Rank.JOKER, reversed=True)
    assert Rules(jokers=1, joker_alone="low").joker_strength == -1
    assert norwegian.is_wild(Card.parse("6H")) and norwegian.is_wild(JOKER) and not norwegian.is_wild(Card.parse("9C"))
    assert norwegian.wild_count(CardSet("6H 6S JK 9C")) == 3 and norwegian.plain_joker_count(CardSet("JK 9C")) == 0
    plain = Rules(jokers=2, joker_wild=False)
    assert not plain.is_wild(JOKER) and plain.wild_count(CardSet("JK JK")) == 0
    assert plain.plain_joker_count(CardSet("JK JK 3C")) == 2
    assert plain.deck == full_deck(1, 2) and len(plain.deck) == plain.deck_size == 54


def test_interchangeable_follows_suit_order() -> None:
    """RULES 1.8: without suit_order the same count of each rank is the same choice; with it, the same cards."""
    rules = Rules(jokers=2)
    assert rules.interchangeable(CardSet("3C 3D JK"), CardSet("3H 3S JK"))
    assert not rules.interchangeable(CardSet("3C 3D"), CardSet("3C 4D"))
    assert not rules.interchangeable(CardSet("3C"), CardSet("3C 3D"))
    ordered = rules.replace(suit_order="C D H S")
    assert ordered.interchangeable(CardSet("3C JK"), CardSet("3C JK"))
    assert not ordered.interchangeable(CardSet("3C"), CardSet("3D"))


def test_derived_facts_do_not_change_equality_or_hash() -> None:
    """The cached facts live beside the options; equality and hash read the options only."""
    used, fresh = Rules.preset("norwegian"), Rules.preset("norwegian")
    assert used.natural_ranks and used.deck  # computed and cached on `used` only
    assert used == fresh and hash(used) == hash(fresh)
    nines_too = used.replace(wild_ranks=["6", "9"])
    assert nines_too.natural_ranks == tuple(r for r in used.natural_ranks if r is not Rank.NINE)
