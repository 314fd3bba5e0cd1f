"""Which build runs: the compiled one when it was built from this very source, else the pure-Python source.

`make engine-compiled` (tools/compile_engine.py, run by `make venv`) compiles the engine and the expert's search
with mypyc into build/engine-compiled beside this checkout, keeping only the compiled modules, and records a
hash of every source file it read.  On import, `president_engine` and `president_sdk.bots.expert` put that
folder first on their package path when every recorded hash still matches the source here, so an edited source
is never shadowed by an older build; anything not compiled is always read from the source.  The choice is made
once per process, for both packages together (compiled code relies on the compiled classes it was built with).

PRESIDENT_ENGINE_BUILD=source runs the source (the reference; `make pytest` tests it), =compiled fails unless
the compiled build loads (`make pytest-compiled`); unset, the compiled build is used when it is fresh.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import NoReturn

ROOT = Path(__file__).resolve().parents[3]
"""The checkout this source sits in (engine/src/president_engine/build.py)."""
BUILD_DIR = ROOT / "build" / "engine-compiled"
MANIFEST = ".built"
"""In BUILD_DIR: {"ext_suffix": ..., "sources": {path from the checkout: sha256}}; written last by the build."""
ENVIRONMENT = "PRESIDENT_ENGINE_BUILD"


@dataclass(frozen=True, slots=True)
class Choice:
    compiled: bool
    why: str
    """Why the source runs, or where the compiled build is."""


def choose(build_dir: Path = BUILD_DIR, root: Path = ROOT, ext_suffix: str | None = None) -> Choice:
    """The compiled build in `build_dir` if its manifest matches the sources under `root` and this Python."""
    manifest = build_dir / MANIFEST
    try:
        recorded = json.loads(manifest.read_text())
    except FileNotFoundError:
        return Choice(False, "no compiled build; make engine-compiled builds one")
    except (OSError, ValueError) as exc:
        return Choice(False, f"unreadable {manifest}: {exc}")
    suffix = ext_suffix or sysconfig.get_config_var("EXT_SUFFIX")
    if not isinstance(recorded, dict) or recorded.get("ext_suffix") != suffix:
        return Choice(False, f"the compiled build is for another Python; make engine-compiled rebuilds it for {suffix}")
    for name, digest in recorded.get("sources", {}).items():
        try:
            current = hashlib.sha256((root / name).read_bytes()).hexdigest()
        except OSError:
            current = None
        if current != digest:
            return Choice(False, f"the compiled build is older than {name}; make engine-compiled rebuilds it")
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
        choice = Choice(False, f"{ENVIRONMENT}=source") if wanted == "source" else choose()
        if wanted == "compiled" and not choice.compiled:
            _refuse(f"{ENVIRONMENT}=compiled, but {choice.why}")
        _choice = choice
    return _choice


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
    """Put the compiled modules of `package` (its `__path__`, from its source folder) first, if they run here."""
    if not current().compiled or Path(path[0]).resolve() != ROOT.joinpath(*_source_folder(package)):
        return
    path.insert(0, str(BUILD_DIR.joinpath(*package.split("."))))
    if str(BUILD_DIR) not in sys.path:
        sys.path.append(str(BUILD_DIR))  # the shared library of mypyc's module group is a top-level module


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
