"""The build of the engine under test: `make test` runs the rules tests on the source, then on the compiled build."""

from __future__ import annotations

import copy
import os
import pickle

import president_engine.match
from president_engine import PASS, Card, CardSet, Match, Rank, Rules, Suit


def test_the_build_under_test_is_the_one_asked_for() -> None:
    """PRESIDENT_ENGINE_BUILD=compiled (set by `make pytest-compiled`) must mean mypyc's modules are the ones loaded."""
    compiled = president_engine.match.__file__.endswith((".so", ".pyd"))
    assert compiled == (os.environ.get("PRESIDENT_ENGINE_BUILD") == "compiled"), president_engine.match.__file__


def test_values_hash_copy_and_pickle_alike_on_this_build() -> None:
    """Frozen values are dict keys and set members (the SDK's bots use them so) and cross processes (ladders
    pickle them): a compiled class must keep all of that."""
    rules = Rules.preset("norwegian")
    match = Match(rules, seed=3)
    for _ in range(20):
        match.apply(match.legal_actions()[-1])
    values: list[object] = [*rules.deck.distinct(), rules, match.hand(0), PASS, *match.legal_actions(),
                            *match.events, *Rank, *Suit]
    for value in values:
        for again in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
            assert again == value and hash(again) == hash(value), value
    for view in (match.observation(1), match.public_observation()):
        for again in (copy.deepcopy(view), pickle.loads(pickle.dumps(view))):
            assert again == view
    made = [Card(Rank.ACE, Suit.SPADES), Card(Rank.ACE, Suit.SPADES), Card.parse("as"), CardSet("AS").distinct()[0]]
    assert len(set(made)) == 1 and all(card == made[0] for card in made)
    assert Card(Rank.ACE, Suit.SPADES) != Card(Rank.ACE, Suit.HEARTS) and Card.parse("AS") != "AS"
