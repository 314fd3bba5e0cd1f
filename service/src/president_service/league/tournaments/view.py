"""A tournament as the contract shows it (`pb.Tournament`): its entrants, standings and rounds."""

from __future__ import annotations

import dataclasses

from google.protobuf.timestamp_pb2 import Timestamp
from president_protocol.v1 import president_pb2 as pb

from president_service.league.tournaments.event import Event
from president_service.league.tournaments.plan import Format
from president_service.league.tournaments.standings import stage_order, standings
from president_service.play.messages import timestamp


def tournament_message(event: Event, waiting: dict[int, str], *, full: bool) -> pb.Tournament:
    """The message; with `full` its standings and rounds (and `waiting`, per table of the current round), kept in
    `event.shown` and rebuilt only when something changed since it was last built."""
    key = (event.state, len(event.rounds), len(event.played), sum(p.orders is not None
                                                                   for p in event.played.values()),
           tuple(sorted(waiting.items())))
    if full and event.shown is not None and event.shown[0] == key:
        return event.shown[1]
    out = pb.Tournament(
        tournament_id=event.tournament_id, spec=event.spec, state=event.state,
        round_count=event.round_count, rounds_begun=len(event.rounds),
        entrants=[pb.TournamentEntrant(account=e.account, player=e.player, version_id=e.version, house=e.house)
                  for e in event.entrants],
        created_at=timestamp(event.created_at),
        started_at=stamp(event.started_at), ended_at=stamp(event.ended_at))
    if full:
        history = event.history()
        ranked = standings(event.players, event.rules.players, history, forfeit=event.forfeit)
        if event.plan.format is Format.STAGES:  # the stage reached ranks first
            at = {name: i for i, name in enumerate(stage_order(event.players, event.rules.players, history,
                                                               forfeit=event.forfeit))}
            ranked = [dataclasses.replace(s, rank=rank) for rank, s in
                      enumerate(sorted(ranked, key=lambda s: at[s.entrant]), 1)]
        for s in ranked:
            out.standings.append(pb.TournamentStanding(
                rank=s.rank, player=s.entrant, points=s.points, tables=s.tables, deals=s.deals, byes=s.byes,
                mean_place=s.mean_place.mean, mean_place_low=s.mean_place.low, mean_place_high=s.mean_place.high,
                mu=s.mu, sigma=s.sigma, ordinal=s.ordinal, head_to_head=s.head_to_head, buchholz=s.buchholz,
                faults=s.faults, server_moves=s.server_moves, absences=s.absences, forfeits=s.forfeits))
        for r, pairing in enumerate(event.rounds):
            round_message = out.rounds.add(number=r + 1, stage=pairing.stage + 1 if pairing.groups else 0,
                                           byes=pairing.byes)
            for t, table in enumerate(pairing.tables):
                played = [event.played[(r, t, s)] for s in range(event.seatings()) if (r, t, s) in event.played]
                round_message.tables.add(
                    players=table, match_ids=[p.match_id for p in played],
                    absent=sorted({a for p in played for a in p.absent}), finished=event.table_done(r, t),
                    waiting=waiting.get(t, "") if r == len(event.rounds) - 1 else "")
        event.shown = (key, out)
    return out


def state_name(state: pb.TournamentState.ValueType) -> str:
    return pb.TournamentState.Name(state).removeprefix("TOURNAMENT_STATE_").lower()


def stamp(unix: float | None) -> Timestamp | None:
    return None if unix is None else timestamp(unix)
