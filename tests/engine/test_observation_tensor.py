"""The observation tensor: its layout per rules, its values, and what each field says.

That it holds nothing hidden (it is built from one player's `Observation`
alone) is tested with the learners' environments, in tests/learn.
"""

from __future__ import annotations

import random

import pytest
from engine_support import deal, run
from president_engine import Match, Rank, Rules
from president_engine.observation_tensor import observation_fields, observation_size, observation_tensor


def fields_of(rules: Rules, values: list[float]) -> dict[str, list[float]]:
    return {f.name: values[f.start:f.stop] for f in observation_fields(rules)}


@pytest.mark.parametrize(("preset", "overrides"), [
    ("cardverse", {}), ("norwegian", {"deals": 3, "jokers": 2}), ("italian", {"suit_order": "D C H S", "players": 3}),
    ("cardverse", {"decks": 2, "players": 7, "target_score": 20, "exchange": True}),
])
def test_every_value_is_in_0_1_and_the_fields_tile_the_tensor(preset: str, overrides: dict[str, object]) -> None:
    rules = Rules.preset(preset, **overrides)
    fields = observation_fields(rules)
    assert [f.start for f in fields] == [0] + [f.stop for f in fields[:-1]]
    assert len({f.name for f in fields}) == len(fields)
    rng = random.Random(3)
    m = Match(rules, seed=3)
    while not m.is_over:
        for player in range(rules.players):
            values = observation_tensor(m.observation(player))
            assert len(values) == observation_size(rules)
            assert all(0.0 <= v <= 1.0 for v in values)
        m.apply(rng.choice(m.legal_actions()))


def test_conditional_fields_follow_the_options() -> None:
    names = {f.name for f in observation_fields(Rules.preset("italian"))}
    assert "hand_cards" not in names and "received" not in names
    names = {f.name for f in observation_fields(Rules.preset("italian", suit_order="D C H S", exchange=True))}
    assert {"hand_cards", "played_cards", "table_cards", "received", "given"} <= names
    assert observation_size(Rules.preset("cardverse")) == observation_size(Rules.preset("cardverse", deals=5))


def test_fields_say_what_the_player_sees() -> None:
    rules = Rules(players=3)
    m = run(Match(rules, hands=[deal("3C 3D 9H", "4C 5C 2S", "KH KS AD")]), "3C 3D", "pass")
    seen = fields_of(rules, observation_tensor(m.observation(2)))  # player 2 is to act, player 1 just passed
    order = list(rules.rank_order)
    assert seen["hand"][order.index(Rank.KING)] == pytest.approx(2 / 4)  # two kings of four
    assert seen["played"][order.index(Rank.THREE)] == pytest.approx(2 / 4)
    assert seen["table_rank"][order.index(Rank.THREE)] == 1.0 and sum(seen["table_rank"]) == 1.0
    assert seen["table_size"][1] == 1.0  # a pair
    assert seen["to_act"] == [1.0, 0.0, 0.0]  # the observer itself
    assert seen["table_seat"] == [0.0, 1.0, 0.0]  # seat 0 is one seat after seat 2
    assert seen["passed_since_play"] == [0.0, 0.0, 1.0]  # seat 1 is two seats after seat 2
    assert seen["acted_in_trick"] == [0.0, 1.0, 1.0]
    assert seen["leading"] == [0.0]
    assert seen["phase"] == [0.0, 0.0, 1.0, 0.0]
    assert seen["hand_sizes"] == pytest.approx([3 / 20, 1 / 20, 3 / 20])  # 52 cards to 3 players: 18, +2 at most
