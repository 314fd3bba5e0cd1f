"""Play bots against each other in-process, through the engine, with no network.

Each bot gets exactly what a server would send it: `Match.observation` for
its own player, and the events `visible_to` it.  Use it to test bot logic and
to measure strength (benchmarks/bots_bench.py)::

    from president_sdk import builtin_bot, play_local
    from president_engine import Rules
    result = play_local([MyBot(), builtin_bot("easy"), builtin_bot("normal"), builtin_bot("hard")],
                        Rules.preset("cardverse"), seed=1)
    print(result.places, result.scores)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from president_engine import CardSet, IllegalActionError, Match, Rules, visible_to
from president_engine.events import DealEnded

from president_sdk.bot import Bot, listens
from president_sdk.faults import Faults
from president_sdk.guard import decide
from president_sdk.legal import resolve


class BotError(RuntimeError):
    """A bot that cannot play: it refused its seat (the rules), or in strict play it raised or answered illegally."""

    def __init__(self, bot: Bot, player: int, message: str) -> None:
        super().__init__(f"{bot.name} (player {player}) {message}")
        self.bot = bot
        self.player = player


@dataclass(frozen=True, kw_only=True, slots=True)
class LocalResult:
    match: Match
    """The finished match (events, record via `MatchRecord.from_match`)."""
    places: tuple[tuple[int, ...], ...]
    """Finishing order of each deal, players first to last."""
    scores: tuple[int, ...]
    winner: int
    faults: tuple[Faults, ...]
    """By player: the answers replaced by the fallback, by kind (always empty in strict play)."""

    @property
    def fault_count(self) -> int:
        return sum(sum(f.values()) for f in self.faults)


def play_local(bots: Sequence[Bot], rules: Rules, seed: int = 0, *,
               hands: Sequence[Sequence[CardSet]] | None = None, seats: Sequence[Sequence[int] | None] | None = None,
               strict: bool = True, move_timeout: float | None = None) -> LocalResult:
    """Play one match of `bots` (bot i is player i) and return the result.

    hands, seats: explicit hands for the first deals and, for each of those,
    the players by seat or None for the rules' seating (as `Match` takes them).

    strict: a bot that raises or answers illegally stops the match with
    `BotError` (for tests); otherwise the fault is logged and counted and the
    fallback action is played, exactly as the network runner does, with
    `move_timeout` seconds for each answer (None: no limit).  A bot whose
    `seat` raises (rules it cannot play) is a `BotError` either way.
    """
    if len(bots) != rules.players:
        raise ValueError(f"{len(bots)} bots for a {rules.players}-player match")
    match = Match(rules, seed=seed, hands=hands, seats=seats)
    for index, seated in enumerate(bots):
        try:
            seated.seat(index, rules)
        except Exception as exc:  # a bot that refuses these rules: none of its moves could stand in
            raise BotError(seated, index, f"cannot take its seat: {exc}") from exc
    listening = [(p, b) for p, b in enumerate(bots) if listens(b)]
    seen = 0
    faults = [Faults() for _ in bots]
    while True:
        events = match.events
        for event in events[seen:]:
            for listener, listening_bot in listening:
                shown = visible_to(event, listener)
                if shown is not None:
                    listening_bot.notify(shown)
        seen = len(events)
        if match.is_over:
            break
        player = match.to_act
        assert player is not None
        bot = bots[player]
        obs = match.observation(player)
        if strict:
            try:
                answer = bot.decide(obs)
            except Exception as exc:
                raise BotError(bot, player, f"raised {type(exc).__name__}: {exc}") from exc
            action = resolve(obs, answer)
            if action is None:
                raise BotError(bot, player, f"answered {answer!s}, which is not legal now (deal {obs.deal})")
        else:
            decision = decide(bot, obs, timeout=move_timeout)
            action = decision.action
            if decision.fault is not None:
                faults[player][decision.fault] += 1
        try:
            match.apply(action)
        except IllegalActionError as exc:  # resolve() accepted what the engine refuses: a bug to report
            raise BotError(bot, player, f"answered {action}, refused by the engine: {exc}") from exc
    places = tuple(e.places for e in match.events if isinstance(e, DealEnded))
    assert match.winner is not None
    return LocalResult(match=match, places=places, scores=tuple(match.scores), winner=match.winner,
                       faults=tuple(faults))

