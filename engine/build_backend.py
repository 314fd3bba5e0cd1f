"""The engine's build backend: setuptools', with the engine compiled by mypyc into the wheel where it can be.

`pip install` of the engine (a wheel, not an editable install) on a machine with a C compiler and the Python
headers asks for mypy as a build requirement, compiles `president_engine.build.COMPILED_MODULES` into
president_engine/_compiled with the manifest the package checks on import, and tags the wheel for this Python and
platform.  Without a compiler, with PRESIDENT_ENGINE_BUILD=source set, or when mypyc fails, it builds the pure-Python
wheel and says why in one line; the installed engine then says so too (`president_engine.build.describe`).

setuptools is imported on first use only: tools/compile_engine.py reads `build` from here on the system's Python,
whose setuptools may be older than a build needs.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

MYPYC = "mypy==2.4.1"
"""The mypy of uv.lock (tests/engine/test_wheel.py keeps them equal): a wheel compiles as the checkout does."""


def _build_module() -> ModuleType:
    """president_engine.build, read by path (importing the package would choose a build and import the rest)."""
    path = Path(__file__).resolve().parent / "src" / "president_engine" / "build.py"
    spec = importlib.util.spec_from_file_location("_president_engine_build", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


build = _build_module()


def _why_not() -> str | None:
    """Why this wheel is not compiled, or None when it is to be."""
    if os.environ.get(build.ENVIRONMENT) == "source":
        return f"{build.ENVIRONMENT}=source"
    return build.missing_toolchain()


def _note(message: str) -> None:
    print(f"president-engine: {message}", file=sys.stderr, flush=True)


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    from setuptools import build_meta

    required: list[str] = build_meta.get_requires_for_build_wheel(config_settings)
    return required if _why_not() else [*required, MYPYC]


def build_wheel(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                metadata_directory: str | None = None) -> str:
    from setuptools import build_meta

    why = _why_not()
    if why:
        _note(f"the pure-Python engine ({why}; the compiled build needs a C compiler and the Python headers)")
    name: str = build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)
    return name


@cache
def _commands() -> dict[str, type]:
    """The setuptools commands pyproject.toml names: build_py compiling into the wheel, bdist_wheel tagging it."""
    from setuptools.command.bdist_wheel import bdist_wheel
    from setuptools.command.build_py import build_py

    class CompiledBuildPy(build_py):  # type: ignore[misc]
        """build_py, then mypyc over the copied source into president_engine/_compiled (a wheel only)."""

        def run(self) -> None:
            super().run()
            if self.editable_mode or _why_not():
                return
            failed = build.compile_wheel(Path(self.build_lib), "president_engine", build.COMPILED_MODULES)
            if failed:
                _note(f"{failed}, so the pure-Python engine is installed")
                return
            compiled = Path(self.build_lib) / "president_engine" / build.WHEEL_DIR.name
            _note(f"the compiled engine: {sum(1 for _ in compiled.rglob('*.so'))} modules compiled by mypyc")

    class PlatformWheel(bdist_wheel):  # type: ignore[misc]
        """A compiled wheel is for this Python and platform only."""

        def finalize_options(self) -> None:
            super().finalize_options()
            if _why_not() is None:
                self.root_is_pure = False

    return {"CompiledBuildPy": CompiledBuildPy, "PlatformWheel": PlatformWheel}


HOOKS = ("build_sdist", "build_editable", "get_requires_for_build_sdist", "get_requires_for_build_editable",
         "prepare_metadata_for_build_wheel", "prepare_metadata_for_build_editable")
"""setuptools' other PEP 517 hooks, as they are."""


def __getattr__(name: str) -> Any:
    """The commands above and the HOOKS, each imported from setuptools when first asked for."""
    if name in ("CompiledBuildPy", "PlatformWheel"):
        return _commands()[name]
    if name in HOOKS:
        from setuptools import build_meta

        return getattr(build_meta, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
