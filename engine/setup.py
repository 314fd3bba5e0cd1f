"""The engine's wheel: its hot modules compiled by mypyc where a C compiler and the Python headers are, the
pure-Python wheel where they are not; an editable install, an sdist and their metadata compile nothing."""

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup

COMPILED = ("cards", "actions", "tables", "movegen", "legality", "match", "deal_flow", "exchange", "worlds", "playout",
            "events", "deal", "observation", "phase", "roles", "fallback")
"""The modules mypyc compiles.  Left interpreted: `rules` (its constructor accepts the JSON forms of options, which
mypyc's typed fields would refuse), `errors` (interpreted modules subclass its exceptions, which a compiled class
forbids), `compiled`, `record`, `narrate`, `action_space` and the command line."""


def missing_toolchain() -> str | None:
    """Why this machine cannot build C extensions for this Python, or None when it can."""
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    header = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not header.exists():
        return f"no Python headers ({header}; on Debian: apt-get install python3-dev)"
    return None


def extensions() -> list[object]:
    """mypyc's extensions when a wheel is built here with a toolchain; none otherwise (one line says why)."""
    if "bdist_wheel" not in sys.argv:
        return []
    why = missing_toolchain()
    if why is not None:
        print(f"president-engine: the pure-Python engine ({why}; the compiled build needs a C compiler and the Python"
              " headers)", file=sys.stderr, flush=True)
        return []
    from mypyc.build import mypycify

    print(f"president-engine: the compiled engine: {len(COMPILED)} modules compiled by mypyc", file=sys.stderr,
          flush=True)
    return list(mypycify(["--config-file=", *(f"src/president_engine/{name}.py" for name in COMPILED)]))


if __name__ == "__main__":  # as setuptools runs it; tests import missing_toolchain alone
    setup(ext_modules=extensions())
