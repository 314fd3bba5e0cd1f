"""A bot folder as an author submits it: its manifest (president-bot.toml) and its archive, the same bytes for the
same files (`pack`), which the builder also packs its built folder with."""

from __future__ import annotations

import gzip
import io
import tarfile
import tomllib
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path

from president_protocol.v1 import president_pb2 as pb

MANIFEST = "president-bot.toml"
RUNTIMES = {"python": pb.RUNTIME_PYTHON, "node": pb.RUNTIME_NODE, "binary": pb.RUNTIME_BINARY,
            "java": pb.RUNTIME_JAVA}
CHUNK_BYTES = 32 * 1024
"""Each SubmitBot message's share of the archive (the server takes messages of at most 64 KB)."""
PACKED_BYTES = 64 * 1024 * 1024
"""The most of a folder packed (its files' sizes): a builder unpacks no more."""
SKIPPED = {".git", "__pycache__"}
"""Folder names never packed."""


class ManifestError(ValueError):
    """A folder that cannot be submitted as it is (the message says why, in one line)."""


def read_manifest(folder: Path) -> pb.BotManifest:
    """The folder's president-bot.toml as the contract's manifest."""
    path = folder / MANIFEST
    try:
        fields = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such file (a bot folder needs its manifest)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"{path}: {exc}") from None
    unknown = sorted(set(fields) - {"name", "runtime", "build", "run"})
    if unknown:
        raise ManifestError(f"{path}: unknown fields {', '.join(unknown)} (name, runtime, build, run)")
    if not all(isinstance(fields.get(key, ""), str) for key in ("name", "runtime", "build", "run")):
        raise ManifestError(f"{path}: name, runtime, build and run are strings")
    if fields.get("runtime") not in RUNTIMES:
        raise ManifestError(f"{path}: runtime is one of {', '.join(RUNTIMES)}")
    if not fields.get("name") or not fields.get("run"):
        raise ManifestError(f"{path}: name and run are required")
    return pb.BotManifest(name=fields["name"], runtime=RUNTIMES[fields["runtime"]], build=fields.get("build", ""),
                          run=fields["run"])


def pack(folder: Path, *, skipped: Collection[str] = SKIPPED, checked: Checked | None = None) -> bytes:
    """The folder as a gzipped tar: entries sorted, no times, owners or group bits, so the same files give the
    same bytes (and so the same version).  Links are kept as links, a second name of a file as a hard link.
    `checked` passes each entry on before it is packed, or refuses it: by default an author's folder is refused
    (ManifestError) for any other special file or more than PACKED_BYTES of files; the builder passes its
    unpacking rules (`president_harness.hosting.builder.checked`)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info in (checked or _submittable)(_infos(tar, folder, skipped)):
            if info.isreg():
                with (folder / info.name).open("rb") as data:
                    tar.addfile(info, data)
            else:
                tar.addfile(info)
    return gzip.compress(out.getvalue(), mtime=0)


Checked = Callable[[Iterator[tarfile.TarInfo]], Iterable[tarfile.TarInfo]]
"""A check of a folder's entries as they are packed: the entries it passes on, raising at the first refused."""


def _infos(tar: tarfile.TarFile, folder: Path, skipped: Collection[str]) -> Iterator[tarfile.TarInfo]:
    """The folder's entries as `pack` writes them: times, owners and group bits cleared."""
    for path in _entries(folder, skipped):
        info = tar.gettarinfo(str(path), arcname=path.relative_to(folder).as_posix())
        if info is None:
            raise ManifestError(f"{path}: a socket, which an archive cannot hold")
        info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
        info.mode = 0o755 if info.isdir() or info.mode & 0o100 else 0o644
        yield info


def _submittable(infos: Iterable[tarfile.TarInfo]) -> Iterator[tarfile.TarInfo]:
    """An author's entries: files, folders and symbolic links, at most PACKED_BYTES of files."""
    total = 0
    for info in infos:
        if not (info.isreg() or info.isdir() or info.issym()):
            raise ManifestError(f"{info.name}: not a file, folder or symbolic link")
        total += info.size
        if total > PACKED_BYTES:
            raise ManifestError(f"more than {PACKED_BYTES // (1024 * 1024)} MB of files")
        yield info


def _entries(folder: Path, skipped: Collection[str]) -> Iterator[Path]:
    """The folder's files, folders and links, sorted, without `skipped` folders, never following a link."""
    for path in sorted(folder.iterdir()):
        if path.name in skipped and path.is_dir() and not path.is_symlink():
            continue
        yield path
        if path.is_dir() and not path.is_symlink():
            yield from _entries(path, skipped)
