"""Build the compiled engine: the same typed source as engine/, compiled by mypyc, and the expert's playouts.

    python tools/compile_engine.py OUT_DIR [--require]
    python tools/compile_engine.py --check      # exit 0 when this machine can build it

Copies ``engine/src/president_engine`` and ``sdk/src/president_sdk`` into
OUT_DIR, compiles their hot modules there with mypyc (which ships with mypy,
a test tool), keeps only the compiled modules and writes OUT_DIR/.built last:
the hash of every source file mypyc read.  `president_engine.build` runs this
build by default when OUT_DIR is build/engine-compiled and every hash still
matches (`make venv` builds it; the pure-Python source stays the reference and
the fallback, and the packages install without a compiler).  Of the SDK only
the expert's search is compiled (its playout policy, its search and its world
sampling: most of a searched decision's time), and `_playout.c`, the C playout
on rank counts that rollout.py falls back from (built with setuptools, as
mypyc's own modules are).  Engine modules left out stay
interpreted: `rules` (its constructor accepts the JSON forms of options, which
mypyc's typed fields would refuse), `errors` (interpreted modules subclass its
exceptions, which a compiled class forbids), `build`, `record`, `narrate`,
`action_space` and the command line.

Without a C compiler or the Python headers it prints why and exits 0
(skipped: the source runs), or 1 with ``--require`` (CI, `.ci/run`).  The
compiler's output goes to OUT_DIR/build.log."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "engine" / "src" / "president_engine", ROOT / "sdk" / "src" / "president_sdk")
COMPILED = [*(f"president_engine/{name}.py" for name in (
    "cards", "actions", "tables", "movegen", "legality", "match", "deal_flow", "exchange", "worlds", "events",
    "deal", "observation", "phase", "roles", "fallback")),
    *(f"president_sdk/bots/expert/{name}.py" for name in ("rollout", "search", "worlds"))]
EXTENSIONS = {"president_sdk.bots.expert._playout": "president_sdk/bots/expert/_playout.c"}
"""C extensions of the build: the expert's playout on rank counts (rollout.py is its reference)."""
BUILD_EXTENSIONS = ("from setuptools import Extension, setup; import json, sys; "
                    "setup(ext_modules=[Extension(name, [path], extra_compile_args=['-O2']) "
                    "for name, path in json.loads(sys.argv[1]).items()], script_args=['build_ext', '--inplace'])")


def missing_toolchain() -> str | None:
    """Why this machine cannot build C extensions for this Python, or None when it can."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    header = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not header.exists():
        return f"no Python headers ({header}; on Debian: apt-get install python3-dev)"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?")
    parser.add_argument("--require", action="store_true", help="fail instead of skipping without a toolchain")
    parser.add_argument("--check", action="store_true", help="only say whether this machine can build it")
    args = parser.parse_args(argv)
    why = missing_toolchain()
    if args.check:
        print(f"compiled engine: {why or 'can build'}")
        return 0 if why is None else 1
    if args.out is None:
        parser.error("OUT_DIR is required")
    if why is not None:
        print(f"compiled engine: {'cannot build' if args.require else 'skipped'}: {why}", file=sys.stderr)
        return 1 if args.require else 0
    out: Path = args.out
    shutil.rmtree(out, ignore_errors=True)
    for source in SOURCES:
        shutil.copytree(source, out / source.name, ignore=shutil.ignore_patterns("__pycache__"))
    with open(out / "build.log", "w") as log:
        done = subprocess.run([sys.executable, "-m", "mypyc", *COMPILED], cwd=out, stdout=log, stderr=subprocess.STDOUT,
                              env={**os.environ, "MYPY_FORCE_COLOR": "0"})
        if not done.returncode:
            done = subprocess.run([sys.executable, "-c", BUILD_EXTENSIONS, json.dumps(EXTENSIONS)], cwd=out,
                                  stdout=log, stderr=subprocess.STDOUT)
    if done.returncode:
        print(f"compiled engine: the build failed (exit {done.returncode}); see {out / 'build.log'}", file=sys.stderr)
        return 1
    shutil.rmtree(out / "build", ignore_errors=True)
    sources = {str(source.relative_to(ROOT) / path.relative_to(out / source.name)):
               hashlib.sha256(path.read_bytes()).hexdigest()
               for source in SOURCES for pattern in ("*.py", "*.c")
               for path in sorted((out / source.name).rglob(pattern))}  # as the build read them
    for copied in sorted((p for source in SOURCES for p in (out / source.name).rglob("*")), reverse=True):
        if copied.suffix in (".py", ".pyi", ".c") or copied.name == "py.typed" or copied.name == "__pycache__":
            shutil.rmtree(copied) if copied.is_dir() else copied.unlink()
        elif copied.is_dir() and not any(copied.iterdir()):
            copied.rmdir()
    built = [p for source in SOURCES for p in (out / source.name).rglob("*") if p.suffix in (".so", ".pyd")]
    manifest = {"ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"), "sources": sources}
    (out / ".built").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(f"compiled engine: {len(built)} modules compiled into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
