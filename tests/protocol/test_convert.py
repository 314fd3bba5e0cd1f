"""president_protocol.convert: every engine value survives the trip to president.v1 and back."""

from __future__ import annotations

import random
from enum import Enum
from typing import Any

import pytest
from google.protobuf.descriptor import EnumDescriptor
from hypothesis import given, settings
from hypothesis import strategies as st
from president_engine import (
    PASS,
    PRESETS,
    Beat,
    Card,
    CardSet,
    FirstLead,
    GiveBack,
    JokerAlone,
    Match,
    MatchRecord,
    NextLead,
    Phase,
    Play,
    Rank,
    Request,
    RevolutionEffect,
    RevolutionTrigger,
    Role,
    Rules,
    Seating,
    Suit,
    TrickEnd,
    visible_to,
)
from president_engine.actions import parse_action
from president_engine.cards import CARDS, JOKER
from president_engine.events import CardsGiven, Event, HandDealt, MatchEnded
from president_engine.rules import DAIFUGO_OPTIONS, OPTION_NAMES
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

# Tables that exercise every event kind when played out at random.
TABLES: dict[str, dict[str, Any]] = {
    "cardverse": {"deals": 3},
    "norwegian": {"deals": 3, "jokers": 1},
    "italian": {"deals": 3, "jokers": 2, "exchange": True, "revolution": True, "equal_skip": True},
    "italian-suits": {"players": 4, "deals": 2, "suit_order": "D C H S", "exchange": True},
}


def table_rules(table: str) -> Rules:
    return Rules.preset(table.split("-")[0], **TABLES[table])


def random_match(rules: Rules, seed: int) -> Match:
    """A match played to the end by picking uniformly among the legal actions."""
    rng = random.Random(seed)
    match = Match(rules, seed=seed)
    while not match.is_over:
        match.apply(rng.choice(match.legal_actions()))
    return match


def through_bytes(msg: Any) -> Any:
    """The message as the other end of a connection would parse it."""
    return type(msg).FromString(msg.SerializeToString())


# ---------------------------------------------------------------------------
# Cards and actions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("card", CARDS, ids=str)
def test_every_card_round_trips(card: Card) -> None:
    msg = through_bytes(convert.card_to_proto(card))
    assert convert.card_from_proto(msg) == card


def test_a_joker_has_the_joker_rank_and_no_suit() -> None:
    msg = convert.card_to_proto(JOKER)
    assert (msg.rank, msg.suit) == (pb.RANK_JOKER, pb.SUIT_UNSPECIFIED)
    assert convert.card_to_proto(Card.parse("10H")) == pb.Card(rank=pb.RANK_TEN, suit=pb.SUIT_HEARTS)


@pytest.mark.parametrize("msg", [
    pb.Card(rank=pb.RANK_JOKER, suit=pb.SUIT_SPADES),
    pb.Card(rank=pb.RANK_ACE),
    pb.Card(suit=pb.SUIT_CLUBS),
    pb.Card(rank=1, suit=pb.SUIT_CLUBS),  # type: ignore[arg-type]
    pb.Card(rank=pb.RANK_TWO, suit=9),  # type: ignore[arg-type]
])
def test_a_card_the_engine_cannot_hold_is_a_wire_error(msg: pb.Card) -> None:
    with pytest.raises(convert.WireError):
        convert.card_from_proto(msg)


def test_card_sets_keep_duplicates_and_order() -> None:
    cards = CardSet("3C 3C 10H JK JK AS 2D")
    msgs = convert.cards_to_proto(cards)
    assert [convert.card_from_proto(m) for m in msgs] == list(cards)
    assert convert.cards_from_proto(msgs) == cards


def test_too_many_copies_is_a_wire_error() -> None:
    with pytest.raises(convert.WireError, match="cards"):
        convert.cards_from_proto([convert.card_to_proto(JOKER)] * 16)


@pytest.mark.parametrize("action", [
    PASS,
    Play(CardSet("7C 7D")),
    Play(CardSet("7C 7D"), rank=Rank.SEVEN),
    Play(CardSet("6H 6S"), Rank.KING, rank=Rank.KING),
    Play(CardSet("6H 6S"), Rank.KING),
    Play(CardSet("JK"), rank=Rank.JOKER),
    GiveBack(CardSet("3C 4D")),
    Request(CardSet("AS 2H")),
    Request(CardSet()),
], ids=str)
def test_every_action_kind_round_trips(action: Any) -> None:
    msg = through_bytes(convert.action_to_proto(action))
    back = convert.action_from_proto(msg)
    assert back == action
    if isinstance(action, Play):
        assert isinstance(back, Play) and (back.rank, back.declared) == (action.rank, action.declared)


def test_an_empty_action_is_a_wire_error() -> None:
    with pytest.raises(convert.WireError, match="action"):
        convert.action_from_proto(pb.Action())


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------

ENUMS: list[tuple[type[Enum], EnumDescriptor, str]] = [
    (Rank, pb.Rank.DESCRIPTOR, "RANK_"),
    (Suit, pb.Suit.DESCRIPTOR, "SUIT_"),
    (Role, pb.Role.DESCRIPTOR, "ROLE_"),
    (Phase, pb.Phase.DESCRIPTOR, "PHASE_"),
    (JokerAlone, pb.JokerAlone.DESCRIPTOR, "JOKER_ALONE_"),
    (Beat, pb.Beat.DESCRIPTOR, "BEAT_"),
    (TrickEnd, pb.TrickEnd.DESCRIPTOR, "TRICK_END_"),
    (RevolutionTrigger, pb.RevolutionTrigger.DESCRIPTOR, "REVOLUTION_TRIGGER_"),
    (RevolutionEffect, pb.RevolutionEffect.DESCRIPTOR, "REVOLUTION_EFFECT_"),
    (FirstLead, pb.FirstLead.DESCRIPTOR, "FIRST_LEAD_"),
    (NextLead, pb.NextLead.DESCRIPTOR, "NEXT_LEAD_"),
    (Seating, pb.Seating.DESCRIPTOR, "SEATING_"),
]


@pytest.mark.parametrize(("engine", "proto", "prefix"), ENUMS, ids=lambda x: getattr(x, "__name__", ""))
def test_every_engine_enum_has_exactly_its_proto_values(engine: type[Enum], proto: EnumDescriptor,
                                                         prefix: str) -> None:
    names = {v.name for v in proto.values} - {prefix + "UNSPECIFIED"}
    assert names == {prefix + member.name for member in engine}


def test_rules_message_has_exactly_the_engine_options() -> None:
    assert set(pb.Rules.DESCRIPTOR.fields_by_name) == set(OPTION_NAMES) | set(DAIFUGO_OPTIONS)


def test_the_daifugo_options_travel_only_when_set() -> None:
    rules = Rules.preset("cardverse", jokers=1, sequences=True, eight_stop=True, suit_lock=True, jack_back=True,
                         six_reverse=True, tribute_suits="S H D C", pass_count=True, leader_may_pass=True,
                         pass_limit=20, trick_end="all_pass", pass_is_final=True)
    msg = through_bytes(convert.rules_to_proto(rules))
    assert {f.name for f, _ in msg.ListFields()} >= set(DAIFUGO_OPTIONS) - {
        "joker_spade_three", "deal_from", "reseat_every", "rank_reset_every"}
    assert convert.rules_from_proto(msg) == rules
    contest = Rules.preset("daifugo", jack_back=True, six_reverse=True)
    msg = through_bytes(convert.rules_to_proto(contest))
    assert {f.name for f, _ in msg.ListFields()} >= set(DAIFUGO_OPTIONS)
    assert convert.rules_from_proto(msg) == contest
    plain = through_bytes(convert.rules_to_proto(Rules.preset("cardverse")))
    assert not {f.name for f, _ in plain.ListFields()} & set(DAIFUGO_OPTIONS)


@pytest.mark.parametrize("text", ["9S 10S JK=JS", "3H JK=loH 4H", "KC KD KH KS JK=K", "2D AD JK=hiD"])
def test_a_joker_in_a_cell_round_trips(text: str) -> None:
    play = parse_action(text)
    assert isinstance(play, Play) and play.cell is not None
    assert convert.action_from_proto(through_bytes(convert.action_to_proto(play))) == play


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [3, 4, 5, 7])
def test_every_preset_round_trips_with_every_field_set(preset: str, players: int) -> None:
    rules = Rules.preset(preset, players=players)
    msg = through_bytes(convert.rules_to_proto(rules))
    changed = {name for name in DAIFUGO_OPTIONS if getattr(rules, name) != getattr(Rules(), name)}
    assert {f.name for f, _ in msg.ListFields()} == (set(OPTION_NAMES) - {"target_score"}) | changed
    assert convert.rules_from_proto(msg) == rules


@pytest.mark.parametrize("overrides", [
    {"target_score": 12},
    {"deals": 4, "target_score": 30},
    {"decks": 2, "jokers": 2, "joker_alone": "low"},
    {"suit_order": "D C H S"},
    {"wild_ranks": "6 9", "joker_alone": "declared", "wild_lead_rank": "9"},
    {"revolution": True, "revolution_triggers": ["four_singles", "four_of_a_kind"],
     "revolution_effect": "ranks_and_direction"},
    {"rank_order": "2 3 4 5 6 7 8 9 10 J Q K A", "points": [5, 0, 0, 1]},
    {"revolution": False, "revolution_triggers": []},
])
def test_overridden_rules_round_trip(overrides: dict[str, Any]) -> None:
    rules = Rules.preset("cardverse", **overrides)
    assert convert.rules_from_proto(through_bytes(convert.rules_to_proto(rules))) == rules


def test_unlimited_deals_are_unset() -> None:
    msg = convert.rules_to_proto(Rules.preset("italian", target_score=5))
    assert not msg.HasField("deals")
    assert msg.target_score == 5


# ---------------------------------------------------------------------------
# Events, observations, prompts, results and records from played matches
# ---------------------------------------------------------------------------

def test_the_tables_produce_every_event_kind() -> None:
    kinds = set()
    for table in TABLES:
        for seed in range(4):
            match = random_match(table_rules(table), seed)
            kinds |= {convert.event_to_proto(event, 1).WhichOneof("kind") for event in match.events}
    engine_kinds = {f.name for f in pb.Event.DESCRIPTOR.oneofs_by_name["kind"].fields} - convert.SERVICE_EVENTS
    assert kinds == engine_kinds


@settings(max_examples=25, deadline=None)
@given(table=st.sampled_from(sorted(TABLES)), seed=st.integers(0, 2**32))
def test_events_round_trip_for_every_viewer(table: str, seed: int) -> None:
    match = random_match(table_rules(table), seed)
    for viewer in [*range(match.rules.players), None]:
        for seq, event in enumerate(match.events, 1):
            shown = visible_to(event, viewer)
            if shown is None:
                continue
            msg = through_bytes(convert.event_to_proto(shown, seq))
            assert msg.seq == seq
            assert convert.event_from_proto(msg) == shown


def test_an_outsider_sees_exchange_counts_without_cards() -> None:
    match = random_match(table_rules("cardverse"), 3)
    given_events = [e for e in match.events if isinstance(e, CardsGiven)]
    assert given_events
    for event in given_events:
        outsider = next(p for p in range(match.rules.players) if p not in (event.giver, event.receiver))
        shown = visible_to(event, outsider)
        assert isinstance(shown, CardsGiven)
        msg = convert.event_to_proto(shown, 9).cards_given
        assert not msg.HasField("cards")
        assert msg.count == event.count
        assert convert.event_to_proto(event, 9).cards_given.HasField("cards")


def test_service_events_have_no_engine_form() -> None:
    strike = pb.Event(seq=7, strike_recorded=pb.StrikeRecorded(player=2, strikes=1))
    assert convert.event_from_proto(strike) is None
    assert convert.event_from_proto(pb.Event(seq=8, seat_taken_over=pb.SeatTakenOver(player=2))) is None
    with pytest.raises(convert.WireError):
        convert.event_from_proto(pb.Event(seq=1))


@settings(max_examples=8, deadline=None)
@given(table=st.sampled_from(sorted(TABLES)), seed=st.integers(0, 2**32))
def test_observations_and_prompts_round_trip_at_every_step(table: str, seed: int) -> None:
    rules = table_rules(table)
    rng = random.Random(seed)
    match = Match(rules, seed=seed)
    while True:
        for player in range(rules.players):
            obs = match.observation(player)
            msg = through_bytes(convert.observation_to_proto(obs))
            assert convert.observation_from_proto(msg, rules, obs.legal_actions) == obs
            # a player's observation given where a spectator's is wanted still shows only the public part
            public = through_bytes(convert.public_observation_to_proto(obs))
            assert not public.HasField("player") and not public.hand and public.owed == 0
            assert not any(given.HasField("cards") for given in public.exchange)
        spectator = match.public_observation()
        msg = through_bytes(convert.public_observation_to_proto(spectator))
        assert msg == public
        assert convert.public_observation_from_proto(msg, rules) == spectator
        if match.is_over:
            break
        to_act = match.to_act
        assert to_act is not None
        prompt = through_bytes(convert.prompt_to_proto(len(match.events), match.observation(to_act)))
        assert convert.prompt_from_proto(prompt, rules) == match.observation(to_act)
        match.apply(rng.choice(match.legal_actions()))


def test_a_spectator_view_is_not_a_player_observation() -> None:
    obs = Match(Rules.preset("cardverse"), seed=1).observation(0)
    with pytest.raises(convert.WireError, match="player"):
        convert.observation_from_proto(convert.public_observation_to_proto(obs), obs.rules)


@settings(max_examples=20, deadline=None)
@given(table=st.sampled_from(sorted(TABLES)), seed=st.integers(0, 2**32))
def test_match_result_and_replay_round_trip(table: str, seed: int) -> None:
    match = random_match(table_rules(table), seed)
    ended = match.events[-1]
    assert isinstance(ended, MatchEnded)
    assert convert.match_result_from_proto(through_bytes(convert.match_result_to_proto(ended))) == ended
    record = MatchRecord.from_match(match)
    names = [f"bot{p}" for p in range(match.rules.players)]
    msg = through_bytes(convert.replay_to_proto(record, names=names, result=ended))
    assert list(msg.names) == names
    assert convert.replay_from_proto(msg) == record
    assert convert.replay_from_proto(msg).replay().events == match.events


def test_a_replay_of_explicit_hands_keeps_them() -> None:
    hands = [CardSet("3C 4C"), CardSet("5C 6C"), CardSet("7C 8C 9C")]
    match = Match(Rules.preset("cardverse", players=3), seed=5, hands=[hands])
    while not match.is_over:
        match.apply(match.legal_actions()[0])
    ended = match.events[-1]
    assert isinstance(ended, MatchEnded)
    record = MatchRecord.from_match(match)
    back = convert.replay_from_proto(convert.replay_to_proto(record, names=["a", "b", "c"], result=ended))
    assert back == record
    assert back.deals[0].hands == tuple(hands) and not back.deals[0].shuffled


def test_a_dealt_hand_event_carries_the_whole_hand() -> None:
    match = Match(Rules.preset("norwegian"), seed=2)
    dealt: list[Event] = [e for e in match.events if isinstance(e, HandDealt)]
    assert len(dealt) == 4
    for event in dealt:
        assert isinstance(event, HandDealt)
        msg = convert.event_to_proto(event, 1).hand_dealt
        assert convert.cards_from_proto(msg.cards) == match.hand(event.player)
