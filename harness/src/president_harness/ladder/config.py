"""`LadderConfig`: what a ladder.toml says — the bots, the rules, the format, the size, the seed.

Paths in the file are relative to the file.  The fingerprint covers every
setting that changes which matches are played or how, so a database is only
ever resumed by the ladder that started it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import shutil
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from president_engine import Rules, RulesError
from president_sdk.bots import BUILTIN_BOTS
from president_service.play.clock import ClockError, ClockSettings

PLACEHOLDERS = ("server", "token", "match", "player", "name", "seed", "account_token")
"""What a bot command may contain in braces, e.g. ``--server {server} --token {token}``.

``{seed}`` is the match's bot seed: the same for every seating of a
duplicate board, so a bot that draws random numbers can draw the same ones
each time the board is played (common random numbers).  A command with
``{account_token}`` is started once and plays all its matches over one
Session; it may use only `SESSION_PLACEHOLDERS` (its seed comes in each
match's Welcome)."""
SESSION_PLACEHOLDERS = ("server", "account_token", "name")


_MAX_BOARD = 720
"""The most matches a board of every seating may have (6 players)."""
SESSION_MATCHES_PER_CORE = 16
"""Matches in flight per core when every bot plays over Sessions (the default of `parallel`)."""
MAX_AUTO_PARALLEL = 64
"""The default `parallel` at most: below a server's default limit of live matches per account (100)."""


class ConfigError(ValueError):
    """The ladder file is wrong: names the key and what is wrong with it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


class Format(Enum):
    """How the deals are used: every deal once, or every deal once per seating of the board."""

    PLAIN = "plain"
    DUPLICATE = "duplicate"


class Seatings(Enum):
    """Which seatings of a table make a board.

    ALL: every ordering of the table's bots over the seats (players! matches;
    the default up to 4 players).  Two seatings that differ only by swapping
    two bots then both exist, and with the same cards and the same bot seed
    they play identically until those two bots choose differently, so the
    comparison of two close bots measures their decisions, not the table.
    ROTATIONS: the table's order rotated (players matches; the default above
    4 players, where players! matches a board is too many).  Either way every
    bot sits in every seat, with every hand in duplicate.
    """

    ALL = "all"
    ROTATIONS = "rotations"

    @classmethod
    def default(cls, players: int) -> Seatings:
        return cls.ALL if players <= 4 else cls.ROTATIONS


SOURCE_SUFFIXES = frozenset({".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".lua", ".jar", ".sh", ".exe",
                             ".R", ".jl", ".php"})
"""A command argument ending in one of these names a file of the bot (checked, and hashed into its identity)."""


@dataclass(frozen=True, kw_only=True)
class BotSpec:
    """One entrant: a built-in level, or a command (placeholders filled in).

    A command with ``{account_token}`` runs once for the whole ladder (once
    per parallel slot when not `concurrent`) and plays every match of its
    account over one Session; any other command runs once per seat.  A
    command runs in the ladder file's folder.  Its program is looked up on
    PATH and then beside the Python running the ladder (a virtual
    environment's ``bin``), so ``president-bot`` works without an activated
    environment.
    """

    name: str
    builtin: str | None = None
    command: tuple[str, ...] = ()
    version: str = ""
    """Set by the user to mark a new version of a bot whose files the ladder cannot see."""
    concurrent: bool = True
    """A session command that plays many matches at once (else one process per parallel slot)."""

    @property
    def session(self) -> bool:
        """Whether the bot plays its matches over Sessions: a built-in level, or a command given an account."""
        return self.builtin is not None or any("{account_token}" in part for part in self.command)

    def argv(self, *, server: str, token: str = "", match: str = "", player: int = -1, seed: int = 0,
             account_token: str = "") -> list[str]:
        """The command line (for one seat, or for a session bot), placeholders replaced (see `program`)."""
        values = {"server": server, "token": token, "match": match, "player": str(player), "name": self.name,
                  "seed": str(seed), "account_token": account_token}
        return [part.format(**values) for part in self.command]

    def files(self, base: Path) -> list[Path]:
        """The source files the command names (arguments ending in a source suffix, ``file.py:Class`` too)."""
        out = []
        for part in self.command[1:]:
            if "{" in part or part.startswith("-"):
                continue
            path = part.split(":", 1)[0] if ".py:" in part else part
            if Path(path).suffix in SOURCE_SUFFIXES:
                out.append(base / path)
        return out

    def program(self, base: Path) -> str | None:
        """The command's program as it will be run, or None when it cannot be found."""
        first = self.command[0]
        if "/" in first:
            path = base / first
            return str(path) if path.is_file() else None
        found = shutil.which(first) or shutil.which(first, path=str(Path(sys.executable).parent))
        return found

    def identity(self, base: Path) -> str:
        """A hash of what makes this bot play as it does: its level and SDK, or its command, version and files."""
        parts: list[object] = [self.name, self.builtin, list(self.command), self.version]
        if self.builtin is not None:
            parts.append(_sdk_version())
        for path in self.files(base):
            parts.append(hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None)
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _sdk_version() -> str:
    from importlib.metadata import version

    return version("president-sdk")


@dataclass(frozen=True, kw_only=True)
class LadderConfig:
    """A whole ladder, as read from TOML (`load`)."""

    name: str
    format: Format
    players: int
    seatings: Seatings
    matches: int
    seed: int
    preset: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    """Rule options changed from the preset (never ``players``: that is `players`)."""
    bots: tuple[BotSpec, ...]
    db: Path
    base: Path = Path()
    """The ladder file's folder: commands run there and their paths are relative to it."""
    parallel: int | None = None
    """Matches at once; None: what the machine and the server sustain (`auto_parallel`)."""
    retries: int = 2
    """Further attempts of a match that failed (a bot crashed, the server went away)."""
    match_timeout_s: float = 300.0
    clock: ClockSettings = field(default_factory=ClockSettings)
    """The time control of every match (the ladder file's ``[clock]`` move_ms, bank_ms, strikes)."""

    @property
    def rules(self) -> Rules:
        """The effective rules of every match."""
        return Rules.preset(self.preset, players=self.players, **self.overrides)

    @property
    def runs(self) -> Path:
        """The run folder: one folder per match with its record and its command bots' output."""
        return self.db.with_name(self.db.stem + "-matches")

    def bot(self, name: str) -> BotSpec:
        return next(b for b in self.bots if b.name == name)

    def auto_parallel(self) -> int:
        """`parallel`, or when unset: enough matches at once to keep the server and the bots busy.

        Over Sessions a match in flight costs a few objects, so the default
        is set by how many the server's cores can interleave
        (benchmarks/ladder_speed.py); a bot run once per seat costs a
        process per seat, so then one match per core.
        """
        if self.parallel is not None:
            return self.parallel
        cores = os.cpu_count() or 1
        if all(b.session for b in self.bots):
            return min(SESSION_MATCHES_PER_CORE * cores, MAX_AUTO_PARALLEL)
        return cores

    def fingerprint(self) -> str:
        """A hash of everything that decides which matches are played (not how each bot plays: `identities`)."""
        data = {
            "format": self.format.value, "players": self.players, "seatings": self.seatings.value,
            "matches": self.matches, "seed": self.seed,
            "rules": self.rules.to_dict(), "clock": [self.clock.move_ms, self.clock.bank_ms, self.clock.max_strikes],
            "bots": [b.name for b in self.bots],
        }
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def identities(self) -> dict[str, str]:
        """Each bot's identity (`BotSpec.identity`): a bot whose identity changed is a new entrant."""
        return {b.name: b.identity(self.base) for b in self.bots}

    def check_commands(self) -> None:
        """ConfigError unless every command bot's program and files are there (before any match is played)."""
        for index, bot in enumerate(self.bots):
            if bot.builtin is not None:
                continue
            if bot.program(self.base) is None:
                raise ConfigError(f"bots[{index}].command", f"{bot.name}: program {bot.command[0]!r} not found"
                                  f" (looked on PATH and in {Path(sys.executable).parent};"
                                  f" a path is relative to {self.base.resolve()})")
            for path in bot.files(self.base):
                if not path.is_file():
                    raise ConfigError(f"bots[{index}].command", f"{bot.name}: no file {path}"
                                      f" (paths in a command are relative to the ladder file's folder)")


def load(path: Path) -> LadderConfig:
    """Read and check a ladder file; raises ConfigError naming the key at fault."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(str(path), str(exc)) from None
    return parse(data, base=path.parent, default_name=path.stem)


def parse(data: Mapping[str, Any], *, base: Path, default_name: str = "ladder") -> LadderConfig:
    """Build a config from the TOML document `data` (paths relative to `base`)."""
    known = {"name", "format", "players", "seatings", "matches", "seed", "db", "parallel", "retries",
             "match_timeout", "rules", "clock", "bots"}
    _no_unknown("", data, known)
    try:
        fmt = Format(_get(data, "format", str, "duplicate"))
    except ValueError:
        raise ConfigError("format", "must be 'duplicate' or 'plain'") from None
    players = _get(data, "players", int, 4)
    try:
        seatings = Seatings(_get(data, "seatings", str, Seatings.default(players).value))
    except ValueError:
        raise ConfigError("seatings", "must be 'all' or 'rotations'") from None
    rules_table = dict(_get(data, "rules", dict, {}))
    preset = rules_table.pop("preset", "cardverse")
    if not isinstance(preset, str):
        raise ConfigError("rules.preset", "must be a string")
    if "players" in rules_table:
        raise ConfigError("rules.players", "set the number of players with the top-level key 'players'")
    clock_table = _get(data, "clock", dict, {})
    _no_unknown("clock", clock_table, {"move_ms", "bank_ms", "strikes"})
    default = ClockSettings()
    try:
        clock = ClockSettings(move_ms=_get(clock_table, "move_ms", int, default.move_ms, prefix="clock."),
                              bank_ms=_get(clock_table, "bank_ms", int, default.bank_ms, prefix="clock."),
                              max_strikes=_get(clock_table, "strikes", int, default.max_strikes, prefix="clock."))
    except ClockError as exc:
        option = "strikes" if exc.option == "max_strikes" else exc.option
        raise ConfigError(f"clock.{option}", str(exc).split(": ", 1)[1]) from None
    config = LadderConfig(
        name=_get(data, "name", str, default_name),
        format=fmt,
        players=players,
        seatings=seatings,
        matches=_get(data, "matches", int, 0),
        seed=_get(data, "seed", int, 0),
        preset=preset,
        overrides=rules_table,
        bots=tuple(_bot(i, b) for i, b in enumerate(_get(data, "bots", list, []))),
        db=base / _get(data, "db", str, "ladder.db"),
        base=base,
        parallel=_parallel(data),
        retries=_get(data, "retries", int, 2),
        match_timeout_s=float(_get(data, "match_timeout", (int, float), 300)),
        clock=clock,
    )
    _check(config)
    return config


def _check(config: LadderConfig) -> None:
    try:
        config.rules  # noqa: B018 - validates preset and options
    except RulesError as exc:
        raise ConfigError(f"rules.{exc.option}" if exc.option != "preset" else "rules.preset", str(exc)) from None
    if config.matches < 1:
        raise ConfigError("matches", "must be at least 1")
    if config.seatings is Seatings.ALL and math.factorial(config.players) > _MAX_BOARD:
        raise ConfigError("seatings", f"'all' makes a board of {math.factorial(config.players)} matches"
                                      f" for {config.players} players (at most {_MAX_BOARD}); use 'rotations'")
    if (config.parallel is not None and config.parallel < 1) or config.retries < 0 or config.match_timeout_s <= 0:
        raise ConfigError("parallel", "parallel >= 1 (or \"auto\"), retries >= 0 and match_timeout > 0")
    if not 0 <= config.seed < 2**63:
        raise ConfigError("seed", "must be between 0 and 2**63 - 1")
    names = [b.name for b in config.bots]
    if len(set(names)) != len(names):
        raise ConfigError("bots", "bot names must be unique")
    if len(names) < config.players:
        raise ConfigError("bots", f"{len(names)} bots cannot fill a {config.players}-player table")


def _bot(index: int, table: Any) -> BotSpec:
    key = f"bots[{index}]"
    if not isinstance(table, dict):
        raise ConfigError(key, "must be a table with name and builtin or command")
    _no_unknown(key, table, {"name", "builtin", "command", "version", "concurrent"})
    builtin = table.get("builtin")
    command = table.get("command")
    if (builtin is None) == (command is None):
        raise ConfigError(key, "give exactly one of 'builtin' and 'command'")
    if builtin is not None:
        if builtin not in BUILTIN_BOTS:
            raise ConfigError(f"{key}.builtin", f"unknown level {builtin!r} (known: {', '.join(BUILTIN_BOTS)})")
        return BotSpec(name=str(table.get("name", builtin)), builtin=builtin)
    argv = shlex.split(command) if isinstance(command, str) else command
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise ConfigError(f"{key}.command", "must be a string or a non-empty list of strings")
    if "name" not in table:
        raise ConfigError(f"{key}.name", "a command bot needs a name")
    for part in argv:
        try:
            part.format(**dict.fromkeys(PLACEHOLDERS, ""))
        except (KeyError, IndexError, ValueError):
            raise ConfigError(f"{key}.command", f"{part!r}: placeholders are {', '.join(PLACEHOLDERS)}") from None
    version = table.get("version", "")
    if not isinstance(version, str):
        raise ConfigError(f"{key}.version", "must be a string")
    concurrent = table.get("concurrent", True)
    if not isinstance(concurrent, bool):
        raise ConfigError(f"{key}.concurrent", "must be true or false")
    spec = BotSpec(name=str(table["name"]), command=tuple(argv), version=version, concurrent=concurrent)
    if spec.session:
        per_match = [p for p in PLACEHOLDERS if p not in SESSION_PLACEHOLDERS and any(f"{{{p}}}" in a for a in argv)]
        if per_match:
            raise ConfigError(f"{key}.command", f"{{{per_match[0]}}} is one match's, but a command given"
                                                " {account_token} runs once for all its matches (placeholders:"
                                                f" {', '.join(SESSION_PLACEHOLDERS)})")
    elif not concurrent:
        raise ConfigError(f"{key}.concurrent", "only for a command given {account_token} (a command given {token}"
                                               " plays one seat)")
    return spec


def _parallel(data: Mapping[str, Any]) -> int | None:
    value = data.get("parallel", "auto")
    if value == "auto":
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError("parallel", "must be a number of matches or \"auto\"")
    return value


def _get(table: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any, prefix: str = "") -> Any:
    value = table.get(key, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(prefix + key, f"has the wrong type ({type(value).__name__})")
    return value


def _no_unknown(where: str, table: Mapping[str, Any], known: set[str]) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        key = f"{where}.{unknown[0]}" if where else unknown[0]
        raise ConfigError(key, f"unknown key (known: {', '.join(sorted(known))})")
