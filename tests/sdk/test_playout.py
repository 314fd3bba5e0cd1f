"""The expert's compiled playouts (_playout.c) against their reference, `Rollout` on the engine.

On the compiled build both play seeded worlds of random rule sets from a world's first move to its end; every
move and the places must be the same.  On rank counts (`finish`): tables without suits or jokers (revolutions
of both triggers and effects, equal-skip, 8-stop, 11-back, 6-reverse, pass counts, a passing leader, one wild
rank (its cards alone declared), two decks, three to seven players, shuffled rank orders).  On cards
(`finish_suited`): tables whose suits matter, the contest's and its variants (sequences, the suit lock, a joker
wild or not, high or low, its cells, the spade 3, the same effects, pass counts and limits).  On the source
build there is no C playout and every playout runs on the engine.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest
from president_engine import PASS, PRESETS, Action, CardSet, Match, Phase, Play, Rank, Rules
from president_engine.cards import NATURAL_RANKS
from president_engine.compiled import is_compiled
from president_engine.errors import RulesError
from president_engine.events import Passed, Played
from president_engine.playout import SuitedPlayoutState, playout_state, suited_playout_state
from president_sdk.bots.expert.rollout import NO_MOVE, NO_SUITED_MOVE, CompiledState, Rollout

WORLDS = 1000
"""Worlds compared, each of a random rule set (two playouts each)."""


PLAY_OPTIONS: tuple[tuple[str, list[Any]], ...] = (
    ("beat", ["equal_or_higher", "strictly_higher"]), ("trick_end", ["all_pass", "one_orbit"]),
    ("pass_is_final", [False, True]), ("revolution", [False, True]),
    ("revolution_triggers", [["four_of_a_kind"], ["four_singles"], ["four_of_a_kind", "four_singles"]]),
    ("revolution_effect", ["ranks", "ranks_and_direction"]), ("equal_skip", [False, True]),
    ("eight_stop", [False, True]), ("jack_back", [False, True]), ("six_reverse", [False, True]),
    ("pass_count", [False, True]), ("leader_may_pass", [False, True]))
"""Options of the play loop that both kinds of random rule set draw from."""


def _plain_rules(rng: random.Random) -> Rules | None:
    """A random rule set whose plays are rank counts, or None where Rules refuses what was drawn."""
    options: dict[str, Any] = {"players": rng.randint(3, 7), "decks": rng.choice([1, 1, 2]),
                               "deals": rng.choice([1, 2])}
    for name, values in (*PLAY_OPTIONS, ("first_lead", ["seat0", "three_of_clubs"])):
        if rng.random() < 0.5:
            options[name] = rng.choice(values)
    if rng.random() < 0.3:
        options["rank_order"] = rng.sample([str(r) for r in NATURAL_RANKS], len(NATURAL_RANKS))
    preset = rng.choice(["cardverse", "italian", "norwegian"])
    if rng.random() < 0.5:  # a wild rank (norwegian has the 6s already)
        options["wild_ranks"] = [rng.choice(["6", "2", "3", "9"])]
        options["joker_alone"] = "declared"
        options["wild_lead_rank"] = rng.choice(["6", "3", "K"])
    try:
        return Rules.preset(preset, **options)
    except RulesError:
        return None


def _suited_rules(rng: random.Random) -> Rules | None:
    """A random rule set whose suits matter with one deck and at most one joker, or None where Rules refuses it."""
    options: dict[str, Any] = {"players": rng.randint(3, 7), "deals": rng.choice([1, 2, 3])}
    for name, values in (*PLAY_OPTIONS, ("sequences", [False, True]), ("suit_lock", [False, True]),
                         ("joker_spade_three", [False, True]), ("jokers", [0, 1]), ("joker_wild", [False, True]),
                         ("joker_alone", ["high", "low"]), ("pass_limit", [None, 3, 8, 20])):
        if rng.random() < 0.4:
            options[name] = rng.choice(values)
    preset = rng.choice(["daifugo", "daifugo", "cardverse", "italian"])
    if not options.get("sequences", preset == "daifugo") and not options.get("suit_lock", preset == "daifugo"):
        options[rng.choice(["sequences", "suit_lock"])] = True  # else suits do not matter
    try:
        return Rules.preset(preset, **options)
    except RulesError:
        return None


def _is_run(action: Action) -> bool:
    return isinstance(action, Play) and len({c.rank for c in action.cards if not c.is_joker}) > 1


def _shaped_choice(legal: tuple[Action, ...], rng: random.Random) -> Action:
    """A random move, a sequence half the time where one is legal, the joker seldom: kept, its holder's leads list
    its cells (random moves would spend it at once: most plays of its holder hold it)."""
    sequences = [a for a in legal if _is_run(a)]
    plain = [a for a in legal if not (isinstance(a, Play) and a.cards.count_rank(Rank.JOKER))]
    return rng.choice(sequences if sequences and rng.random() < 0.5 else plain if plain and rng.random() < 0.9
                      else legal)


def _world(rules: Rules, rng: random.Random, *, runs: bool = False) -> Match | None:
    """A world from the view of the player to act, some random moves into a deal's play (`runs`: by
    `_shaped_choice`, and on until a sequence is legal), or None if the match ended first."""
    match = Match(rules, seed=rng.randrange(1 << 30))
    wanted_deal = rng.randint(1, rules.deals or 1)
    stop = rng.randrange(30)
    more = 40 if runs else 0  # moves on past `stop` until a sequence is legal
    while match.deal < wanted_deal or match.phase is not Phase.PLAY or stop or (
            more and not any(_is_run(a) for a in match.legal_actions())):
        if match.is_over:
            return None
        if match.deal == wanted_deal and match.phase is Phase.PLAY:
            if stop:
                stop -= 1
            else:
                more -= 1
        legal = match.legal_actions()
        match.apply(_shaped_choice(legal, rng) if runs else rng.choice(legal))
    if match.is_over:
        return None
    player = match.to_act
    assert player is not None
    return Match.from_view(match.observation(player), [match.hand(p) for p in range(rules.players)])


def _reference(rollout: Rollout, world: Match, first: Action | None,
               move: Callable[[Action], tuple[int, ...]]) -> tuple[list[tuple[int, ...]], tuple[int, ...]]:
    """Rollout's moves on the engine as _playout.c traces them (player, then `move` of the action: `native_move` or
    `suited_move`; an equal-skip is no move) and places (the engine's draw where a pass limit ends the deal);
    `first` the first move (None: the policy's)."""
    copy = world.copy()
    start = len(copy.events)
    if first is not None:
        copy.apply(first)
    places = rollout.finish(copy)
    moves = [(e.player, *move(e.play if isinstance(e, Played) else PASS))
             for e in copy.events[start:] if isinstance(e, Played) or (isinstance(e, Passed) and not e.skipped)]
    return moves, places


def _compared_worlds(draw: Callable[[random.Random], Rules | None], rng: random.Random, *, runs: bool = False
                     ) -> Iterator[tuple[Rules, Match, Rollout, Rollout, CompiledState]]:
    """WORLDS worlds of rule sets from `draw` (see `_world`), each with the compiled Rollout, the reference on the
    engine, and the compiled one's state of it."""
    worlds = 0
    while worlds < WORLDS:
        rules = draw(rng)
        world = None if rules is None else _world(rules, rng, runs=runs)
        if world is None or rules is None:
            continue
        worlds += 1
        native = Rollout(rules)
        state = native.prepare(world)
        assert state is not None
        yield rules, world, native, Rollout(rules, compiled=False), state


needs_c = pytest.mark.skipif(not is_compiled(), reason="the C playout is part of the compiled build")


@needs_c
def test_the_c_playout_moves_as_the_rollout_does_on_the_engine() -> None:
    rng = random.Random(28)
    compared = wild = 0
    for rules, world, native, reference, state in _compared_worlds(_plain_rules, rng):
        assert native._native is not None and not native.suited
        for first in (None, rng.choice(world.legal_actions())):
            moves, places = _reference(reference, world, first, reference.native_move)
            trace: list[tuple[int, ...]] = []
            found = native._native(native._native_rules, state, NO_MOVE if first is None else native.native_move(first),
                                   trace)
            assert (trace, found) == (moves, places), (rules, first)
            if first is not None:
                assert native.play_out(world, state, first) == places
            compared += 1
            wild += any(m[3] for m in moves)
    assert wild >= compared // 5, wild  # wild cards played in many


@needs_c
def test_the_suited_c_playout_moves_as_the_rollout_does_on_the_engine() -> None:
    rng = random.Random(25)
    compared = sequences = cells = limits = 0
    for rules, world, native, reference, state in _compared_worlds(_suited_rules, rng, runs=True):
        assert native._native_suited is not None and native.suited
        legal = world.legal_actions()
        runs = [a for a in legal if _is_run(a)]
        for first in (None, rng.choice(legal), *([rng.choice(runs)] if runs else [])):
            moves, places = _reference(reference, world, first, reference.suited_move)
            trace: list[tuple[int, ...]] = []
            found = native._native_suited(native._suited_rules, state,  # type: ignore[arg-type]
                                          NO_SUITED_MOVE if first is None else native.suited_move(first), trace)
            assert trace == moves, (rules, first)
            if found is None:  # the pass limit: the engine draws the places, and play_out goes there
                limits += 1
                assert rules.pass_limit is not None
            else:
                assert found == places, (rules, first)
            if first is not None:
                assert native.play_out(world, state, first) == places
            compared += 1
            sequences += any(len({bit // 4 for bit in range(52) if m[1] >> bit & 1}) > 1 for m in moves)
            cells += any(m[3] >= 0 for m in moves)
    # playouts with a sequence played, a joker in a cell, a pass limit reached
    assert sequences >= compared // 10 and cells >= compared // 40 and limits, (sequences, cells, limits)


@needs_c
def test_the_suited_c_moves_are_the_engines_in_its_order() -> None:
    """In every state of random walks through worlds of random suited rule sets, `moves_suited` lists what
    `Match.legal_actions` does, in the same order (groups, joker cells, sequences, the lock, the spade 3)."""
    from president_sdk.bots.expert._playout import moves_suited

    rng = random.Random(22)
    worlds = states = runs = cells = locked = 0
    while worlds < WORLDS // 4:
        rules = _suited_rules(rng)
        world = None if rules is None else _world(rules, rng, runs=True)
        if world is None or rules is None:
            continue
        worlds += 1
        facts = Rollout(rules)._suited_rules
        while not world.is_over:
            state = suited_playout_state(world)
            assert state is not None
            legal = world.legal_actions()
            assert moves_suited(facts, state) == [Rollout.suited_move(a) for a in legal], (rules, world.table)
            states += 1
            runs += any(_is_run(a) for a in legal)
            cells += any(isinstance(a, Play) and a.cell is not None for a in legal)
            locked += bool(world.suit_lock)
            world.apply(_shaped_choice(legal, rng))
    assert runs >= 100 and cells >= 100 and locked >= 100, (states, runs, cells, locked)


def _prepared(preset: str, seed: int) -> tuple[Rules, Match, Rollout, CompiledState]:
    """A one-deal world of `preset` (`_world`) and its compiled state, with the rollout that made it."""
    rules = Rules.preset(preset, deals=1)
    world = _world(rules, random.Random(seed))
    assert world is not None
    rollout = Rollout(rules)
    state = rollout.prepare(world)
    assert state is not None
    return rules, world, rollout, state


@needs_c
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_plays_out_compiled(preset: str) -> None:
    """cardverse, italian and norwegian play out in C on rank counts, daifugo on cards; as on the engine."""
    rules, world, rollout, state = _prepared(preset, 3)
    assert rollout.suited == (preset == "daifugo")
    action = world.legal_actions()[0]
    assert rollout.play_out(world, state, action) == Rollout(rules, compiled=False).play_out(world, None, action)


@needs_c
def test_the_c_playout_refuses_numbers_out_of_range() -> None:
    """A move the hand to act cannot make, or a state no world holds, is a ValueError, not a wrong answer."""
    rules, world, rollout, state = _prepared("cardverse", 5)
    assert rollout._native is not None
    finish, facts = rollout._native, rollout._native_rules
    counts = state[16]
    missing = next(at for at in range(13) if counts[state[0] * 13 + at] == 0)
    for first in ((missing, 1, 0), (0, 1, 1), (-1, 1, 0), (13, 1, 0)):
        with pytest.raises(ValueError, match="out of range"):
            finish(facts, state, first, None)
    with pytest.raises(ValueError, match="out of range"):
        finish(facts, (len(world.rules.points), *state[1:]), NO_MOVE, None)  # type: ignore[arg-type]
    wrong: dict[int, object] = {11: state[11] + 1, 14: (0, 0)}  # holders, seats out
    wrong.update({1: 3} if state[1] < 0 else {2: 0})  # a table of no size
    for at, value in wrong.items():
        broken = (*state[:at], value, *state[at + 1:])
        with pytest.raises(ValueError, match="out of range"):
            finish(facts, broken, NO_MOVE, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="trace"):
        finish(facts, state, NO_MOVE, ())  # type: ignore[arg-type]
    assert sorted(finish(facts, state, NO_MOVE, None)) == list(range(rules.players))  # refused, then played out


def test_a_match_of_more_deals_or_the_source_build_plays_out_on_the_engine() -> None:
    """The C playout ends a deal; a match with deals still to come (not a world from a view) stays on the engine,
    as do two wild ranks, a pass limit and every playout where the C playout is not built."""
    rules = Rules.preset("cardverse", deals=3)
    match = Match(rules, seed=1)
    while match.phase is not Phase.PLAY:
        match.apply(match.legal_actions()[0])
    assert playout_state(match) is None
    for other, plain in ((Rules.preset("norwegian", deals=1, wild_ranks=["6", "9"]),
                          Rules.preset("norwegian", deals=1)),
                         (Rules.preset("cardverse", deals=1, pass_count=True, pass_limit=5),
                          Rules.preset("cardverse", deals=1, pass_count=True))):
        worlds = [_world(rules, random.Random(2)) for rules in (other, plain)]
        assert worlds[0] is not None and worlds[1] is not None
        assert playout_state(worlds[0]) is None and playout_state(worlds[1]) is not None
    if not is_compiled():
        assert Rollout(rules)._native is None


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_worlds_state_from_its_hands_is_the_state_of_the_world_built(preset: str) -> None:
    """`Rollout.prepare_hands` (what a search makes per world) equals `prepare` of the world built from the same view
    and hands, on both kinds of table, wherever the deal's play is."""
    rules = Rules.preset(preset, deals=1)
    rng = random.Random(9)
    checked = 0
    while checked < 60:
        match = Match(rules, seed=rng.randrange(1 << 30))
        for _ in range(rng.randrange(40)):
            if match.is_over:
                break
            match.apply(rng.choice(match.legal_actions()))
        if match.phase is not Phase.PLAY:
            continue
        view = match.observation(match.to_act or 0)
        hands = [match.hand(p) for p in range(rules.players)]
        first = Match.from_view(view, hands)
        rollout = Rollout(rules, compiled=False)
        shared = suited_playout_state(first) if rollout.suited else playout_state(first)
        assert shared is not None
        for _ in range(3):  # other hands of the same sizes, as a sampler deals them
            pool = [c for p in range(rules.players) if p != view.player for c in hands[p]]
            rng.shuffle(pool)
            other = list(hands)
            for p in range(rules.players):
                if p != view.player:
                    other[p], pool = CardSet(pool[:len(hands[p])]), pool[len(hands[p]):]
            built = Match.from_view(view, other)
            assert rollout.prepare_hands(first, shared, other) == (suited_playout_state(built) if rollout.suited
                                                                    else playout_state(built))
            checked += 1


@needs_c
def test_the_suited_c_playout_refuses_numbers_out_of_range() -> None:
    """Cards the hand to act does not hold, hands that share a card, a seat or rank out of range: ValueError."""
    rules, _, rollout, state = _prepared("daifugo", 5)
    assert rollout._native_suited is not None
    finish, facts = rollout._native_suited, rollout._suited_rules
    suited = cast(SuitedPlayoutState, state)
    hands = suited[21]
    turn = suited[0]
    other = next(hand for seat, hand in enumerate(hands) if seat != turn and hand)
    for first in ((other & -other, 1, -1, -1), (hands[turn] & -hands[turn], 14, -1, -1), (0, 1, -1, -1),
                  (hands[turn] & -hands[turn], 1, 3, -1)):
        with pytest.raises(ValueError, match="out of range"):
            finish(facts, suited, first, None)
    shared = tuple(hand | (hands[turn] & -hands[turn]) for hand in hands)  # one card in every hand
    for broken in ((rules.players, *suited[1:]), (*suited[:21], shared), (*suited[:21], (*hands[:-1], 1 << 60))):
        with pytest.raises(ValueError, match="out of range"):
            finish(facts, broken, NO_SUITED_MOVE, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="trace"):
        finish(facts, suited, NO_SUITED_MOVE, ())  # type: ignore[arg-type]
    assert sorted(finish(facts, suited, NO_SUITED_MOVE, None) or ()) == list(range(rules.players))
