"""`president tournament`'s own words, from messages alone: the bye warning's numbers, and a waiting table's reason
in `status`."""

from __future__ import annotations

from president_harness.cli.tournament_cli import _summary, bye_warning, markdown
from president_protocol.v1 import president_pb2 as pb


def _made(entrants: int, players: int, rounds: int,
          format: pb.TournamentFormat.ValueType = pb.TOURNAMENT_FORMAT_SWISS) -> pb.Tournament:
    return pb.Tournament(spec=pb.TournamentSpec(name="t", rules=pb.Rules(players=players), format=format),
                         round_count=rounds, entrants=[pb.TournamentEntrant(account=f"e{i}") for i in range(entrants)])


def test_create_warns_in_one_line_when_most_entrants_will_sit_out() -> None:
    assert bye_warning(_made(7, 4, 3)) == (
        "7 entrants at tables of 4: 3 of them sit out each of the 3 rounds (9 byes; 7 of the 7 entrants sit out at"
        " least once); 4 or 8 entrants would leave none out")
    assert bye_warning(_made(9, 4, 2)) is None, "2 of 9 sit out: not most"
    assert bye_warning(_made(8, 4, 5)) is None, "nobody sits out"
    assert bye_warning(_made(5, 4, 3, pb.TOURNAMENT_FORMAT_STAGES)) is None
    assert bye_warning(_made(5, 3, 2)) == (
        "5 entrants at tables of 3: 2 of them sit out each of the 2 rounds (4 byes; 4 of the 5 entrants sit out at"
        " least once); 3 or 6 entrants would leave none out")


def test_status_says_why_a_table_waits() -> None:
    t = _made(4, 4, 1)
    t.state = pb.TOURNAMENT_STATE_RUNNING
    t.rounds_begun = 1
    t.rounds.add(number=1).tables.add(players=["a", "b", "c", "d"],
                                      waiting="waiting for room: a plays 2 of its 2 matches at once (2 arena)")
    assert _summary(t).splitlines() == [
        "t (): RUNNING, 1 of 1 rounds begun; round 1: 0 of 1 tables finished",
        "  table 1 waits: waiting for room: a plays 2 of its 2 matches at once (2 arena)"]


def test_standings_say_what_orders_them_and_mark_a_wide_rating() -> None:
    t = _made(2, 4, 1)
    t.standings.extend([pb.TournamentStanding(rank=1, player="a", points=6, tables=1, deals=2, mu=27.0, sigma=6.0,
                                              ordinal=9.0),
                        pb.TournamentStanding(rank=2, player="b", points=4, tables=3, deals=9, mu=25.0, sigma=3.0,
                                              ordinal=16.0)])
    text = markdown(t)
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| 1 ") or line.startswith("| 2 ")]
    assert [row[8] for row in rows] == ["9.0†", "16.0"]
    assert "Ranked by points, then head to head, then buchholz" in text
    assert "† provisional: sigma above 4 (few deals)" in text
