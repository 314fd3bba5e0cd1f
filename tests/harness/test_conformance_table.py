"""A conformance case's match is the server's: its runner plays it, the server's SeatFeed serves the bot's seat and
the server's act path applies the bot's acts, while the suite judges each act (whose turn, how late, how legal)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from president_engine import fallback_action
from president_harness.conformance.cases import ContractError, Setting, Situation
from president_harness.conformance.table import RunnerLoop, Table
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_service.play.feeds import SeatFeed, shared_events

_made = iter(range(1, 1000))
PLAIN = Setting("cardverse", 4)


@pytest.fixture
def loop() -> Iterator[RunnerLoop]:
    runners = RunnerLoop()
    yield runners
    runners.close()


def table(loop: RunnerLoop, *, late_start: bool = False, setting: Setting = PLAIN) -> Table:
    return Table(f"m{next(_made)}", setting, first_seed=1, move_s=10.0, late_start=late_start, loop=loop)


def kinds(messages: list[pb.PlayResponse]) -> list[str]:
    return [str(m.WhichOneof("kind")) for m in messages]


def an_act(t: Table) -> pb.Act:
    """The fallback move for the bot's open turn, on the wire."""
    assert t.turn is not None
    action = t.runner.match.legal_actions()[0]
    return pb.Act(turn_id=t.turn.turn_id, action=convert.action_to_proto(action))


def test_the_opening_is_what_the_servers_seat_feed_sends(loop: RunnerLoop) -> None:
    t = table(loop)
    opening = t.opening(0)
    assert kinds(opening)[0] == "welcome" and kinds(opening)[-2:] == ["snapshot", "prompt"]
    assert opening[0].welcome.clock.move_time_limit_ms == 10_000 and opening[0].welcome.bot_seed == t.seed
    assert opening[0].welcome.names[t.player] == "bot"
    fresh = loop.run(lambda: SeatFeed(t.runner, t.player, shared_events(t.runner), 0).due()[0])
    assert opening[1:-1] == fresh[:-1]  # the same events and snapshot
    prompt = opening[-1].prompt
    assert t.turn is not None and prompt.turn_id == t.turn.turn_id == t.runner.turn_id
    assert 9 < prompt.deadline.ToNanoseconds() / 1e9 - time.time() <= 10
    assert t.last_sent == opening[-2].snapshot.last_seq == t.runner.last_seq


def test_a_late_start_sends_the_first_prompt_without_a_deadline_then_a_turn_deadline(loop: RunnerLoop) -> None:
    t = table(loop, late_start=True)
    opening = t.opening(0)
    assert kinds(opening)[-2:] == ["prompt", "turn_deadline"]
    prompt, deadline = opening[-2].prompt, opening[-1].turn_deadline
    assert not prompt.HasField("deadline") and deadline.turn_id == prompt.turn_id
    assert t.turn is not None and t.turn.deadline == opening[-1].turn_deadline.deadline.ToNanoseconds() / 1e9


def test_an_act_is_applied_by_the_servers_path_and_the_suites_seats_play_to_the_bots_next_turn(
        loop: RunnerLoop) -> None:
    t = table(loop)
    t.opening(0)
    act = an_act(t)
    t.check(act)
    answered = t.apply(act)
    assert answered[0] == pb.PlayResponse(action_accepted=pb.ActionAccepted(turn_id=act.turn_id))
    assert kinds(answered)[-1] in ("prompt", "match_over") and t.answered == 1
    assert t.runner.match.to_act == t.player or t.runner.is_over
    assert t.last_sent == max(m.event.seq for m in answered if m.HasField("event"))


def test_acts_the_contract_does_not_allow_are_named(loop: RunnerLoop) -> None:
    t = table(loop)
    t.opening(0)
    act = an_act(t)
    with pytest.raises(ContractError, match=rf"an act for turn {act.turn_id + 1}, but turn {act.turn_id} is open"):
        t.check(pb.Act(turn_id=act.turn_id + 1, action=act.action))
    joker = pb.Action(play=pb.PlayAction(cards=[pb.Card(rank=pb.RANK_JOKER)]))
    assert "JK" not in str(t.runner.match.observation(t.player).hand)
    with pytest.raises(ContractError, match=r"an illegal act for turn \d+: JK \(CARDS_NOT_HELD: "):
        t.check(pb.Act(turn_id=act.turn_id, action=joker))
    assert t.turn is not None
    t.turn.deadline = time.time() - 0.2
    with pytest.raises(ContractError, match=r"the act for turn \d+ came \d+ ms after its deadline"):
        t.check(act)


def test_a_resume_sends_what_followed_the_cursor_and_prompts_the_same_turn_with_the_same_deadline(
        loop: RunnerLoop) -> None:
    t = table(loop, setting=Setting("cardverse", 4, Situation.REVOLUTION))
    t.opening(0)
    assert t.turn is not None
    turn_id, deadline, cursor = t.turn.turn_id, t.turn.deadline, t.last_sent - 2
    again = t.opening(cursor)
    assert kinds(again)[0] == "welcome" and kinds(again)[-2:] == ["snapshot", "prompt"]
    assert all(m.event.seq > cursor for m in again if m.HasField("event"))
    assert again[-1].prompt.turn_id == turn_id and t.turn.deadline == pytest.approx(deadline, abs=0.001)


def test_the_suites_refusal_is_the_servers_action_rejected(loop: RunnerLoop) -> None:
    refused = Table.reject(pb.Act(turn_id=7))[0].action_rejected
    assert (refused.turn_id, refused.reason, refused.error_reason) == (7, "ILLEGAL_ACTION",
                                                                      pb.ERROR_REASON_ILLEGAL_ACTION)
    assert refused.message.endswith("act again")
    t = table(loop)
    t.opening(0)
    legal = t.runner.match.legal_actions()
    fallback = fallback_action(legal)
    assert t.is_fallback(fallback) and not t.is_fallback(next(a for a in legal if a != fallback))
