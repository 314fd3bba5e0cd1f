"""The test suite's root: pytest puts this folder on ``sys.path`` (it holds a conftest.py), so `support` is
importable from every folder below.

Code shared by the tests of one folder lives in that folder's ``<folder>_support.py`` (``service_support``,
``sdk_support``, ``web_support``, ...); code shared by every folder lives in ``support.py`` here.  A test file
imports helpers from those, never from another test file.
"""

from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--engine-build", choices=("source", "compiled"), default=None,
                     help="the engine's build this run must import (make pytest-source, make pytest-compiled)")


ROOT = Path(__file__).resolve().parents[1]
COMPILED_STAMP = ROOT / ".venv" / ".installed-compiled"


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to test compiled wheels older than the source they were built from (`make compiled` rebuilds them)."""
    import president_engine

    if not COMPILED_STAMP.exists() or Path(president_engine.__file__).is_relative_to(ROOT / "engine" / "src"):
        return  # the source runs: an editable install, or engine/src first on PYTHONPATH
    built = COMPILED_STAMP.stat().st_mtime
    sources = [*(ROOT / "engine").glob("setup.py"), *(ROOT / "sdk").glob("setup.py"),
               *(ROOT / "engine" / "src" / "president_engine").glob("*.py"),
               *(ROOT / "sdk" / "src" / "president_sdk").rglob("*.py"), *(ROOT / "sdk" / "src").rglob("*.c")]
    newer = [path for path in sources if path.stat().st_mtime > built]
    if newer:
        pytest.exit(f"the venv's compiled engine and SDK are older than {newer[0].relative_to(ROOT)}: run make"
                    " compiled, or put engine/src and sdk/src first on PYTHONPATH to test the source", returncode=4)
