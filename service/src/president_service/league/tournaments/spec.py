"""A tournament's spec: checked before anything is stored, and the plan its pairing follows."""

from __future__ import annotations

import secrets

from president_engine import PRESETS, Rules, RulesError
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_service.base.errors import Reason, ServiceError
from president_service.league.tournaments.pairing import check as check_plan
from president_service.league.tournaments.plan import Format, PairingError, Plan
from president_service.play.accounts import Accounts
from president_service.play.clock import ClockError, ClockSettings
from president_service.play.match_request import MAX_SEED, clock_from_proto, rules_from_request, shorten
from president_service.play.messages import clock_message
from president_service.play.request_guard import check_message

NAME_CHARS = 64
MAX_ENTRANTS = 1_000
MAX_ROUNDS = 1_000
"""The most rounds (Swiss) or cycles (a round robin's) a tournament may ask for."""
_FORMATS = {pb.TOURNAMENT_FORMAT_ROUND_ROBIN: Format.ROUND_ROBIN, pb.TOURNAMENT_FORMAT_SWISS: Format.SWISS,
            pb.TOURNAMENT_FORMAT_STAGES: Format.STAGES}


def checked_spec(spec: pb.TournamentSpec, default_clock: ClockSettings,
                 accounts: Accounts) -> tuple[pb.TournamentSpec, Rules, ClockSettings, Plan]:
    """The spec as stored (a copy, its seed, fault rule, clock and rules filled in), its rules, clock and plan;
    BAD_OPTION, MALFORMED or an account's refusal for one this server cannot run."""
    if not 1 <= len(spec.name) <= NAME_CHARS or not spec.name.isprintable():
        raise ServiceError(Reason.MALFORMED, f"name: 1 to {NAME_CHARS} printable characters")
    if spec.preset not in PRESETS:
        raise ServiceError(Reason.BAD_OPTION, f"preset: unknown preset {shorten(spec.preset)}"
                                              f" (known: {', '.join(PRESETS)})", {"option": "preset"})
    try:
        rules = rules_from_request(spec.preset, spec.rules)
        clock = clock_from_proto(spec.clock) if spec.HasField("clock") else default_clock
    except (RulesError, ClockError) as exc:
        raise ServiceError(Reason.BAD_OPTION, str(exc), {"option": exc.option}) from None
    if not 3 <= rules.players <= 6:
        raise ServiceError(Reason.BAD_OPTION, f"players: tables of 3 to 6, not {rules.players}",
                           {"option": "players"})
    if spec.format not in _FORMATS:
        raise ServiceError(Reason.BAD_OPTION, "format: round robin, swiss or stages", {"option": "format"})
    if spec.HasField("seed") and spec.seed > MAX_SEED:
        raise ServiceError(Reason.BAD_OPTION, f"seed: at most {MAX_SEED}", {"option": "seed"})
    if spec.rounds > MAX_ROUNDS:
        raise ServiceError(Reason.BAD_OPTION, f"rounds: at most {MAX_ROUNDS}", {"option": "rounds"})
    if len(spec.entrants) > MAX_ENTRANTS:
        raise ServiceError(Reason.BAD_OPTION, f"entrants: at most {MAX_ENTRANTS}", {"option": "entrants"})
    for name in spec.entrants:
        accounts.usable(name)
    if spec.fault_rule not in (pb.TOURNAMENT_FAULT_RULE_UNSPECIFIED, pb.TOURNAMENT_FAULT_RULE_FORFEIT,
                               pb.TOURNAMENT_FAULT_RULE_PLAY_ON):
        raise ServiceError(Reason.BAD_OPTION, "fault_rule: forfeit or play on", {"option": "fault_rule"})
    strangers = [name for name in spec.unchecked if name not in spec.entrants]
    if strangers:
        raise ServiceError(Reason.BAD_OPTION, f"unchecked: {shorten(strangers[0])} is not an entrant",
                           {"option": "unchecked"})
    spec = _copy(spec)
    if not spec.HasField("seed"):
        spec.seed = secrets.randbelow(MAX_SEED)
    if spec.fault_rule == pb.TOURNAMENT_FAULT_RULE_UNSPECIFIED:
        spec.fault_rule = pb.TOURNAMENT_FAULT_RULE_FORFEIT
    spec.clock.CopyFrom(clock_message(clock))
    spec.rules.CopyFrom(convert.rules_to_proto(rules))  # every option in force, the table size included
    plan = plan_of(spec, rules)
    try:
        check_plan(plan, list(spec.entrants))
    except PairingError as exc:
        raise ServiceError(Reason.BAD_OPTION, str(exc), {"option": "format"}) from None
    return spec, rules, clock, plan


def check_spec(spec: pb.TournamentSpec) -> None:
    """MALFORMED for a stored spec this server would refuse at CreateTournament: a field it does not know, a
    `start_at` that is not a time (a row stored by a server that did not check it cannot stop this one)."""
    check_message(spec)


def plan_of(spec: pb.TournamentSpec, rules: Rules) -> Plan:
    return Plan(format=_FORMATS.get(spec.format, Format.SWISS), players=rules.players, rounds=spec.rounds,
                seed=spec.seed, group_size=spec.group_size, advance=spec.advance,
                forfeit=spec.fault_rule == pb.TOURNAMENT_FAULT_RULE_FORFEIT)


def _copy(spec: pb.TournamentSpec) -> pb.TournamentSpec:
    copy = pb.TournamentSpec()
    copy.CopyFrom(spec)
    return copy

