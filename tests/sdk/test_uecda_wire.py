"""The UECda wire helpers over real TCP on loopback, and whole games between the tests' contest server and
contest clients (tests/uecda_support.py), both written from shared/UECDA.md alone."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Awaitable, Callable, Coroutine
from itertools import pairwise
from typing import Any, TypeVar

import pytest
from president_sdk.uecda.table import (
    PROTOCOL_20070,
    TABLE_BYTES,
    Profile,
    TableSizeError,
    decode,
    decode_cards,
    decode_profile,
)
from president_sdk.uecda.wire import (
    ACCEPTED,
    GAME_ON,
    GAME_OVER,
    MATCH_OVER,
    REFUSED,
    HandshakeError,
    PeerClosedError,
    client_handshake,
    read_int,
    read_table,
    write_int,
    write_table,
)
from uecda_support import LONE_JOKER, PASS_TABLE, ClientRecord, ContestServer, ServerRecord, play_client

T = TypeVar("T")
TABLE = bytes(range(240)) * 2
Peer = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def run(coroutine: Coroutine[Any, Any, T], limit: float = 60) -> T:
    """One test's event loop, bounded so that a wedged peer fails the test instead of hanging it."""
    return asyncio.run(asyncio.wait_for(coroutine, limit))


async def connected(peer: Peer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, asyncio.Server]:
    """A loopback server running `peer` on its one connection, and our end of that connection."""
    server = await asyncio.start_server(peer, "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    return reader, writer, server


async def in_pieces(writer: asyncio.StreamWriter, data: bytes, *cuts: int) -> None:
    for start, end in zip((0, *cuts), (*cuts, len(data)), strict=True):
        writer.write(data[start:end])
        await writer.drain()
        await asyncio.sleep(0.02)


# --- the helpers -----------------------------------------------------------------------------------------


def test_a_table_and_an_int_sent_in_pieces_are_read_whole() -> None:
    async def peer(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await in_pieces(writer, TABLE + struct.pack(">i", 9) + TABLE, 1, 100, 479, 482, 600)
        writer.close()

    async def main() -> tuple[bytes, int, bytes]:
        reader, writer, server = await connected(peer)
        got = await read_table(reader, timeout=5), await read_int(reader, timeout=5), await read_table(reader)
        writer.close()
        server.close()
        return got

    assert run(main()) == (TABLE, 9, TABLE)


def test_each_table_and_each_int_goes_out_in_one_write() -> None:
    """A contest client reads a table with one read() and an int with another (UECDA.md 1)."""
    received: asyncio.Queue[bytes] = asyncio.Queue()

    async def peer(reader: asyncio.StreamReader, _writer: asyncio.StreamWriter) -> None:
        await received.put(await reader.readexactly(TABLE_BYTES + 8))

    async def main() -> list[int]:
        _reader, writer, server = await connected(peer)
        writes: list[int] = []
        transport_write = writer.transport.write

        def counted(data: bytes | bytearray | memoryview) -> None:
            writes.append(len(data))
            transport_write(data)

        writer.transport.write = counted  # type: ignore[method-assign]
        await write_int(writer, 8, timeout=5)
        await write_table(writer, TABLE, timeout=5)
        await write_int(writer, 2**31 - 1)
        assert await received.get() == struct.pack(">i", 8) + TABLE + bytes.fromhex("7fffffff")
        writer.close()
        server.close()
        return writes

    assert run(main()) == [4, TABLE_BYTES, 4]


def test_what_is_not_a_table_or_a_wire_int_is_never_written() -> None:
    async def main() -> None:
        _reader, writer, server = await connected(lambda _r, _w: asyncio.sleep(0))
        with pytest.raises(TableSizeError, match="480 bytes, not 479"):
            await write_table(writer, TABLE[:-1])
        with pytest.raises(ValueError, match="not -1"):
            await write_int(writer, -1)
        with pytest.raises(ValueError, match="not 2147483648"):
            await write_int(writer, 2**31)
        assert writer.transport.get_write_buffer_size() == 0
        writer.close()
        server.close()

    run(main())


def test_a_peer_that_closes_mid_table() -> None:
    async def peer(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(TABLE[:100])
        await writer.drain()
        writer.close()

    async def main() -> PeerClosedError:
        reader, writer, server = await connected(peer)
        with pytest.raises(PeerClosedError) as raised:
            await read_table(reader, timeout=5)
        writer.close()
        server.close()
        return raised.value

    error = run(main())
    assert (error.expected, error.received) == (480, 100)
    assert isinstance(error, ConnectionError)
    assert str(error) == "connection closed after 100 of 480 bytes"


def test_a_read_that_times_out_loses_nothing() -> None:
    go_on = asyncio.Event()

    async def peer(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(TABLE[:300])
        await go_on.wait()
        writer.write(TABLE[300:])
        await writer.drain()

    async def main() -> bytes:
        reader, writer, server = await connected(peer)
        with pytest.raises(TimeoutError):
            await read_table(reader, timeout=0.1)
        go_on.set()
        table = await read_table(reader, timeout=5)
        writer.close()
        server.close()
        return table

    assert run(main()) == TABLE


@pytest.mark.parametrize("answer", [0, 4])
def test_the_client_handshake(answer: int) -> None:
    profiles: list[Profile] = []

    async def peer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        profiles.append(decode_profile(await read_table(reader)))
        await write_int(writer, answer)

    async def main() -> int:
        reader, writer, server = await connected(peer)
        player = await client_handshake(reader, writer, "ours", timeout=5)
        writer.close()
        server.close()
        return player

    assert run(main()) == answer
    assert profiles == [Profile(PROTOCOL_20070, "ours")]


@pytest.mark.parametrize("answer", [5, 6, 2**31 - 1])
def test_a_handshake_answered_by_no_player_number(answer: int) -> None:
    async def peer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_table(reader)
        await write_int(writer, answer)

    async def main() -> None:
        reader, writer, server = await connected(peer)
        with pytest.raises(HandshakeError, match=f"player number {answer}; expected 0..4"):
            await client_handshake(reader, writer, "ours", timeout=5)
        writer.close()
        server.close()

    run(main())


def test_a_handshake_that_gets_no_answer_times_out() -> None:
    async def main() -> None:
        reader, writer, server = await connected(lambda _r, _w: asyncio.sleep(0))
        with pytest.raises(TimeoutError):
            await client_handshake(reader, writer, "ours", timeout=0.1)
        writer.close()
        server.close()

    run(main())


# --- whole games -----------------------------------------------------------------------------------------


async def match(server: ContestServer, *options: dict[str, Any]) -> tuple[ServerRecord, list[ClientRecord]]:
    """The server and five clients (`options` for the first ones), the clients connecting one by one."""
    port = await server.start()
    serving = asyncio.create_task(server.run())
    clients = []
    for index, chosen in enumerate([*options, *[{}] * (5 - len(options))]):
        clients.append(asyncio.create_task(play_client(port, f"bot{index}", **chosen)))
        await asyncio.sleep(0.01)
    records = await asyncio.gather(*clients)
    return await serving, list(records)


def check_game(record: ServerRecord, clients: list[ClientRecord], games: int = 1) -> None:
    """What every game must show, whoever plays: the same after-move tables for all, acks as judged, flags."""
    assert sorted(client.player for client in clients) == [0, 1, 2, 3, 4]
    assert len(record.results) == games
    for result in record.results:
        assert sorted(result) == [0, 1, 2, 3, 4]
    present = [client for client in clients if not client.left]
    assert all(client.closed_by_server for client in present)
    turns = len(record.submissions)
    games_of = [s.game for s in record.submissions]
    flags = [GAME_ON if now == then else GAME_OVER for now, then in pairwise(games_of)]
    flags.append(MATCH_OVER)
    for client in present:
        assert len(client.after_moves) == turns
        assert client.after_moves == present[0].after_moves
        assert list(client.flags) == flags
        own = [s for s in record.submissions if s.player == client.player]
        assert list(client.acks) == [s.ack for s in own]
        assert list(client.plays) == [s.table for s in own]
    for submission in record.submissions:
        assert submission.ack in (ACCEPTED, REFUSED)
        if submission.accepted:
            assert submission.ack == ACCEPTED
    for number, (deal, result, out) in enumerate(zip(record.deals, record.results, record.went_out, strict=True)):
        played = {player: 0 for player in range(5)}
        for submission in record.submissions:
            if submission.game == number and submission.accepted:
                played[submission.player] += len(decode_cards(submission.table))
        assert sum(len(hand) for hand in deal.values()) == 53
        assert [played[player] == len(deal[player]) for player in result] == [True] * out + [False] * (5 - out)
        if out < 4:  # only the 20-pass rule ends a game early
            assert [s.accepted for s in record.submissions if s.game == number][-20:] == [False] * 20


def test_one_game_of_five_contest_clients() -> None:
    server = ContestServer(seed=1)
    record, clients = run(match(server))
    check_game(record, clients)
    assert sorted(record.names) == [f"bot{index}" for index in range(5)]
    assert record.dropped == 0 and record.gone == frozenset() and record.went_out == (4,)
    # every after-move table decodes, shows who moved and a table of one card or none
    shown = [decode(table) for table in clients[0].after_moves]
    assert [table.status.player for table in shown] == [s.player for s in record.submissions]
    assert all(len(table.cards) <= 1 and not table.status.your_turn for table in shown)
    assert any(table.cards == LONE_JOKER for table in shown), "the joker is shown in the cell it was played in"
    assert any(s.ack == REFUSED for s in record.submissions), "a pass on cards is acked 8"


def test_two_games_end_with_flags_1_then_2() -> None:
    record, clients = run(match(ContestServer(games=2, seed=2)))
    check_game(record, clients, games=2)
    assert all(client.flags.count(GAME_OVER) == 1 and client.flags.count(MATCH_OVER) == 1 for client in clients)


def test_a_client_whose_every_write_arrives_in_pieces() -> None:
    """The server gathers short reads: the game is the same as with whole writes."""
    whole, _ = run(match(ContestServer(seed=3)))
    split, clients = run(match(ContestServer(seed=3), {"pieces": 3}, {"pieces": 7}))
    check_game(split, clients)
    assert split.submissions == whole.submissions
    assert split.names == whole.names


def test_a_malformed_play_is_refused_with_8_and_is_a_pass() -> None:
    """Two 2-cells (the standard client's malformed joker sequence, UECDA.md 4.8) on every client's first turn."""
    two_jokers = bytearray(TABLE_BYTES)
    struct.pack_into(">i", two_jokers, 4 * 7, 2)
    struct.pack_into(">i", two_jokers, 4 * 9, 2)
    bad = {"first_play": bytes(two_jokers)}
    record, clients = run(match(ContestServer(seed=4), bad, bad, bad, bad, bad))
    check_game(record, clients)
    firsts = [next(s for s in record.submissions if s.player == player) for player in range(5)]
    assert all(s.table == bytes(two_jokers) and not s.accepted and s.ack == REFUSED for s in firsts)


def test_a_client_that_disconnects_mid_game_passes_from_then_on() -> None:
    """As the reference server reads a closed socket: an all-zero table, i.e. a pass (UECDA.md 1)."""
    record, clients = run(match(ContestServer(seed=5), {"leave_after": 2}))
    leaver = clients[0]
    assert leaver.left and len(leaver.plays) == 2
    check_game(record, clients)
    assert record.gone == frozenset({leaver.player})
    later = [s for s in record.submissions if s.player == leaver.player][2:]
    assert later and all(s.table == PASS_TABLE and not s.accepted for s in later)
    assert leaver.player in record.results[0][record.went_out[0]:]
    # With this deal the leaver is left leading an empty table against one other player: it passes, the trick
    # ends, it leads again, and only the 20-pass rule (UECDA.md 4.8) ends the game.
    assert record.went_out == (3,)


def test_a_sixth_connection_is_refused() -> None:
    async def main() -> tuple[ServerRecord, list[ClientRecord]]:
        server = ContestServer(seed=6)
        playing = asyncio.create_task(match(server))
        await server.seated.wait()
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection("127.0.0.1", server.port)
        return await playing

    record, clients = run(main())
    check_game(record, clients)


def test_a_client_that_never_sends_its_profile_is_timed_out() -> None:
    async def main() -> tuple[ServerRecord, list[ClientRecord], bytes]:
        server = ContestServer(seed=7, profile_timeout=0.3)
        port = await server.start()
        serving = asyncio.create_task(server.run())
        silent_reader, silent_writer = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.sleep(0.05)
        clients = await asyncio.gather(*(play_client(port, f"bot{index}") for index in range(5)))
        heard = await silent_reader.read()
        silent_writer.close()
        return await serving, list(clients), heard

    record, clients, heard = run(main())
    assert heard == b"", "no player number for a client without a profile; the server closed it"
    assert record.dropped == 1
    check_game(record, clients)
