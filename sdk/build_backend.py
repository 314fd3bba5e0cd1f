"""The SDK's build backend: setuptools', with the expert's search compiled by mypyc and its C playout
(`_playout.c`) compiled into the wheel where they can be.

`pip install` of the SDK (a wheel) from a checkout compiles the expert's playout policy, search and world sampling
(`president_engine.build.SEARCH_MODULES`, by the engine's own build code and mypy, read from engine/ beside this
folder) into president_sdk/_compiled, and president_sdk/bots/expert/_playout.c, which plays a searched decision's
playouts some ten times faster than rollout.py, its reference (tools/compile_engine.py builds the same into a
checkout's compiled build).  Without a C compiler or the Python headers, or with PRESIDENT_ENGINE_BUILD=source set,
the wheel carries the Python search and playout and says why in one line; a wheel built outside a checkout carries
the Python search.  An editable install compiles nothing: a checkout's source stays the pure-Python reference.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import (
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.errors import BaseError, CCompilerError

__all__ = ["PlayoutBuildExt", "SearchBuildPy", "build_editable", "build_sdist", "build_wheel",
           "get_requires_for_build_editable", "get_requires_for_build_sdist", "get_requires_for_build_wheel",
           "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel"]

ENVIRONMENT = "PRESIDENT_ENGINE_BUILD"
"""The engine's choice of build (president_engine.build.ENVIRONMENT); "source" builds nothing here either."""


def _note(message: str) -> None:
    print(f"president-sdk: {message}", file=sys.stderr, flush=True)


ENGINE_BACKEND = Path(__file__).resolve().parent.parent / "engine" / "build_backend.py"


@cache
def _engine_backend() -> ModuleType | None:
    """engine/build_backend.py of the checkout this SDK is built from (how the engine compiles, with which mypy),
    or None outside a checkout."""
    if not ENGINE_BACKEND.is_file():
        return None
    spec = importlib.util.spec_from_file_location("_president_engine_backend", ENGINE_BACKEND)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _search_backend() -> tuple[ModuleType | None, str]:
    """engine/build_backend.py when this wheel's search is to be compiled; else None and why not."""
    if os.environ.get(ENVIRONMENT) == "source":
        return None, f"{ENVIRONMENT}=source"
    backend = _engine_backend()
    if backend is None:
        return None, f"built outside a checkout: no {ENGINE_BACKEND.relative_to(ENGINE_BACKEND.parents[1])}"
    missing: str | None = backend.build.missing_toolchain()
    return (None, missing) if missing else (backend, "")


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    required: list[str] = build_meta.get_requires_for_build_wheel(config_settings)
    backend, _ = _search_backend()
    return required if backend is None else [*required, backend.MYPYC]


class SearchBuildPy(build_py):  # type: ignore[misc]
    """build_py, then mypyc over the expert's search into president_sdk/_compiled (a wheel only)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        backend, why = _search_backend()
        if backend is not None:
            build = backend.build
            why = build.compile_wheel(Path(self.build_lib), "president_sdk", build.SEARCH_MODULES,
                                      build.SEARCH_WHEEL_FLAGS) or ""
        _note(f"the expert's search in Python ({why})" if why else "the expert's search compiled by mypyc")


class PlayoutBuildExt(build_ext):  # type: ignore[misc]
    """build_ext for a wheel, where a failure to compile leaves the Python playout and one line saying why."""

    def run(self) -> None:
        if self.editable_mode:
            return
        if os.environ.get(ENVIRONMENT) == "source":
            _note(f"the expert's playouts in Python ({ENVIRONMENT}=source)")
            return
        try:
            super().run()
        except (CCompilerError, BaseError) as exc:
            _note(f"the expert's playouts in Python (compiling _playout.c failed: {exc}; it needs a C compiler and"
                  " the Python headers)")
            return
        _note("the expert's playouts in C (_playout.c)")
