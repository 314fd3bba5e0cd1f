"""A tournament's standings, recomputed from its rounds: points, tie-breaks, mean place and rating.

The declared rules (docs/RULES-DECISIONS.md, "Tournaments"):

- **Points**: each deal gives ``players - place`` points (first ``players - 1``,
  last 0), whatever the rules' own scoring, so every format and preset counts
  alike and a deal's points always sum to ``players (players - 1) / 2``.
- **A bye** is worth ``(players - 1) / 2`` points per deal (the mean of a
  deal's points: a neutral result) times the mean number of deals an entrant
  played at a table of that round (so far: a round in progress counts its
  finished tables).  It is not a table: it counts in neither the mean place
  nor the rating.
- **Ranking**: points; then head to head among the entrants tied on points
  (over every deal where two of them played: +1 for each tied entrant
  finished behind, -1 for each ahead); then Buchholz (the sum of the final
  points of every tablemate at every table played, a tablemate met twice
  counted twice); then the name.  Every rank is distinct.
- **Mean place**: one value per table played (the entrant's mean place over
  that table's deals), with the 95% interval of `intervals.mean_interval`.
- **Rating**: OpenSkill over every deal, in (round, table, deal) order, with
  the arena's update (`arena_ratings.rate_deals`) and the ladder's model
  (`rating_model(skill_drifts=False)`: an entrant is pinned for the event).

Everything is a pure function of the rounds given, so standings after a
restart equal standings recomputed from the stored results, whatever order
the results of a round arrived in.  Swiss pairing reads its scores here
(`points`), elimination stages their group order (`ranking`): one
implementation.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from president_service.arena_ratings import ordinal, rate_deals, rating_model
from president_service.intervals import Interval, mean_interval

if TYPE_CHECKING:
    from president_service.tournament_pairing import Pairing, TableResult

History = Sequence[tuple["Pairing", Sequence["TableResult"]]]
"""Every round so far: its pairing and the results of its tables (all of them once the round is over)."""


class StandingsError(ValueError):
    """Results that name someone who is not an entrant (or not at that table): the message is one line."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Standing:
    """One entrant's line of the table."""

    entrant: str
    rank: int
    """1-based; ties are broken fully, so every rank is distinct."""
    points: float
    tables: int
    """Tables played (byes not counted)."""
    deals: int
    byes: int
    mean_place: Interval
    """Over the tables played: one value per table, within 1..players, over `deals` observations."""
    mu: float
    sigma: float
    ordinal: float
    head_to_head: float
    """Among the entrants tied with this one on points (0 when none is)."""
    buchholz: float


def points_of(place: int, players: int) -> int:
    """A deal's points for finishing at `place` (1-based): ``players - place``."""
    return players - place


@dataclass(kw_only=True, slots=True)
class _Tally:
    """What the rounds gave each entrant, exactly (fractions: points tie exactly or not at all)."""

    points: dict[str, Fraction]
    deals: Counter[str]
    byes: Counter[str]
    table_places: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    """Per entrant, its mean place at each table it played."""
    tablemates: defaultdict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    """Per entrant, everyone it sat with, once per table."""


def _tally(entrants: Sequence[str], players: int, history: History) -> _Tally:
    known = set(entrants)
    tally = _Tally(points=dict.fromkeys(entrants, Fraction(0)), deals=Counter(), byes=Counter())
    for round_index, (pairing, results) in enumerate(history):
        played: list[int] = []
        for result in results:
            strangers = [name for name in result.entrants if name not in known] + [
                name for order in result.orders for name in order if name not in result.entrants]
            if strangers:
                raise StandingsError(f"round {result.round + 1} table {result.table + 1}: {strangers[0]!r} is not"
                                     " an entrant at that table")
            for order in result.orders:
                for place, name in enumerate(order, 1):
                    tally.points[name] += points_of(place, players)
            for name in result.entrants:
                places = [order.index(name) + 1 for order in result.orders if name in order]
                if places:
                    played.append(len(places))
                    tally.deals[name] += len(places)
                    tally.table_places[name].append(sum(places) / len(places))
                    tally.tablemates[name].extend(other for other in result.entrants if other != name)
        bye = Fraction(players - 1, 2) * Fraction(sum(played), len(played)) if played else Fraction(0)
        for name in pairing.byes:
            if name not in known:
                raise StandingsError(f"round {round_index + 1}: the bye {name!r} is not an entrant")
            tally.byes[name] += 1
            tally.points[name] += bye
    return tally


def _head_to_head(tally: _Tally, history: History) -> dict[str, int]:
    """Each entrant's head-to-head score against the entrants tied with it on points."""
    score: dict[str, int] = dict.fromkeys(tally.points, 0)
    for _, results in history:
        for result in results:
            for order in result.orders:
                seen: Counter[Fraction] = Counter(tally.points[name] for name in order)
                ahead: Counter[Fraction] = Counter()
                for name in order:
                    tied = tally.points[name]
                    # behind it: the tied not yet seen; ahead of it: those already seen
                    score[name] += (seen[tied] - ahead[tied] - 1) - ahead[tied]
                    ahead[tied] += 1
    return score


def _order(tally: _Tally, history: History) -> tuple[list[str], dict[str, int], dict[str, Fraction]]:
    head = _head_to_head(tally, history)
    buchholz = {name: sum((tally.points[other] for other in tally.tablemates[name]), Fraction(0))
                for name in tally.points}
    ranked = sorted(tally.points, key=lambda name: (-tally.points[name], -head[name], -buchholz[name], name))
    return ranked, head, buchholz


def points(entrants: Sequence[str], players: int, history: History) -> dict[str, float]:
    """Each entrant's points so far (deals and byes): the score Swiss pairs by."""
    return {name: float(value) for name, value in _tally(entrants, players, history).points.items()}


def ranking(entrants: Sequence[str], players: int, history: History) -> list[str]:
    """The entrants best first, by the declared order (points, head to head, Buchholz, name), without the
    rating: what elimination stages need, cheaply."""
    tally = _tally(entrants, players, history)
    return _order(tally, history)[0]


def stage_order(entrants: Sequence[str], players: int, history: History) -> list[str]:
    """An elimination by stages, best first: by the stage each entrant reached, furthest first, then by its
    ranking in that stage's results alone (earlier stages' points do not carry: they decided who went on)."""
    placed: list[str] = []
    for stage in sorted({pairing.stage for pairing, _ in history}, reverse=True):
        rounds = [(pairing, results) for pairing, results in history if pairing.stage == stage]
        members = [name for group in rounds[0][0].groups for name in group]
        placed += [name for name in ranking(members, players, rounds) if name not in placed]
    return placed + [name for name in ranking(entrants, players, history) if name not in placed]


def standings(entrants: Sequence[str], players: int, history: History) -> list[Standing]:
    """The full table, best first."""
    tally = _tally(entrants, players, history)
    ranked, head, buchholz = _order(tally, history)
    model = rating_model(skill_drifts=False)
    ratings = {name: model.rating(name=name) for name in entrants}
    results = sorted((result for _, results in history for result in results), key=lambda r: (r.round, r.table))
    rate_deals(model, ratings, (order for result in results for order in result.orders))
    return [Standing(entrant=name, rank=rank, points=float(tally.points[name]), tables=len(tally.table_places[name]),
                     deals=tally.deals[name], byes=tally.byes[name],
                     mean_place=mean_interval(tally.table_places[name], low=1, high=players,
                                              observations=tally.deals[name]),
                     mu=ratings[name].mu, sigma=ratings[name].sigma,
                     ordinal=ordinal(ratings[name].mu, ratings[name].sigma),
                     head_to_head=float(head[name]), buchholz=float(buchholz[name]))
            for rank, name in enumerate(ranked, 1)]
