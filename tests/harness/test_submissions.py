"""Submitted bots (issue 23): ``president submit`` stores a folder as a version on a real server (a child process),
``president builder`` builds it in a real sandbox (bubblewrap) and reports READY or FAILED with the log, and
``president versions`` and ``president build-log`` show it.  Hostile archives fail their build with a clear
reason and write nothing outside their folder.  Skipped without a sandbox here, failed in CI (as the red-team
suite is)."""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from president_harness.hosting.builder import pack_built
from president_protocol.v1 import president_pb2 as pb
from sandbox_support import Host, require_sandbox

MANIFEST = """name = "{name}"
runtime = "python"
build = "{build}"
run = "president-bot bot.py --arena"
"""
GOOD_BUILD = """
import os, socket, sys
print("compiling in", os.getcwd(), "as uid", os.getuid())
open("built.txt", "w").write("ok")
for target in ("/usr/owned.txt", "/escaped.txt", "../escaped.txt"):
    try:
        open(target, "w").write("x")
        print("wrote", target)
    except OSError as exc:
        print("cannot write", target, type(exc).__name__)
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
    print("reached the server's TCP port")
except OSError as exc:
    print("no network:", type(exc).__name__)
"""


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    require_sandbox()
    running = Host(tmp_path_factory.mktemp("submissions"))
    yield running
    running.close()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "president_harness", *args], capture_output=True, text=True,
                          timeout=300, check=False)


def _build(host: Host, work: Path, *extra: str) -> str:
    """`president builder --once`: every queued version built; its output."""
    done = _cli("builder", "--server", host.target, "--admin-token", host.admin_file.read_text(), "--work", str(work),
                "--slot", "40", "--once", "--name", "tests", *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _bot(parent: Path, name: str, build: str, files: dict[str, str]) -> Path:
    folder = parent / name
    folder.mkdir()
    (folder / "president-bot.toml").write_text(MANIFEST.format(name=name, build=build))
    for file, text in files.items():
        (folder / file).write_text(text)
    return folder


def _version_id(submitted: subprocess.CompletedProcess[str]) -> str:
    found = re.match(r"version ([0-9a-f]{16}) of ", submitted.stdout)
    assert found and submitted.returncode == 0, submitted.stdout + submitted.stderr
    return found.group(1)


def test_a_good_bot_is_submitted_built_in_the_sandbox_and_ready_with_its_log(host: Host, tmp_path: Path) -> None:
    (name, token), = host.accounts(1)
    folder = _bot(tmp_path, "goodbot", f"python build.py {host.tcp_port}",
                  {"build.py": GOOD_BUILD, "bot.py": "print('a bot')\n"})
    server = ("--server", host.target, "--account-token", token)
    submitted = _cli("submit", str(folder), *server)
    version = _version_id(submitted)
    assert submitted.stdout.startswith(f"version {version} of {name} (goodbot): QUEUED\n"), submitted.stdout
    assert "same content" in _cli("submit", str(folder), *server).stdout  # packed to the same bytes: one version

    work = tmp_path / "work"
    built = _build(host, work)
    assert re.search(rf"president builder: {version} \({name}: goodbot\): READY after [\d.]+ s", built), built
    listed = _cli("versions", *server).stdout.splitlines()
    assert len(listed) == 3 and re.match(rf"{version}  READY \*  ", listed[1]), listed
    log = _cli("build-log", version, *server).stdout
    assert log.startswith(f"version {version}: READY\ncompiling in /bot as uid 100040\n"), log
    for target in ("/usr/owned.txt", "/escaped.txt", "../escaped.txt"):
        assert f"cannot write {target} OSError" in log, log
    assert "no network: ConnectionRefusedError" in log, log  # its own loopback only: nothing listens there
    assert (work / "built" / version / "built.txt").read_text() == "ok"
    assert not (work / "built" / "escaped.txt").exists() and not Path("/escaped.txt").exists()
    [listed] = host.stub.ListVersions(pb.ListVersionsRequest(), metadata=_auth(token)).versions
    shipped = b"".join(m.chunk for m in host.stub.FetchVersion(
        pb.FetchVersionRequest(version_id=version, built=True), metadata=_auth(host.admin_file.read_text())))
    assert hashlib.sha256(shipped).hexdigest() == listed.built_sha256 and len(shipped) == listed.built_bytes
    with tarfile.open(fileobj=io.BytesIO(shipped)) as tar:  # the built folder, packed the same way every time
        assert tar.extractfile("built.txt").read() == b"ok"  # type: ignore[union-attr]
        assert {(m.uid, m.gid, m.mtime) for m in tar} == {(0, 0, 0)}
        assert tar.getnames() == sorted(tar.getnames(), key=lambda name: name.split("/"))
    assert pack_built(work / "built" / version) == shipped


def test_a_build_that_leaves_what_a_host_must_not_unpack_is_failed_and_not_uploaded(host: Host,
                                                                                      tmp_path: Path) -> None:
    builds = {
        "uplink": ("import os; os.symlink('/etc', 'etc')",
                   "the built folder cannot be shipped: 'etc' is a symbolic link out of its folder (to '/etc')"),
        "hardlink": ("import os; open('a', 'w').write('x'); os.link('a', 'b')",
                     "the built folder cannot be shipped: 'b' is a hard link"),
        "fifo": ("import os; os.mkfifo('pipe')",
                 "the built folder cannot be shipped: 'pipe' is a device or other special file"),
        "linkchain": ("import os; os.symlink('.', 'l1'); os.symlink('l1/..', 'l2')",
                      "the built folder cannot be shipped: 'l2' would be extracted to "),
    }
    versions = {}
    for name, (code, _) in builds.items():
        (account, token), = host.accounts(1)
        folder = _bot(tmp_path, name, "python build.py", {"build.py": code + "\n", "bot.py": "print('a bot')\n"})
        versions[name] = (_version_id(_cli("submit", str(folder), "--server", host.target, "--account-token", token)),
                          account, token)
    built = _build(host, tmp_path / "work")
    for name, (_, reason) in builds.items():
        version, account, token = versions[name]
        assert f"{version} ({account}: {name}): FAILED: {reason}" in built, built
        [listed] = host.stub.ListVersions(pb.ListVersionsRequest(), metadata=_auth(token)).versions
        assert listed.state == pb.VERSION_STATE_FAILED and listed.reason.startswith(reason), listed.reason
        assert not listed.built_sha256


def test_a_bot_whose_build_fails_is_failed_with_the_reason_line(host: Host, tmp_path: Path) -> None:
    (_, token), = host.accounts(1)
    folder = _bot(tmp_path, "brokenbot", "python build.py", {"build.py": "import sys\nprint('cc: not found')\n"
                                                                          "sys.exit(3)\n"})
    server = ("--server", host.target, "--account-token", token)
    version = _version_id(_cli("submit", str(folder), *server))
    built = _build(host, tmp_path / "work")
    reason = "the build command exited with status 3: cc: not found"
    assert f"{version} (" in built and f"FAILED: {reason} after" in built, built
    assert f"{version}  FAILED      " in _cli("versions", *server).stdout
    log = _cli("build-log", version, *server).stdout
    assert log.startswith(f"version {version}: FAILED: {reason}\ncc: not found\n"), log


def test_an_author_makes_an_older_version_current_and_a_refusal_is_one_line(host: Host, tmp_path: Path) -> None:
    (_, token), = host.accounts(1)
    server = ("--server", host.target, "--account-token", token)
    older, newer = (_version_id(_cli("submit", str(_bot(tmp_path, name, "python -c pass", {"bot.py": name})),
                                     *server)) for name in ("older", "newer"))
    _build(host, tmp_path / "work")
    assert f"{newer}  READY *  " in _cli("versions", *server).stdout
    chosen = _cli("versions", "--current", older, *server)
    assert chosen.returncode == 0 and chosen.stdout.startswith(f"version {older} is current\n"), chosen
    assert f"{older}  READY *  " in chosen.stdout and f"{newer}  READY     " in chosen.stdout, chosen.stdout
    refused = _cli("versions", "--current", "0123456789abcdef", *server)
    assert refused.returncode == 1 and refused.stdout == "", refused
    assert refused.stderr.startswith("president versions: ") and refused.stderr.count("\n") == 1, refused.stderr
    assert "UNKNOWN_VERSION" in refused.stderr, refused.stderr


def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _archive(entries: list[tarfile.TarInfo]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for entry in entries:
            tar.addfile(entry, io.BytesIO(b"x" * entry.size) if entry.isreg() else None)
    return out.getvalue()


def _entry(name: str, kind: bytes = tarfile.REGTYPE, link: str = "", size: int = 1) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, link, size if kind == tarfile.REGTYPE else 0
    return info


def _pax_bomb() -> bytes:
    """A PAX header of 32 MB (zero bytes) before an entry, in 33 KB gzipped: tarfile would read it whole."""
    header = tarfile.TarInfo("pax")
    header.type, header.size = tarfile.XHDTYPE, 32 << 20
    entry = tarfile.TarInfo("bot.py")
    return gzip.compress(header.tobuf(format=tarfile.USTAR_FORMAT) + bytes(32 << 20)
                         + entry.tobuf(format=tarfile.USTAR_FORMAT) + bytes(1024), 9)


def test_hostile_archives_fail_their_build_and_write_nothing_outside_their_folder(host: Host, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    hostile: dict[str, tuple[list[tarfile.TarInfo] | bytes, str]] = {
        "dotdot": ([_entry("bot.py"), _entry(f"../../../../../../..{outside}")], "has a '..'"),
        "absolute": ([_entry(str(outside))], "is an absolute path"),
        "etclink": ([_entry("etc", tarfile.SYMTYPE, "/etc")], "is a symbolic link out of its folder (to '/etc')"),
        "uplink": ([_entry("up", tarfile.SYMTYPE, "sub/../.."), _entry("up/outside.txt")],
                   "is a symbolic link out of its folder"),
        "through": ([_entry("here", tarfile.SYMTYPE, "."), _entry("here/x.txt")], "is inside a symbolic link"),
        "linkchain": ([_entry("l1", tarfile.SYMTYPE, "."), _entry("l2", tarfile.SYMTYPE, "l1/..")],
                      "'l2' would link to"),
        "device": ([_entry("null", tarfile.CHRTYPE)], "is a device or other special file"),
        "hardlink": ([_entry("passwd", tarfile.LNKTYPE, "/etc/passwd")], "is a hard link"),
        "bomb": ([_entry("big", size=65 * 1024 * 1024)], "more than 10000 entries or 64 MB unpacked"),
        "garbage": (b"not a tar at all", "not a gzipped tar that unpacks here: not a gzip file"),
        "paxbomb": (_pax_bomb(), "an extended header of 33554432 bytes, over its cap of 16384"),
    }
    ids = {}
    for name, (entries, _) in hostile.items():
        (_, token), = host.accounts(1)
        archive = entries if isinstance(entries, bytes) else _archive(entries)
        requests = [pb.SubmitBotRequest(manifest=pb.BotManifest(name=name, runtime=pb.RUNTIME_PYTHON,
                                                                build="python -c pass", run="python bot.py")),
                    *(pb.SubmitBotRequest(chunk=archive[at:at + 32768]) for at in range(0, len(archive), 32768))]
        answer = host.stub.SubmitBot(iter(requests), metadata=(("authorization", f"Bearer {token}"),))
        ids[name] = answer.version.version_id
    work = tmp_path / "work"
    built = _build(host, work)
    for name, (_, reason) in hostile.items():
        line = next(line for line in built.splitlines()
                    if line.startswith(f"president builder: {ids[name]} (") and not line.endswith(": building"))
        assert "): FAILED: " in line and reason in line, (name, line)
        assert "): FAILED: the archive is refused: " in line, line
        assert not (work / "built" / ids[name]).exists(), name  # nothing of it is kept
    assert not any(path.exists() for path in (outside, work / "outside.txt", work / "built" / "outside.txt"))


def test_a_build_that_fills_its_folder_is_stopped_at_the_cap(host: Host, tmp_path: Path) -> None:
    (_, token), = host.accounts(1)
    filler = "for n in range(100):\n    open(f'f{n}', 'wb').write(bytes(4 << 20))\nprint('filled')\n"
    folder = _bot(tmp_path, "fillerbot", "python fill.py", {"fill.py": filler})
    version = _version_id(_cli("submit", str(folder), "--server", host.target, "--account-token", token))
    built = _build(host, tmp_path / "work", "--folder-mb", "16")
    assert (f"{version} (" in built and "FAILED: the build left more than 16 MB or 10000 entries in its folder"
            in built), built
