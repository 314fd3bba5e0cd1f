"""Which build runs: the compiled one when it was built from this very source, else the pure-Python source;
and how a compiled build is made.

A compiled build is the engine's typed modules compiled by mypyc, kept apart from the source with a manifest that
records a hash of every source file mypyc read.  It lives in one of two places:

- in a checkout, build/engine-compiled (`make engine-compiled`, run by `make venv` and `make run`:
  tools/compile_engine.py), which holds the expert's search and its C playout too;
- in installed wheels, each distribution's own: president_engine/_compiled (`pip install` of the engine on a
  machine with a C compiler and the Python headers: engine/build_backend.py) and president_sdk/_compiled, the
  expert's search (`pip install` of the SDK: sdk/build_backend.py, which carries the C playout beside its source).
  The SDK's search is compiled without the engine's types (SEARCH_WHEEL_FLAGS), so it runs on either build of
  whichever engine is installed beside it.

On import, `president_engine` and `president_sdk.bots.expert` put the compiled modules first on their package path
when every recorded hash still matches the source beside them, so an edited source is never shadowed by an older
build; anything not compiled is always read from the source.  A checkout's build is chosen once per process, for
both packages together (its search was compiled with the engine's classes); a wheel's, for its own distribution.

PRESIDENT_ENGINE_BUILD=source runs the source (the reference, an installed SDK's C playout left unused too; `make
pytest` tests it, and `pip install` with it set builds no compiled modules), =compiled fails unless the compiled
build loads (`make pytest-compiled`); unset, the compiled build is used when it is fresh.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import NoReturn

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parents[2]
"""The checkout this source sits in, when it sits in one (engine/src/president_engine/build.py)."""
IN_CHECKOUT = ROOT / "engine" / "src" / "president_engine" == PACKAGE
BUILD_DIR = ROOT / "build" / "engine-compiled"
WHEEL_DIR = PACKAGE / "_compiled"
"""An installed wheel's compiled modules (engine/build_backend.py), beside the source they were compiled from."""
MANIFEST = ".built"
"""In a build's folder: {"ext_suffix": ..., "sources": {path from the root: sha256}}; written last by the build."""
ENVIRONMENT = "PRESIDENT_ENGINE_BUILD"
SOURCE_WANTED = f"{ENVIRONMENT}=source"
COMPILED_MODULES = tuple(f"president_engine/{name}.py" for name in (
    "cards", "actions", "tables", "movegen", "legality", "match", "deal_flow", "exchange", "worlds", "playout",
    "events", "deal", "observation", "phase", "roles", "fallback"))
"""The engine's modules mypyc compiles.  Left interpreted: `rules` (its constructor accepts the JSON forms of
options, which mypyc's typed fields would refuse), `errors` (interpreted modules subclass its exceptions, which a
compiled class forbids), `build`, `record`, `narrate`, `action_space` and the command line."""
SEARCH_MODULES = tuple(f"president_sdk/bots/expert/{name}.py" for name in ("rollout", "search", "worlds"))
"""The SDK's modules mypyc compiles: the expert's playout policy, search and world sampling, most of a searched
decision's time (the rest of the SDK waits on the network or on the engine)."""
SEARCH_WHEEL_FLAGS = ("--no-site-packages", "--ignore-missing-imports")
"""mypy's flags for the SDK's wheel, built without the engine at hand: the engine's types are read as Any, whichever
engine is installed."""


@dataclass(frozen=True, slots=True)
class Choice:
    compiled: bool
    why: str
    """Why the source runs, or where the compiled build is."""


def location() -> tuple[Path, Path]:
    """Where this source's compiled build would be, and the folder its manifest's paths start from."""
    if WHEEL_DIR.is_dir() or not IN_CHECKOUT:
        return WHEEL_DIR, PACKAGE.parent
    return BUILD_DIR, ROOT


def choose(build_dir: Path | None = None, root: Path | None = None, ext_suffix: str | None = None) -> Choice:
    """The compiled build in `build_dir` if its manifest matches the sources under `root` and this Python."""
    if build_dir is None or root is None:
        build_dir, root = location()
    manifest = build_dir / MANIFEST
    wheel = build_dir.name == WHEEL_DIR.name
    rebuild = f"reinstall {_distribution(build_dir.parent.name)} to rebuild it" if wheel else \
        "make engine-compiled rebuilds it"
    try:
        recorded = json.loads(manifest.read_text())
    except FileNotFoundError:
        if wheel:
            return Choice(False, "installed without a compiled build: no C compiler and Python headers, or"
                                 f" {SOURCE_WANTED}, when it was installed")
        if building(build_dir):
            log = build_dir.with_name(build_dir.name + ".log")
            return Choice(False, f"the compiled build is being made, see {shown(log)}; commands started after it"
                                 " use it")
        missing = missing_toolchain()
        return Choice(False, f"no compiled build: {missing}" if missing else
                      "no compiled build; make engine-compiled builds one")
    except (OSError, ValueError) as exc:
        return Choice(False, f"unreadable {manifest}: {exc}")
    suffix = ext_suffix or sysconfig.get_config_var("EXT_SUFFIX")
    if not isinstance(recorded, dict) or recorded.get("ext_suffix") != suffix:
        return Choice(False, f"the compiled build is for another Python; {rebuild} for {suffix}")
    for name, digest in recorded.get("sources", {}).items():
        try:
            current = hashlib.sha256((root / name).read_bytes()).hexdigest()
        except OSError:
            current = None
        if current != digest:
            return Choice(False, f"the compiled build is older than {name}; {rebuild}")
    return Choice(True, str(build_dir))


_choice: Choice | None = None


class BuildChoiceError(ImportError):
    """PRESIDENT_ENGINE_BUILD asks for what cannot run here: a setting of the user's, so a process that does not
    catch it ends with its one line, not a traceback (`_one_line`)."""


def current() -> Choice:
    """This process's choice (made on first use; see the module docstring)."""
    global _choice
    if _choice is None:
        wanted = os.environ.get(ENVIRONMENT, "")
        if wanted not in ("", "source", "compiled"):
            _refuse(f"{ENVIRONMENT}={wanted!r}: expected source or compiled, or unset for the default")
        choice = Choice(False, SOURCE_WANTED) if wanted == "source" else choose()
        if wanted == "compiled" and not choice.compiled:
            _refuse(f"{ENVIRONMENT}=compiled, but {choice.why}")
        _choice = choice
    return _choice


def source_wanted() -> bool:
    """PRESIDENT_ENGINE_BUILD=source: nothing compiled runs, not even the C playout an installed SDK carries."""
    return current().why == SOURCE_WANTED


_previous_hook = sys.excepthook


def _refuse(message: str) -> NoReturn:
    global _previous_hook
    if sys.excepthook is not _one_line:
        _previous_hook, sys.excepthook = sys.excepthook, _one_line
    raise BuildChoiceError(message)


def _one_line(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
    """An uncaught `BuildChoiceError` as one line on stderr (named by the command that ran); anything else as
    before."""
    if isinstance(error, BuildChoiceError):
        program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
        print(f"{program if program.startswith('president') else 'president_engine'}: {error}", file=sys.stderr)
    else:
        _previous_hook(kind, error, trace)


def redirect(package: str, path: list[str]) -> None:
    """Put the compiled modules of `package` (its `__path__`, from its source folder) first, if they run here: an
    installed wheel's own (DISTRIBUTION/_compiled), else a checkout's build."""
    if source_wanted():
        return
    folder = package.split(".")
    source = Path(path[0]).resolve()
    top = source.parents[len(folder) - 2] if len(folder) > 1 else source
    if (top / WHEEL_DIR.name).is_dir():
        build_dir = top / WHEEL_DIR.name
        choice = current() if build_dir == WHEEL_DIR else choose(build_dir, top.parent)
    elif IN_CHECKOUT and source == ROOT.joinpath(*_source_folder(package)):
        build_dir, choice = BUILD_DIR, current()
    else:
        return
    compiled = build_dir.joinpath(*folder)
    if not choice.compiled or not compiled.is_dir():
        return
    path.insert(0, str(compiled))
    if str(build_dir) not in sys.path:
        sys.path.append(str(build_dir))  # the shared library of mypyc's module group is a top-level module


def runtime() -> tuple[str, tuple[Path, ...]]:
    """What a child process (a bot's jail) needs to run the build this process runs: the setting of
    PRESIDENT_ENGINE_BUILD ("" when this process took the default without a compiled engine, so an installed SDK's
    own compiled search is chosen alike), and the folders outside the packages' own that hold the build (a
    checkout's compiled build; a wheel's lies inside its package)."""
    choice = current()
    if not choice.compiled:
        return ("source" if source_wanted() else ""), ()
    build_dir = Path(choice.why)
    return "compiled", (() if build_dir.is_relative_to(PACKAGE) else (build_dir,))


def _distribution(package: str) -> str:
    return package.replace("_", "-")


def describe() -> str:
    """One line on the build in use, for the command line's notes."""
    choice = current()
    if choice.compiled and _loaded_compiled():
        return "engine: the compiled build"
    if choice.compiled:
        return "engine: the pure-Python source (the compiled modules did not load)"
    return f"engine: the pure-Python source ({choice.why})"


def _loaded_compiled() -> bool:
    module = sys.modules.get("president_engine.match")
    return module is not None and str(getattr(module, "__file__", "")).endswith((".so", ".pyd"))


def _source_folder(package: str) -> tuple[str, ...]:
    distribution = package.split(".")[0]
    return (distribution.removeprefix("president_"), "src", *package.split("."))


def checkout_path(path: str) -> str:
    """A source file's path in the checkout from its path in a package folder: president_engine/cards.py is
    engine/src/president_engine/cards.py."""
    package, _, rest = path.partition("/")
    return "/".join((*_source_folder(package), rest))


def building(build_dir: Path) -> bool:
    """A build of `build_dir` holds its lock (tools/compile_engine.py; checkouts on POSIX systems only)."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        with open(build_dir.with_name(build_dir.name + ".lock"), "rb") as lock:
            fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


def shown(path: Path) -> str:
    """`path` from the current folder when it is below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def missing_toolchain() -> str | None:
    """Why this machine cannot build C extensions for this Python, or None when it can."""
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    header = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not header.exists():
        return f"no Python headers ({header}; on Debian: apt-get install python3-dev)"
    return None


def compile_modules(folder: Path, modules: Iterable[str], log: Path, flags: Sequence[str] = ()) -> int:
    """mypyc over `modules` (paths from `folder`, which holds their packages' whole source; `flags` mypy's); its
    exit code, its output in `log`.  The compiled modules land beside their sources, mypyc's shared library in
    `folder`."""
    with open(log, "a") as out:
        return subprocess.run([sys.executable, "-m", "mypyc", *flags, *modules], cwd=folder, stdout=out,
                              stderr=subprocess.STDOUT, env={**os.environ, "MYPY_FORCE_COLOR": "0"}).returncode


def compile_wheel(build_lib: Path, package: str, modules: Sequence[str], flags: Sequence[str] = ()) -> str | None:
    """Compile `modules` of `package`, as a wheel's build copied it into `build_lib`, into the package's WHEEL_DIR
    with its manifest; None when done, else why not (the wheel then carries the source alone)."""
    source = build_lib / package
    out = source / WHEEL_DIR.name
    with tempfile.TemporaryDirectory(prefix=f"{package}-") as scratch:
        folder = Path(scratch)
        shutil.copytree(source, folder / package,
                        ignore=shutil.ignore_patterns("__pycache__", WHEEL_DIR.name, "*.so", "*.pyd"))
        log = folder / "build.log"
        if compile_modules(folder, modules, log, flags):
            tail = log.read_text().strip().splitlines()[-1:] or ["no output"]
            return f"mypyc failed: {tail[0]}"
        shutil.rmtree(out, ignore_errors=True)
        sources = keep_compiled(folder, out, [package])
    write_manifest(out, sources)
    return None


def keep_compiled(folder: Path, out: Path, packages: Iterable[str]) -> dict[str, str]:
    """Move the compiled modules of `packages` (their folders in `folder`) and mypyc's shared library into `out`;
    the sha256 of every source file the build read, by its path from `folder`."""
    sources = {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
               for package in packages for pattern in ("*.py", "*.c")
               for path in sorted((folder / package).rglob(pattern))}
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for built in sorted(folder.rglob(f"*{suffix}")):
        if built.is_relative_to(folder / "build"):
            continue
        target = out / built.relative_to(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(built, target)
    return sources


def write_manifest(out: Path, sources: dict[str, str]) -> None:
    """The manifest, written last: a build without it is never chosen."""
    manifest = {"ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"), "sources": sources}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
