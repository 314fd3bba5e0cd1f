"""RULES 1 "A play": wild ranks, wild jokers, joker_alone high/low/declared, wild_lead_rank, plain jokers."""

from __future__ import annotations

import pytest
from engine_support import deal, match, of_type, reason, run, same_play, texts
from president_engine import CardSet, IllegalActionError, IllegalReason, Match, Play, Rank, Rules, parse_action
from president_engine.events import Played

DECLARED = {"players": 3, "wild_ranks": "6", "joker_alone": "declared"}


def test_wild_rank_card_stands_for_the_natural_cards_it_is_played_with() -> None:
    m = match(None, deal("9C 6D 3C", "10C 10D 4D", "4H 7C"), **DECLARED)
    assert any(same_play(a, Play(CardSet("6D 9C"), rank=Rank.NINE)) for a in m.legal_actions())
    run(m, "9C 6D")
    assert same_play(m.table, Play(CardSet("6D 9C"), rank=Rank.NINE))
    assert texts(m.legal_actions()) == ["10C 10D", "pass"]


def test_a_card_of_a_wild_rank_is_never_natural() -> None:
    m = match(None, deal("6C 6D 3C", "9C 9D 4D", "4H 7C"), **DECLARED)
    # two sixes lead as the wild lead rank (six here), and any pair of 7 or more beats them
    run(m, "6C 6D")
    assert m.table is not None and m.table.rank is Rank.SIX
    assert texts(m.legal_actions()) == ["9C 9D", "pass"]
    # a six with a natural card stands for that card's rank, not for six
    m = match(None, deal("6C 3C 3D", "9C 9D 4D", "4H 7C"), **DECLARED)
    run(m, "3C 6C")
    assert same_play(m.table, Play(CardSet("3C 6C"), rank=Rank.THREE))


def test_wild_lead_rank_is_configurable() -> None:
    m = match(None, deal("6C 3C", "7D 9D", "8H 10C"), **DECLARED, wild_lead_rank="8")
    run(m, "6C")
    assert same_play(m.table, Play(CardSet("6C"), rank=Rank.EIGHT))
    assert texts(m.legal_actions()) == ["9D", "pass"]


def test_declared_rank_on_an_all_wild_follow() -> None:
    m = match(None, deal("9C 3C", "6D 4D", "4H 7C"), **DECLARED)
    run(m, "9C")
    assert texts(m.legal_actions()) == ["6D as 9", "6D as 10", "6D as J", "6D as Q", "6D as K",
                                        "6D as A", "6D as 2", "pass"]
    assert reason(m, "6D") is IllegalReason.BAD_DECLARED_RANK  # a follow of wilds must declare
    assert reason(m, "6D as 6") is IllegalReason.BAD_DECLARED_RANK  # not a wild rank
    assert reason(m, "6D as JK") is IllegalReason.BAD_DECLARED_RANK
    assert reason(m, "6D as 8") is IllegalReason.DOES_NOT_BEAT
    run(m, "6D as K")
    assert m.table == Play(CardSet("6D"), Rank.KING)
    assert str(m.table) == "6D as K"


def test_only_an_all_wild_follow_carries_a_declared_rank() -> None:
    m = match(None, deal("9C 3C", "6D 10D", "4H 7C"), **DECLARED)
    assert reason(m, "9C as K") is IllegalReason.WRONG_RANK
    assert reason(m, "6D as K", 1) is IllegalReason.NOT_YOUR_TURN
    m = match(None, deal("6C 3C", "6D 10D", "4H 7C"), **DECLARED)
    assert reason(m, "6C as K") is IllegalReason.WRONG_RANK  # a lead of wilds is the wild lead rank


def refusal(m: Match, text: str) -> IllegalActionError:
    with pytest.raises(IllegalActionError) as info:
        m.check(parse_action(text))
    return info.value


def test_a_redundant_declaration_is_refused() -> None:
    """RULES 1 "A play": a play that stands for a rank by its cards declares none, not even that rank."""
    m = match(None, deal("9D 3C", "6D 10D", "4H 7C"), **DECLARED)
    refused = refusal(m, "9D as 9")
    assert refused.reason is IllegalReason.WRONG_RANK
    assert str(refused) == "9D stands for its own rank: only a follow of wild cards alone declares a rank"
    norwegian = Rules.preset("norwegian", jokers=1, players=3)
    m = Match(norwegian, hands=[deal("JK 6C 3C", "KC 4D", "5H 7C")])
    refused = refusal(m, "6C as 6")  # nor does a lead of wild cards alone, at the wild lead rank
    assert refused.reason is IllegalReason.WRONG_RANK and "6 when it leads" in str(refused)
    m = Match(norwegian.replace(jokers=2), hands=[deal("JK JK 3C", "KC 4D", "5H 7C")])
    assert reason(m, "JK JK as 6") is IllegalReason.WRONG_RANK
    run(m, "JK JK")
    assert str(m.table) == "JK JK" and m.table is not None and m.table.rank is Rank.SIX
    m = Match(Rules(players=3, jokers=1), hands=[deal("KC JK 3C", "4D", "5H")])
    refused = refusal(m, "KC JK as K")
    assert refused.reason is IllegalReason.WRONG_RANK and "the rank of its natural cards" in str(refused)
    m = Match(Rules(players=3, jokers=1), hands=[deal("JK 3C", "4D", "5H")])
    assert "the joker rank" in str(refusal(m, "JK as JK"))


def test_a_follow_of_wild_cards_alone_declares_and_may_echo_its_rank() -> None:
    """A client that echoes a legal action as cards and rank (the wire protocol) is accepted."""
    m = match(None, deal("9C 9D 3C", "6H 6S 4D", "4H 7C"), **DECLARED)
    run(m, "9C 9D")
    listed = next(a for a in m.legal_actions() if str(a) == "6H 6S as K")
    assert isinstance(listed, Play) and listed.declared is Rank.KING and listed.rank is Rank.KING
    assert m.check(parse_action("6H 6S as K")) is listed
    assert m.check(Play(CardSet("6H 6S"), rank=Rank.KING)) is listed  # the echo: a rank counts as the declaration
    assert m.check(Play(CardSet("6H 6S"), Rank.KING, rank=Rank.KING)) is listed
    assert reason(m, "6H 6S as 6") is IllegalReason.BAD_DECLARED_RANK  # a wrong declaration stays refused
    with pytest.raises(IllegalActionError) as info:
        m.check(Play(CardSet("6H 6S"), Rank.KING, rank=Rank.ACE))  # a claim that contradicts the declaration
    assert info.value.reason is IllegalReason.WRONG_RANK
    with pytest.raises(IllegalActionError) as info:
        m.check(Play(CardSet("6H 6S"), rank=Rank.SIX))
    assert info.value.reason is IllegalReason.BAD_DECLARED_RANK
    run(m, "6H 6S as K")
    played = of_type(m, Played)[-1].play
    assert played is listed and str(played) == "6H 6S as K"


def test_a_play_claims_its_rank_and_check_verifies_it() -> None:
    m = match(None, deal("9C 6D 3C", "10C 10D 4D", "4H 7C"), **DECLARED)
    listed = m.check(Play(CardSet("9C 6D"), rank=Rank.NINE))
    assert listed.rank is Rank.NINE and listed.declared is None and listed in m.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        m.check(Play(CardSet("9C 6D"), rank=Rank.TEN))
    assert info.value.reason is IllegalReason.WRONG_RANK


def test_plays_are_equal_by_cards_and_declared_rank() -> None:
    assert Play(CardSet("9C"), rank=Rank.NINE) == Play(CardSet("9C"))
    assert hash(Play(CardSet("9C"), rank=Rank.NINE)) == hash(Play(CardSet("9C")))
    assert Play(CardSet("6D"), Rank.KING) != Play(CardSet("6D"), rank=Rank.KING)
    assert str(Play(CardSet("6D"), Rank.KING)) == "6D as K" and str(Play(CardSet("JK JK"), rank=Rank.SIX)) == "JK JK"
    assert parse_action("6H 6S as K") == Play(CardSet("6H 6S"), Rank.KING)
    assert parse_action("KS AS") == Play(CardSet("KS AS"))  # "AS" in capitals is the ace of spades


def test_joker_wild_joins_natural_cards() -> None:
    m = match(None, deal("9C JK 3C", "10C 10D 4D", "4H 7C"), players=3, jokers=1)
    assert any(same_play(a, Play(CardSet("9C JK"), rank=Rank.NINE)) for a in m.legal_actions())
    run(m, "9C JK")
    assert texts(m.legal_actions()) == ["10C 10D", "pass"]


def test_joker_alone_high_is_above_every_rank() -> None:
    m = match(None, deal("2C 3C", "JK 4D", "4H 7C"), players=3, jokers=1, joker_alone="high")
    run(m, "2C")
    assert texts(m.legal_actions()) == ["JK", "pass"]
    run(m, "JK")
    assert same_play(m.table, Play(CardSet("JK"), rank=Rank.JOKER))


def test_joker_alone_low_is_below_every_rank() -> None:
    m = match(None, deal("JK 5C", "3C 4D", "4H 7C"), players=3, jokers=1, joker_alone="low")
    run(m, "JK")
    assert texts(m.legal_actions()) == ["3C", "4D", "pass"]
    m = match(None, deal("3C 5C", "JK 4D", "4H 7C"), players=3, jokers=1, joker_alone="low")
    run(m, "3C")
    assert reason(m, "JK") is IllegalReason.DOES_NOT_BEAT


def test_joker_alone_declared_leads_as_the_wild_lead_rank_and_follows_declared() -> None:
    opts = {"players": 3, "jokers": 2, "joker_alone": "declared"}
    m = match(None, deal("JK JK 3C", "7C 7D 4D", "4H 7H"), **opts)
    run(m, "JK JK")
    assert same_play(m.table, Play(CardSet("JK JK"), rank=Rank.SIX))
    assert texts(m.legal_actions()) == ["7C 7D", "pass"]
    m = match(None, deal("8C 3C", "JK 4D", "4H 7H"), **opts)
    run(m, "8C")
    run(m, "JK as Q")
    assert m.table == Play(CardSet("JK"), Rank.QUEEN)


def test_plain_jokers_are_played_only_alone_at_the_joker_rank() -> None:
    opts = {"players": 3, "jokers": 2, "joker_wild": False, "joker_alone": "high"}
    m = match(None, deal("JK JK 9C 3C", "2C 2D 4D", "4H 7H"), **opts)
    assert reason(m, "9C JK") is IllegalReason.JOKER_NOT_WILD
    acts = texts(m.legal_actions())
    assert "JK" in acts and "JK JK" in acts and "9C JK" not in acts
    run(m, "JK JK")  # any number of jokers together is a play of the joker rank
    assert same_play(m.table, Play(CardSet("JK JK"), rank=Rank.JOKER))
    assert texts(m.legal_actions()) == ["pass"]  # the joker rank is above 2s
    m = match(None, deal("JK 9C 3C", "2C 2D 4D", "4H 7H"), players=3, jokers=1, joker_wild=False,
              joker_alone="low")
    run(m, "JK")
    assert texts(m.legal_actions())[:2] == ["4D", "2C"]


def test_jokers_beat_jokers_of_equal_rank_only_with_equal_or_higher() -> None:
    m = match(None, deal("JK 3C", "JK 4D", "4H 7H"), players=3, decks=2, jokers=1)
    run(m, "JK")
    assert texts(m.legal_actions()) == ["JK", "pass"]
    m = match(None, deal("JK 3C", "JK 4D", "4H 7H"), players=3, decks=2, jokers=1, beat="strictly_higher")
    run(m, "JK")
    assert texts(m.legal_actions()) == ["pass"]


def test_wild_cards_count_toward_match_count() -> None:
    m = match(None, deal("9C 9D 3C", "10C JK 6H 4D", "4H 7H"), players=3, jokers=1, wild_ranks="6",
              joker_alone="declared")
    run(m, "9C 9D")
    assert texts(m.legal_actions()) == ["6H JK as 9", "6H 10C", "10C JK", "6H JK as 10", "6H JK as J",
                                        "6H JK as Q", "6H JK as K", "6H JK as A", "6H JK as 2", "pass"]
