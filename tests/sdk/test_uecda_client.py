"""`play_uecda`: SDK bots as clients of the tests' contest server (tests/uecda_support.py), and the Observation
a client builds from the tables, checked against the engine's own for whole engine-played games."""

from __future__ import annotations

import asyncio
import itertools
import random
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from president_engine import (
    PASS,
    Action,
    CardSet,
    Fault,
    GiveBack,
    Match,
    Observation,
    Phase,
    Play,
    Rules,
    Suit,
)
from president_engine.actions import Cell
from president_engine.cards import full_deck
from president_engine.events import DealEnded
from president_sdk import bot_cli
from president_sdk.bot import Bot
from president_sdk.bots import builtin_bot
from president_sdk.uecda import client as uecda_client
from president_sdk.uecda.client import (
    ContestConnectError,
    ContestGame,
    ContestProtocolError,
    ContestResult,
    GameTracker,
    cells_of_action,
    finish_from_ranks,
    play_of_cells,
    play_uecda,
    play_uecda_async,
)
from president_sdk.uecda.plays import cells_of_play
from president_sdk.uecda.table import (
    DEAL_TABLE_PLAYER,
    TABLE_BYTES,
    CardCells,
    CellError,
    JokerCell,
    Reading,
    Status,
    Table,
    decode_cards,
    encode,
    encode_cards,
    unpack,
)
from president_sdk.uecda.wire import (
    ACCEPTED,
    REFUSED,
)
from uecda_support import ContestServer, EngineServer, ServerRecord, engine_contest

T = TypeVar("T")
DAIFUGO = Rules.preset("daifugo")


def run(coroutine: Coroutine[Any, Any, T], limit: float = 120) -> T:
    return asyncio.run(asyncio.wait_for(coroutine, limit))


async def contest(server: ContestServer, bots: list[Bot]) -> tuple[ServerRecord, list[ContestResult]]:
    """The server and one `play_uecda` client per bot, connecting one by one (the accept order numbers them)."""
    port = await server.start()
    serving = asyncio.create_task(server.run())
    clients = []
    for index, bot in enumerate(bots):
        clients.append(asyncio.create_task(play_uecda_async(bot, "127.0.0.1", port, name=f"b{index}", timeout=30)))
        await asyncio.sleep(0.02)
    results = await asyncio.gather(*clients)
    return await serving, list(results)


# --- whole matches against the contest server --------------------------------------------------------------


def test_five_builtin_bots_play_a_match_and_report_what_the_server_recorded() -> None:
    levels = ["easy", "normal", "hard", "random", "easy"]
    bots = [builtin_bot(level, seed=index) for index, level in enumerate(levels)]
    record, results = run(contest(ContestServer(games=4, seed=11), bots))
    assert sorted(result.player for result in results) == [0, 1, 2, 3, 4]
    for index, (result, bot) in enumerate(zip(results, bots, strict=True)):
        assert bot.player == result.player and record.names[result.player] == result.name == f"b{index}"
        assert [game.number for game in result.games] == [1, 2, 3, 4]
        for game, finish, out in zip(result.games, record.results, record.went_out, strict=True):
            # a game the 20-pass rule ended ranks the rest at random, which this server never shows (rank reset)
            assert game.finish == (finish if out == 4 else finish[:out])
    assert len({result.games for result in results}) == 1, "every client saw the same games"
    assert all(result.faults == 0 for result in results)
    assert 4 in record.went_out, "at least one game is compared whole"
    # the server refuses the groups its cut-down rules lack: those are passes, and the match still ends
    assert any(s.ack == REFUSED for s in record.submissions)


def test_the_sync_client_plays_in_its_own_loop() -> None:
    """`play_uecda` blocks; four clients in the server's loop and one in a thread of its own."""
    async def main() -> tuple[ServerRecord, ContestResult, list[ContestResult]]:
        server = ContestServer(games=2, seed=12)
        port = await server.start()
        serving = asyncio.create_task(server.run())
        threaded = asyncio.create_task(asyncio.to_thread(play_uecda, builtin_bot("easy"), "127.0.0.1", port,
                                                         timeout=30))
        await asyncio.sleep(0.1)
        others = []
        for _ in range(4):
            others.append(asyncio.create_task(play_uecda_async(builtin_bot("easy"), "127.0.0.1", port, timeout=30)))
            await asyncio.sleep(0.02)
        return await serving, await threaded, list(await asyncio.gather(*others))

    record, mine, others = run(main())
    assert mine.player == 0 and mine.name == "EasyBot" and len(mine.games) == 2
    assert mine.games == others[0].games
    assert [game.finish for game in mine.games] == [
        finish if out == 4 else finish[:out] for finish, out in zip(record.results, record.went_out, strict=True)]
    assert mine.points == sum(game.points_of(0) or 0 for game in mine.games)


class Cheat(Bot):
    """Answers with a card it does not hold, then with a Play of nothing at all."""

    def __init__(self) -> None:
        self.seen: list[Observation] = []

    def play(self, obs: Observation) -> Action:
        self.seen.append(obs)
        missing = next(card for card in CardSet("3C 3D 3H 3S 4C") if card not in obs.hand)
        return Play(CardSet([missing])) if len(self.seen) % 2 else Play(CardSet())


def test_an_illegal_answer_is_replaced_by_the_fallback() -> None:
    cheat = Cheat()
    record, results = run(contest(ContestServer(seed=13), [cheat, *(builtin_bot("easy") for _ in range(4))]))
    assert results[0].faults == len(cheat.seen) > 0
    assert cheat.faults[Fault.INVALID] == len(cheat.seen)
    own = [s for s in record.submissions if s.player == results[0].player]
    assert len(own) == len(cheat.seen)
    for submission, obs in zip(own, cheat.seen, strict=True):
        fallback = obs.legal_actions[0]  # fallback_action: the lowest play, PASS when alone
        assert submission.table == encode_cards(cells_of_action(fallback))
        assert submission.ack == ACCEPTED or fallback == PASS, "the fallback is a single, which this server takes"


async def _closed_port() -> int:
    """A port that was free a moment ago: nothing listens there."""
    server = await asyncio.start_server(lambda _r, _w: None, "127.0.0.1", 0)
    port: int = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    return port


def test_a_refused_connection_is_a_typed_error() -> None:
    port = asyncio.run(_closed_port())
    with pytest.raises(ContestConnectError, match=f"cannot connect to 127.0.0.1:{port}"):
        play_uecda(builtin_bot("easy"), "127.0.0.1", port)


def test_builtin_bots_against_the_contests_own_rules(caplog: pytest.LogCaptureFixture) -> None:
    """Three games judged by the engine, with the exchange: every play and give-back is accepted, every client
    tells the engine's finishing order (as far as the 20-pass rule lets it), and none finds the server's lock
    or order other than the engine's."""
    judge = EngineServer(deals=3, seed=15)
    results = run(engine_contest(judge, [builtin_bot(level, seed=index) for index, level in
                                         enumerate(["hard", "normal", "easy", "random", "hard"])]))[0]
    assert judge.refused == 0
    assert len(judge.given) == 4, "the daifugō and fugō of games 2 and 3 gave back"
    for result in results:
        assert [game.finish for game in result.games] == [places[:len(game.finish)] for game, places in
                                                          zip(result.games, judge.places, strict=True)]
        assert sum(len(game.finish) for game in result.games) >= 13 and result.faults == 0
    assert not [r for r in caplog.records if r.name == "president.uecda"]


def test_bots_play_on_through_the_tables_the_reference_server_sends(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 45: the reference server's rank cells repeat a rank once a player is out, and a cell without
    meaning may hold a value ([5][8] = 2).  Every client plays the match to its end flag, follows every game
    (same finishing orders as the engine's), and says what surprised it once a match, not once a table."""
    judge = EngineServer(deals=6, seed=16, reference=True, junk_every=5)
    results = run(engine_contest(judge, [builtin_bot(level, seed=index) for index, level in
                                         enumerate(["hard", "normal", "easy", "random", "hard"])]))[0]
    assert judge.repeated_ranks > 0 and judge.junk > 5, "the server did send such tables"
    assert judge.refused == 0
    for result in results:
        assert [game.finish for game in result.games] == [places[:len(game.finish)] for game, places in
                                                          zip(result.games, judge.places, strict=True)]
        assert len(result.games) == 6 and result.faults == 0
        kinds = dict(result.surprises)
        assert set(kinds) == {"unused cells"} and kinds["unused cells"] == 6, "counted in every game"
    said = [r.getMessage() for r in caplog.records if r.name == "president.uecda"]
    assert len(said) == 5 and all("[5][8]: holds 2" in line for line in said), "once a match for each client"


def test_a_game_whose_tables_cannot_be_followed_is_played_to_its_end() -> None:
    """A status cell the client needs, amiss on a table it need not act on (seats that seat a player twice):
    said once, the game's thread is lost, and the client still answers its turns (the lowest single on an
    empty table, else a pass) until the next deal.  The card cells of a table it acts on stay strict."""
    seats, counts = (0, 1, 2, 3, 4), (11, 11, 11, 10, 10)

    def wire(cards: CardCells, **changes: Any) -> bytes:
        fields: dict[str, Any] = dict(exchange=False, give_back=0, your_turn=False, player=1, table_empty=True,
                                      eleven_back=False, revolution=False, suit_lock=False, card_counts=counts,
                                      ranks=(0,) * 5, seats=seats)
        return encode(Table(cards, Status(**{**fields, **changes})))

    hand = CardCells.hand(CardSet("4S 3H 9D 5C 6C 7C 8C 10C JC QC JK"))
    deal = Reading.of(wire(hand, exchange=True, player=DEAL_TABLE_PLAYER))
    tracker = GameTracker(DAIFUGO, 0, 1, deal, (0,) * 5)
    broken = bytearray(wire(hand))
    broken[(6 * 15 + 12) * 4 + 3] = 0  # seat 2 holds player 0 too
    assert not tracker.hand_table(Reading.of(bytes(broken)))
    assert tracker.lost is not None and "seat" in tracker.lost
    tracker.after_move(Reading.of(wire(CardCells(), player=1)))
    assert tracker.hand_table(Reading.of(wire(hand, your_turn=True, player=0)))
    with pytest.raises(ContestProtocolError, match="could not be followed"):
        tracker.observation()
    assert tracker.fallback() == CardCells(frozenset(CardSet("3H")))
    assert tracker.hand_table(Reading.of(wire(hand, your_turn=True, player=0, table_empty=False)))
    assert tracker.fallback() == CardCells()
    assert dict(tracker.surprises.counts) == {"lost": 1}
    bad_hand = bytearray(wire(hand, your_turn=True, player=0))
    bad_hand[(0 * 15 + 5) * 4 + 3] = 7
    with pytest.raises(CellError, match=r"\[0\]\[5\]"):
        tracker.hand_table(Reading.of(bytes(bad_hand)))


def test_a_give_back_the_deal_table_cannot_explain_is_the_weakest_cards() -> None:
    """[5][1] = 2 with ranks that are no permutation: the bot cannot be asked (no roles), the client gives back
    its two weakest cards rather than stop the match (the server checks the count and the cards it holds)."""
    hand = CardCells.hand(CardSet("2S JK 3C 3D AH 9S 10S JS QS KS AS KD KC"))
    deal = Table(hand, Status(exchange=True, give_back=2, your_turn=False, player=DEAL_TABLE_PLAYER, table_empty=True,
                              eleven_back=False, revolution=False, suit_lock=False, card_counts=(11, 11, 11, 10, 10),
                              ranks=(0, 0, 1, 3, 4), seats=(0, 1, 2, 3, 4)))
    tracker = GameTracker(DAIFUGO, 0, 2, Reading.of(encode(deal)), (5, 4, 3, 2, 1))
    assert tracker.give_back == 2 and set(tracker.surprises.counts) == {"deal-ranks"}
    assert uecda_client._give_back(builtin_bot("hard"), tracker, Reading.of(encode(deal))) == CardCells(
        frozenset(CardSet("3D 3C")))


@pytest.mark.parametrize("games", [12, pytest.param(210, marks=pytest.mark.slow)])
def test_the_command_plays_a_reference_like_server_to_its_end_flag(games: int) -> None:
    """Issue 45, as a user meets it: `president-bot builtin:hard --uecda` against a server that sends the
    reference server's tables, exit 0 with a line a game; a longer match crosses the rank resets of games 101
    and 201 (1,000 games: `make bench-uecda`)."""
    judge = EngineServer(deals=games, seed=17, reference=True)
    command = [str(Path(sys.executable).parent / "president-bot"), "builtin:hard", "--uecda"]
    results, ran = run(engine_contest(judge, [builtin_bot("easy", seed=n) for n in range(4)], timeout=120,
                                      command=command), limit=max(120, games * 1.5))
    assert ran is not None and judge.repeated_ranks > 0 and judge.junk > 0
    status, out, err = ran
    assert status == 0, err
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == [f"game {n}" for n in range(1, games + 1)]
    assert lines[-1].startswith(f"uecda: HardBot was player 0; {games} games;")
    assert lines[-1].endswith(f"; tables not as the spec says (each kind said once): unused cells in {games} games")
    assert err.count("said once a match") == 1
    assert all(len(result.games) == games for result in results)


def test_the_readmes_bot_file_enters_a_reference_like_server() -> None:
    """docs/uecda.md's ``president-bot examples/python/first_bot.py --uecda 127.0.0.1:42485`` (a free port): a bot
    file enters a server that sends the reference server's tables as one of its five clients, plays every
    game with a line each and the totals, and exits 0 at the end flag."""
    judge = EngineServer(deals=5, seed=23, reference=True)
    command = [str(Path(sys.executable).parent / "president-bot"),
               str(Path(__file__).resolve().parents[2] / "examples/python/first_bot.py"), "--uecda"]
    results, ran = run(engine_contest(judge, [builtin_bot("normal", seed=n) for n in range(4)], timeout=60,
                                      command=command))
    assert ran is not None and judge.junk > 0
    status, out, err = ran
    assert status == 0 and "Traceback" not in err, err
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == [f"game {n}" for n in range(1, 6)]
    assert lines[-1].startswith("uecda: FirstBot was player 0; 5 games;"), lines[-1]
    assert all(len(result.games) == 5 for result in results)


# --- the table encoding ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "cell", "cells"), [
    ("9S 10S JK", Cell.parse("JS"), {(0, 7): 1, (0, 8): 1, (0, 9): 2}),
    ("3H 4H JK", Cell.parse("loH"), {(1, 0): 2, (1, 1): 1, (1, 2): 1}),
    ("AD 2D JK", Cell.parse("hiD"), {(2, 12): 1, (2, 13): 1, (2, 14): 2}),
    ("7C 7D 7H 7S JK", Cell.parse("7"), {(0, 5): 1, (1, 5): 1, (2, 5): 1, (3, 5): 1, (4, 5): 2}),
    ("5C 5H JK", Cell.parse("5S"), {(0, 3): 2, (1, 3): 1, (3, 3): 1}),
    ("JK", None, {(0, 14): 2}),
    ("4D 5D 6D 7D 8D", None, {(2, column): 1 for column in range(2, 7)}),
])
def test_a_play_is_written_as_the_spec_says_and_reads_back(text: str, cell: Cell | None,
                                                          cells: dict[tuple[int, int], int]) -> None:
    play = play_of_cells(DAIFUGO, cells_of_play(Play(CardSet(text), cell=cell)))
    wire = encode_cards(cells_of_play(play))
    grid = unpack(wire)
    assert {(r, c): v for r, row in enumerate(grid) for c, v in enumerate(row) if v} == cells
    again = play_of_cells(DAIFUGO, decode_cards(wire))
    assert again == play and again.rank == play.rank and again.cell == cell


def test_a_give_back_and_a_pass_on_the_wire() -> None:
    assert cells_of_action(GiveBack(CardSet("3C JK"))) == CardCells.hand(CardSet("3C JK"))
    assert encode_cards(cells_of_action(PASS)) == bytes(TABLE_BYTES)


# --- the Observation built from tables, against the engine's own ---------------------------------------------


def status(match: Match, *, mover: int, viewer: int, empty: bool) -> Status:
    return Status(exchange=False, give_back=0, your_turn=viewer == mover, player=mover, table_empty=empty,
                  eleven_back=False, revolution=match.reversed, suit_lock=bool(match.suit_lock),
                  card_counts=match.hand_sizes(), ranks=(0,) * 5, seats=match.seats)


def replay_through_tables(seed: int) -> tuple[int, set[str]]:
    """An engine game of the contest's rules, shown to five trackers as the contest server's tables; at every
    turn the mover's tracker must offer exactly the engine's legal actions.  The turns checked, and what the
    game showed (locks, sequences, revolutions)."""
    rules = Rules.preset("daifugo", deals=1)
    match = Match(rules, seed=seed)
    choose = random.Random(seed)
    deal_status = Status(exchange=True, give_back=0, your_turn=False, player=DEAL_TABLE_PLAYER, table_empty=True,
                         eleven_back=False, revolution=False, suit_lock=False, card_counts=match.hand_sizes(),
                         ranks=(0,) * 5, seats=match.seats)
    trackers = [GameTracker(rules, p, 1, Table(CardCells.hand(match.hand(p)), deal_status), (0,) * 5)
                for p in range(5)]
    seen: set[str] = set()
    turns = 0
    while not match.is_over:
        mover = match.to_act
        assert mover is not None
        on_table = match.table
        for p, tracker in enumerate(trackers):
            shown = Table(CardCells.hand(match.hand(p)), status(match, mover=mover, viewer=p, empty=on_table is None))
            assert tracker.hand_table(shown) == (p == mover)
        obs = trackers[mover].observation()
        legal = match.legal_actions()
        assert obs.legal_actions == legal
        assert (obs.suit_lock, obs.reversed, obs.table) == (match.suit_lock, match.reversed, match.table)
        assert obs.hand == match.hand(mover) and obs.played == match.observation(mover).played
        turns += 1
        seen |= {"lock"} if match.suit_lock else set()
        seen |= {"revolution"} if match.reversed else set()
        plays = [a for a in legal if isinstance(a, Play)]
        biggest = [a for a in plays if a.size == max((p.size for p in plays), default=0)]
        action = choose.choice(biggest if choose.random() < 0.3 else plays) if plays and choose.random() < 0.8 \
            else legal[-1]
        if isinstance(action, Play) and action.cell is not None:
            seen.add("joker cell")
        if isinstance(action, Play) and len({c.rank for c in action.cards if c.suit is not None}) > 1:
            seen.add("sequence")
        events = match.apply(action)
        cards = cells_of_action(action) if isinstance(action, Play) else (
            cells_of_play(on_table) if on_table is not None else CardCells())
        for tracker in trackers:
            tracker.after_move(Table(cards, status(match, mover=mover, viewer=-1, empty=not len(cards))))
        ended = [e for e in events if isinstance(e, DealEnded)]
        if ended:
            for tracker in trackers:
                tracker.game_over()
                if len(tracker.finish) == 5:  # else the 20-pass rule ranked the rest at random
                    assert tuple(tracker.finish) == ended[0].places
    return turns, seen


def test_the_observation_from_tables_is_the_engines_over_whole_games(caplog: pytest.LogCaptureFixture) -> None:
    """Seeds 28 and 35 have revolutions; no tracker ever finds the server's lock or order other than its own."""
    seen: set[str] = set()
    turns = 0
    for seed in [*range(12), 28, 35]:
        checked, shown = replay_through_tables(seed)
        turns += checked
        seen |= shown
    assert turns > 300
    assert seen >= {"lock", "sequence", "joker cell", "revolution"}, seen
    assert not [r for r in caplog.records if r.name == "president.uecda"]


def test_a_sequence_under_a_suit_lock_from_a_hand_table_and_a_table_after_move() -> None:
    """Player 1 led 3S 4S 5S, player 2 locked spades with 9S 10S JK=JS; player 0, to move, may only answer
    a higher spade sequence of three, or pass."""
    seats = (0, 1, 2, 3, 4)
    counts = [11, 11, 11, 10, 10]

    def table(cards: CardCells, *, player: int, mine: bool = False, empty: bool = False,
              lock: bool = False) -> Table:
        return Table(cards, Status(exchange=False, give_back=0, your_turn=mine, player=player, table_empty=empty,
                                   eleven_back=False, revolution=False, suit_lock=lock, card_counts=tuple(counts),
                                   ranks=(0,) * 5, seats=seats))

    hand = CardSet("QS KS AS 4H 5H 6H 7C 8C 9C 2D 3D")
    deal = Table(CardCells.hand(hand), Status(
        exchange=True, give_back=0, your_turn=False, player=DEAL_TABLE_PLAYER, table_empty=True,
        eleven_back=False, revolution=False, suit_lock=False, card_counts=tuple(counts), ranks=(0,) * 5, seats=seats))
    tracker = GameTracker(DAIFUGO, 0, 1, deal, (0,) * 5)
    first = CardCells(frozenset(CardSet("3S 4S 5S")))
    second = CardCells(frozenset(CardSet("9S 10S")), JokerCell(Suit.SPADES, 9))
    assert not tracker.hand_table(table(CardCells(), player=1, empty=True))
    counts[1] -= 3
    tracker.after_move(table(first, player=1))
    tracker.hand_table(table(CardCells(), player=2))
    counts[2] -= 3
    tracker.after_move(table(second, player=2, lock=True))
    assert tracker.hand_table(table(CardCells.hand(hand), player=0, mine=True, lock=True))
    obs = tracker.observation()
    assert obs.suit_lock == (Suit.SPADES,)
    assert [str(a) for a in obs.legal_actions] == ["QS KS AS", "pass"]
    # the same state in the engine: the view with these hands for the others
    unseen = list(full_deck(1, 1) - hand - obs.played)
    others = [CardSet(unseen[:8]), CardSet(unseen[8:16]), CardSet(unseen[16:26]), CardSet(unseen[26:])]
    world = Match.from_view(obs, [hand, *others])
    assert obs.legal_actions == world.legal_actions()
    assert play_of_cells(DAIFUGO, second) == Play(CardSet("9S 10S JK"), cell=Cell.parse("JS"))


@pytest.mark.parametrize(("player", "owed"), [(0, 2), (1, 1)])
def test_a_give_back_observation_offers_every_choice_of_owed_cards(player: int, owed: int) -> None:
    """Player 0 is daifugō, 1 fugō: their deal tables show their hands after the tribute, the counts as dealt."""
    deck = list(full_deck(1, 1))
    hand = CardSet(deck[:13] if player == 0 else deck[13:25])
    deal = Table(CardCells.hand(hand), Status(
        exchange=True, give_back=owed, your_turn=False, player=DEAL_TABLE_PLAYER, table_empty=True, eleven_back=False,
        revolution=False, suit_lock=False, card_counts=(11, 11, 11, 10, 10), ranks=(0, 1, 2, 3, 4),
        seats=(0, 1, 2, 3, 4)))
    obs = GameTracker(DAIFUGO, player, 2, deal, (5, 4, 3, 2, 1)).give_back_observation()
    assert obs.owed == owed and obs.hand == hand and obs.phase is Phase.GIVE_BACK
    choices = [CardSet(pick) for pick in itertools.combinations(hand, owed)]
    assert sorted(a.cards.bits for a in obs.legal_actions if isinstance(a, GiveBack)) == sorted(
        c.bits for c in choices)


def test_a_game_the_twenty_pass_rule_ended_is_completed_from_the_next_ranks() -> None:
    game = ContestGame(3, (4, 1))
    assert finish_from_ranks(game, (0,) * 5) == game
    assert finish_from_ranks(game, (2, 1, 3, 4, 0)) == ContestGame(3, (4, 1, 0, 2, 3))
    assert game.place_of(1) == 2 and game.points_of(4) == 5 and game.place_of(0) is None


# --- the command -------------------------------------------------------------------------------------------


def test_a_uecda_address_without_a_port_is_the_contests_port() -> None:
    assert bot_cli.uecda_address("contest.example") == ("contest.example", 42485)
    assert bot_cli.uecda_address("[::1]:4000") == ("::1", 4000)


@pytest.mark.parametrize("address", ["127.0.0.1:notaport", "127.0.0.1:70000", ":42485", "a:1:2"])
def test_a_malformed_uecda_address_is_one_line_and_status_2(address: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert bot_cli.main(["builtin:easy", "--uecda", address]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("president-bot: --uecda") and "Traceback" not in err


def test_a_refused_uecda_connection_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    port = asyncio.run(_closed_port())
    assert bot_cli.main(["builtin:easy", "--uecda", f"127.0.0.1:{port}", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot connect to 127.0.0.1:{port}" in err


def test_the_command_plays_a_match_and_prints_each_game(capsys: pytest.CaptureFixture[str]) -> None:
    async def main() -> int:
        server = ContestServer(games=2, seed=14)
        port = await server.start()
        serving = asyncio.create_task(server.run())
        command = asyncio.create_task(asyncio.to_thread(bot_cli.main, ["builtin:normal", "--uecda",
                                                                       f"127.0.0.1:{port}", "-q"]))
        await asyncio.sleep(0.1)
        others = [asyncio.create_task(play_uecda_async(builtin_bot("easy"), "127.0.0.1", port, timeout=30))
                  for _ in range(4)]
        await asyncio.gather(*others)
        await serving
        return await command

    assert run(main()) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and lines[0].startswith("game 1:") and lines[1].startswith("game 2:")
    assert lines[2].startswith("uecda: NormalBot was player 0; 2 games;")

