"""The contest's game log (shared/UECDA.md section 7), written by bridge A and read back to replay it.

Header lines are ``%-----%KEY% value`` (two of them, ``TIME_END`` and ``TOTAL_POINT``, after the games); each
game ``g`` (from 0) has seven lines ``%ggggg%key% value``:
``mibun`` (ranks at the start, ``22222`` in a rank-reset game), ``seat`` (player in seat 0..4),
``palyer_cards`` (sic: the five hands as dealt, by player), ``change_cards`` (``NULL`` or ``FT<cards>EE``
entries: tributes then give-backs), ``play`` (every submission as submitted, ``P<cards>EE``, a pass ``PEE``),
``result`` (finishing order) and ``points`` (running totals).  A card is its row's letter (``S H D C`` a
natural card, ``K L M N`` the joker written in that row, ``J`` the joker row) and its column's rank
(``x 3 4 5 6 7 8 9 T J Q K A 2``, ``x`` for columns 0 and 14); the cards of an entry go in cell order,
row by row.  Written as the reference server writes it: each hand of ``palyer_cards`` followed by one space,
each entry of ``change_cards`` and ``play`` preceded by one; read in that form and in the form bridge A wrote
before (hands joined by spaces, entries back to back), spaces at the ends of a line aside (docs/RULES-DECISIONS.md,
"The UECda bridges", 9).
"""

from __future__ import annotations

import socket
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TextIO

from president_engine import PASS, Action, CardSet, GiveBack, Match, Phase, Play, Rules
from president_engine.events import CardsGiven, DealEnded, DealStarted, Event, HandDealt, Passed, Played
from president_sdk.uecda.plays import CONTEST_RANK, action_of_cells, cells_of_play
from president_sdk.uecda.seat import Submission
from president_sdk.uecda.table import (
    COLUMNS,
    JOKER_ROW,
    CardCells,
    Grid,
    TableError,
    cell_of,
    decode_cards,
    pack,
    unpack,
)

from president_harness.uecda.uecda_bridge import BridgeResult

NATURAL_LETTERS: Final = "SHDC"
JOKER_LETTERS: Final = "KLMN"
RANK_LETTERS: Final = "x3456789TJQKA2x"
HEADER: Final = "-----"
TRAILER: Final = ("TIME_END", "TOTAL_POINT")
"""The header keys the reference server writes after the last game."""


class LogError(ValueError):
    """A game log line that is not what section 7 describes."""


def grid_text(grid: Grid) -> str:
    """The cards of rows 0-4 of a grid as log text: a 1 is a natural card, a 2 the joker; other values skip."""
    out = []
    for row in range(JOKER_ROW + 1):
        for column in range(COLUMNS):
            value = grid[row][column]
            if value == 1 and row < JOKER_ROW:
                out.append(NATURAL_LETTERS[row] + RANK_LETTERS[column])
            elif value == 2:
                out.append(("J" if row == JOKER_ROW else JOKER_LETTERS[row]) + RANK_LETTERS[column])
    return "".join(out)


def text_grid(text: str) -> Grid:
    """A log entry's cards as the rows of a grid (the inverse of `grid_text`).

    ``x`` is column 0 or 14, which the log does not tell apart: a joker there is put next to its row's 3 if
    the row has one (a sequence's low end), else above the 2.
    """
    if len(text) % 2:
        raise LogError(f"cards {text!r}: two characters a card")
    rows = [[0] * COLUMNS for _ in range(8)]
    jokers: list[tuple[int, str]] = []
    for at in range(0, len(text), 2):
        letter, rank = text[at], text[at + 1]
        if rank not in RANK_LETTERS:
            raise LogError(f"card {text[at:at + 2]!r}: no rank {rank!r}")
        if letter in NATURAL_LETTERS and rank != "x":
            rows[NATURAL_LETTERS.index(letter)][RANK_LETTERS.index(rank)] = 1
        elif letter in JOKER_LETTERS or letter == "J":
            jokers.append((JOKER_ROW if letter == "J" else JOKER_LETTERS.index(letter), rank))
        else:
            raise LogError(f"card {text[at:at + 2]!r}: no such cell")
    for row, rank in jokers:
        column = RANK_LETTERS.index(rank) if rank != "x" else 0 if rows[row][1] else COLUMNS - 1
        rows[row][column] = 2
    return tuple(tuple(row) for row in rows)


def _entries(value: str, what: str) -> list[str]:
    """A change_cards or play value's entries, with or without a space before each (``EE`` ends every one)."""
    compact = "".join(value.split())
    if compact == "NULL" or not compact:
        return []
    if not compact.endswith("EE"):
        raise LogError(f"{what} {value!r}: entries end with EE")
    return compact[:-2].split("EE")


@dataclass(frozen=True, slots=True)
class LoggedGame:
    ranks: str
    seats: tuple[int, ...]
    hands: tuple[Grid, ...]
    """As dealt, by player."""
    changes: tuple[tuple[int, int, Grid], ...]
    plays: tuple[tuple[int, Grid], ...]
    result: tuple[int, ...]
    points: tuple[int, ...]


def game_lines(number: int, game: LoggedGame) -> list[str]:
    """The seven lines of game `number` (from 0)."""
    tag = f"%{number:05d}%"
    changes = "".join(f" {giver}{taker}{grid_text(cards)}EE" for giver, taker, cards in game.changes)
    return [f"{tag}mibun% {game.ranks}",
            f"{tag}seat% {''.join(map(str, game.seats))}",
            f"{tag}palyer_cards% {''.join(grid_text(hand) + ' ' for hand in game.hands)}",
            f"{tag}change_cards% {changes or 'NULL'}",
            f"{tag}play% {''.join(f' {p}{grid_text(cards)}EE' for p, cards in game.plays)}",
            f"{tag}result% {''.join(map(str, game.result))}",
            f"{tag}points% {' '.join(map(str, game.points))}"]


@dataclass(frozen=True, slots=True)
class GameLog:
    header: dict[str, str]
    games: tuple[LoggedGame, ...]

    def lines(self) -> list[str]:
        """The log's lines as the reference server writes them (section 7)."""
        out = [f"%{HEADER}%{key}% {value}" for key, value in self.header.items() if key not in TRAILER]
        for number, game in enumerate(self.games):
            out += game_lines(number, game)
        return out + [f"%{HEADER}%{key}% {self.header[key]}" for key in TRAILER if key in self.header]

    def text(self) -> str:
        return "\n".join(self.lines()) + "\n"

    @classmethod
    def parse(cls, text: str) -> GameLog:
        header: dict[str, str] = {}
        games: dict[int, dict[str, str]] = {}
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            parts = line.split("%", 3)
            if len(parts) != 4 or parts[0]:
                raise LogError(f"line {number}: not %tag%key% value")
            _, tag, key, value = parts
            value = value.strip()
            if tag == HEADER:
                header[key] = value
            elif tag.isdigit():
                games.setdefault(int(tag), {})[key] = value
            else:
                raise LogError(f"line {number}: tag {tag!r} is neither {HEADER} nor a game number")
        out = []
        for number in sorted(games):
            fields = games[number]
            try:
                out.append(LoggedGame(
                    ranks=fields["mibun"], seats=tuple(int(c) for c in fields["seat"]),
                    hands=tuple(text_grid(hand) for hand in fields["palyer_cards"].split()),
                    changes=tuple((int(e[0]), int(e[1]), text_grid(e[2:]))
                                  for e in _entries(fields["change_cards"], "change_cards")),
                    plays=tuple((int(e[0]), text_grid(e[1:])) for e in _entries(fields["play"], "play")),
                    result=tuple(int(c) for c in fields["result"]),
                    points=tuple(int(p) for p in fields["points"].split())))
            except KeyError as exc:
                raise LogError(f"game {number}: no {exc.args[0]} line") from None
            except IndexError:
                raise LogError(f"game {number}: an empty entry") from None
            except ValueError as exc:  # a LogError too
                raise LogError(f"game {number}: {exc}") from None
        return cls(header, tuple(out))


@dataclass(frozen=True, slots=True)
class ScenarioDeal:
    """One game of a log as a deal to play again: its seating, its hands as dealt and its finishing order."""

    seats: tuple[int, ...]
    """The player in each seat."""
    hands: tuple[CardSet, ...]
    """By seat, before the exchange (as CreateMatchRequest.deals has them)."""
    pass_order: tuple[int, ...] = ()
    """The log's finishing order (its result line), empty for none: if the 20-pass rule ends the game, the
    players still holding cards take the places left in this order, as they did in the log (DealHands.pass_order;
    docs/RULES-DECISIONS.md, "The UECda bridges")."""


def scenario_of(log: GameLog) -> tuple[ScenarioDeal, ...]:
    """Each game's seats, dealt hands and finishing order, so that the same deals are played again (through
    bridge A, say) and a game the 20-pass rule ended ranks its players as the log does."""
    deals = []
    for number, game in enumerate(log.games):
        if sorted(game.seats) != list(range(5)):
            raise LogError(f"game {number}: seat {''.join(map(str, game.seats))} is not players 0-4 once each")
        if len(game.hands) != 5:
            raise LogError(f"game {number}: {len(game.hands)} hands, not 5")
        hands = []
        for player, grid in enumerate(game.hands):
            cells = _cells(grid)
            if cells is None:
                raise LogError(f"game {number}: player {player}'s hand is not cards")
            hands.append(cells.cards)
        if sorted(game.result) != list(range(5)):
            raise LogError(f"game {number}: result {''.join(map(str, game.result))} is not players 0-4 once each")
        deals.append(ScenarioDeal(game.seats, tuple(hands[player] for player in game.seats), game.result))
    return tuple(deals)


def game_differences(ours: GameLog, theirs: GameLog) -> list[str]:
    """The game lines of two logs that differ, in game order (the headers aside: names and seeds may differ).

    Section 7's strongest check of a bridge: fed the same deals and seats, deterministic clients give the
    same lines through any two servers."""
    keyed = [{(int(tag), key): value.strip() for _, tag, key, value in (line.split("%", 3) for line in log.lines())
              if tag != HEADER} for log in (ours, theirs)]
    return [f"game {game} {key}: {keyed[0].get((game, key), '(none)')} against {keyed[1].get((game, key), '(none)')}"
            for game, key in sorted(keyed[0].keys() | keyed[1].keys())
            if keyed[0].get((game, key)) != keyed[1].get((game, key))]


def reference_header(names: Sequence[str], rules: Rules, seed: int, port: int, started: float) -> dict[str, str]:
    """The header lines before the games, with the reference server's keys in its order: the host, the start
    time, the names, the rules as its configuration names them, the port and the seed."""
    def yes(flag: object) -> str:
        return "yes" if flag else "no"

    return {"hostname": socket.gethostname(), "TIME_START": time.strftime("%Y/%m/%d %H:%M:%S", time.localtime(started)),
            "palyer_name": " ".join(names), "WINDOW_TYPE": "none", "GRAPH_WINDOW": "no", "RAND_TYPE": "0",
            "RULE_KAKUMEI": yes(rules.revolution), "RULE_SHIBARI": yes(rules.suit_lock), "RULE_KINSOKU": "no",
            "RULE_KAIDAN": yes(rules.sequences), "RULE_CHANGE": yes(rules.exchange), "RULE_5TOBI": "no",
            "RULE_6REVERS": yes(rules.six_reverse), "RULE_8GIRI": yes(rules.eight_stop),
            "RULE_11BACK": yes(rules.jack_back),
            "RULE_SEKIGAE": yes(rules.reseat_every), "RULE_SEKIGAE_NUM": str(rules.reseat_every or 0),
            "GAME_NUMBER": str(rules.deals), "FLASH_MIBUN_NUMBER": str(rules.rank_reset_every or 0),
            "GAME_PORT": str(port), "RANDOM_SEED": str(seed)}


class GameRecorder:
    """Each game of a match as section 7 logs it, from the match's events as they come (a game is done at its
    DealEnded) and the contest clients' submissions as they wrote them (each given before its move's events).

    A contest client's move is its submission as written (a refused one included); the move of a seat that
    is not a contest client (a built-in level, an account's bot) is its action as a client would write it.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._submitted: dict[tuple[int, int], deque[Submission]] = {}
        self._deal = 0
        self._ranks, self._seats = "", tuple(range(5))
        self._hands: list[CardCells] = [CardCells()] * 5
        self._changes: list[tuple[int, int, Grid]] = []
        self._plays: list[tuple[int, Grid]] = []

    def submitted(self, submission: Submission) -> None:
        self._submitted.setdefault((submission.deal, submission.player), deque()).append(submission)

    def event(self, event: Event) -> LoggedGame | None:
        """Take the match's next event (every one, as an admin sees them): the game it ends, if it ends one."""
        if isinstance(event, DealStarted):
            fresh = self.rules.fresh_deal(event.deal)
            self._deal = event.deal
            self._ranks = "22222" if fresh else "".join(str(CONTEST_RANK[role]) for role in event.roles)
            self._seats, self._hands, self._changes, self._plays = event.seats, [CardCells()] * 5, [], []
        elif isinstance(event, HandDealt):
            self._hands[event.player] = CardCells.hand(event.cards)
        elif isinstance(event, CardsGiven) and event.cards is not None:
            self._changes.append((event.giver, event.receiver, _grid(CardCells.hand(event.cards))))
        elif isinstance(event, Played):
            self._plays.append((event.player, self._move_grid(event.player, event.play)))
        elif isinstance(event, Passed) and not event.skipped:
            self._plays.append((event.player, self._move_grid(event.player, PASS)))
        elif isinstance(event, DealEnded):
            return LoggedGame(self._ranks, self._seats, tuple(_grid(h) for h in self._hands), tuple(self._changes),
                              tuple(self._plays), event.places, event.totals)
        return None

    def _move_grid(self, player: int, action: Action) -> Grid:
        """A move as the log has it: the client's next submission as written, or the action of a seat without one."""
        submissions = self._submitted.get((self._deal, player))
        if submissions:
            table = submissions.popleft().table
            return _grid(CardCells()) if table is None else unpack(table)
        return _grid(cells_of_play(action) if isinstance(action, Play) else CardCells())


def trailer(totals: Sequence[int]) -> dict[str, str]:
    """The header lines after the last game: the end time and the totals."""
    return {"TIME_END": time.strftime("%Y/%m/%d %H:%M:%S"), "TOTAL_POINT": " ".join(map(str, totals))}


def log_of(result: BridgeResult, *, port: int = 42485, started: float | None = None) -> GameLog:
    """The log of a bridged match, from the server's record and the submissions as the clients wrote them."""
    match = result.record.replay()
    started = time.time() if started is None else started
    header = reference_header(result.names, result.record.rules, result.record.seed, port, started)
    recorder = GameRecorder(match.rules)
    for submission in result.submissions:
        recorder.submitted(submission)
    games = [game for game in map(recorder.event, match.events) if game is not None]
    header.update(trailer(games[-1].points if games else (0,) * 5))
    return GameLog(header, tuple(games))


class LogWriter:
    """A game log written as the match goes: the header at once, each game's seven lines as it ends, the two end
    lines last, each flushed as written, so that a match stopped half way leaves every finished game readable."""

    def __init__(self, file: TextIO, header: dict[str, str]) -> None:
        self.file = file
        self.games = 0
        self._write([f"%{HEADER}%{key}% {value}" for key, value in header.items() if key not in TRAILER])

    def game(self, game: LoggedGame) -> None:
        self._write(game_lines(self.games, game))
        self.games += 1

    def end(self, totals: Sequence[int]) -> None:
        self._write([f"%{HEADER}%{key}% {value}" for key, value in trailer(totals).items()])

    def _write(self, lines: list[str]) -> None:
        self.file.write("".join(line + "\n" for line in lines))
        self.file.flush()


def scenario_match(rules: Rules, scenario: Sequence[ScenarioDeal], seed: int = 0) -> Match:
    """The match whose first games are the scenario's deals (DealError for one the rules cannot deal)."""
    if not scenario:
        return Match(rules, seed=seed)
    return Match(rules, seed=seed, hands=[deal.hands for deal in scenario], seats=[deal.seats for deal in scenario],
                 pass_orders=[deal.pass_order or None for deal in scenario])


def replay_log(log: GameLog, match: Match) -> list[str]:
    """Play the log's games on `match` (the same rules and seed): the differences found, empty when none.

    The dealt hands and seats must be the match's; each give-back and each play is applied as the log has it
    (a refused play as a pass); then each game's result and points must be the log's.
    """
    differences: list[str] = []
    for number, game in enumerate(log.games):
        if match.is_over:
            return [*differences, f"game {number}: the match is already over"]
        deal = match.deal
        dealt = match.deal_hands[-1]
        if match.deal_seats[-1] != game.seats:
            differences.append(f"game {number}: seats {match.deal_seats[-1]} against {game.seats}")
        for seat, holder in enumerate(match.deal_seats[-1]):
            if _grid(CardCells.hand(dealt[seat])) != game.hands[holder]:
                differences.append(f"game {number}: player {holder}'s hand differs")
        gives = iter(game.changes[len(game.changes) // 2:])
        plays = iter(game.plays)
        while not match.is_over and match.deal == deal:
            player = match.to_act
            assert player is not None
            legal = match.legal_actions()
            action: Action | None
            if match.phase is Phase.GIVE_BACK:
                giver, _, grid = next(gives, (player, -1, _grid(CardCells())))
                given = _cells(grid)
                action = next((a for a in legal if isinstance(a, GiveBack) and given is not None
                               and a.cards == given.cards), None) if giver == player else None
            else:
                logged = next(plays, None)
                if logged is None or logged[0] != player:
                    return [*differences, f"game {number}: player {player} moves, the log has {logged}"]
                cells = _cells(logged[1])
                action = None if cells is None else action_of_cells(cells, legal)
                action = PASS if action is None else action
            if action is None:
                return [*differences, f"game {number}: the give-back of player {player} is not legal"]
            match.apply(action)
        ended = [e for e in match.events if isinstance(e, DealEnded) and e.deal == deal]
        if not ended or ended[0].places != game.result or ended[0].totals != game.points:
            differences.append(f"game {number}: result or points differ")
    return differences


def _cells(grid: Grid) -> CardCells | None:
    try:
        return decode_cards(pack(grid))
    except TableError:
        return None


def _grid(cells: CardCells) -> Grid:
    """The grid of well-formed cells, built directly (`encode_cards` checks every value, which a log of 1,000
    games pays for in seconds)."""
    rows = [[0] * COLUMNS for _ in range(8)]
    for card in cells.naturals:
        row, column = cell_of(card)
        rows[row][column] = 1
    if cells.joker is not None:
        rows[cells.joker.row][cells.joker.column] = 2
    return tuple(tuple(row) for row in rows)
