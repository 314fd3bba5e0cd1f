"""An SDK bot as one client of a real UECda contest server (shared/UECDA.md sections 2-4).

`play_uecda` connects, sends the profile, and plays every game of the match until the end flag 2: the
give-back when the deal table asks for one, then the bot's move on each hand table that says it is its turn.
The server shows only tables, so `GameTracker` keeps what they showed (the trick's plays, the cards played,
who went out) and turns it into the engine `Observation` a bot expects; the legal actions come from the engine
(`Match.from_view` with the unseen cards dealt to the others by their counts), so a bot sees the same
actions it would see in an engine match of `Rules.preset("daifugo")`.  The engine's player numbers are the
contest's (0..4).  A bot that raises or answers an illegal action plays the fallback instead (`guard`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from president_engine import (
    Action,
    CardParseError,
    CardSet,
    GiveBack,
    IllegalActionError,
    Match,
    Observation,
    Phase,
    Play,
    Role,
    Rules,
    Suit,
    exchange_pairs,
)
from president_engine.actions import Cell
from president_engine.cards import full_deck
from president_engine.events import CardsGiven, Passed, Played
from president_engine.legality import check_play
from president_engine.observation import TrickEntry
from president_engine.tables import tables_for

from president_sdk.bot import Bot
from president_sdk.guard import decide
from president_sdk.uecda.plays import CONTEST_RANK, cells_of_play
from president_sdk.uecda.table import (
    MAX_NAME,
    PLAYERS,
    CardCells,
    JokerCell,
    Reading,
    Table,
    TableError,
    cell_of,
    encode_cards,
)
from president_sdk.uecda.wire import (
    ACCEPTED,
    GAME_ON,
    GAME_OVER,
    MATCH_OVER,
    REFUSED,
    client_handshake,
    read_int,
    read_table,
    write_table,
)

DEFAULT_PORT: Final = 42485
POINTS: Final = Rules.preset("daifugo").points
"""Points of finishing places 1..5 (UECDA 4.9)."""
ROLE_OF_RANK: Final = {rank: role for role, rank in CONTEST_RANK.items()}
"""[6][5..9]'s ranks 0 daifugō .. 4 daihinmin as the engine's roles."""

log = logging.getLogger("president.uecda")


class ContestConnectError(ConnectionError):
    """No connection to the contest server (refused, unknown host, unreachable)."""


class ContestProtocolError(ValueError):
    """The server sent something the message sequence of UECDA 3.2 does not allow there."""


@dataclass(frozen=True, slots=True)
class ContestGame:
    """One finished game as this client saw it."""

    number: int
    """1 for the match's first game."""
    finish: tuple[int, ...]
    """Player numbers in finishing order.  Shorter than 5 only when the 20-pass rule ended the game (the rest
    are ranked at random, UECDA 4.8) or its tables could not be followed, and no later deal table showed the
    ranks."""

    def place_of(self, player: int) -> int | None:
        """1..5, or None when the table did not show it."""
        return self.finish.index(player) + 1 if player in self.finish else None

    def points_of(self, player: int) -> int | None:
        place = self.place_of(player)
        return None if place is None else POINTS[place - 1]


@dataclass(frozen=True, slots=True)
class ContestResult:
    """A whole match: who this client was, and every game."""

    player: int
    name: str
    games: tuple[ContestGame, ...]
    faults: int
    """Answers of the bot replaced by the fallback (`Bot.faults` has them by kind)."""
    surprises: tuple[tuple[str, int], ...] = ()
    """What the server sent that the spec does not say, by kind: how many tables (each kind logged once)."""

    @property
    def places(self) -> tuple[int | None, ...]:
        return tuple(game.place_of(self.player) for game in self.games)

    @property
    def points(self) -> int:
        """The points of the games whose place is known."""
        return sum(game.points_of(self.player) or 0 for game in self.games)


def play_of_cells(rules: Rules, cells: CardCells) -> Play:
    """The engine play that a table's cards are (its rank and the joker's cell read as the engine reads them)."""
    cards = cells.cards
    joker = cells.joker
    try:
        cell = None if joker is None or len(cells) == 1 else Cell(joker.column, joker.suit)
        return check_play(tables_for(rules), cards.bits, Play(cards, cell=cell), None, 0, 0)
    except (IllegalActionError, CardParseError) as exc:
        raise ContestProtocolError(f"the table shows {cards}, which is no play under these rules: {exc}") from None


def cells_of_action(action: Action) -> CardCells:
    """What goes on the wire for an action: a play's cells (a lone joker at [0][14], as the standard client
    writes it, UECDA 2.1), a give-back as hand cells, a pass as nothing."""
    if isinstance(action, Play):
        return cells_of_play(action)
    if isinstance(action, GiveBack):
        return CardCells.hand(action.cards)
    return CardCells()


class Surprises:
    """What a server sent that the spec does not say, over a whole match: each kind logged once, every one
    counted (a real server repeats its quirks in every game, UECDA 2.2)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def note(self, kind: str, game: int, message: str) -> None:
        if kind not in self.counts:
            log.warning("game %d: %s (said once a match)", game, message)
        self.counts[kind] = self.counts.get(kind, 0) + 1


def weakest_cells(hand: CardCells, count: int) -> CardCells:
    """The `count` weakest cards of a hand (the joker last): a give-back when the bot cannot be asked."""
    naturals = sorted(hand.naturals, key=lambda card: cell_of(card)[::-1])
    chosen = frozenset(naturals[:count])
    return CardCells(chosen, hand.joker if len(chosen) < count else None)


def fallback_cells(reading: Reading) -> CardCells:
    """A move when the game could not be followed: the lowest single on an empty table ([5][4]), else a pass."""
    if reading.grid[5][4] != 1:
        return CardCells()
    hand = reading.cards()
    if hand.naturals:
        return weakest_cells(CardCells(hand.naturals), 1)
    return CardCells(joker=JokerCell(Suit.SPADES, 14)) if hand.joker is not None else CardCells()


class GameTracker:
    """One game as one client sees it, table by table: the Observation of its turn and the finishing order.

    Feed it the deal table, then every hand table (`hand_table`) and table-after-move (`after_move`) in order.
    A move is a play when the mover's card count fell, else a pass (a refused play is one, UECDA 3.3).

    Only the card cells of a table the client acts on are read strictly (a TableError); anything else the
    spec does not say is noted in `surprises`, and a table the tracker cannot follow leaves it `lost` for the
    rest of the game: the client then plays `fallback_cells` until the next deal (UECDA 2.2).
    """

    def __init__(self, rules: Rules, player: int, number: int, deal: Reading | Table, scores: tuple[int, ...],
                 surprises: Surprises | None = None) -> None:
        self.rules = rules
        self.player = player
        self.number = number
        self.scores = scores
        self.surprises = surprises or Surprises()
        self.lost: str | None = None
        """Why the tables stopped being followed in this game, or None."""
        self.finish: list[int] = []
        self.roles: tuple[Role, ...] = (Role.NEUTRAL,) * PLAYERS
        self._warned: set[str] = set()
        self._reading: Reading | None = None
        self._deal: Table | None = None
        if isinstance(deal, Table):
            self._deal = deal
            self.give_back = deal.status.give_back
        else:
            self._note_cells(deal)
            self.give_back = deal.grid[5][1] if deal.grid[5][1] in (1, 2) else 0
            try:
                self._deal = deal.table()
            except TableError as exc:
                self._lose(f"the deal table: {exc}")
        status = None if self._deal is None else self._deal.status
        if status is not None and not status.exchange:
            self.warn("deal-flag", "[5][0] is 0 in the deal table; read as the deal table by its place")
        if status is not None and any(status.ranks):
            if sorted(status.ranks) == list(range(PLAYERS)):
                self.roles = tuple(ROLE_OF_RANK[rank] for rank in status.ranks)
            else:
                self.warn("deal-ranks", f"the deal table's ranks {list(status.ranks)} are neither all 0 nor one"
                                        " of each; playing as a rank-reset game")
        self._hand: Table | None = None
        self._table: Play | None = None
        self._table_player: int | None = None
        self._trick: list[TrickEntry] = []
        self._played = CardSet()
        self._reversed = False
        """The order as the engine's rules make it after the plays seen; [5][6] wins when they differ."""

    def give_back_observation(self) -> Observation:
        """The deal table's give-back ([5][1] cards) as the engine's GIVE_BACK phase.

        The server moved the tributes before the deal table, and reads the daifugō's give-back before the
        fugō's (UECDA 3.4): the view shows those moves (cards hidden) so that the engine's exchange is at our
        step; [6][0..4] are the counts as dealt, so the moves are added to them."""
        if self._deal is None:
            raise ContestProtocolError(f"the deal table could not be read ({self.lost})")
        status, hand = self._deal.status, self._deal.cards.cards
        if all(role is Role.NEUTRAL for role in self.roles):
            raise ContestProtocolError(f"[5][1] asks {status.give_back} cards, but the deal table shows no ranks")
        sizes = list(status.card_counts)
        pairs = exchange_pairs(self.roles)
        moves = [CardsGiven(pair.giver, pair.receiver, pair.cards, True, None) for pair in pairs]
        for pair in pairs:
            sizes[pair.receiver] += pair.cards
            sizes[pair.giver] -= pair.cards
        for pair in pairs:
            if pair.receiver == self.player:
                break
            moves.append(CardsGiven(pair.receiver, pair.giver, pair.cards, False, None))
            sizes[pair.receiver] -= pair.cards
            sizes[pair.giver] += pair.cards
        else:
            raise ContestProtocolError(f"[5][1] asks player {self.player}, who got no tribute, to give back cards")
        if pair.cards != status.give_back or sizes[self.player] != len(hand):
            raise ContestProtocolError(f"[5][1] asks {status.give_back} cards of a hand of {len(hand)}; the ranks"
                                       f" {list(status.ranks)} and counts {list(status.card_counts)} say otherwise")
        fields = self._view_fields(Phase.GIVE_BACK, tuple(sizes), status.seats, None, ())
        obs = Observation(**{**fields, "exchange": tuple(moves)}, player=self.player, hand=hand,
                          owed=status.give_back, legal_actions=())
        return dataclasses.replace(obs, legal_actions=Match.from_view(obs, self._hands(obs)).legal_actions())

    @property
    def deal(self) -> Table:
        if self._deal is None:
            raise ContestProtocolError(f"the deal table could not be read ({self.lost})")
        return self._deal

    def hand_table(self, table: Reading | Table) -> bool:
        """A hand table: True when it is this client's turn ([5][2]), whose card cells must then be well-formed
        (a TableError); anything else amiss is noted and loses the game's thread."""
        if isinstance(table, Table):
            self._hand_table(table)
            return table.status.your_turn
        self._note_cells(table)
        self._reading = table
        if table.your_turn:
            table.cards()
        if self.lost is None:
            try:
                self._hand_table(table.table())
            except ValueError as exc:  # a TableError, a ContestProtocolError, or a view the engine refuses
                self._lose(f"a hand table: {exc}")
        return table.your_turn

    def _hand_table(self, table: Table) -> None:
        status = table.status
        if status.exchange:
            raise ContestProtocolError("a deal table ([5][0] = 1) where a hand table was due")
        if status.your_turn and status.player != self.player:
            raise ContestProtocolError(f"[5][2] says it is our turn, [5][3] that it is player {status.player}'s")
        if table.status.table_empty:
            self._table, self._table_player, self._trick = None, None, []
        if table.status.revolution != self._reversed:
            self.warn("revolution", f"the server says revolution {table.status.revolution}, the engine's rules"
                                     f" {self._reversed}; playing the server's")
            self._reversed = table.status.revolution
        if status.eleven_back and not self.rules.jack_back:
            self.warn("11-back", "the server plays 11-back ([5][5]), these rules do not: the legal actions ignore it")
        self._hand = table

    def after_move(self, table: Reading | Table) -> None:
        """The table-after-move: who moved ([5][3]), and whether their count fell (a play) or not (a pass)."""
        if isinstance(table, Table):
            self._after_move(table)
            return
        self._note_cells(table)
        if self.lost is None:
            try:
                self._after_move(table.table())
            except ValueError as exc:  # a TableError, a ContestProtocolError, or a view the engine refuses
                self._lose(f"a table-after-move: {exc}")

    def _after_move(self, table: Table) -> None:
        if self._hand is None:
            raise ContestProtocolError("a table-after-move before any hand table")
        mover = table.status.player
        before, after = self._hand.status.card_counts[mover], table.status.card_counts[mover]
        if after >= before:
            self._trick.append(Passed(mover, skipped=False))
            return
        play = play_of_cells(self.rules, table.cards)
        if len(play.cards) != before - after:
            raise ContestProtocolError(f"player {mover} lost {before - after} cards but the table shows {play}")
        self._trick.append(Played(mover, play))
        self._table, self._table_player = play, mover
        self._played += play.cards
        t = tables_for(self.rules)
        if t.revolution_four and play.size >= (5 if t.facts_of(play).sequence else 4):
            self._reversed = not self._reversed
        if after == 0:
            self.finish.append(mover)

    def observation(self) -> Observation:
        """The bot's Observation on the last hand table, which must say it is this client's turn."""
        if self.lost is not None:
            raise ContestProtocolError(f"the game's tables could not be followed since {self.lost}")
        hand_table = self._hand
        if hand_table is None or not hand_table.status.your_turn:
            raise ContestProtocolError("not this client's turn")
        status = hand_table.status
        hand = hand_table.cards.cards
        if status.card_counts[self.player] != len(hand):
            raise ContestProtocolError(f"[6][{self.player}] says {status.card_counts[self.player]} cards, the hand"
                                       f" holds {len(hand)}")
        fields = self._view_fields(Phase.PLAY, status.card_counts, status.seats, self._table, tuple(self._trick))
        obs = Observation(**fields, player=self.player, hand=hand, owed=0, legal_actions=())
        world = Match.from_view(obs, self._hands(obs))
        if bool(obs.suit_lock) != status.suit_lock:
            self.warn("lock", f"the server says suit lock {status.suit_lock}, the engine reads"
                               f" {obs.suit_lock or 'none'} from the trick")
        return dataclasses.replace(obs, legal_actions=world.legal_actions())

    def game_over(self) -> None:
        """The end flag said the game is over: the last player holding cards is last."""
        holding = [p for p in range(PLAYERS) if p not in self.finish]
        if len(holding) == 1:
            self.finish.append(holding[0])

    def _view_fields(self, phase: Phase, sizes: tuple[int, ...], seats: tuple[int, ...], table: Play | None,
                     trick: tuple[TrickEntry, ...]) -> dict[str, Any]:
        order = self.rules.rank_order
        return dict(rules=self.rules, deal=self.number, phase=phase, to_act=self.player, hand_sizes=sizes,
                    seats=seats, roles=self.roles, scores=self.scores, places=tuple(self.finish),
                    rank_order=tuple(reversed(order)) if self._reversed else order, reversed=self._reversed,
                    direction=1, table=table, table_player=self._table_player if table is not None else None,
                    trick=trick, played=self._played, exchange=())

    def _hands(self, obs: Observation) -> list[CardSet]:
        """Every hand: ours, and the unseen cards dealt to the others by their counts (only ours matters to
        the legal actions)."""
        unseen = list(full_deck(1, self.rules.jokers) - obs.played - obs.hand)
        hands = []
        for player, count in enumerate(obs.hand_sizes):
            if player == self.player:
                hands.append(obs.hand)
            else:
                hands.append(CardSet(unseen[:count]))
                unseen = unseen[count:]
        if unseen or sum(map(len, hands)) != sum(obs.hand_sizes):
            raise ContestProtocolError(f"the card counts {list(obs.hand_sizes)} do not add up with the"
                                       f" {len(obs.played)} cards played")
        return hands

    def fallback(self) -> CardCells:
        """`fallback_cells` of the last hand table."""
        return fallback_cells(self._reading) if self._reading is not None else CardCells()

    def warn(self, kind: str, message: str) -> None:
        """Once per game and kind into the match's surprises (which log each kind once a match)."""
        if kind not in self._warned:
            self._warned.add(kind)
            self.surprises.note(kind, self.number, message)

    def _note_cells(self, reading: Reading) -> None:
        if reading.unused:
            self.warn("unused cells", f"{'; '.join(map(str, reading.unused))}; read as nothing, playing on")

    def _lose(self, why: str) -> None:
        if self.lost is None:
            self.lost = why
            self.warn("lost", f"{why}; following no more tables this game, playing the lowest single or passing")


def finish_from_ranks(game: ContestGame, ranks: tuple[int, ...]) -> ContestGame:
    """A game the 20-pass rule ended, completed from the next deal table's ranks ([6][5..9]), when it shows any."""
    if len(game.finish) == PLAYERS or sorted(ranks) != list(range(PLAYERS)):
        return game
    return ContestGame(game.number, tuple(sorted(range(PLAYERS), key=lambda p: ranks[p])))


async def play_uecda_async(bot: Bot, host: str, port: int = DEFAULT_PORT, *, name: str | None = None,
                           rules: Rules | None = None, timeout: float | None = None,
                           on_game: Callable[[ContestGame], None] | None = None) -> ContestResult:
    """Play `bot` as one client until the match's end flag 2; `on_game` hears of each game as it ends.

    `timeout` bounds every read (None: wait forever, as the reference server does).
    """
    rules = rules or Rules.preset("daifugo")
    name = bot.name if name is None else name
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError as exc:
        raise ContestConnectError(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None
    try:
        player = await client_handshake(reader, writer, name[:MAX_NAME], timeout=timeout)
        bot.seat(player, rules)
        games: list[ContestGame] = []
        faults_before = bot.faults.total()
        surprises = Surprises()
        flag = GAME_ON
        while flag != MATCH_OVER:
            deal = Reading.of(await read_table(reader, timeout=timeout))
            if games:
                games[-1] = finish_from_ranks(games[-1], deal.grid[6][5:10])
            scores = tuple(sum(g.points_of(p) or 0 for g in games) for p in range(PLAYERS))
            tracker = GameTracker(rules, player, len(games) + 1, deal, scores, surprises)
            if tracker.give_back:
                await write_table(writer, encode_cards(_give_back(bot, tracker, deal)), timeout=timeout)
            flag = GAME_ON
            while flag == GAME_ON:
                if tracker.hand_table(Reading.of(await read_table(reader, timeout=timeout))):
                    await _move(bot, tracker, reader, writer, timeout)
                tracker.after_move(Reading.of(await read_table(reader, timeout=timeout)))
                flag = await read_int(reader, timeout=timeout)
                if flag not in (GAME_ON, GAME_OVER, MATCH_OVER):
                    raise ContestProtocolError(f"end flag {flag}; expected 0, 1 or 2")
            tracker.game_over()
            games.append(ContestGame(tracker.number, tuple(tracker.finish)))
            if on_game is not None:
                on_game(games[-1])
    finally:
        writer.close()
    return ContestResult(player, name, tuple(games), bot.faults.total() - faults_before,
                         tuple(sorted(surprises.counts.items())))


def _give_back(bot: Bot, tracker: GameTracker, deal: Reading) -> CardCells:
    """The bot's give-back (the fallback for a fault); the weakest cards when the deal table cannot be followed."""
    try:
        return cells_of_action(decide(bot, tracker.give_back_observation()).action)
    except ValueError as exc:  # a ContestProtocolError, or a view the engine refuses
        tracker.warn("give-back", f"{exc}; giving back the weakest {tracker.give_back}")
        return weakest_cells(deal.cards(), tracker.give_back)


async def _move(bot: Bot, tracker: GameTracker, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                timeout: float | None) -> None:
    """Ask the bot (the fallback for a fault), send its play as one table, and read the ack."""
    action: Action | None = None
    try:
        action = decide(bot, tracker.observation()).action
        cells = cells_of_action(action)
    except ValueError as exc:  # a ContestProtocolError, or a view the engine refuses
        if tracker.lost is None:
            tracker.warn("observation", f"no view of this turn ({exc}); playing the lowest single or passing")
        cells = tracker.fallback()
    await write_table(writer, encode_cards(cells), timeout=timeout)
    ack = await read_int(reader, timeout=timeout)
    if ack not in (ACCEPTED, REFUSED):
        tracker.warn("ack", f"ack {ack}; expected {ACCEPTED} or {REFUSED}; read as {REFUSED}")
    if ack == REFUSED and isinstance(action, Play):
        tracker.warn("refused", f"the server refused {action}, which the engine allows (a pass, UECDA 3.3)")


def play_uecda(bot: Bot, host: str, port: int = DEFAULT_PORT, *, name: str | None = None,
               rules: Rules | None = None, timeout: float | None = None,
               on_game: Callable[[ContestGame], None] | None = None) -> ContestResult:
    """`play_uecda_async` in an event loop of its own, for a caller that has none."""
    return asyncio.run(play_uecda_async(bot, host, port, name=name, rules=rules, timeout=timeout, on_game=on_game))
