"""The conformance suite's cases: what each case's matches are played on, and the times a bot is given."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from random import Random

from president_engine import PRESETS, Action, JokerAlone, Match, Phase, Play, Rules

MOVE_S = 10.0
"""The move limit of an ordinary case's match (the server's default)."""
SHORT_DEADLINE_S = 1.5
"""The move limit of the short-deadline case's match: ample for an answer, too short for a bot that ignores it."""
CONNECT_S = 30.0
"""How long a bot may take to start and connect."""
RESUME_S = 30.0
"""How long a bot may take to connect again after its connection was dropped."""
SEARCH_SEEDS = 2000
"""Seeds tried for a deal in which a case's situation arises."""
PLAYER_COUNTS = (3, 4, 5)


class Mode(Enum):
    """How the bot is connected: a seat token on the Play stream, or an account token on a Session."""

    PLAY = "the Play stream"
    SESSION = "a Session"


class Situation(Enum):
    """What a case's match is played on to before the bot's seat is chosen: the seat to act then."""

    START = "the first turn"
    GIVE_BACK = "a give-back"
    REQUEST = "a request"
    DECLARED = "a declared wild play"
    REVOLUTION = "a revolution"


_ARISES: dict[Situation, Callable[[Match], bool]] = {
    Situation.START: lambda m: True,
    Situation.GIVE_BACK: lambda m: m.phase is Phase.GIVE_BACK,
    Situation.REQUEST: lambda m: m.phase is Phase.REQUEST,
    Situation.DECLARED: lambda m: m.phase is Phase.PLAY and any(
        isinstance(a, Play) and a.declared is not None for a in m.legal_actions()),
    Situation.REVOLUTION: lambda m: m.phase is Phase.PLAY and m.reversed,
}
_HAS: dict[Situation, Callable[[Rules], bool]] = {
    Situation.GIVE_BACK: lambda r: r.exchange,
    Situation.REQUEST: lambda r: r.exchange_requests,
    Situation.DECLARED: lambda r: r.joker_alone is JokerAlone.DECLARED,
    Situation.REVOLUTION: lambda r: r.revolution,
}
_DEALS = {Situation.GIVE_BACK: 2, Situation.REQUEST: 2}
"""Deals a case's match has: the exchange comes in deal 2; one deal otherwise."""


@dataclass(frozen=True)
class Setting:
    """One match of a case."""

    preset: str
    players: int
    situation: Situation = Situation.START

    def rules(self) -> Rules:
        return Rules.preset(self.preset, players=self.players, deals=_DEALS.get(self.situation, 1))


@dataclass(frozen=True, kw_only=True)
class Case:
    name: str
    matches: tuple[Setting, ...] = ()
    short_deadline: bool = False
    """The match's move limit is SHORT_DEADLINE_S, and its clock starts after the bot's first prompt, as when the
    last seat connects late: that prompt's deadline comes in a TurnDeadline after it, the others' in the Prompt."""
    refuse_once: bool = False
    """The first act that is not the fallback move (what the server's clock would play) is answered
    ActionRejected ILLEGAL_ACTION: another legal act for the turn must follow before its deadline."""
    drop: bool = False
    """The connection is dropped when the second act arrives: the bot must resume and answer the prompt again
    (before the turn's deadline, which the resume does not move: the match's move limit has RESUME_S more)."""
    bad_token: bool = False
    """The bot is given a token the server refuses: it must exit with an error."""

    @property
    def move_s(self) -> float:
        """The move limit of the case's matches."""
        return SHORT_DEADLINE_S if self.short_deadline else MOVE_S + RESUME_S if self.drop else MOVE_S


def build_cases(mode: Mode, preset: str | None, players: int | None) -> list[Case]:
    """Every preset at every player count, each situation where a preset has it, the protocol's cases."""
    presets = [preset] if preset else sorted(PRESETS, key=lambda p: p != "cardverse")
    counts = [players] if players else list(PLAYER_COUNTS)
    cases = [Case(name=f"{p}, {n} players", matches=(Setting(p, n),)) for p in presets for n in counts]
    n = players or 4
    titles = {Situation.GIVE_BACK: "a give-back in the exchange", Situation.REQUEST: "a Norwegian request",
              Situation.DECLARED: "wild cards with a declared rank", Situation.REVOLUTION: "after a revolution"}
    for situation, title in titles.items():
        having = [p for p in presets if _HAS[situation](Setting(p, n, situation).rules())]
        if having:
            cases.append(Case(name=f"{title} ({having[0]}, {n} players)", matches=(Setting(having[0], n, situation),)))
    plain = (Setting(presets[0], n),)
    cases += [Case(name=f"a prompt with a {SHORT_DEADLINE_S:g} s deadline", matches=plain, short_deadline=True),
              Case(name="a rejected act and the retry", matches=plain, refuse_once=True),
              Case(name="a dropped connection and the resume", matches=plain, drop=True)]
    if mode is Mode.SESSION:
        trio = [preset] * 3 if preset else ["cardverse", "norwegian", "italian"]
        middle = next((s for s in (Situation.REQUEST, Situation.GIVE_BACK) if _HAS[s](Setting(trio[1], n, s).rules())),
                      Situation.START)
        several = (Setting(trio[0], n), Setting(trio[1], n, middle), Setting(trio[2], n))
        cases.append(Case(name=f"3 matches at once on one Session ({', '.join(trio)})", matches=several))
    cases.append(Case(name="a refused token", bad_token=True))
    return cases


class ContractError(Exception):
    """The bot did something the contract does not allow; the message says what, in one line."""


class NoSuchDealError(Exception):
    """No deal of the seeds tried reaches a case's situation (a gap of the suite, not the bot's fault)."""


@dataclass(frozen=True)
class Start:
    """Where a case's match starts: its seed, the moves played to its situation, the seat to act then (the bot's),
    and the seeded source of the suite's moves from there."""

    seed: int
    moves: tuple[tuple[int, Action], ...]
    """(player, action) in the order played."""
    player: int
    rng: Random


def reach(setting: Setting, first_seed: int) -> Start:
    """A match played with seeded random moves until `setting`'s situation arises; NoSuchDealError if none does."""
    rules = setting.rules()
    arises = _ARISES[setting.situation]
    for seed in range(first_seed, first_seed + SEARCH_SEEDS):
        match, rng = Match(rules, seed=seed), Random(seed)
        moves: list[tuple[int, Action]] = []
        while not match.is_over:
            player = match.to_act
            assert player is not None
            if arises(match):
                return Start(seed, tuple(moves), player, rng)
            moves.append((player, rng.choice(match.legal_actions())))
            match.apply(moves[-1][1])
    raise NoSuchDealError(f"no deal of {SEARCH_SEEDS} seeds reaches {setting.situation.value} in {setting.preset}"
                          f" with {setting.players} players")
