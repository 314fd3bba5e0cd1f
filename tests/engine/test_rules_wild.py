"""RULES 1 "A play": wild ranks, wild jokers, joker_alone high/low/declared, wild_lead_rank, plain jokers."""

from __future__ import annotations

from engine_support import deal, match, reason, run, texts
from president_engine import CardSet, IllegalReason, Play, Rank, parse_action

DECLARED = {"players": 3, "wild_ranks": "6", "joker_alone": "declared"}


def test_wild_rank_card_stands_for_the_natural_cards_it_is_played_with() -> None:
    m = match(None, deal("9C 6D 3C", "10C 10D 4D", "4H 7C"), **DECLARED)
    assert Play(CardSet("6D 9C"), Rank.NINE) in m.legal_actions()
    run(m, "9C 6D")
    assert m.table == Play(CardSet("6D 9C"), Rank.NINE)
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
    assert m.table == Play(CardSet("3C 6C"), Rank.THREE)


def test_wild_lead_rank_is_configurable() -> None:
    m = match(None, deal("6C 3C", "7D 9D", "8H 10C"), **DECLARED, wild_lead_rank="8")
    run(m, "6C")
    assert m.table == Play(CardSet("6C"), Rank.EIGHT)
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
    m.check(parse_action("6C as 6"))  # naming that rank is fine


def test_joker_wild_joins_natural_cards() -> None:
    m = match(None, deal("9C JK 3C", "10C 10D 4D", "4H 7C"), players=3, jokers=1)
    assert Play(CardSet("9C JK"), Rank.NINE) in m.legal_actions()
    run(m, "9C JK")
    assert texts(m.legal_actions()) == ["10C 10D", "pass"]


def test_joker_alone_high_is_above_every_rank() -> None:
    m = match(None, deal("2C 3C", "JK 4D", "4H 7C"), players=3, jokers=1, joker_alone="high")
    run(m, "2C")
    assert texts(m.legal_actions()) == ["JK", "pass"]
    run(m, "JK")
    assert m.table == Play(CardSet("JK"), Rank.JOKER)


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
    assert m.table == Play(CardSet("JK JK"), Rank.SIX)
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
    assert m.table == Play(CardSet("JK JK"), Rank.JOKER)
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
