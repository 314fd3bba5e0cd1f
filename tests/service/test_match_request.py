"""Reading CreateMatchRequest: the preset with only the set fields changed, and every bad value named."""

from __future__ import annotations

import pytest
from president_engine import PASS, PRESETS, JokerAlone, Rules, RulesError
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_service.base.errors import Reason, ServiceError
from president_service.play.clock import ClockSettings
from president_service.play.match_request import read_match_request, rules_from_request
from president_service.play.shared_events import event_message
from president_service.play.strike import Strike, TakenOver


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [3, 4, 5, 7])
def test_effective_rules_sent_back_as_overrides_give_the_same_rules(preset: str, players: int) -> None:
    rules = Rules.preset(preset, players=players)
    assert rules_from_request(preset, convert.rules_to_proto(rules)) == rules


def test_only_set_fields_override_the_preset() -> None:
    assert rules_from_request("norwegian", pb.Rules()) == Rules.preset("norwegian")
    overrides = pb.Rules(players=5, pass_is_final=False, wild_ranks=pb.RankList(), suit_order=pb.SuitList(),
                         joker_alone=pb.JOKER_ALONE_HIGH)
    assert convert.overrides_from_proto(overrides) == {
        "players": 5, "pass_is_final": False, "wild_ranks": frozenset(), "suit_order": None,
        "joker_alone": JokerAlone.HIGH}
    assert rules_from_request("norwegian", overrides) == Rules.preset(
        "norwegian", players=5, wild_ranks=[], joker_alone="high")


@pytest.mark.parametrize(("preset", "msg", "option"), [
    ("cardverse", pb.Rules(players=2), "players"),
    ("cardverse", pb.Rules(joker_alone=pb.JOKER_ALONE_UNSPECIFIED), "joker_alone"),
    ("cardverse", pb.Rules(wild_lead_rank=pb.RANK_JOKER), "wild_lead_rank"),
    ("cardverse", pb.Rules(rank_order=pb.RankList(ranks=[pb.RANK_TWO])), "rank_order"),
    ("cardverse", pb.Rules(suit_order=pb.SuitList(suits=[pb.SUIT_UNSPECIFIED] * 4)), "suit_order"),
    ("cardverse", pb.Rules(points=pb.PointList(points=[1, 2])), "points"),
    ("norwegian", pb.Rules(exchange=False), "exchange_requests"),
    ("chess", pb.Rules(), "preset"),
])
def test_a_bad_override_names_its_option(preset: str, msg: pb.Rules, option: str) -> None:
    with pytest.raises(RulesError) as info:
        rules_from_request(preset, msg)
    assert info.value.option == option


def test_a_bad_clock_is_bad_option_naming_the_setting() -> None:
    request = pb.CreateMatchRequest(preset="cardverse", clock=pb.ClockSettings(move_time_limit_ms=10**9))
    with pytest.raises(ServiceError) as info:
        read_match_request(request, ClockSettings())
    assert info.value.reason is Reason.BAD_OPTION and info.value.metadata == {"option": "move_ms"}


def test_a_card_that_cannot_exist_is_malformed() -> None:
    suitless_two = pb.Hand(cards=[pb.Card(rank=pb.RANK_TWO)])
    request = pb.CreateMatchRequest(preset="cardverse", deals=[pb.DealHands(hands=[suitless_two])])
    with pytest.raises(ServiceError) as info:
        read_match_request(request, ClockSettings())
    assert info.value.reason is Reason.MALFORMED and "deals[0].hands[0]" in info.value.message


def test_explicit_seats_are_read_by_deal_and_empty_ones_are_the_rules() -> None:
    hand = pb.Hand(cards=[pb.Card(rank=pb.RANK_TWO, suit=pb.SUIT_CLUBS)])
    unseated = pb.CreateMatchRequest(preset="cardverse", deals=[pb.DealHands(hands=[hand])] * 2)
    assert read_match_request(unseated, ClockSettings()).seats == ()
    seated = pb.CreateMatchRequest(preset="cardverse", deals=[pb.DealHands(hands=[hand]),
                                                              pb.DealHands(hands=[hand], seats=[3, 1, 0, 2])])
    assert read_match_request(seated, ClockSettings()).seats == (None, (3, 1, 0, 2))


def test_unset_fields_take_the_servers_defaults() -> None:
    clock = ClockSettings(move_ms=5, bank_ms=6, max_strikes=7)
    asked = read_match_request(pb.CreateMatchRequest(preset="italian"), clock)
    assert asked.rules == Rules.preset("italian") and asked.clock == clock and asked.seed is None
    assert asked.hands == () and asked.seats == () and asked.names == () and not asked.open_seats


def test_service_events_on_the_wire() -> None:
    strike = event_message(Strike(2, 1, PASS, None), 7)
    assert strike.seq == 7 and strike.strike_recorded.action.WhichOneof("kind") == "pass_turn"
    assert not event_message(Strike(2, 1, None, None), 7).strike_recorded.HasField("action")
    assert event_message(TakenOver(2), 8).seat_taken_over.player == 2
