"""The OpenSpiel game: OpenSpiel's own random-simulation checks, its bots and MCTS, Shimmy, hidden cards."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel
import pytest
from learn_support import dealing_order, first_deal_positions, played_actions, redeal_others, replay
from open_spiel.python.algorithms import evaluate_bots, mcts
from open_spiel.python.bots import uniform_random
from president_engine import Match, Rank, Rules, RulesError
from president_engine.action_space import action_space
from president_engine.events import Played
from president_learn.openspiel_game import GAME_NAME, register, rules_from_parameters
from shimmy import OpenSpielCompatibilityV0

register()

CASES: list[dict[str, Any]] = [
    {},
    {"preset": "norwegian", "deals": 2},
    {"preset": "italian", "players": 3, "reward": "points",
     "options": json.dumps({"suit_order": "D C H S", "jokers": 1, "exchange": True, "deals": 2})},
    {"preset": "cardverse", "players": 5, "options": json.dumps({"target_score": 6, "decks": 2})},
]


@pytest.mark.parametrize("params", CASES)
def test_passes_openspiels_random_simulation_checks(params: dict[str, Any]) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(GAME_NAME, params), num_sims=2, serialize=False, verbose=False)


def test_the_game_reports_its_shape() -> None:
    game = pyspiel.load_game(GAME_NAME, {"preset": "norwegian", "players": 5})
    rules = Rules.preset("norwegian", players=5)
    assert game.num_players() == 5
    assert game.num_distinct_actions() == action_space(rules).size
    assert game.max_chance_outcomes() == 53
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)


def test_the_deal_is_chance_card_by_card() -> None:
    state = pyspiel.load_game(GAME_NAME, {"players": 3}).new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 52 and sum(p for _, p in outcomes) == pytest.approx(1.0)
    state.apply_action(51)  # the ace of spades to seat 0
    assert 51 not in dict(state.chance_outcomes())
    assert "AS" in state.observation_string(0) and "AS" not in state.observation_string(1)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 0 and state.match.hand(0).count_rank(Rank(14)) >= 1  # seat 0 leads deal 1


def test_openspiels_bots_and_mcts_play_it() -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 3})
    rng = np.random.RandomState(7)
    bots = [mcts.MCTSBot(game, 2.0, 10, mcts.RandomRolloutEvaluator(1, rng), random_state=rng),
            uniform_random.UniformRandomBot(1, rng), uniform_random.UniformRandomBot(2, rng)]
    for _ in range(2):
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert sorted(returns) == [-1.0, 0.0, 1.0]


@pytest.mark.filterwarnings("ignore:Agent's m.* observation space value is")  # Shimmy's Box is unbounded
def test_shimmy_gives_a_pettingzoo_view() -> None:
    from pettingzoo.test import api_test

    api_test(OpenSpielCompatibilityV0(game_name=GAME_NAME, config={"players": 4}), num_cycles=100)


def test_parameters_name_the_rules() -> None:
    rules, _ = rules_from_parameters({"preset": "norwegian", "players": 5, "options": '{"jokers": 2}'})
    assert rules == Rules.preset("norwegian", players=5, jokers=2)
    with pytest.raises(RulesError):
        rules_from_parameters({"options": '{"decks": 0}'})
    with pytest.raises(ValueError, match="JSON object"):
        rules_from_parameters({"options": "[1]"})


def spiel_state(params: dict[str, Any], rules: Rules, m: Match) -> Any:
    """An OpenSpiel state dealt `m`'s deal-1 hands and given its actions."""
    state = pyspiel.load_game(GAME_NAME, params).new_initial_state()
    for slot in dealing_order(m.deal_hands[0]):
        state.apply_action(slot)
    space = action_space(rules)
    for action in played_actions(m):
        state.apply_action(space.index(action))
    return state


def test_what_a_player_sees_never_depends_on_another_players_hidden_cards() -> None:
    """Same history, the observer's same cards, the others' unplayed cards dealt anew: the same views.

    Actions are indices, played with the lowest suits the player holds (RULES 1.8), so without a suit
    order another deal can change which cards an index plays; such pairs are not the same history and
    are left out, and each case must compare some.
    """
    rng = random.Random(1)
    for params in CASES:
        rules, _ = rules_from_parameters(params)
        compared = 0
        for m in first_deal_positions(rules, rng, range(1, 30)):
            for player in range(rules.players):
                other = replay(rules, redeal_others(m, player, rng), played_actions(m))
                states = [spiel_state(params, rules, match) for match in (m, other)]
                if [played_cards(s.match) for s in states] != [played_cards(m)] * 2:
                    continue
                views = [(s.observation_string(player), s.information_state_string(player),
                          s.observation_tensor(player), s.information_state_tensor(player),
                          s.legal_actions(player)) for s in states]
                assert views[0] == views[1]
                compared += 1
        assert compared >= 2, params


def played_cards(m: Match) -> list[str]:
    return [str(e.play) for e in m.events if isinstance(e, Played)]


def test_the_exchange_shows_its_cards_only_to_the_pair() -> None:
    game = pyspiel.load_game(GAME_NAME, {"preset": "norwegian", "deals": 2})
    rng = random.Random(4)
    state = game.new_initial_state()
    while not state.is_terminal() and not (state.match.deal == 2 and state.match.phase.value == "play"
                                           and not state.is_chance_node()):
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    moves = [e for e in state.match.events if type(e).__name__ == "CardsGiven"]
    assert moves
    for move in moves:
        for player in range(4):
            seen = state.information_state_string(player)
            inside = player in (move.giver, move.receiver)
            hidden = f"CardsGiven(giver={move.giver}, receiver={move.receiver}, count={move.count}, " \
                     f"tribute={move.tribute}, cards=None)"
            assert (hidden in seen) != inside
