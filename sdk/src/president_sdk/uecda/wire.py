"""The UECda contest's messages on asyncio streams (shared/UECDA.md sections 1 and 3).

Only two shapes cross the wire: a 480-byte table and a 4-byte big-endian int (player number, ack, end flag).
A real contest client reads each with a single read() and no loop, so each goes out here in one write;
reading, on the other hand, tolerates any split, since TCP may deliver one send in pieces.

A timeout of None waits forever, as the reference server does.  A read that times out consumes nothing
(the stream keeps what had arrived), so it may be tried again.
"""

from __future__ import annotations

import asyncio
import struct
from typing import Final

from president_sdk.uecda.table import PLAYERS, PROTOCOL_20070, TABLE_BYTES, Profile, TableSizeError, encode_profile

INT_BYTES: Final = 4
ACCEPTED: Final = 9
"""The ack of an accepted play, and of a pass on an empty table."""
REFUSED: Final = 8
"""The ack of a refused play, and of a pass while cards are on the table."""
GAME_ON: Final = 0
GAME_OVER: Final = 1
MATCH_OVER: Final = 2
"""End flags, sent to every player after each table-after-move."""

_INT: Final = struct.Struct(">i")


class PeerClosedError(ConnectionError):
    """The peer closed the connection before a whole message arrived."""

    def __init__(self, expected: int, received: int) -> None:
        super().__init__(f"connection closed after {received} of {expected} bytes")
        self.expected = expected
        self.received = received


class HandshakeError(ValueError):
    """The server answered the profile with something that is not a player number."""


async def _read(reader: asyncio.StreamReader, size: int, timeout: float | None) -> bytes:
    try:
        return await asyncio.wait_for(reader.readexactly(size), timeout)
    except asyncio.IncompleteReadError as exc:
        raise PeerClosedError(size, len(exc.partial)) from None


async def _write(writer: asyncio.StreamWriter, data: bytes, timeout: float | None) -> None:
    writer.write(data)
    await asyncio.wait_for(writer.drain(), timeout)


async def read_table(reader: asyncio.StreamReader, *, timeout: float | None = None) -> bytes:
    """Exactly one table's 480 bytes, however the sender's bytes were split."""
    return await _read(reader, TABLE_BYTES, timeout)


async def write_table(writer: asyncio.StreamWriter, table: bytes, *, timeout: float | None = None) -> None:
    """One table in one write: a contest client that gets part of it reads garbage."""
    if len(table) != TABLE_BYTES:
        raise TableSizeError(f"a table is {TABLE_BYTES} bytes, not {len(table)}")
    await _write(writer, table, timeout)


async def read_int(reader: asyncio.StreamReader, *, timeout: float | None = None) -> int:
    """One 4-byte big-endian int."""
    value: int = _INT.unpack(await _read(reader, INT_BYTES, timeout))[0]
    return value


def pack_int(value: int) -> bytes:
    """A wire int's 4 bytes; the contest never sends a negative value."""
    if not 0 <= value <= 2**31 - 1:
        raise ValueError(f"a wire int is 0..2**31-1, not {value}")
    return _INT.pack(value)


async def write_int(writer: asyncio.StreamWriter, value: int, *, timeout: float | None = None) -> None:
    """One 4-byte big-endian int in one write."""
    await _write(writer, pack_int(value), timeout)


async def client_handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, name: str, *,
                           timeout: float | None = None) -> int:
    """Send the profile (protocol 20070, `name`) and return the player number the server gives back."""
    await write_table(writer, encode_profile(Profile(PROTOCOL_20070, name)), timeout=timeout)
    player = await read_int(reader, timeout=timeout)
    if not 0 <= player < PLAYERS:
        raise HandshakeError(f"the server sent player number {player}; expected 0..{PLAYERS - 1}")
    return player
