"""Daifugō sequences (UECDA 4.2-4.3) and the joker's cell: listing, legality, text, records, views, perft."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest
from engine_support import deal, does_not_beat, match, perft, reason, run, texts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from president_engine import (
    PASS,
    Action,
    CardParseError,
    CardSet,
    IllegalActionError,
    IllegalReason,
    Match,
    MatchRecord,
    Play,
    Rank,
    Rules,
    RulesError,
    Suit,
    fallback_action,
    parse_action,
    visible_to,
)
from president_engine.action_space import ActionSpaceError, action_space
from president_engine.actions import Cell
from president_engine.cards import SLOT_BITS, SLOT_COUNT, full_deck, slot_count
from president_engine.events import HandDealt, Played
from president_engine.observation_tensor import observation_fields

SEQ: dict[str, Any] = {"players": 3, "jokers": 1, "sequences": True, "beat": "strictly_higher", "pass_is_final": True}
"""Three players, the 53-card deck, sequences, strictly higher and final passes, as in the contest."""
REV = {"revolution": True, "revolution_triggers": ["four_of_a_kind"]}




def plays_of(m: Match) -> list[str]:
    return [str(a) for a in m.legal_actions() if isinstance(a, Play)]


def sequences_of(m: Match) -> list[str]:
    return [str(a) for a in m.legal_actions() if isinstance(a, Play) and len({c.rank for c in a.cards}
                                                                              - {Rank.JOKER}) > 1]


# ---------------------------------------------------------------------------- listing


def test_a_lead_lists_every_group_then_every_sequence() -> None:
    m = match(None, deal("3S 4S 5S 6S 9H", "KC", "QC"), **SEQ)
    assert texts(m.legal_actions()) == ["3S", "4S", "5S", "6S", "9H", "3S 4S 5S", "3S 4S 5S 6S", "4S 5S 6S"]
    assert fallback_action(m.legal_actions()) == parse_action("3S")  # the lowest single, as without sequences


def test_the_joker_takes_any_cell_of_a_run_even_one_whose_card_is_kept() -> None:
    m = match(None, deal("9S 10S JS JK", "KC", "QC"), **SEQ)
    # by weakest end, then length, then without the joker first, then the joker's column
    assert sequences_of(m) == [
        "9S 10S JK=8S", "9S 10S JS JK=8S",
        "9S 10S JS", "10S JS JK=9S", "9S JS JK=10S", "9S 10S JK=JS", "9S 10S JS JK=QS",
        "10S JS JK=QS",
    ]


def test_the_joker_stands_below_the_3_and_above_the_2() -> None:
    m = match(None, deal("3D 4D AH 2H JK", "KC", "QC"), **SEQ)
    assert sequences_of(m) == ["3D 4D JK=loD", "3D 4D JK=5D", "2H AH JK=KH", "2H AH JK=hiH"]


def test_the_joker_of_a_group_takes_each_free_suit_or_the_fifth_cell() -> None:
    m = match(None, deal("KC KH JK 4C", "3C", "3D"), **SEQ)
    assert [t for t in plays_of(m) if t.startswith("K")] == [
        "KC", "KH", "KC KH", "KC JK=KD", "KC JK=KH", "KC JK=KS", "KH JK=KC", "KH JK=KD", "KH JK=KS",
        "KC KH JK=KD", "KC KH JK=KS"]
    assert plays_of(m)[-1] == "JK"  # alone, at the joker rank: no cell
    m = match(None, deal("KC KD KH KS JK", "3C", "3D"), **SEQ)
    assert "KC KD KH KS JK=K" in plays_of(m)


def test_without_joker_cells_a_joker_play_is_as_before() -> None:
    m = match(None, deal("KC KH JK 4C", "3C", "3D"), players=3, jokers=1)
    assert "KC JK" in plays_of(m) and not any("=" in t for t in plays_of(m))


# ---------------------------------------------------------------------------- following


def test_a_sequence_is_beaten_only_by_one_of_its_length_wholly_above_it() -> None:
    m = match(None, deal("3S 4S 5S 9C", "5H 6H 7H 8H 6C 6D 6S", "QC"), **SEQ)
    run(m, "3S 4S 5S")
    assert texts(m.legal_actions()) == ["6H 7H 8H", "pass"]  # 5H 6H 7H shares the 5: equal never beats
    assert reason(m, "5H 6H 7H") is IllegalReason.DOES_NOT_BEAT
    assert reason(m, "5H 6H 7H 8H") is IllegalReason.WRONG_COUNT
    assert does_not_beat(m, "6C 6D 6S") == "3S 4S 5S is followed only by a sequence"
    run(m, "6H 7H 8H")
    assert m.table == parse_action("6H 7H 8H")


def test_a_group_is_not_beaten_by_a_sequence() -> None:
    m = match(None, deal("3C 3D 3H 9C", "5H 6H 7H 8C", "QC"), **SEQ)
    run(m, "3C 3D 3H")
    assert does_not_beat(m, "5H 6H 7H") == "3C 3D 3H is followed only by cards of one rank"
    assert texts(m.legal_actions()) == ["pass"]


def test_the_joker_below_the_3_makes_the_lowest_sequence() -> None:
    m = match(None, deal("3D 4D JK 9C", "4H 5H 6H 5S 6S 7S", "QC"), **SEQ)
    run(m, "3D 4D JK=loD")
    assert sequences_of(m) == ["5S 6S 7S"]  # 4H 5H 6H reaches down to the 4


def test_in_a_revolution_a_sequence_must_end_below_the_table() -> None:
    m = match(None, deal("8C 9C 10C JC QC 9H", "3H 4H 5H 6H 7H 6D", "2C"), **SEQ, **REV)
    run(m, "8C 9C 10C JC QC")
    assert m.reversed
    assert texts(m.legal_actions()) == ["3H 4H 5H 6H 7H", "pass"]


def test_above_the_2_is_beaten_by_nothing_in_the_normal_order() -> None:
    m = match(None, deal("AH 2H JK 9C", "3S 4S 5S 10D JD QD", "QC"), **SEQ)
    run(m, "2H AH JK=hiH")
    assert texts(m.legal_actions()) == ["pass"]


# ---------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(("play", "why"), [
    ("3S 4H 5S", IllegalReason.MIXED_RANKS),  # two suits
    ("3S 5S 6S", IllegalReason.MIXED_RANKS),  # a gap
    ("3S 4S", IllegalReason.MIXED_RANKS),  # two cards
    ("3S 4S JK", IllegalReason.BAD_DECLARED_RANK),  # where does the joker stand?
    ("3S 4S JK=4S", IllegalReason.BAD_DECLARED_RANK),  # a cell the play's own card takes
    ("3S 4S JK=5H", IllegalReason.BAD_DECLARED_RANK),  # another suit
    ("3S 4S JK=7S", IllegalReason.MIXED_RANKS),  # not next to the run
    ("3S 4S 5S JK=hiS", IllegalReason.MIXED_RANKS),
    ("3S 4S 5S as 3", IllegalReason.WRONG_RANK),
    ("KS JK", IllegalReason.BAD_DECLARED_RANK),  # a group's joker needs its suit
    ("KS JK=KS", IllegalReason.BAD_DECLARED_RANK),
    ("KS JK=QH", IllegalReason.BAD_DECLARED_RANK),
    ("KS JK=K", IllegalReason.BAD_DECLARED_RANK),  # the fifth cell only with all four suits
    ("JK=3S", IllegalReason.BAD_DECLARED_RANK),  # alone it has no cell
    ("3S KS", IllegalReason.MIXED_RANKS),
])
def test_refusals_name_the_rule(play: str, why: IllegalReason) -> None:
    m = match(None, deal("3S 4S 5S 6S 4H KS JK", "KC", "QC"), **SEQ)
    assert reason(m, play) is why


def test_a_sequence_stands_for_its_lowest_natural_card() -> None:
    m = match(None, deal("3S 4S 5S JK", "KC", "QC"), **SEQ)
    resolved = m.check(parse_action("3S 4S JK=loS"))
    assert isinstance(resolved, Play) and resolved.rank is Rank.THREE and resolved.cell == Cell(0, Suit.SPADES)
    resolved = m.check(parse_action("4S 5S JK=3S"))
    assert isinstance(resolved, Play) and resolved.rank is Rank.FOUR
    assert m.check(Play(CardSet("3S 4S 5S"), rank=Rank.THREE)) == parse_action("3S 4S 5S")
    with pytest.raises(IllegalActionError) as refused:
        m.check(Play(CardSet("3S 4S 5S"), rank=Rank.FIVE))
    assert refused.value.reason is IllegalReason.WRONG_RANK


def test_mixed_ranks_without_sequences_stay_mixed_ranks() -> None:
    m = match(None, deal("3S 4S 5S", "KC", "QC"), players=3)
    assert reason(m, "3S 4S 5S") is IllegalReason.MIXED_RANKS
    with pytest.raises(CardParseError):
        parse_action("3S 4S 5S=4S")  # only a joker takes a cell


def test_a_cell_without_joker_cells_is_refused() -> None:
    m = match(None, deal("KS JK 3C", "KC", "QC"), players=3, jokers=1)
    assert reason(m, "KS JK=KH") is IllegalReason.BAD_DECLARED_RANK


# ---------------------------------------------------------------------------- text, records, views


@pytest.mark.parametrize("text", ["9S 10S JK=JS", "3D 4D JK=loD", "2H AH JK=hiH", "KC KD KH KS JK=K", "KC JK=KS",
                                  "3S 4S 5S", "JK"])
def test_text_form_round_trips(text: str) -> None:
    assert str(parse_action(text)) == text


def test_cells() -> None:
    assert Cell.parse("10S") == Cell(8, Suit.SPADES) and Cell(8, Suit.SPADES).rank is Rank.TEN
    assert Cell.parse("loH") == Cell(0, Suit.HEARTS) and Cell(0, Suit.HEARTS).rank is None
    assert Cell.parse("hiC") == Cell(14, Suit.CLUBS)
    assert Cell.parse("2") == Cell(13, None)
    for bad in ("JK", "x", "lo", "hi"):
        with pytest.raises(ValueError):
            Cell.parse(bad)
    with pytest.raises(ValueError):
        Cell(15, Suit.CLUBS)
    with pytest.raises(ValueError):
        Cell(0, None)
    with pytest.raises(ValueError):
        parse_action("3S=4S 5S")


def test_a_record_with_sequences_and_cells_replays() -> None:
    rules = Rules(players=5, jokers=1, sequences=True, suit_lock=True, beat="strictly_higher", pass_is_final=True,
                  deals=2, exchange=True, **REV)
    m = Match(rules, seed=11)
    rng = random.Random(11)
    while not m.is_over:
        m.apply(rng.choice(m.legal_actions()))
    assert any(isinstance(e, Played) and e.play.cell is not None for e in m.events)
    text = MatchRecord.from_match(m).dumps()
    again = MatchRecord.loads(text).replay()
    assert again.events == m.events and again.scores == m.scores
    assert '"sequences": true' in text and "eight_stop" not in text


def test_a_sequences_joker_cell_is_public_and_hands_stay_hidden() -> None:
    m = match(None, deal("9S 10S JK 3C", "KC 4D", "QC 4H"), **SEQ)
    run(m, "9S 10S JK=JS")
    played = [e for e in m.events if isinstance(e, Played)][-1]
    assert visible_to(played, 1) == played and visible_to(played, None) == played
    assert played.play.cell == Cell.parse("JS")
    dealt = [e for e in m.events if isinstance(e, HandDealt)]
    assert all(visible_to(e, None) is None and visible_to(e, (e.player + 1) % 3) is None for e in dealt)
    assert m.observation(1).table == parse_action("9S 10S JK=JS")


def test_a_world_from_a_view_goes_on_with_the_sequence_on_the_table() -> None:
    m = match(None, deal("9S 10S JK 3C", "KC QC JC 4D 5D 6D", "QD 4H"), **SEQ)
    run(m, "9S 10S JK=JS")
    view = m.observation(1)
    world = Match.from_view(view, [m.hand(p) for p in range(3)])
    assert world.legal_actions() == m.legal_actions()
    assert texts(world.legal_actions()) == ["pass"]  # 4D 5D 6D is below, KC QC JC is not one suit


# ---------------------------------------------------------------------------- options


@pytest.mark.parametrize(("options", "option"), [
    ({"decks": 2}, "sequences"),
    ({"jokers": 2}, "sequences"),
    ({"joker_alone": "declared"}, "sequences"),
    ({"suit_order": "D C H S"}, "sequences"),
    ({"rank_order": "2 3 4 5 6 7 8 9 10 J Q K A"}, "rank_order"),
])
def test_sequences_need_the_contests_card_model(options: dict[str, Any], option: str) -> None:
    with pytest.raises(RulesError) as refused:
        Rules(**{**SEQ, **options})
    assert refused.value.option == option


def test_every_preset_takes_sequences() -> None:
    for name in ("italian", "norwegian", "cardverse"):
        overrides: dict[str, Any] = {"sequences": True, "jokers": 1}
        if name == "norwegian":
            overrides.update(joker_alone="high", wild_ranks=[])
        rules = Rules.preset(name, **overrides)
        assert rules.sequences and rules.to_dict()["sequences"] is True
        assert Rules.from_dict(rules.to_dict()) == rules


def test_the_encoding_refuses_sequence_rules_by_name() -> None:
    for option in ("sequences", "suit_lock"):
        rules = Rules(**{**SEQ, "sequences": option == "sequences", option: True})
        with pytest.raises(ActionSpaceError) as refused:
            action_space(rules)
        assert refused.value.option == option
        with pytest.raises(ActionSpaceError):
            observation_fields(rules)
    assert action_space(Rules(jokers=1, eight_stop=True, jack_back=True, six_reverse=True,
                              joker_spade_three=True)).size == action_space(Rules(jokers=1)).size


# ---------------------------------------------------------------------------- listing equals legality


def sub_multisets(cards: CardSet) -> Iterator[CardSet]:
    slots = [slot for slot in range(SLOT_COUNT) if slot_count(cards.bits, slot)]
    for counts in itertools.product(*(range(slot_count(cards.bits, s) + 1) for s in slots)):
        bits = sum(c << (slot * SLOT_BITS) for slot, c in zip(slots, counts, strict=True))
        if bits:
            yield CardSet.from_bits(bits)


CELLS = [Cell(column, suit) for column in range(15) for suit in Suit] + [Cell(c, None) for c in range(1, 14)]


def candidates(m: Match) -> Iterator[Action]:
    """Pass, and every sub-multiset of the hand as a play, with the joker in every cell of the table."""
    player = m.to_act
    assert player is not None
    yield PASS
    for cards in sub_multisets(m.hand(player)):
        yield Play(cards)
        if cards.count_rank(Rank.JOKER) and len(cards) > 1:
            yield from (Play(cards, cell=cell) for cell in CELLS)


def accepted(m: Match) -> list[Action]:
    found = []
    for candidate in candidates(m):
        try:
            found.append(m.check(candidate))
        except IllegalActionError:
            continue
    return found


def check_listing_is_legality(m: Match) -> None:
    listed = m.legal_actions()
    assert len(set(listed)) == len(listed)
    for action in listed:
        assert m.check(action) is not None
        assert m.check(parse_action(str(action))) == action
    assert sorted(map(str, accepted(m))) == sorted(map(str, listed))


DAIFUGO = {**SEQ, "players": 4, "suit_lock": True, "eight_stop": True, "joker_spade_three": True,
           "jack_back": True, "six_reverse": True, **REV}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(3, 5), size=st.integers(4, 7), data=st.data())
def test_listed_actions_are_exactly_the_accepted_ones(seed: int, players: int, size: int,
                                                      data: st.DataObject) -> None:
    """Random small hands from the 53-card deck, every option on or off: at every step list == legality."""
    rng = random.Random(seed)
    toggles = {name: data.draw(st.booleans()) for name in ("suit_lock", "eight_stop", "joker_spade_three",
                                                            "jack_back", "six_reverse", "revolution")}
    turn = data.draw(st.sampled_from([{}, {"pass_count": True}, {"pass_count": True, "leader_may_pass": True,
                                                                   "pass_limit": 20}]))
    rules = Rules(**{**DAIFUGO, "players": players, **toggles, **turn})
    deck = list(full_deck(1, 1))
    rng.shuffle(deck)
    hands = [CardSet(deck[p * size:(p + 1) * size]) for p in range(players)]
    m = Match(rules, hands=[hands])
    steps = 0
    while not m.is_over:
        check_listing_is_legality(m)
        actor = m.to_act
        assert actor is not None
        world = Match.from_view(m.observation(actor), [m.hand(p) for p in range(players)])
        assert world.legal_actions() == m.legal_actions()  # the lock, 11-back and the table come from the view
        assert world.suit_lock == m.suit_lock and world.jack_back == m.jack_back
        m.apply(rng.choice(m.legal_actions()))
        steps += 1
        assert steps < 500
    assert MatchRecord.loads(MatchRecord.from_match(m).dumps()).replay().events == m.events


# ---------------------------------------------------------------------------- perft


PERFT_RULES = {**DAIFUGO, "players": 5}
"""Every Daifugō option on, five players, the seeded shuffle of the 53-card deck.

The counts were walked once by `perft` and checked at depth 3 by a brute force (at every node `check` of
every candidate of `candidates`, which must accept exactly the listed actions): 725 and 396 both ways.
"""


@pytest.mark.parametrize(("seed", "depth", "expected"), [(1, 6, 41351), (2, 6, 35818)])
def test_perft(seed: int, depth: int, expected: int) -> None:
    assert perft(Match(Rules(**PERFT_RULES), seed=seed), depth) == expected


def test_brute_force_agrees_at_the_root() -> None:
    for seed in (1, 2):
        check_listing_is_legality(Match(Rules(**PERFT_RULES), seed=seed))
