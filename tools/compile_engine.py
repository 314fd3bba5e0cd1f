"""Build the compiled engine of a checkout: the engine's typed source compiled by mypyc, and the expert's search.

    python tools/compile_engine.py OUT_DIR [--require]
    python tools/compile_engine.py OUT_DIR --background   # make run: build it if stale, in the background
    python tools/compile_engine.py --check      # exit 0 when this machine can build it

Copies ``engine/src/president_engine`` and ``sdk/src/president_sdk`` into a
scratch folder, compiles their hot modules there with mypyc (which ships with
mypy, a test tool), moves only the compiled modules into OUT_DIR and writes
OUT_DIR/.built last: the hash of every source file mypyc read.
`president_engine.build` runs this build by default when OUT_DIR is
build/engine-compiled and every hash still matches (`make venv` builds it; the
pure-Python source stays the reference and the fallback, and the packages
install without a compiler).  Which engine modules are compiled, and how, is
`president_engine.build`'s (a wheel of the engine compiles the same ones); of
the SDK only the expert's search is compiled (its playout policy, its search
and its world sampling: most of a searched decision's time), and `_playout.c`,
the C playouts on rank counts and on cards that rollout.py falls back from
(built with setuptools, as mypyc's own modules are).

A build is made in OUT_DIR.new and takes OUT_DIR's place when it is whole, under
a lock (OUT_DIR.lock) that a second build waits on; one that finds the build
fresh once it holds the lock has nothing to do.  With ``--background`` (what
`make run` does) a stale or missing build is started in its own session, so a
Ctrl-C of the demo lets it finish, and the command returns at once: the demo
runs on the source, and the commands started after the build on the compiled
engine.  It does nothing with PRESIDENT_ENGINE_BUILD=source set or without a
toolchain (the demo's engine line says why).

Without a C compiler or the Python headers it prints why and exits 0
(skipped: the source runs), or 1 with ``--require`` (CI, `.ci/run`).  The
compiler's output goes to OUT_DIR/build.log."""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "engine"))
from build_backend import build  # noqa: E402 (president_engine.build, read by path as the engine's wheel reads it)

SOURCES = (ROOT / "engine" / "src" / "president_engine", ROOT / "sdk" / "src" / "president_sdk")
COMPILED = [*build.COMPILED_MODULES, *build.SEARCH_MODULES]
EXTENSIONS = {"president_sdk.bots.expert._playout": "president_sdk/bots/expert/_playout.c"}
"""C extensions of the build: the expert's playouts on rank counts and on cards (rollout.py is their reference)."""
BUILD_EXTENSIONS = ("from setuptools import Extension, setup; import json, sys; "
                    "setup(ext_modules=[Extension(name, [path], extra_compile_args=['-O2']) "
                    "for name, path in json.loads(sys.argv[1]).items()], script_args=['build_ext', '--inplace'])")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?")
    parser.add_argument("--require", action="store_true", help="fail instead of skipping without a toolchain")
    parser.add_argument("--check", action="store_true", help="only say whether this machine can build it")
    parser.add_argument("--background", action="store_true", help="build a stale OUT_DIR in its own session")
    args = parser.parse_args(argv)
    why = build.missing_toolchain()
    if args.check:
        print(f"compiled engine: {why or 'can build'}")
        return 0 if why is None else 1
    if args.out is None:
        parser.error("OUT_DIR is required")
    if why is not None:
        print(f"compiled engine: {'cannot build' if args.require else 'skipped'}: {why}", file=sys.stderr)
        return 1 if args.require else 0
    out: Path = args.out.resolve()
    if args.background:
        return _background(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_name(out.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another build of OUT_DIR finishes first
        if build.choose(out, ROOT).compiled:
            print(f"compiled engine: {out} is up to date")
            return 0
        return _build(out)


def _build(out: Path) -> int:
    staging, old = out.with_name(out.name + ".new"), out.with_name(out.name + ".old")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    log = staging / "build.log"
    with tempfile.TemporaryDirectory(prefix="engine-compiled-") as scratch:
        folder = Path(scratch)
        for source in SOURCES:
            shutil.copytree(source, folder / source.name, ignore=shutil.ignore_patterns("__pycache__", "_compiled"))
        done = build.compile_modules(folder, COMPILED, log)
        if not done:
            with open(log, "a") as output:
                done = subprocess.run([sys.executable, "-c", BUILD_EXTENSIONS, json.dumps(EXTENSIONS)], cwd=folder,
                                      stdout=output, stderr=subprocess.STDOUT).returncode
        if done:
            print(f"compiled engine: the build failed (exit {done}); see {log}", file=sys.stderr)
            return 1
        read = build.keep_compiled(folder, staging, [source.name for source in SOURCES])
    build.write_manifest(staging, {build.checkout_path(name): digest for name, digest in read.items()})
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)
    print(f"compiled engine: {sum(1 for _ in out.rglob('*.so'))} modules compiled into {out}")
    return 0


def _background(out: Path) -> int:
    """Start this build of `out` in its own session unless there is nothing to build or nothing to build with."""
    if os.environ.get(build.ENVIRONMENT) == "source" or build.missing_toolchain() is not None:
        return 0
    if build.choose(out, ROOT).compiled or build.building(out):
        return 0
    try:
        import mypyc  # noqa: F401 (only whether it is installed)
    except ImportError:
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    log = out.with_name(out.name + ".log")
    with open(log, "w") as output:
        child = subprocess.Popen(["nice", "-n", "19", sys.executable, __file__, str(out)], stdin=subprocess.DEVNULL,
                                 stdout=output, stderr=subprocess.STDOUT, start_new_session=True, cwd=ROOT)
    while not build.building(out) and child.poll() is None:  # the demo started next says a build is on its way
        time.sleep(0.02)
    print(f"president: compiling the engine in the background ({build.shown(log)}); commands started after it use"
          " it", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
