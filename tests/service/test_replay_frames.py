"""The replay page's frames and the replay file: what each frame shows, each seat's view, the file's safety."""

from __future__ import annotations

import pytest
from google.protobuf import json_format
from president_engine import CardSet, Match, MatchRecord, Play, RecordError, Rules, fallback_action, visible_to
from president_engine.events import DealEnded, RevolutionHappened
from president_protocol import convert
from president_protocol.replay_page.replay_file import replay_html
from president_protocol.replay_page.replay_frames import FramesError, replay_frames
from president_protocol.v1 import president_pb2 as pb

NAMES4 = ["ann", "bob", "cy", "di"]


def _largest(match: Match) -> None:
    """The biggest play (a four of a kind sets off a revolution), else the easy move."""
    legal = match.legal_actions()
    plays = [a for a in legal if isinstance(a, Play)]
    match.apply(max(plays, key=lambda a: (a.size, -legal.index(a))) if plays else fallback_action(legal))


def _played(rules: Rules, seed: int) -> MatchRecord:
    match = Match(rules, seed=seed)
    while not match.is_over:
        _largest(match)
    return MatchRecord.from_match(match)


CASES = [
    (Rules.preset("cardverse", deals=2), 0),          # revolutions, tributes and give-backs
    (Rules.preset("norwegian", deals=2), 3),          # requests, wild sixes, declared ranks, one orbit
    (Rules.preset("italian", players=5, deals=2, exchange=True), 5),  # reseating by rank
]


@pytest.mark.parametrize(("rules", "seed"), CASES)
def test_every_step_is_a_frame_built_by_the_engine(rules: Rules, seed: int) -> None:
    record = _played(rules, seed)
    names = [f"p{p}" for p in range(rules.players)]
    frames = replay_frames(record, names, match_id="m1")["frames"]
    match = record.replay()
    assert len(frames) == 1 + sum(len(d.actions) for d in record.deals) + len(record.deals) - 1
    assert [CardSet(h) for h in frames[0]["hands"]] == [match.deal_hands[0][match.deal_seats[0].index(p)]
                                                       for p in range(rules.players)]
    for frame in frames:
        obs = frame["observation"]
        assert [len(CardSet(h)) for h in frame["hands"]] == obs["hand_sizes"]
        assert "player" not in obs and obs["hand"] == [] and all("cards" not in g for g in obs["exchange"])
        if frame["won_by"] is not None:
            played = [e["played"]["player"] for e in obs["trick"] if "played" in e]
            assert played[-1] == frame["won_by"] == obs["table_player"]
        if frame["deal_over"]:
            ended = next(e["deal_ended"] for e in frame["events"] if "deal_ended" in e)
            assert obs["places"] == ended["places"] and obs["scores"] == ended["totals"]
            assert [p for p, h in enumerate(frame["hands"]) if h] == [ended["places"][-1]]
    last = frames[-1]
    assert last["deal_over"] and last["observation"]["phase"] == "PHASE_OVER"
    assert [e for e in last["events"] if "match_ended" in e]
    assert sum(1 for f in frames if f["deal_over"]) == len(record.deals)


@pytest.mark.parametrize(("rules", "seed"), CASES)
def test_a_seat_sees_only_what_the_engine_shows_it(rules: Rules, seed: int) -> None:
    record = _played(rules, seed)
    match = record.replay()
    frames = replay_frames(record, [f"p{p}" for p in range(rules.players)])["frames"]
    for frame in frames:
        for player in range(rules.players):
            seen = frame.get("seat_events", [frame["events"]] * rules.players)[player]
            expected = [convert.event_to_proto(shown, int(e["seq"])) for e in frame["events"]
                        if (shown := visible_to(match.events[int(e["seq"]) - 1], player)) is not None]
            assert [json_format.ParseDict(e, pb.Event()) for e in seen] == expected
            for given in frame.get("seat_exchange", [[]] * rules.players)[player]:
                assert ("cards" in given) == (player in (given["giver"], given["receiver"]))
    assert any("seat_exchange" in f for f in frames) and any("seat_events" in f for f in frames)


def test_revolutions_show_in_their_frames() -> None:
    record = _played(*CASES[0])
    frames = replay_frames(record, NAMES4)["frames"]
    revolts = [f for f in frames if any("revolution_happened" in e for e in f["events"])]
    assert revolts
    for frame in revolts:
        event = next(e["revolution_happened"] for e in frame["events"] if "revolution_happened" in e)
        assert frame["observation"]["reversed"] == event["reversed"]
        assert frame["observation"]["rank_order"][-1] == ("RANK_THREE" if event["reversed"] else "RANK_TWO")
    assert any(isinstance(e, RevolutionHappened) for e in record.replay().events)
    assert any(isinstance(e, DealEnded) for e in record.replay().events)


def test_names_must_fit_and_a_record_must_replay() -> None:
    record = _played(*CASES[0])
    with pytest.raises(FramesError):
        replay_frames(record, NAMES4[:3])
    data = record.to_json()
    data["deals"][0]["actions"][0]["action"] = "pass"  # the leader may not pass
    with pytest.raises(RecordError):
        replay_frames(MatchRecord.from_json(data), NAMES4)


def test_the_replay_file_holds_everything_and_no_name_can_end_its_script() -> None:
    record = _played(*CASES[0])
    names = ["</script><script>alert(1)</script>", "<!--", "a & b", "]]>"]
    page = replay_html(replay_frames(record, names, match_id="m1"))
    assert page.lower().count("</script") == 3  # the frames, then the two scripts
    assert page.count("<script") == 3 and "/assets/" not in page and "<style>" in page
    start = page.index('<script id="replay-data" type="application/json">') + len(
        '<script id="replay-data" type="application/json">')
    data = page[start:page.index("</script>", start)]
    assert "<" not in data and ">" not in data
