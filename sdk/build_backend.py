"""The SDK's build backend: setuptools', with the expert's C playout (`_playout.c`) compiled into the wheel where it
can be.

`pip install` of the SDK (a wheel) compiles president_sdk/bots/expert/_playout.c, which plays a searched decision's
playouts some ten times faster than rollout.py, its reference (tools/compile_engine.py builds the same file into a
checkout's compiled build).  Without a C compiler or the Python headers, or with PRESIDENT_ENGINE_BUILD=source set, the
wheel carries the Python playout alone and says why in one line.  An editable install compiles nothing: a checkout's
source stays the pure-Python reference.
"""

from __future__ import annotations

import os
import sys

from setuptools.build_meta import (
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

__all__ = ["PlayoutBuildExt", "build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
           "get_requires_for_build_sdist", "get_requires_for_build_wheel", "prepare_metadata_for_build_editable",
           "prepare_metadata_for_build_wheel"]

ENVIRONMENT = "PRESIDENT_ENGINE_BUILD"
"""The engine's choice of build (president_engine.build.ENVIRONMENT); "source" builds nothing here either."""


def _note(message: str) -> None:
    print(f"president-sdk: {message}", file=sys.stderr, flush=True)


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
