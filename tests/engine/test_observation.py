"""Views of a match: the spectator's `PublicObservation` and a player's `Observation` (OpenSpiel style)."""

from __future__ import annotations

import dataclasses

import pytest
from engine_support import deal, match, public_part, run
from president_engine import CardSet, Match, Phase, PublicObservation, Rank, Rules
from president_engine.events import Passed, Played

REV = {"revolution": True, "revolution_triggers": ["four_of_a_kind"], "revolution_effect": "ranks"}


def test_the_spectator_sees_the_public_state_and_no_card() -> None:
    m = match(None, deal("9C 9D 3C", "10C 10D 4C", "JC 5C"), players=3)
    run(m, "9C 9D", "pass")
    public = m.public_observation()
    assert type(public) is PublicObservation
    assert not hasattr(public, "hand") and not hasattr(public, "legal_actions")
    assert public.phase is Phase.PLAY and public.to_act == 2 and public.hand_sizes == (1, 3, 2)
    assert public.table is not None and public.table.cards == CardSet("9C 9D") and public.table_player == 0
    assert [type(e) for e in public.trick] == [Played, Passed]
    assert public.played == CardSet("9C 9D")
    for player in range(3):
        assert public_part(m.observation(player)) == public


def test_a_player_sees_their_hand_and_actions_only_on_their_turn() -> None:
    m = match(None, deal("9C 9D 3C", "10C 10D 4C", "JC 5C"), players=3)
    obs = m.observation(1)
    assert obs.player == 1 and obs.hand == CardSet("10C 10D 4C") and obs.legal_actions == () and obs.owed == 0
    assert m.observation(0).legal_actions == m.legal_actions()
    with pytest.raises(ValueError, match="no player 3"):
        m.observation(3)


def test_strength_and_top_rank_follow_the_current_order() -> None:
    """RULES 1.2-1.3: a revolution reverses the order; jokers alone keep their place."""
    m = match(None, deal("9C 9D 9H 9S 3C", "4C 4D 4H 4S 2C", "KC KD KH KS JK"), players=3, jokers=1, **REV)
    public = m.public_observation()
    assert public.top_rank is Rank.TWO and public.strength(Rank.TWO) == 12 and public.strength(Rank.THREE) == 0
    assert public.strength(Rank.JOKER) == 13
    run(m, "9C 9D 9H 9S")
    public = m.public_observation()
    assert public.reversed and public.top_rank is Rank.THREE
    assert public.strength(Rank.THREE) == 12 and public.strength(Rank.TWO) == 0
    assert public.strength(Rank.JOKER) == 13 == m.observation(1).strength(Rank.JOKER)
    low = match(None, deal("3C", "4C", "JK"), players=3, jokers=1, joker_alone="low").public_observation()
    assert low.strength(Rank.JOKER) == -1


def test_views_are_frozen_and_keyword_only() -> None:
    m = match(Rules(players=3), deal("3C", "4C", "5C"))
    public = m.public_observation()
    with pytest.raises(dataclasses.FrozenInstanceError):
        public.deal = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        PublicObservation(*[getattr(public, f.name) for f in dataclasses.fields(public)])  # type: ignore[misc]


@pytest.mark.parametrize("preset", ["cardverse", "norwegian", "italian"])
def test_a_players_view_made_public_is_the_spectators(preset: str) -> None:
    """`PublicObservation.public` (what convert sends a spectator) hides what the spectator's own view hides."""
    m = Match(Rules.preset(preset, deals=3), seed=4)
    while not m.is_over:
        spectator = m.public_observation()
        assert spectator.public() is spectator
        for player in range(m.rules.players):
            assert m.observation(player).public() == spectator
        m.apply(m.legal_actions()[0])
