"""The arena's ratings: OpenSkill (Plackett-Luce) per preset and player count, persisted with the match log.

Every deal of a rated match is one game ranked by its finishing order (as the
ladder rates).  A match's update is computed as statements that the match
store commits in the same transaction as the match's result
(`MatchStore.finish`), so a crash keeps both or neither: a result is never
counted twice and an update never lost.  The same transaction logs the match
in `rated`: its sequence number (the order matches were rated in), its board
and each deal's finishing order by account, so every rating can be
recomputed from the database alone, and a match is rated at most once (its
id is unique there).  Memory follows the database: after the commit the rows
are read back (also for a match a restart finds over without its result).
A duplicate board's seatings wait in `unrated` (their finishing orders,
written with each one's result) until the last of them ends, and are rated
then, together (`rate_seating`): no leaderboard moves while a seating of the
board is live.
Beside the rating, each account keeps its rated matches, deals and the
running sums of its mean place per match, for the leaderboard's 95%
interval.

`rated` is a table added later: an older database gets it, empty, when it is
first opened; its `ratings` rows stay as they were, and only the matches
rated from then on are in the log (the order older ones were rated in was
not kept).

Every leaderboard (this one, and the ladder's table) shows one rating, the
ordinal mu - 3 sigma, and is ordered by it (`rank_key`): a sure estimate
ranks above a lucky streak of a few matches.  The mean place with its
interval is the second statistic, the one a close call is read from.  The
ladder and tournaments rate with the same model (`rating_model`) and the same
update (`rate_deals`), so the scales agree.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating
from president_engine.intervals import Interval, interval_from_sums

from president_service.play.match_store import MatchStore, Statement

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS ratings (preset TEXT NOT NULL, players INTEGER NOT NULL, account TEXT NOT NULL,"
    " mu REAL NOT NULL, sigma REAL NOT NULL, matches INTEGER NOT NULL, deals INTEGER NOT NULL,"
    " place_sum REAL NOT NULL, place_squares REAL NOT NULL, PRIMARY KEY (preset, players, account))",
    "CREATE TABLE IF NOT EXISTS rated (seq INTEGER PRIMARY KEY, match_id TEXT NOT NULL UNIQUE,"
    " preset TEXT NOT NULL, players INTEGER NOT NULL, orders TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS unrated (match_id TEXT PRIMARY KEY, seed INTEGER NOT NULL, preset TEXT NOT NULL,"
    " players INTEGER NOT NULL, orders TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS matches_by_seed ON matches (seed)",
)
Board = tuple[str, int]
"""A leaderboard: (preset, players)."""


def rating_model(*, skill_drifts: bool) -> PlackettLuce:
    """The one OpenSkill model of the arena and the ladder (docs/ladder.md, "Rating model").

    `skill_drifts`: a player's skill may change between games (an arena account's bot is improved and reconnected),
    so each game first adds a little uncertainty (tau) to follow it; a ladder's bots are fixed programs, and that
    would only keep their ratings chasing the latest deals instead of settling.
    """
    return PlackettLuce(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=25 / 300 if skill_drifts else 0.0)


def ordinal(mu: float, sigma: float) -> float:
    """The rating shown: OpenSkill's conservative ordinal mu - 3 sigma, a skill the account is almost surely above,
    so that a few lucky matches do not rank it high."""
    return mu - 3 * sigma


PROVISIONAL_SIGMA = 4.0
"""A rating whose sigma is above this is provisional: its interval mu +- 3 sigma is wider than +-12 (a newcomer's is
+-25), so it is mostly the uncertainty of few deals and may stand in another order than the mean places."""
PROVISIONAL_MARK = "†"
"""What a text table writes after a provisional rating (with a footnote saying so)."""


def provisional(sigma: float) -> bool:
    """Whether a rating is still provisional (`PROVISIONAL_SIGMA`): every table marks it so."""
    return sigma > PROVISIONAL_SIGMA


def rate_deals(model: PlackettLuce, ratings: dict[str, PlackettLuceRating], orders: Iterable[Sequence[str]]) -> None:
    """Rate each deal in turn as one game ranked by its finishing order (first place best), replacing the players'
    entries in `ratings`: the one update of the arena, the ladder and tournaments, so their scales agree."""
    for order in orders:
        teams = model.rate([[ratings[name]] for name in order], ranks=list(range(1, len(order) + 1)))
        for name, team in zip(order, teams, strict=True):
            ratings[name] = team[0]


def rank_key(*, rating: float, mean_place: float, name: str) -> tuple[float, float, str]:
    """The one order of every leaderboard: the rating (`ordinal`), best first; ties go to the better mean place
    (none yet: last), then the name."""
    return -rating, mean_place if not math.isnan(mean_place) else math.inf, name


@dataclass(frozen=True, kw_only=True, slots=True)
class AccountRecord:
    """An account's rating and the running sums of its rated matches, as the store keeps them."""

    account: str
    mu: float
    sigma: float
    matches: int = 0
    deals: int = 0
    place_sum: float = 0.0
    """Sum over rated matches of the account's mean place in the match."""
    place_squares: float = 0.0

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)

    def place(self, players: int) -> Interval:
        """Mean place per match with its 95% interval, within 1..players (a match's value averages its deals)."""
        return interval_from_sums(self.matches, self.place_sum, self.place_squares, low=1, high=players,
                                  observations=self.deals)


class Ratings:
    def __init__(self, store: MatchStore) -> None:
        self._store = store
        self._model = rating_model(skill_drifts=True)
        store.write([(sql, ()) for sql in _SCHEMA])
        self._boards: dict[Board, dict[str, AccountRecord]] = {}
        store.load_each("rating", store.query("SELECT preset, players, account, mu, sigma, matches, deals, place_sum,"
                                              " place_squares FROM ratings"), _row_id, self._remember)

    def _remember(self, row: tuple[Any, ...]) -> None:
        """Keep a stored row in memory; ValueError when it is not one this server can read."""
        preset, players, account, mu, sigma, matches, deals, place_sum, squares = row
        if (not isinstance(preset, str) or not isinstance(account, str)
                or not all(type(n) is int and n >= 0 for n in (players, matches, deals))
                or not all(type(x) in (int, float) and math.isfinite(x) for x in (mu, sigma, place_sum, squares))
                or sigma <= 0):
            raise ValueError("a column holds a value of the wrong kind, or out of its range")
        self._boards.setdefault((preset, players), {})[account] = AccountRecord(
            account=account, mu=mu, sigma=sigma, matches=matches, deals=deals, place_sum=place_sum,
            place_squares=squares)

    def standing(self, board: Board, account: str) -> AccountRecord:
        found = self._boards.get(board, {}).get(account)
        if found is None:
            fresh = self._model.rating()
            return AccountRecord(account=account, mu=fresh.mu, sigma=fresh.sigma)
        return found

    def rate(self, match_id: str, board: Board, orders: Sequence[Sequence[str]],
             rated: dict[str, AccountRecord] | None = None) -> list[Statement]:
        """The statements that rate the match `match_id` and log it in `rated` (see `update`)."""
        return [("INSERT INTO rated (match_id, preset, players, orders) VALUES (?,?,?,?)",
                 (match_id, board[0], board[1], json.dumps([list(order) for order in orders]))),
                *self.update(board, orders, rated)]

    def rate_seating(self, match_id: str, board: Board, orders: Sequence[Sequence[str]], *, seed: int,
                     twins_live: bool) -> list[Statement]:
        """The statements for a seating of a duplicate board (its seatings share `seed`) as it ends: kept unrated
        in `unrated` while another seating of the board is live (`twins_live`), so that no leaderboard shows a
        result of the board before its last seating ends; else the board's kept seatings and this one rated, in
        the order they ended, and their `unrated` rows deleted, in the one transaction of this one's result (a
        restart in between finds them in `unrated`, and rates each once)."""
        if twins_live:
            return [("INSERT INTO unrated (match_id, seed, preset, players, orders) VALUES (?,?,?,?,?)",
                     (match_id, seed, board[0], board[1], json.dumps([list(order) for order in orders])))]
        kept = self._store.query("SELECT match_id, orders FROM unrated WHERE seed = ? AND preset = ? AND players = ?"
                                 " ORDER BY rowid", (seed, board[0], board[1]))
        rated: dict[str, AccountRecord] = {}
        statements: list[Statement] = [("DELETE FROM unrated WHERE seed = ? AND preset = ? AND players = ?",
                                        (seed, board[0], board[1]))]
        for kept_id, kept_orders in kept:
            statements += self.rate(kept_id, board, json.loads(kept_orders), rated)
        return statements + self.rate(match_id, board, orders, rated)

    def update(self, board: Board, orders: Sequence[Sequence[str]],
               rated: dict[str, AccountRecord] | None = None) -> list[Statement]:
        """The statements that rate one match (`orders`: each deal's finishing order, by account); memory is
        unchanged until `reload` after they are committed.  `rated`: accounts' records as earlier matches of the
        same transaction left them (updated here), in place of those in memory."""
        rated = {} if rated is None else rated
        accounts = sorted({name for order in orders for name in order})
        current = {name: rated.get(name) or self.standing(board, name) for name in accounts}
        ratings = {name: self._model.rating(mu=s.mu, sigma=s.sigma, name=name) for name, s in current.items()}
        rate_deals(self._model, ratings, orders)
        places: dict[str, list[int]] = {name: [] for name in accounts}
        for order in orders:
            for place, name in enumerate(order, 1):
                places[name].append(place)
        statements: list[Statement] = []
        preset, players = board
        for name in accounts:
            if self._store.is_unreadable("rating", key := _row_id((preset, players, name))):
                statements.append(self._store.unmarking("rating", key))  # rated afresh, in place of the bad row
            was, mean = current[name], sum(places[name]) / len(places[name])
            now = AccountRecord(account=name, mu=ratings[name].mu, sigma=ratings[name].sigma,
                                matches=was.matches + 1, deals=was.deals + len(places[name]),
                                place_sum=was.place_sum + mean, place_squares=was.place_squares + mean * mean)
            rated[name] = now
            statements.append((
                "INSERT OR REPLACE INTO ratings VALUES (?,?,?,?,?,?,?,?,?)",
                (preset, players, name, now.mu, now.sigma, now.matches, now.deals, now.place_sum,
                 now.place_squares)))
        return statements

    def reload(self, board: Board, accounts: Iterable[str]) -> None:
        """Read the accounts' rows of `board` back from the database (after a match's result was committed)."""
        for name in accounts:
            self._store.load_each("rating", self._store.query(
                "SELECT preset, players, account, mu, sigma, matches, deals, place_sum, place_squares"
                " FROM ratings WHERE preset = ? AND players = ? AND account = ?", (board[0], board[1], name)),
                _row_id, self._remember)

    def board(self, board: Board) -> list[AccountRecord]:
        return list(self._boards.get(board, {}).values())


def _row_id(row: tuple[Any, ...]) -> str:
    """A ratings row's name in the table `unreadable`: preset/players/account."""
    return f"{row[0]}/{row[1]}/{row[2]}"
