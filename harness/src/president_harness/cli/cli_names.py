"""The names a command's options take (presets, built-in levels), loaded when first read.

Every subcommand's parser is built for every ``president`` command, so a
parser that listed these at build time would load the engine and every
built-in bot for a one-RPC command.  Given as argparse `choices` (with a
`metavar`, which argparse shows instead of listing them), or named in a help
text as ``%(known)s`` (`known_in_help`), they are read only to check a value
or to show the help.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import overload


class LoadedNames(Sequence[str]):
    """Names from `load`, called once, when they are first read."""

    def __init__(self, load: Callable[[], Iterable[str]]) -> None:
        self._load = load
        self._names: tuple[str, ...] | None = None

    def _all(self) -> tuple[str, ...]:
        if self._names is None:
            self._names = tuple(self._load())
        return self._names

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __str__(self) -> str:
        return ", ".join(self._all())


def _presets() -> list[str]:
    from president_engine import PRESETS
    return list(PRESETS)


def _levels() -> list[str]:
    from president_sdk.bots import BUILTIN_BOTS
    return list(BUILTIN_BOTS)


PRESET_NAMES = LoadedNames(_presets)
"""The engine's presets, in its order."""
SORTED_PRESET_NAMES = LoadedNames(lambda: sorted(PRESET_NAMES))
BUILTIN_LEVELS = LoadedNames(_levels)
"""The built-in bots' levels."""


def known_in_help(action: argparse.Action, names: LoadedNames) -> None:
    """Let `action`'s help text name `names` as ``%(known)s`` (argparse expands it from the action's attributes)."""
    vars(action)["known"] = names
