"""The builder's and the host's unpacking is bounded before tarfile reads anything (issue 44): small gzipped tars
of huge, many, long or chained headers are refused with one line, and the unpacking process stays within a few
hundred MB of memory and seconds of CPU (each case runs `unpack` in a child process under address-space and CPU
limits, so that a blow-up fails the test by MemoryError or the kernel's kill, never by a timing).  An honest
archive of long names, deep folders and links still unpacks."""

from __future__ import annotations

import asyncio
import hashlib
import io
import subprocess
import sys
import tarfile
import zlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TypeVar

import grpc
import pytest
from president_harness.hosting.bot_folder import pack
from president_harness.hosting.builder import UnbuildableError
from president_harness.hosting.hosting import fetch_built
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_service.server.grpc_server import ServerConfig, start

LIMIT_MB = 200
"""The address space the unpacking may add to the child's, once it has imported the builder."""
CPU_S = 20
UNPACK = f"""
import resource, sys
from pathlib import Path
from president_harness.hosting.builder import UnbuildableError, unpack
archive = Path(sys.argv[1]).read_bytes()
size = int(next(line for line in open("/proc/self/status") if line.startswith("VmSize:")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + ({LIMIT_MB} << 20), size + ({LIMIT_MB} << 20)))
resource.setrlimit(resource.RLIMIT_CPU, ({CPU_S}, {CPU_S}))
try:
    unpack(archive, Path(sys.argv[2]))
except UnbuildableError as exc:
    print(exc)
else:
    print("unpacked")
"""


def _unpacked(archive: bytes, tmp_path: Path) -> str:
    """`unpack` of the archive in a child process under the limits: the line it printed (its refusal)."""
    (tmp_path / "archive.tgz").write_bytes(archive)
    (tmp_path / "into").mkdir()
    done = subprocess.run([sys.executable, "-c", UNPACK, str(tmp_path / "archive.tgz"), str(tmp_path / "into")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    return done.stdout.strip()


def _header(name: str, kind: bytes, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    return info.tobuf(format=tarfile.USTAR_FORMAT)


def _gzipped(pieces: Iterator[bytes]) -> bytes:
    """The pieces one after another, gzipped as tightly as zlib can (a megabyte of zeros in about a kilobyte)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join(packer.compress(piece) for piece in pieces) + packer.flush()


def _zeros(size: int) -> Iterator[bytes]:
    chunk = bytes(1 << 20)
    for _ in range(size >> 20):
        yield chunk


def test_chained_pax_headers_of_huge_payloads_are_refused_before_they_are_read(tmp_path: Path) -> None:
    """Eight PAX headers of 32 MB (zero bytes: no records) before one entry: tarfile holds each payload while it
    reads the next, 256 MB from 260 KB."""
    def pieces() -> Iterator[bytes]:
        for n in range(8):
            yield _header(f"pax{n}", tarfile.XHDTYPE, 32 << 20)
            yield from _zeros(32 << 20)
        yield _header("bot.py", tarfile.REGTYPE, 0)
        yield bytes(1024)
    archive = _gzipped(pieces())
    assert len(archive) < 400_000
    assert _unpacked(archive, tmp_path) == ("the archive is refused: an extended header of 33554432 bytes, over its cap"
                                            " of 16384")


def test_thousands_of_members_with_long_names_are_refused_at_the_first(tmp_path: Path) -> None:
    """Ten thousand entries, each named by a PAX header of 32 KB: tarfile keeps every name, 330 MB from 1.4 MB."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for n in range(10_000):
            tar.addfile(tarfile.TarInfo(f"{n:05}" + "a" * (32 << 10)))
    archive = _gzipped(iter([out.getvalue()]))
    assert len(archive) < 2_000_000
    assert _unpacked(archive, tmp_path) == ("the archive is refused: an extended header of 32785 bytes, over its cap"
                                            " of 16384")


def test_a_chain_of_thousands_of_extended_headers_is_refused(tmp_path: Path) -> None:
    """Two thousand GNU long-name headers before one entry: tarfile follows them by recursion."""
    name = b"x" * 100 + b"\0"

    def pieces() -> Iterator[bytes]:
        for _ in range(2000):
            yield _header("././@LongLink", tarfile.GNUTYPE_LONGNAME, len(name))
            yield name.ljust(512, b"\0")
        yield _header("bot.py", tarfile.REGTYPE, 0)
        yield bytes(1024)
    assert _unpacked(_gzipped(pieces()), tmp_path) == ("the archive is refused: two extended headers of one kind"
                                                      " before one entry, at byte 1024")


def test_pax_headers_made_to_be_parsed_slowly_are_refused(tmp_path: Path) -> None:
    """PAX headers whose path is a run of 16,000 digits: tarfile's search for 'hdrcharset' takes about a second of
    CPU on each, so two hundred of them take minutes."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for n in range(200):
            tar.addfile(tarfile.TarInfo(f"{n:03}" + "1" * 16_000))
    assert _unpacked(_gzipped(iter([out.getvalue()])), tmp_path) == (
        "the archive is refused: an extended header with a run of more than 32 digits")


@pytest.mark.parametrize(("pieces", "reason"), [
    ([_header("size", tarfile.XGLTYPE, 11), b"11 size=99\n".ljust(512, b"\0"), _header("a", tarfile.REGTYPE, 0)],
     "a global header that sets a size or a sparse map"),
    ([_header("pax", tarfile.XHDTYPE, 7), b"7 a=b\nZ".ljust(512, b"\0"), _header("a", tarfile.REGTYPE, 0)],
     "a PAX record that cannot be read"),
    ([_header("pax", tarfile.XHDTYPE, 20), b"5 path=abcdefghij\n".ljust(512, b"\0"), _header("a", tarfile.REGTYPE, 0)],
     "a PAX record that cannot be read"),
    ([_header("pax", tarfile.XHDTYPE, 2011), b"2011 path=" + b"a" * 2000 + b"\n", bytes(-2011 % 512),
      _header("a", tarfile.REGTYPE, 0)], "a name of 2000 bytes, over its cap of 1024"),
    ([_header("pax", tarfile.XHDTYPE, 0)], "an extended header with no entry after it"),
    ([_header("sparse", tarfile.GNUTYPE_SPARSE, 0)], "a sparse file"),
    ([_header("d/" * 65 + "x", tarfile.REGTYPE, 0)], "is more than 64 folders deep"),
], ids=["global-size", "trailing-garbage", "record-overrun", "long-name", "dangling", "sparse", "deep"])
def test_other_unusual_headers_are_refused_with_their_reason(pieces: list[bytes], reason: str,
                                                             tmp_path: Path) -> None:
    line = _unpacked(_gzipped(iter([*pieces, bytes(1024)])), tmp_path)
    assert line.startswith("the archive is refused: ") and reason in line, line


def test_an_honest_archive_of_long_names_deep_folders_and_links_unpacks(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    deep = folder.joinpath(*[f"folder{n}" for n in range(64)])
    deep.mkdir(parents=True)
    (deep / ("long" * 60 + ".py")).write_text("print('deep')\n")
    (folder / "bot.py").write_text("print('bot')\n")
    (folder / "link.py").symlink_to("bot.py")
    (folder / "name with ünïcode.txt").write_text("ü\n")
    assert _unpacked(pack(folder, skipped=()), tmp_path) == "unpacked"
    into = tmp_path / "into"
    assert (into / "bot.py").read_text() == "print('bot')\n" and (into / "link.py").is_symlink()
    assert (into.joinpath(*[f"folder{n}" for n in range(64)]) / ("long" * 60 + ".py")).read_text() == "print('deep')\n"
    assert (into / "name with ünïcode.txt").read_text() == "ü\n"


@pytest.mark.parametrize("tar_format", ["gnu", "pax"])
def test_gnu_tars_of_long_names_and_links_unpack(tmp_path: Path, tar_format: str) -> None:
    """GNU tar's own long names and links (GNU long-name and long-link headers, or PAX headers with times) pass."""
    folder = tmp_path / "bot"
    deep = folder / ("d" * 120) / ("e" * 120)
    deep.mkdir(parents=True)
    (deep / ("f" * 150)).write_text("deep\n")
    (folder / ("link" * 30)).symlink_to(Path("d" * 120) / ("e" * 120) / ("f" * 150))
    (tmp_path / "bot.tgz").unlink(missing_ok=True)
    subprocess.run(["tar", f"--format={tar_format}", "-czf", str(tmp_path / "bot.tgz"), "-C", str(folder), "."],
                   check=True)
    assert _unpacked((tmp_path / "bot.tgz").read_bytes(), tmp_path) == "unpacked"
    assert (tmp_path / "into" / ("link" * 30)).read_text() == "deep\n"


def test_a_git_archive_with_its_global_header_unpacks(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("print('bot')\n")
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "bot"]):
        subprocess.run([*git, *args], check=True)
    archive = subprocess.run([*git, "archive", "--format=tar.gz", "HEAD"], check=True, capture_output=True).stdout
    assert b"comment=" in zlib.decompress(archive, 31)  # git's global PAX header, naming the commit
    assert _unpacked(archive, tmp_path) == "unpacked"
    assert (tmp_path / "into" / "bot.py").read_text() == "print('bot')\n"


def test_a_host_refuses_a_built_folder_whose_headers_are_over_the_caps(tmp_path: Path) -> None:
    """A built archive with a 32 MB PAX header (the server stores it as it came, never unpacking it): the host's
    fetch refuses it in one line and leaves no folder."""
    admin = (("authorization", "Bearer admin-secret"),)
    built = _gzipped(iter([_header("pax", tarfile.XHDTYPE, 32 << 20), *_zeros(32 << 20),
                           _header("bot.py", tarfile.REGTYPE, 0), bytes(1024)]))
    source = _bot_archive(tmp_path / "bot")

    async def main() -> None:
        server = await start(ServerConfig(db=str(tmp_path / "v.db"), admin_token="admin-secret", port=0))
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = pb_grpc.PresidentServiceStub(channel)
                token = (await stub.CreateAccount(pb.CreateAccountRequest(name="ada", owner="tests"),
                                                  metadata=admin)).token
                manifest = pb.BotManifest(name="bot", runtime=pb.RUNTIME_PYTHON, run="python bot.py")
                await stub.SubmitBot(_chunked(pb.SubmitBotRequest(manifest=manifest), source),
                                     metadata=(("authorization", f"Bearer {token}"),))
                leased = await stub.LeaseBuild(pb.LeaseBuildRequest(builder="tests"), metadata=admin)
                lease = pb.BuildLease(version_id=leased.version.version_id, lease_id=leased.lease_id)
                await stub.UploadBuild(_chunked(pb.UploadBuildRequest(lease=lease), built), metadata=admin)
                version = (await stub.ReportBuild(pb.ReportBuildRequest(
                    version_id=lease.version_id, lease_id=lease.lease_id, ready=True), metadata=admin)).version
            assert version.built_sha256 == hashlib.sha256(built).hexdigest()

            def host() -> None:
                with grpc.insecure_channel(f"127.0.0.1:{server.port}") as sync_channel:
                    fetch_built(pb_grpc.PresidentServiceStub(sync_channel), admin, version,
                                tmp_path / "built" / version.version_id)
            with pytest.raises(UnbuildableError, match=r"^the archive is refused: an extended header of 33554432"
                                                       r" bytes, over its cap of 16384$"):
                await asyncio.to_thread(host)
            assert list((tmp_path / "built").iterdir()) == []
        finally:
            await server.stop(0.5)
    asyncio.run(main())


def _bot_archive(folder: Path) -> bytes:
    """A folder of one bot.py, packed as `president submit` packs it."""
    folder.mkdir()
    (folder / "bot.py").write_text("print('bot')\n")
    return pack(folder, skipped=())


_First = TypeVar("_First", pb.SubmitBotRequest, pb.UploadBuildRequest)


async def _chunked(first: _First, archive: bytes) -> AsyncIterator[_First]:
    """The first message, declaring the archive's size and SHA-256, then the archive's chunks."""
    first.archive_bytes, first.archive_sha256 = len(archive), hashlib.sha256(archive).hexdigest()
    yield first
    for at in range(0, len(archive), 32 * 1024):
        yield type(first)(chunk=archive[at:at + 32 * 1024])
