"""Helpers on the legal actions, and what counts as a legal answer."""

from __future__ import annotations

from president_engine import PASS, CardSet, GiveBack, Match, Play, Rank, Rules
from president_sdk import (
    can_pass,
    fallback_action,
    going_out,
    highest_play,
    lowest_play,
    plays_of_rank,
    plays_of_size,
    unseen,
    whole_group_plays,
)
from president_sdk.legal import resolve

HANDS = [[CardSet("3C 3D 5H 9S 9H 9D 2C"), CardSet("4C 4D 6H 7S KH KD AC"),
          CardSet("5C 5D 8H 10S JH QD QC"), CardSet("6C 6D 7H 8S JS AD 2S")]]


def test_leader_helpers() -> None:
    match = Match(Rules.preset("cardverse"), hands=HANDS)
    obs = match.observation(0)
    assert not can_pass(obs)
    assert lowest_play(obs) == Play(CardSet("3C"), rank=Rank.THREE)
    assert highest_play(obs) == Play(CardSet("2C"), rank=Rank.TWO)
    assert [str(p) for p in plays_of_rank(obs, Rank.NINE)] == ["9D", "9D 9H", "9D 9H 9S"]
    assert all(p.size == 2 for p in plays_of_size(obs, 2))
    assert [str(p) for p in whole_group_plays(obs)] == ["3C 3D", "5H", "9D 9H 9S", "2C"]
    assert going_out(obs) is None
    assert fallback_action(obs.legal_actions) == obs.legal_actions[0]
    assert obs.top_rank is Rank.TWO and obs.strength(Rank.TWO) == 12
    assert len(unseen(obs)) == 52 - 7  # every card but its own (nothing played yet)
    assert not any(card in unseen(obs) for card in obs.hand)
    match.apply(Play(CardSet("3C 3D")))
    assert len(unseen(match.observation(0))) == 45  # own cards left the hand for the table
    assert len(unseen(match.observation(1))) == 52 - 7 - 2


def test_follower_may_pass_and_the_fallback_plays_the_lowest_play() -> None:
    match = Match(Rules.preset("cardverse"), hands=HANDS)
    match.apply(Play(CardSet("3C")))
    obs = match.observation(1)
    assert can_pass(obs)
    assert fallback_action(obs.legal_actions) == Play(CardSet("4C"))


def test_resolve_accepts_other_suits_without_suit_order() -> None:
    match = Match(Rules.preset("cardverse"), hands=HANDS)
    obs = match.observation(0)
    chosen = resolve(obs, Play(CardSet("9S 9H")))
    assert chosen == Play(CardSet("9S 9H"), rank=Rank.NINE)
    assert resolve(obs, Play(CardSet("9S 3C"))) is None  # mixed ranks
    assert resolve(obs, Play(CardSet("4C"))) is None  # not held
    assert resolve(obs, PASS) is None  # the leader must play
    assert resolve(obs, "3C") is None  # not an action at all


def test_resolve_give_back_by_ranks() -> None:
    match = Match(Rules.preset("cardverse", deals=2), seed=4)
    while match.legal_actions() and not isinstance(match.legal_actions()[0], GiveBack):
        match.apply(match.legal_actions()[0])
    player = match.to_act or 0
    obs = match.observation(player)
    listed = obs.legal_actions[0]
    assert resolve(obs, listed) == listed
    assert resolve(obs, GiveBack(obs.hand)) is None  # wrong count
