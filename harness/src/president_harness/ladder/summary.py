"""`Summary`: everything a ladder concludes from its counted matches, ready to render."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from pathlib import Path

from president_engine.intervals import Interval
from president_service.league.arena_ratings import rank_key

from president_harness.ladder.config import Format, LadderConfig
from president_harness.ladder.gate import Claim, Verdict, judge
from president_harness.ladder.outcome import Outcome
from president_harness.ladder.ratings import Rating, rate
from president_harness.ladder.schedule import board_size
from president_harness.ladder.stats import ahead_share, deals_per_unit, mean_place, paired_difference, units


@dataclass(frozen=True, kw_only=True, slots=True)
class Standing:
    """One row of the table: the rating, which orders it, and the mean place (1 = first) with its interval."""

    rating: Rating
    place: Interval


@dataclass(frozen=True, kw_only=True, slots=True)
class HeadToHead:
    """How `a` did against `b` when they met."""

    a: str
    b: str
    ahead: int
    """Deals in which a finished ahead of b."""
    deals: int
    difference: Interval
    """Places a finished ahead of b per unit (paired)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class BotFaults:
    """What went wrong for one bot over the counted matches (crashes: over every attempt)."""

    name: str
    errors: int = 0
    """Answers its runner replaced because the bot raised."""
    timeouts: int = 0
    """Answers replaced because the bot was too slow (its runner's deadline)."""
    invalid: int = 0
    """Illegal answers: replaced by its runner, or refused by the server."""
    strikes: int = 0
    """Turns the server's clock played for it."""
    takeovers: int = 0
    """Matches in which the server took its seat over (too many strikes)."""
    crashes: int = 0
    """Attempts that failed because its program exited with an error."""

    @property
    def total(self) -> int:
        return self.errors + self.timeouts + self.invalid + self.strikes + self.takeovers + self.crashes


@dataclass(frozen=True, kw_only=True, slots=True)
class Speed:
    """How fast this run played its matches, and where the CPU time went (not stored: a run's own)."""

    matches: int
    moves: int
    served: int
    """Matches played on a server; the others were played in-process, with none."""
    seconds: float
    """Wall time of playing them."""
    parallel: int
    cores: int
    """The cores the matches were played on: this machine's, or a Ray cluster's."""
    ladder_cpu_s: float
    """This process and its Ray workers: the driver, the bots played in-process and the gRPC clients."""
    bots_cpu_s: float
    """The command bots' processes."""
    server_cpu_s: float | None = None
    """The ladder's own server; None for a server of someone else's (not measured)."""
    on_ray: bool = False
    """Played on Ray workers: Ray's own processes (raylet, GCS) used CPU time that is not measured."""

    @property
    def matches_per_s(self) -> float:
        return self.matches / self.seconds if self.seconds else 0.0

    def per_move_us(self, cpu_s: float) -> float:
        return 1e6 * cpu_s / self.moves if self.moves else 0.0


@dataclass(frozen=True, kw_only=True, slots=True)
class Summary:
    name: str
    format: Format
    preset: str
    players: int
    scheduled: int
    counted: int
    units: int
    """Boards (duplicate, complete ones only) or matches (plain) behind the intervals."""
    standings: tuple[Standing, ...]
    head_to_head: tuple[HeadToHead, ...]
    verdicts: tuple[Verdict, ...]
    failed: tuple[tuple[int, str], ...]
    """Matches that failed every attempt in this run: (schedule index, last error)."""
    taken_over: int
    """Counted matches in which the server had to play some seat (a bot timed out)."""
    faults: tuple[BotFaults, ...] = ()
    """By bot, in the order of the ladder file."""
    runs: Path | None = None
    """The run folder with each match's record and logs (None: matches not played over a server)."""
    speed: Speed | None = None
    """This run's speed (None when it played nothing)."""

    @property
    def misbehaved(self) -> tuple[BotFaults, ...]:
        """The bots with any fault (what --strict fails on)."""
        return tuple(f for f in self.faults if f.total)

    @property
    def complete(self) -> bool:
        return self.counted == self.scheduled

    @property
    def passed(self) -> bool:
        """Every claim holds."""
        return all(v.holds for v in self.verdicts)

    def pair(self, a: str, b: str) -> HeadToHead:
        return next(h for h in self.head_to_head if h.a == a and h.b == b)


def summarize(config: LadderConfig, outcomes: Sequence[Outcome], scheduled: int, claims: Sequence[Claim] = (),
              failed: Sequence[tuple[int, str]] = (), *, crashes: Mapping[str, int] | None = None,
              speed: Speed | None = None) -> Summary:
    """The ratings, places, head-to-head table and claim verdicts of a ladder's counted matches."""
    names = [b.name for b in config.bots]
    table = units(outcomes, config.format, board_size(config))
    per_unit = deals_per_unit(outcomes, config.format, board_size(config))
    players = config.players
    standings = tuple(sorted((Standing(rating=r, place=mean_place(table, r.name, players, per_unit=per_unit))
                              for r in rate(names, outcomes)),
                             key=lambda s: rank_key(rating=s.rating.ordinal, mean_place=s.place.mean,
                                                    name=s.rating.name)))
    pairs = []
    for a, b in permutations(names, 2):
        ahead, deals = ahead_share(outcomes, a, b)
        pairs.append(HeadToHead(a=a, b=b, ahead=ahead, deals=deals,
                                difference=paired_difference(table, a, b, players, per_unit=per_unit)))
    return Summary(
        name=config.name, format=config.format, preset=config.preset, players=config.players,
        scheduled=scheduled, counted=len(outcomes), units=len(table), standings=standings,
        head_to_head=tuple(pairs), verdicts=tuple(judge(c, table, players, per_unit=per_unit) for c in claims),
        failed=tuple(failed),
        taken_over=sum(1 for o in outcomes if o.taken_over),
        faults=tuple(_faults(name, outcomes, (crashes or {}).get(name, 0)) for name in names),
        runs=config.runs if config.runs.is_dir() else None,
        speed=speed,
    )


def _faults(name: str, outcomes: Sequence[Outcome], crashes: int) -> BotFaults:
    counts = [0, 0, 0, 0]
    takeovers = 0
    for outcome in outcomes:
        for player, bot in enumerate(outcome.bots):
            if bot != name:
                continue
            takeovers += player in outcome.taken_over
            if outcome.faults:
                counts = [a + b for a, b in zip(counts, outcome.faults[player], strict=True)]
    errors, timeouts, invalid, strikes = counts
    return BotFaults(name=name, errors=errors, timeouts=timeouts, invalid=invalid, strikes=strikes,
                     takeovers=takeovers, crashes=crashes)
