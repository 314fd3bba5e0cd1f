"""Properties over random seeds (every preset) and random valid option sets, with random play.

Each example plays a whole match with uniformly random legal actions and, at
every step, checks: cards are conserved; every listed action passes `check`,
and so do its text form and, for a play, its cards with its rank (a client's
echo); random other actions are refused with a reason or are equivalent to a
listed one; `copy` is independent; observations hold no hidden card, and a
player's view without its private fields is the spectator's.  At the end the
match must be over within a bounded number of steps and its record must
replay to the identical state.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

from engine_support import build, option_sets, public_part, state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from president_engine import (
    PASS,
    PRESETS,
    Action,
    Card,
    CardSet,
    GiveBack,
    IllegalActionError,
    Match,
    MatchRecord,
    Phase,
    Play,
    Rank,
    Request,
    Rules,
    parse_action,
)
from president_engine.cards import full_deck
from president_engine.events import CardsGiven, DealStarted, HandDealt, Played
from president_engine.movegen import general_plays, simple_plays

MAX_STEPS = 20_000
SCALE = int(os.environ.get("ENGINE_PROPERTY_SCALE", "1"))
"""Multiply the example counts, e.g. ``ENGINE_PROPERTY_SCALE=50`` for a long bug hunt."""
SETTINGS = settings(max_examples=50 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHECK_LISTED = 60
"""At most this many listed actions are re-checked per step (request lists can hold thousands)."""


# ---------------------------------------------------------------------------- invariants


def played_this_deal(m: Match) -> CardSet:
    bits = 0
    for e in reversed(m.events):
        if isinstance(e, DealStarted):
            break
        if isinstance(e, Played):
            bits += e.play.bits
    return CardSet.from_bits(bits)


def check_conservation(m: Match) -> None:
    if m.is_over:
        return
    held = sum((m.hand(p) for p in range(m.rules.players)), CardSet())
    assert held + played_this_deal(m) == sum(m.deal_hands[-1], CardSet())
    assert sum(m.deal_hands[-1], CardSet()) <= full_deck(m.rules.decks, m.rules.jokers)
    assert m.hand_sizes() == tuple(len(m.hand(p)) for p in range(m.rules.players))


def shape(m: Match, cards: CardSet) -> object:
    """Cards up to suits when suits change nothing (`Rules.suits_matter`)."""
    if m.rules.suits_matter:
        return cards
    return tuple(sorted(Counter(c.rank for c in cards).items()))


def key(m: Match, action: Action) -> object:
    if isinstance(action, Play):
        return ("play", action.rank, shape(m, action.cards), action.cell)
    if isinstance(action, GiveBack):
        return ("give", shape(m, action.cards))
    if isinstance(action, Request):
        return ("request", action.cards)
    return ("pass",)


def random_cards(rng: random.Random, pool: CardSet, size: int) -> CardSet:
    cards = list(pool)
    return CardSet(rng.sample(cards, max(0, min(size, len(cards)))))


def random_other_actions(m: Match, rng: random.Random) -> list[Action]:
    player = m.to_act
    assert player is not None
    hand = m.hand(player)
    table = m.table
    deck = full_deck(m.rules.decks, m.rules.jokers)
    out: list[Action] = [PASS]
    for _ in range(6):
        size = table.size if table is not None and rng.random() < 0.7 else rng.randint(0, 5)
        cards = random_cards(rng, hand, size)
        rank = rng.choice([None, None, *Rank])
        out.append(Play(cards, rank) if rng.random() < 0.5 else Play(cards, rank=rank))
    out.append(Play(random_cards(rng, deck, rng.randint(1, 3))))  # maybe cards not held
    owed = m.owed(player)
    out.append(GiveBack(random_cards(rng, hand, owed + rng.choice([-1, 0, 0, 1]))))
    out.append(Request(random_cards(rng, deck, rng.randint(0, owed + 1))))
    return out


def check_actions(m: Match, rng: random.Random) -> None:
    legal = m.legal_actions()
    assert legal, "the player to act always has an action"
    assert len(set(legal)) == len(legal)
    keys = {key(m, a) for a in legal}
    if m.phase is not Phase.REQUEST:
        assert len(keys) == len(legal), "no two listed actions are equivalent"
    sample = legal if len(legal) <= CHECK_LISTED else rng.sample(legal, CHECK_LISTED)
    for action in sample:
        assert m.check(action) is action or m.check(action) == action
        text = str(action)
        assert parse_action(text) == action and m.check(parse_action(text)) == action, text
        if isinstance(action, Play):  # interned, stands for a rank, and accepted when echoed as cards and rank
            assert action.rank is not None and m.check(action) is action
            assert m.check(parse_action(text)) is action
            assert m.check(Play(action.cards, rank=action.rank, cell=action.cell)) is action
    actor = m.to_act
    assert actor is not None
    other = (actor + 1) % m.rules.players
    try:
        m.check(legal[0], other)
        raise AssertionError("an action of the wrong player was accepted")
    except IllegalActionError:
        pass
    for action in random_other_actions(m, rng):
        try:
            resolved = m.check(action)
        except IllegalActionError as exc:
            assert exc.reason is not None
            continue
        assert key(m, resolved) in keys, f"{action} accepted but not equivalent to a listed action"
        if isinstance(resolved, Play):
            assert resolved.cards == action.cards  # the player's exact cards are kept


def strength(m: Match, rank: Rank) -> int:
    """A rank's place in the order in force, from RULES 1.1-1.3 (jokers alone keep their place; 11-back reverses
    the order a revolution left, UECDA 5)."""
    if rank is Rank.JOKER:
        return -1 if m.rules.joker_alone.value == "low" else 13
    order = m.rank_order[::-1] if m.jack_back else m.rank_order
    return order.index(rank)


def check_listed_plays_follow_the_rules(m: Match) -> None:
    """An independent reading of RULES 1 "A play" and 1.1 for every listed play."""
    rules = m.rules
    wild_jokers = rules.jokers > 0 and rules.joker_wild
    table = m.table
    for action in m.legal_actions():
        if not isinstance(action, Play):
            continue
        assert action.rank is not None
        natural = {c.rank for c in action.cards if not c.is_joker and c.rank not in rules.wild_ranks}
        plain_jokers = any(c.is_joker for c in action.cards) and not wild_jokers
        if plain_jokers:
            assert all(c.is_joker for c in action.cards) and action.rank is Rank.JOKER
        elif natural:
            assert natural == {action.rank}
        elif rules.joker_alone.value != "declared":
            assert action.rank is Rank.JOKER
        elif table is None:
            assert action.rank is rules.wild_lead_rank
        else:
            assert action.rank not in rules.wild_ranks and action.rank is not Rank.JOKER
        if table is None:
            continue
        assert table.rank is not None and action.size == table.size
        mine, theirs = strength(m, action.rank), strength(m, table.rank)
        if mine == theirs:
            assert rules.beat.value == "equal_or_higher"
            if rules.suit_order is not None:
                def top(cards: CardSet) -> int:
                    assert rules.suit_order is not None
                    return max((rules.suit_order.index(c.suit) for c in cards
                                if c.suit is not None and c.rank not in rules.wild_ranks), default=-1)
                assert top(action.cards) > top(table.cards)
        else:
            assert mine > theirs


def check_fast_path(m: Match) -> None:
    """Simple rules use a tuned path for plays; it must list what the general enumeration lists (in the order
    in force: a revolution and 11-back)."""
    if m.phase is Phase.PLAY and m._t.simple:
        t, s, rev = m._t, m._turn, m._rev ^ m._back
        assert (simple_plays(t, m._bp[s], m._table, m._table_strength, rev)
                == general_plays(t, m._hands[s], m._table, m._table_strength, rev))


def check_observations(m: Match) -> None:
    hands = [m.hand(p) for p in range(m.rules.players)]
    public = played_this_deal(m)
    spectator = m.public_observation()
    assert spectator.played == public and all(g.cards is None for g in spectator.exchange)
    for p in range(m.rules.players):
        obs = m.observation(p)
        assert public_part(obs) == spectator
        assert obs.hand == hands[p]
        assert obs.played == public
        assert obs.hand_sizes == tuple(len(h) for h in hands)
        if obs.table is not None:
            assert obs.table.cards <= public
        for entry in obs.trick:
            if isinstance(entry, Played):
                assert entry.play.cards <= public
        for given_ in obs.exchange:
            assert (given_.cards is not None) == (p in (given_.giver, given_.receiver))
        for action in obs.legal_actions:
            if isinstance(action, (Play, GiveBack)):
                assert action.cards <= hands[p]
        if obs.to_act != p:
            assert obs.legal_actions == ()


def check_copy(m: Match, rng: random.Random) -> None:
    before = state(m)
    twin = m.copy()
    action = rng.choice(twin.legal_actions())
    twin.apply(action)
    assert state(m) == before, "applying to a copy changed the original"
    m.apply(action)
    assert state(m) == state(twin)


def play_match(m: Match, rng: random.Random) -> None:
    steps = 0
    while not m.is_over:
        check_conservation(m)
        check_actions(m, rng)
        if not m.rules.sequences:  # RULES 1's one-rank plays; sequences: test_rules_sequences.py
            check_listed_plays_follow_the_rules(m)
        check_fast_path(m)
        if steps % 7 == 0:
            check_observations(m)
        if steps % 11 == 0:
            check_copy(m, rng)
        else:
            m.apply(rng.choice(m.legal_actions()))
        steps += 1
        assert steps < MAX_STEPS, "the match did not end"
    assert m.to_act is None and m.legal_actions() == () and m.winner is not None
    assert sorted(m.last_places) == list(range(m.rules.players))
    check_replay(m)


def check_replay(m: Match) -> None:
    text = MatchRecord.from_match(m).dumps()
    replayed = MatchRecord.loads(text).replay()
    assert replayed.events == m.events
    assert replayed.scores == m.scores and replayed.winner == m.winner
    assert all(replayed.hand(p) == m.hand(p) for p in range(m.rules.players))
    again = MatchRecord.from_match(replayed)  # replaying gives every deal explicitly: compare all but that flag
    assert [(d.seats, d.hands, d.actions) for d in again.deals] == [
        (d.seats, d.hands, d.actions) for d in MatchRecord.loads(text).deals]


# ---------------------------------------------------------------------------- the tests


@SETTINGS
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32), deals=st.integers(1, 3))
def test_presets_random_play(preset: str, seed: int, deals: int) -> None:
    m = Match(Rules.preset(preset, deals=deals), seed=seed)
    play_match(m, random.Random(seed))


@settings(max_examples=120 * SCALE, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(options=option_sets(), seed=st.integers(0, 2**32))
def test_random_options_random_play(options: dict[str, Any], seed: int) -> None:
    rules = build(options)
    if rules.deals is None:
        rules = rules.replace(deals=4)  # bound the length; the target score still may end it first
    m = Match(rules, seed=seed)
    play_match(m, random.Random(seed))


@SETTINGS
@given(seed=st.integers(0, 2**32), data=st.data())
def test_explicit_random_hands_random_play(seed: int, data: st.DataObject) -> None:
    """Explicit hands with free sizes and cards left out of the deal."""
    rng = random.Random(seed)
    players = data.draw(st.integers(3, 6))
    rules = Rules(players=players, jokers=data.draw(st.integers(0, 2)), revolution=True,
                  revolution_triggers=["four_of_a_kind", "four_singles"], equal_skip=data.draw(st.booleans()))
    deck = list(full_deck(1, rules.jokers))
    rng.shuffle(deck)
    cards = deck[: rng.randint(players, len(deck))]
    cuts = sorted(rng.sample(range(1, len(cards)), players - 1))
    hands = [CardSet(cards[a:b]) for a, b in zip([0, *cuts], [*cuts, len(cards)], strict=True)]
    m = Match(rules, hands=[hands])
    assert m.deal_hands[0] == tuple(hands)
    play_match(m, rng)


def test_hand_dealt_events_match_the_deal() -> None:
    m = Match(Rules.preset("norwegian", deals=2), seed=3)
    dealt = [e for e in m.events if isinstance(e, HandDealt)]
    assert [e.cards for e in dealt] == [m.deal_hands[0][m.seat_of(e.player)] for e in dealt]


def test_card_notation_round_trip() -> None:
    deck = full_deck(2, 2)
    assert CardSet(str(deck)) == deck
    assert all(Card.parse(str(c)) == c for c in deck)
    assert not any(isinstance(e, CardsGiven) for e in Match(Rules(), seed=1).events)
