"""The SDK's wheel: the expert's search compiled by mypyc and its playouts in C (`_playout.c`) where a C compiler and
the Python headers are, the pure-Python wheel where they are not; an editable install, an sdist and their metadata
compile nothing."""

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup

SEARCH = ("rollout", "search", "worlds")
"""The modules mypyc compiles: the expert's playout policy, search and world sampling, most of a searched decision's
time (the rest of the SDK waits on the network or on the engine)."""
MYPY_FLAGS = ("--config-file=", "--no-site-packages", "--ignore-missing-imports")
"""mypy's flags: no config file (a checkout's strict settings are not the build's), and the engine's types read as
Any, so the search runs on either build of whichever engine is installed beside it."""
PLAYOUT = Extension("president_sdk.bots.expert._playout", ["src/president_sdk/bots/expert/_playout.c"],
                    extra_compile_args=["-O2"])


def missing_toolchain() -> str | None:
    """Why this machine cannot build C extensions for this Python, or None when it can."""
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    header = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not header.exists():
        return f"no Python headers ({header}; on Debian: apt-get install python3-dev)"
    return None


def extensions() -> list[Extension]:
    """mypyc's extensions and the C playout when a wheel is built here with a toolchain; none otherwise (one line
    says why)."""
    if "bdist_wheel" not in sys.argv:
        return []
    why = missing_toolchain()
    if why is not None:
        print(f"president-sdk: the expert's search and playouts in Python ({why})", file=sys.stderr, flush=True)
        return []
    from mypyc.build import mypycify

    print("president-sdk: the expert's search compiled by mypyc, its playouts in C (_playout.c)", file=sys.stderr,
          flush=True)
    return [*mypycify([*MYPY_FLAGS, *(f"src/president_sdk/bots/expert/{name}.py" for name in SEARCH)]), PLAYOUT]


if __name__ == "__main__":  # as setuptools runs it; tests import missing_toolchain alone
    setup(ext_modules=extensions())
