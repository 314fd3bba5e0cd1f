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
- **Forfeits** (the fault rule FORFEIT, `forfeit=True`): a deal an entrant
  forfeited (`TableResult.forfeits`: the server played a move of its seat,
  or its client reported one as a fallback) places it last: the others keep
  their order and move up, and every entrant forfeiting the deal scores the
  last place's points and place (for the rating, they follow the others in
  the order they finished).  Its byes are worth their share only in the
  proportion of the deals it played and did not forfeit (all of it before it
  has played), so an absent entrant gains nothing by sitting out.  Without
  it (PLAY_ON) a deal counts as it was played.
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

from president_engine.intervals import Interval, mean_interval

from president_service.league.arena_ratings import ordinal, rate_deals, rating_model
from president_service.league.tournaments.model import History


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
    faults: int = 0
    """Its bot's faults over the tables played (`TableResult.faults`)."""
    server_moves: int = 0
    """Moves the server played for its seat."""
    absences: int = 0
    """Tables at which it was absent."""
    forfeits: int = 0
    """Deals it forfeited (counted whatever the rule)."""


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
    forfeits: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    server_moves: Counter[str] = field(default_factory=Counter)
    absences: Counter[str] = field(default_factory=Counter)
    scored: list[tuple[tuple[str, ...], dict[str, int]]] = field(default_factory=list)
    """Every deal as it counts, in (round, table, deal) order: its order for the rating and each entrant's place."""


def scored_deal(order: Sequence[str], forfeited: frozenset[str], players: int, *,
                forfeit: bool) -> tuple[tuple[str, ...], dict[str, int]]:
    """A deal as it counts: its order (the forfeiting entrants after the others, with `forfeit`) and each
    entrant's place (every forfeiting entrant last)."""
    if not forfeit or not forfeited:
        return tuple(order), {name: place for place, name in enumerate(order, 1)}
    kept = [name for name in order if name not in forfeited]
    places = {name: place for place, name in enumerate(kept, 1)}
    places.update(dict.fromkeys((name for name in order if name in forfeited), players))
    return (*kept, *(name for name in order if name in forfeited)), places


def _tally(entrants: Sequence[str], players: int, history: History, *, forfeit: bool = False) -> _Tally:
    known = set(entrants)
    tally = _Tally(points=dict.fromkeys(entrants, Fraction(0)), deals=Counter(), byes=Counter())
    byes: list[tuple[str, Fraction]] = []
    for round_index, (pairing, results) in enumerate(history):
        played: list[int] = []
        for result in sorted(results, key=lambda r: r.table):
            strangers = [name for name in result.entrants if name not in known] + [
                name for order in result.orders for name in order if name not in result.entrants]
            if strangers:
                raise StandingsError(f"round {result.round + 1} table {result.table + 1}: {strangers[0]!r} is not"
                                     " an entrant at that table")
            places: defaultdict[str, list[int]] = defaultdict(list)
            for deal, order in enumerate(result.orders):
                forfeited = result.forfeits[deal] if deal < len(result.forfeits) else frozenset()
                tally.forfeits.update(name for name in order if name in forfeited)
                counted_order, placed = scored_deal(order, forfeited, players, forfeit=forfeit)
                tally.scored.append((counted_order, placed))
                for name, place in placed.items():
                    tally.points[name] += points_of(place, players)
                    places[name].append(place)
            for name in result.entrants:
                if places[name]:
                    played.append(len(places[name]))
                    tally.deals[name] += len(places[name])
                    tally.table_places[name].append(sum(places[name]) / len(places[name]))
                    tally.tablemates[name].extend(other for other in result.entrants if other != name)
            tally.faults.update(dict(result.faults))
            tally.server_moves.update(dict(result.server_moves))
            tally.absences.update(result.absent)
        bye = Fraction(players - 1, 2) * Fraction(sum(played), len(played)) if played else Fraction(0)
        for name in pairing.byes:
            if name not in known:
                raise StandingsError(f"round {round_index + 1}: the bye {name!r} is not an entrant")
            tally.byes[name] += 1
            byes.append((name, bye))
    for name, worth in byes:
        share = Fraction(tally.deals[name] - tally.forfeits[name], tally.deals[name]) if (
            forfeit and tally.deals[name]) else Fraction(1)
        tally.points[name] += worth * share
    return tally


def _head_to_head(tally: _Tally) -> dict[str, int]:
    """Each entrant's head-to-head score against the entrants tied with it on points."""
    score: dict[str, int] = dict.fromkeys(tally.points, 0)
    for _, placed in tally.scored:
        for name, place in placed.items():
            for other, other_place in placed.items():
                if other != name and tally.points[other] == tally.points[name]:
                    score[name] += (place < other_place) - (place > other_place)
    return score


def _order(tally: _Tally) -> tuple[list[str], dict[str, int], dict[str, Fraction]]:
    head = _head_to_head(tally)
    buchholz = {name: sum((tally.points[other] for other in tally.tablemates[name]), Fraction(0))
                for name in tally.points}
    ranked = sorted(tally.points, key=lambda name: (-tally.points[name], -head[name], -buchholz[name], name))
    return ranked, head, buchholz


def points(entrants: Sequence[str], players: int, history: History, *, forfeit: bool = False) -> dict[str, float]:
    """Each entrant's points so far (deals and byes): the score Swiss pairs by."""
    return {name: float(value) for name, value in _tally(entrants, players, history, forfeit=forfeit).points.items()}


def ranking(entrants: Sequence[str], players: int, history: History, *, forfeit: bool = False) -> list[str]:
    """The entrants best first, by the declared order (points, head to head, Buchholz, name), without the
    rating: what elimination stages need, cheaply."""
    return _order(_tally(entrants, players, history, forfeit=forfeit))[0]


def stage_order(entrants: Sequence[str], players: int, history: History, *, forfeit: bool = False) -> list[str]:
    """An elimination by stages, best first: by the stage each entrant reached, furthest first, then by its
    ranking in that stage's results alone (earlier stages' points do not carry: they decided who went on)."""
    placed: list[str] = []
    for stage in sorted({pairing.stage for pairing, _ in history}, reverse=True):
        rounds = [(pairing, results) for pairing, results in history if pairing.stage == stage]
        members = [name for group in rounds[0][0].groups for name in group]
        placed += [name for name in ranking(members, players, rounds, forfeit=forfeit) if name not in placed]
    return placed + [name for name in ranking(entrants, players, history, forfeit=forfeit) if name not in placed]


def standings(entrants: Sequence[str], players: int, history: History, *, forfeit: bool = False) -> list[Standing]:
    """The full table, best first."""
    tally = _tally(entrants, players, history, forfeit=forfeit)
    ranked, head, buchholz = _order(tally)
    model = rating_model(skill_drifts=False)
    ratings = {name: model.rating(name=name) for name in entrants}
    rate_deals(model, ratings, (order for order, _ in tally.scored))
    return [Standing(entrant=name, rank=rank, points=float(tally.points[name]), tables=len(tally.table_places[name]),
                     deals=tally.deals[name], byes=tally.byes[name],
                     mean_place=mean_interval(tally.table_places[name], low=1, high=players,
                                              observations=tally.deals[name]),
                     mu=ratings[name].mu, sigma=ratings[name].sigma,
                     ordinal=ordinal(ratings[name].mu, ratings[name].sigma),
                     head_to_head=float(head[name]), buchholz=float(buchholz[name]), faults=tally.faults[name],
                     server_moves=tally.server_moves[name], absences=tally.absences[name],
                     forfeits=tally.forfeits[name])
            for rank, name in enumerate(ranked, 1)]
