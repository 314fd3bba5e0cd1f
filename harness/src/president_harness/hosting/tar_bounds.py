"""An archive's tar headers, walked and bounded before tarfile reads any of them.

tarfile reads a PAX or GNU long-name header's whole payload into memory and parses it (with searches that take
time quadratic in a run of digits), keeps every member's headers, and follows a chain of extended headers by
recursion: a small gzipped tar of huge or many headers takes gigabytes and minutes before a member is seen.
`scan` reads the 512-byte headers of the decompressed stream itself, one bounded header at a time, and refuses
an archive whose metadata is over the caps below; `Within` then hands tarfile only the bytes the scan passed,
so that where tarfile and the scan could read a header differently, tarfile still reads nothing unchecked.
"""

from __future__ import annotations

import re
import tarfile
import zlib
from io import BufferedIOBase, UnsupportedOperation

MB = 1024 * 1024
NAME_BYTES = 1024
"""The longest name or link target of an entry (UTF-8 bytes)."""
DEPTH = 64
"""The most folders an entry's name goes down through."""
EXTENDED_BYTES = 16 * 1024
"""The largest PAX or GNU long-name header's payload."""
EXTENDED_TOTAL = 32 * MB
"""All extended headers' payloads together (as tarfile reads them, padded to 512-byte blocks): room for a PAX
header of a name and a link of NAME_BYTES each on every one of the builder's 10,000 entries."""
RECORDS = 40_000
"""The most PAX records in all the archive's headers."""
GLOBAL_RECORDS = 16
"""The most PAX records that global headers set (tarfile copies them into every member)."""
DIGITS = 32
"""The longest run of digits in an extended header (tarfile's search for 'hdrcharset' is quadratic in one)."""
BLOCK = tarfile.BLOCKSIZE
_STEP = 64 * 1024
_PAX = (tarfile.XHDTYPE, tarfile.SOLARIS_XHDTYPE)
_LONG = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
_RECORD = re.compile(rb"(\d+) ([^=]+)=")
_LONG_DIGITS = re.compile(rb"\d{%d}" % (DIGITS + 1))


class RefusedArchiveError(ValueError):
    """An archive whose headers are over a cap or cannot be read; the message says which, in one line."""


def scan(archive: bytes, *, entries: int, unpacked_bytes: int) -> int:
    """The length of the tar stream in the gzipped `archive`, through its end-of-archive block, once every header
    has passed the caps (at most `entries` entries, `unpacked_bytes` of their sizes together, and this module's
    caps on names and extended headers); RefusedArchiveError at the first header over one."""
    if archive[:2] != b"\x1f\x8b":
        raise RefusedArchiveError("not a gzipped tar that unpacks here: not a gzip file")
    stream = _Inflated(archive)
    members = unpacked = extended = records = 0
    global_keys: set[bytes] = set()
    chain: set[bytes] = set()
    """The kinds of extended header read since the last entry (at most one of each)."""
    size: int | None = None
    """The size the chain's PAX header gives its entry."""
    while True:
        start = stream.position
        block = stream.read(BLOCK)
        if len(block) < BLOCK or not block.strip(b"\0"):  # where tarfile sees the archive's end
            if chain:
                raise RefusedArchiveError("an extended header with no entry after it")
            return stream.position
        try:
            info = tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
        except tarfile.HeaderError as exc:
            raise RefusedArchiveError(f"not a gzipped tar that unpacks here: {exc} at byte {start}") from None
        if info.size < 0:
            raise RefusedArchiveError(f"a header of a negative size at byte {start}")
        kind = tarfile.XHDTYPE if info.type in _PAX else info.type
        if kind in (*_PAX, *_LONG, tarfile.XGLTYPE):
            if kind in chain:
                raise RefusedArchiveError(f"two extended headers of one kind before one entry, at byte {start}")
            chain.add(kind)
            if info.size > EXTENDED_BYTES:
                raise RefusedArchiveError(f"an extended header of {info.size} bytes, over its cap of {EXTENDED_BYTES}")
            extended += _blocks(info.size)
            if extended > EXTENDED_TOTAL:
                raise RefusedArchiveError(f"more than {EXTENDED_TOTAL // MB} MB of extended headers")
            payload = stream.read(_blocks(info.size))  # tarfile reads and parses the padding too
            if kind in _LONG:
                _name(payload.split(b"\0", 1)[0])
                continue
            pax = _records(payload)
            records += len(pax)
            if records > RECORDS:
                raise RefusedArchiveError(f"more than {RECORDS} PAX records")
            if kind == tarfile.XGLTYPE:
                if any(key == b"size" or key.startswith(b"GNU.sparse.") for key, _ in pax):
                    raise RefusedArchiveError("a global header that sets a size or a sparse map")
                global_keys.update(key for key, _ in pax)
                if len(global_keys) > GLOBAL_RECORDS:
                    raise RefusedArchiveError(f"global headers of more than {GLOBAL_RECORDS} records")
            for key, value in pax:
                if key.startswith(b"GNU.sparse."):
                    raise RefusedArchiveError("a sparse file")
                if key in (b"path", b"linkpath"):
                    _name(value)
                elif key == b"size" and kind != tarfile.XGLTYPE:
                    size = _pax_number(value)
            continue
        if info.type == tarfile.GNUTYPE_SPARSE:
            raise RefusedArchiveError("a sparse file")
        members += 1
        entry_size = info.size if size is None else size
        unpacked += entry_size
        if members > entries or entry_size < 0 or unpacked > unpacked_bytes:
            raise RefusedArchiveError(f"more than {entries} entries or {unpacked_bytes // MB} MB unpacked")
        if info.isreg() or info.type not in tarfile.SUPPORTED_TYPES:  # where tarfile skips data
            stream.skip(_blocks(entry_size))
        chain.clear()
        size = None


def _blocks(size: int) -> int:
    return -(-size // BLOCK) * BLOCK


def _name(name: bytes) -> None:
    if len(name) > NAME_BYTES:
        raise RefusedArchiveError(f"a name of {len(name)} bytes, over its cap of {NAME_BYTES}")


def _records(payload: bytes) -> list[tuple[bytes, bytes]]:
    """A PAX header's (keyword, value) records, each whole and followed only by more or by zero bytes (stricter
    than tarfile, so that its parse of them takes time linear in their size)."""
    if _LONG_DIGITS.search(payload):
        raise RefusedArchiveError(f"an extended header with a run of more than {DIGITS} digits")
    found: list[tuple[bytes, bytes]] = []
    at = 0
    while (match := _RECORD.match(payload, at)) is not None:
        end = at + int(match.group(1))
        if end <= match.end() or end > len(payload) or payload[end - 1] != ord("\n"):
            raise RefusedArchiveError("a PAX record that cannot be read")
        found.append((match.group(2), payload[match.end():end - 1]))
        at = end
    if payload[at:].strip(b"\0"):
        raise RefusedArchiveError("a PAX record that cannot be read")
    return found


def _pax_number(value: bytes) -> int:
    """A PAX number as tarfile reads it (0 when it is not one)."""
    try:
        return int(value.decode("utf-8", "replace"))
    except ValueError:
        return 0


class _Inflated:
    """A gzip stream's bytes, its members one after another as gzip reads them, read forward at most _STEP at a
    time."""

    def __init__(self, compressed: bytes) -> None:
        self._compressed = memoryview(compressed)
        self._fed = 0
        self._inflate = zlib.decompressobj(wbits=31)
        self._buffer = bytearray()
        self.position = 0

    def _fill(self, wanted: int) -> None:
        """Decompress until `wanted` bytes are buffered or the stream ends; RefusedArchiveError for one that is not
        gzip."""
        try:
            while len(self._buffer) < wanted:
                if self._inflate.eof:
                    self._fed -= len(self._inflate.unused_data)
                    while self._fed < len(self._compressed):  # gzip skips zero bytes between members
                        piece = bytes(self._compressed[self._fed:self._fed + _STEP])
                        self._fed += len(piece) - len(piece.lstrip(b"\0"))
                        if piece.lstrip(b"\0"):
                            break
                    if self._fed >= len(self._compressed):
                        return
                    self._inflate = zlib.decompressobj(wbits=31)
                data = self._inflate.unconsumed_tail
                if not data:
                    if self._fed >= len(self._compressed):
                        return  # cut short: tarfile sees its end here too
                    data = bytes(self._compressed[self._fed:self._fed + _STEP])
                    self._fed += len(data)
                self._buffer += self._inflate.decompress(data, _STEP)
        except zlib.error as exc:
            raise RefusedArchiveError(f"not a gzipped tar that unpacks here: {exc}") from None

    def read(self, size: int) -> bytes:
        """The next `size` bytes (fewer at the end)."""
        self._fill(size)
        taken = bytes(self._buffer[:size])
        del self._buffer[:size]
        self.position += len(taken)
        return taken

    def skip(self, size: int) -> None:
        """Pass over the next `size` bytes (fewer at the end), holding at most _STEP of them."""
        while size > 0:
            taken = len(self.read(min(size, _STEP)))
            if not taken:
                return
            size -= taken


class Within:
    """The first `end` bytes of a seekable stream, for tarfile: a read stops there."""

    def __init__(self, stream: BufferedIOBase, end: int) -> None:
        self._stream = stream
        self._end = end

    def read(self, size: int = -1) -> bytes:
        left = max(0, self._end - self._stream.tell())
        return self._stream.read(left if size is None or size < 0 else min(size, left))

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._stream.seek(offset, whence)

    def tell(self) -> int:
        return self._stream.tell()

    def write(self, data: bytes) -> int:
        raise UnsupportedOperation("an archive being unpacked is read only")

    def close(self) -> None:
        """Nothing: the stream is its owner's to close."""
