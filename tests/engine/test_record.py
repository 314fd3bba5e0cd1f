"""Match records: JSON round trip, replay to the same state, and the checks replay makes."""

from __future__ import annotations

import json
import random

import pytest
from president_engine import CardSet, Match, MatchRecord, Play, Rank, RecordError, Rules, parse_action
from president_engine.record import ReplayError


def _played(rules: Rules, seed: int, hands: list[list[CardSet]] | None = None) -> Match:
    match = Match(rules, seed=seed, hands=hands)
    rng = random.Random(seed)
    while not match.is_over:
        match.apply(rng.choice(match.legal_actions()))
    return match


def test_a_replayed_record_is_the_same_record() -> None:
    match = _played(Rules.preset("norwegian", deals=3), seed=4)
    record = MatchRecord.from_match(match)
    replayed = MatchRecord.loads(record.dumps()).replay()
    assert replayed.events == match.events
    assert MatchRecord.from_match(replayed) == record
    assert all(deal.shuffled for deal in record.deals)
    compact = record.dumps(indent=None)
    assert "\n" not in compact and MatchRecord.loads(compact) == record


def test_explicit_hands_stay_explicit_after_replay() -> None:
    hands = [[CardSet("3C 4C 5C"), CardSet("3D 4D 5D"), CardSet("3H 4H 5H"), CardSet("3S 4S 5S")]]
    match = _played(Rules.preset("cardverse", deals=2), seed=9, hands=hands)
    record = MatchRecord.from_match(match)
    assert [d.shuffled for d in record.deals] == [False, True]
    assert MatchRecord.from_match(record.replay()) == record


def test_a_record_of_some_deals_is_those_deals_of_the_whole() -> None:
    """`from_match(first=, last=)`: the deals a live match's reader asks for (GetReplay's finished_deals)."""
    hands = [[CardSet("3C 4C 5C"), CardSet("3D 4D 5D"), CardSet("3H 4H 5H"), CardSet("3S 4S 5S")]]
    match = _played(Rules.preset("cardverse", deals=6), seed=5, hands=hands)
    whole = MatchRecord.from_match(match)
    for first in range(0, 8):
        for last in range(0, 8):
            part = MatchRecord.from_match(match, first=first, last=last)
            assert part.deals == whole.deals[max(first, 1) - 1:last], (first, last)
            assert (part.rules, part.seed) == (whole.rules, whole.seed)


def test_replay_refuses_hands_the_seed_does_not_deal() -> None:
    data = MatchRecord.from_match(_played(Rules.preset("cardverse"), seed=2)).to_json()
    hands = data["deals"][0]["hands"]
    hands[0], hands[1] = hands[1], hands[0]
    with pytest.raises(RecordError, match="seed 2"):
        MatchRecord.from_json(data).replay()


def test_replay_names_the_first_illegal_action() -> None:
    data = MatchRecord.from_match(_played(Rules.preset("cardverse"), seed=3)).to_json()
    first = data["deals"][0]["actions"][0]
    first["player"] = (first["player"] + 1) % 4
    with pytest.raises(ReplayError) as caught:
        MatchRecord.from_json(data).replay()
    assert caught.value.index == 0 and caught.value.cause.reason.value == "NOT_YOUR_TURN"


@pytest.mark.parametrize("text", ["{}", "[]", '{"format": "president-match/2"}', "not json"])
def test_malformed_records_are_refused(text: str) -> None:
    with pytest.raises(RecordError):
        MatchRecord.loads(text)


def test_actions_are_written_in_the_text_notation() -> None:
    rules = Rules.preset("norwegian", players=3)
    match = Match(rules, hands=[[CardSet("9C 3C"), CardSet("6D 6H 4D"), CardSet("5C 7C")]])
    match.apply(parse_action("9C"))
    match.apply(parse_action("6D as K"))
    data = MatchRecord.from_match(match).to_json()
    assert data["format"] == "president-match/2"
    assert data["deals"][0]["actions"] == [{"player": 0, "action": "9C"}, {"player": 1, "action": "6D as K"}]
    assert MatchRecord.from_json(data).deals[0].actions[1] == (1, Play(CardSet("6D"), Rank.KING))


def test_a_version_1_record_is_refused_by_name() -> None:
    data = MatchRecord.from_match(_played(Rules.preset("cardverse"), seed=1)).to_json()
    data["format"] = "president-match/1"
    with pytest.raises(RecordError, match=r"president-match/1 .* president-match/2"):
        MatchRecord.from_json(data)


@pytest.mark.parametrize("entry", [{"player": 0, "play": "3C"}, {"player": 0, "action": 3},
                                   {"player": "0", "action": "3C"}, {"player": 0, "action": "3C as X"},
                                   {"player": 0, "action": "3X"}])
def test_malformed_actions_are_refused(entry: dict[str, object]) -> None:
    data = MatchRecord.from_match(_played(Rules.preset("cardverse"), seed=1)).to_json()
    data["deals"][0]["actions"][0] = entry
    with pytest.raises(RecordError):
        MatchRecord.from_json(data)


def test_bad_rules_in_a_record_name_the_option() -> None:
    data = MatchRecord.from_match(_played(Rules.preset("cardverse"), seed=1)).to_json()
    data["rules"]["beat"] = "sideways"
    with pytest.raises(RecordError, match="beat"):
        MatchRecord.loads(json.dumps(data))
