"""Helpers shared by the engine tests: explicit deals, playing a script, reading the log."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import assume
from hypothesis import strategies as st
from president_engine import (
    PRESETS,
    CardSet,
    IllegalActionError,
    IllegalReason,
    Match,
    Observation,
    Play,
    PublicObservation,
    Rules,
    RulesError,
    parse_action,
)
from president_engine.cards import NATURAL_RANKS
from president_engine.events import Event
from president_engine.narrate import describe


def deal(*hands: str) -> list[CardSet]:
    """One deal's hands by seat, from card notation."""
    return [CardSet(h) for h in hands]


PLACES_IN_SEAT_ORDER = {3: "2S 2H 3C", 4: "2S 2H 2D 3C", 5: "2S 2H 2D 2C 3C"}
"""A deal 1 in which seat i finishes in place i (each plays a single two and goes out)."""


def exchange_match(deal2: list[str], players: int = 4, **options: Any) -> Match:
    """A match whose deal 2 (roles by seat: President, Vice-President, ..., Scum) has these hands."""
    rules = Rules(players=players, deals=2, exchange=True, **options)
    m = Match(rules, hands=[deal(*PLACES_IN_SEAT_ORDER[players].split()), deal(*deal2)])
    while m.deal == 1:
        m.apply(m.legal_actions()[0])
    assert m.last_places == tuple(range(players))
    return m


def match(rules: Rules | None = None, *deals: list[CardSet], seed: int = 0, **options: Any) -> Match:
    """A match of `rules` (or plain `Rules(**options)`) with explicit hands for the first deals."""
    if rules is None:
        rules = Rules(**options)
    return Match(rules, seed=seed, hands=list(deals) or None)


def run(m: Match, *actions: str) -> Match:
    """Apply actions in text form (``"3C 3D"``, ``"pass"``, ``"give 4C"``, ``"request AS"``)."""
    for text in actions:
        m.apply(parse_action(text))
    return m


def reason(m: Match, text: str, player: int | None = None) -> IllegalReason:
    """The reason `check` refuses an action; fails if it is accepted."""
    try:
        m.check(parse_action(text), player)
    except IllegalActionError as exc:
        return exc.reason
    raise AssertionError(f"{text!r} was accepted")


def same_play(found: object, expected: Play) -> bool:
    """`found` is `expected` and stands for the same rank (Play equality leaves `rank` out)."""
    return isinstance(found, Play) and found == expected and found.rank is expected.rank


def texts(actions: Iterable[object]) -> list[str]:
    return [str(a) for a in actions]


def of_type(m: Match, kind: type) -> list[Any]:
    return [e for e in m.events if isinstance(e, kind)]


def narration(events: Iterable[Event], players: int) -> list[str]:
    names = [f"P{p}" for p in range(players)]
    return [line for line in (describe(e, names) for e in events) if line is not None]


def state(m: Match) -> tuple[object, ...]:
    """Everything observable about a match, for comparing two of them."""
    return (m.phase, m.to_act, m.deal, tuple(m.events), tuple(m.scores), tuple(m.roles), m.seats,
            tuple(m.hand(p) for p in range(m.rules.players)), m.table, m.reversed, m.direction,
            m.legal_actions(), m.winner, m.is_over)


def public_part(obs: Observation) -> PublicObservation:
    """A player's view without its private fields, its exchange cards hidden as a spectator's are."""
    fields = {f.name: getattr(obs, f.name) for f in dataclasses.fields(PublicObservation)}
    fields["exchange"] = tuple(dataclasses.replace(g, cards=None) for g in obs.exchange)
    return PublicObservation(**fields)


@st.composite
def option_sets(draw: st.DrawFn) -> dict[str, Any]:
    """Overrides over a random preset; combinations Rules refuses are skipped."""
    out: dict[str, Any] = {"preset": draw(st.sampled_from(sorted(PRESETS)))}
    out["players"] = draw(st.integers(3, 7))
    out["decks"] = draw(st.sampled_from([1, 1, 2]))
    out["jokers"] = draw(st.integers(0, 2))
    out["joker_wild"] = draw(st.booleans())
    out["joker_alone"] = draw(st.sampled_from(["high", "low", "declared"]))
    out["wild_ranks"] = draw(st.sampled_from([[], [], ["6"], ["2"], ["6", "9"]]))
    out["wild_lead_rank"] = draw(st.sampled_from(["6", "3", "K"]))
    out["beat"] = draw(st.sampled_from(["equal_or_higher", "strictly_higher"]))
    out["suit_order"] = draw(st.sampled_from([None, None, "D C H S", "C D H S"]))
    out["trick_end"] = draw(st.sampled_from(["all_pass", "one_orbit"]))
    out["pass_is_final"] = draw(st.booleans())
    out["revolution"] = draw(st.booleans())
    out["revolution_triggers"] = draw(st.sampled_from([["four_of_a_kind"], ["four_singles"],
                                                       ["four_of_a_kind", "four_singles"]]))
    out["revolution_effect"] = draw(st.sampled_from(["ranks", "ranks_and_direction"]))
    out["equal_skip"] = draw(st.booleans())
    out["exchange"] = draw(st.booleans())
    out["exchange_requests"] = draw(st.booleans())
    out["first_lead"] = draw(st.sampled_from(["seat0", "three_of_clubs"]))
    out["next_lead"] = draw(st.sampled_from(["president", "scum"]))
    out["seating"] = draw(st.sampled_from(["fixed", "by_rank"]))
    for effect in ("eight_stop", "jack_back", "six_reverse"):  # the Daifugō options that any deck can have
        if draw(st.booleans()):
            out[effect] = draw(st.booleans())
    if draw(st.booleans()):
        out["rank_order"] = draw(st.permutations([str(r) for r in NATURAL_RANKS]))
    if draw(st.booleans()):
        out["target_score"] = draw(st.integers(1, 12))
        out["deals"] = draw(st.sampled_from([None, 2, 3]))
    else:
        out["deals"] = draw(st.integers(1, 3))
    return out


def build(options: dict[str, Any]) -> Rules:
    options = dict(options)
    preset = options.pop("preset")
    try:
        return Rules.preset(preset, **options)
    except RulesError:
        assume(False)
        raise


def perft(m: Match, depth: int) -> int:
    """Leaf count of the tree of legal actions `depth` plies deep (chess's perft)."""
    legal = m.legal_actions()
    if depth == 1:
        return len(legal)
    total = 0
    for action in legal:
        child = m.copy()
        child.apply(action)
        total += perft(child, depth - 1)
    return total


def does_not_beat(m: Match, text: str) -> str:
    """The message of a refusal with DOES_NOT_BEAT (the suit lock, or the wrong kind of play)."""
    with pytest.raises(IllegalActionError) as refused:
        m.check(parse_action(text))
    assert refused.value.reason is IllegalReason.DOES_NOT_BEAT
    return str(refused.value)
