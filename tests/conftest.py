"""The test suite's root: pytest puts this folder on ``sys.path`` (it holds a conftest.py), so `support` is
importable from every folder below.

Code shared by the tests of one folder lives in that folder's ``<folder>_support.py`` (``service_support``,
``sdk_support``, ``web_support``, ...); code shared by every folder lives in ``support.py`` here.  A test file
imports helpers from those, never from another test file.
"""

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--engine-build", choices=("source", "compiled"), default=None,
                     help="the engine's build this run must import (make pytest-source, make pytest-compiled)")
