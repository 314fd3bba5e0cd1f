"""`fallback_action`: the easy level's move (RULES 4), read from the legal list alone."""

from __future__ import annotations

import pytest
from engine_support import deal, exchange_match, match, run
from president_engine import PASS, CardSet, GiveBack, Match, Phase, Request, Rules, fallback_action


def test_in_play_the_lowest_play_and_pass_only_without_one() -> None:
    m = match(None, deal("9C 9D 3C", "10C 10D 4D", "4H 7C"), players=3)
    assert str(fallback_action(m.legal_actions())) == "3C"
    run(m, "9C 9D")
    assert str(fallback_action(m.legal_actions())) == "10C 10D"
    run(m, "10C 10D")
    assert m.legal_actions() == (PASS,) and fallback_action(m.legal_actions()) is PASS


def test_in_the_exchange_the_worst_give_back_and_the_best_request() -> None:
    m = exchange_match(["3C 3D", "4C 4D", "KC 5D 9S", "2C 2H 2D 7C"], exchange_requests=True)
    assert m.phase is Phase.REQUEST
    assert fallback_action(m.legal_actions()) == Request(CardSet("2S 2H"))  # the best two not held
    run(m, "request 7C")
    assert fallback_action(m.legal_actions()) == Request(CardSet("2S"))
    run(m, "request AS")
    assert m.phase is Phase.GIVE_BACK
    assert fallback_action(m.legal_actions()) == GiveBack(CardSet("3C 3D"))  # worst cards first


def test_every_preset_plays_to_the_end() -> None:
    for name in ("cardverse", "italian", "norwegian"):
        m = Match(Rules.preset(name, deals=2), seed=11)
        while not m.is_over:
            m.apply(fallback_action(m.legal_actions()))
        assert m.winner is not None


def test_no_legal_action_is_an_error() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        fallback_action(())
