"""The playout policy: plays a determinized world to the end of its deal, fast.

Every seat plays the `hard` level's main rules (RULES section 4, bots/hard.py)
from its own hand and the cards it has not seen (the cards still held by the
others, as one pool, like `hard`'s counting):

- go out when a play empties the hand;
- a group is all the natural cards of a rank (wild cards may join them), or
  wild cards alone;
- play a whole group that no cards still
  out can beat (a *boss*) when what is left after it is bosses and at most
  one other group, so the hand runs out;
- otherwise play the lowest group that is not kept, where kept are the top
  rank of the current order, high jokers, wild cards, fours of a kind and
  boss pairs or bigger (they win back the lead); a lead avoids the sizes an
  opponent could go out on when it can;
- when everything is kept, lead the lowest group, and when following,
  pass rather than spend kept cards, unless this hand is down to two groups
  or an opponent to two cards.

It works on the engine's `Match` through the public API; what it needs to
know of each play is computed once per interned play.  The SDK's compiled
wheel plays the same policy in C (_playout.c, built by sdk/setup.py):
on rank counts from the engine's `playout_state` where plays are rank
counts (no suits or jokers, at most one wild rank: cardverse, italian,
norwegian), and on cards from `suited_playout_state` where suits matter
with one deck and at most one joker (daifugo); this module is its
reference, and the fallback wherever it is not built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias, cast

from president_engine import (
    PASS,
    Action,
    Beat,
    Card,
    CardSet,
    JokerAlone,
    Match,
    Phase,
    Play,
    Rank,
    RevolutionTrigger,
    Rules,
    fallback_action,
)
from president_engine.cards import SLOT_MAX, bits_size
from president_engine.playout import (
    PlayoutState,
    SuitedPlayoutState,
    card_bits,
    playout_state,
    suited_playout_state,
    suited_with_hands,
    with_hands,
)
from president_engine.tables import tables_for

from president_sdk.bots.expert.clock import Clock

FIGHT = 2
"""Spend kept cards once the hand is down to this many groups, or an opponent to this many cards."""
CHECK = 16
"""Moves of a playout between two looks at the clock (a few playouts are long enough to overrun a budget)."""
NO_MOVE = (-1, -1, 0)
"""_playout.c's first move when the policy makes it too."""
NO_SUITED_MOVE = (0, -2, -1, -1)
"""The same for `finish_suited`."""
CompiledState: TypeAlias = PlayoutState | SuitedPlayoutState
"""What `Rollout.prepare` makes of a world for the compiled playout."""


class Rollout:
    """The playout policy of one rule set (see the module docstring); `compiled=False` plays every playout on the
    engine, as the source build does."""

    def __init__(self, rules: Rules, *, compiled: bool = True) -> None:
        self.rules = rules
        kinds = rules.deck.distinct()
        self.wild_mask = _mask([card for card in kinds if rules.is_wild(card)])
        naturals = list(rules.natural_ranks)
        self.ranks = naturals
        """Natural ranks, low to high in the normal order."""
        self.position = {rank: at for at, rank in enumerate(naturals)}
        self.rank_masks = [_mask([card for card in kinds if card.rank is rank]) for rank in naturals]
        plain_jokers = _mask([card for card in kinds if card.is_joker and not rules.is_wild(card)])
        self._group_masks = [m for m in self.rank_masks if m] + [m for m in (plain_jokers, self.wild_mask) if m]
        """Bits of each group a hand may hold: one natural rank, the plain jokers, the wild cards."""
        self.strict = rules.beat is Beat.STRICTLY_HIGHER
        self.high_jokers = rules.joker_alone is JokerAlone.HIGH
        self.declared = rules.joker_alone is JokerAlone.DECLARED
        self.fours = rules.revolution and RevolutionTrigger.FOUR_OF_A_KIND in rules.revolution_triggers
        self._wilds: dict[int, tuple[Play, int]] = {}
        self.suited = rules.suits_matter
        """Playouts run on cards (`finish_suited`), not on rank counts."""
        native = _compiled() if compiled else None
        self._native: NativeFinish | None = native[0] if native else None
        self._native_suited: NativeSuited | None = native[1] if native else None
        t = tables_for(rules)
        order = rules.rank_order
        natural_positions = [order.index(rank) for rank in naturals]
        self._native_position = {rank: at for at, rank in enumerate(order)}
        self._native_rules = (
            rules.players, int(t.strict), t.trick_mode, int(t.revolution), int(t.revolution_four),
            int(t.revolution_singles), int(t.revolution_turns), int(t.equal_skip), int(t.leader_may_pass),
            int(t.jack_back), int(t.six_reverse), int(t.eight_stop), order.index(Rank.SIX), order.index(Rank.EIGHT),
            order.index(Rank.JACK), int(self.fours), int(self.declared), order.index(rules.wild_lead_rank),
            sum(1 << at for at in natural_positions), natural_positions[-1], natural_positions[0])
        """The rule facts _playout.c reads, in its order."""
        self._suited_rules = (
            rules.players, int(t.strict), t.trick_mode, int(t.revolution), int(t.revolution_four),
            int(t.revolution_singles), int(t.revolution_turns), int(t.equal_skip), int(t.leader_may_pass),
            int(t.jack_back), int(t.six_reverse), int(t.eight_stop), int(self.fours), int(self.high_jokers),
            int(t.jokers_wild), int(t.joker_cells), int(t.sequences), int(t.suit_lock), int(t.spade_three),
            t.pass_limit, rules.joker_strength, *(rules.strength(Rank(at + 2)) for at in range(13)),
            *(rules.strength(Rank(at + 2), reversed=True) for at in range(13)))
        """The rule facts `finish_suited` reads, in its order: strengths by rank index (rank - 2)."""

    def prepare(self, world: Match) -> CompiledState | None:
        """What the compiled playout needs of `world` (made once per world), or None when `play_out` plays on the
        engine."""
        if self._native is None:
            return None
        return suited_playout_state(world) if self.suited else playout_state(world)

    def prepare_hands(self, world: Match, state: CompiledState, hands: Sequence[CardSet]) -> CompiledState:
        """`prepare` of the world that `world`'s view makes with `hands[p]` as player p's hand (`state`:
        `prepare(world)`), without building it."""
        if self.suited:
            return suited_with_hands(world, cast(SuitedPlayoutState, state), hands)
        return with_hands(world, cast(PlayoutState, state), hands)

    def play_out(self, world: Match, state: CompiledState | None, action: Action,
                 clock: Clock | None = None) -> tuple[int, ...]:
        """The places of `world` played on from `action` to its end, `world` unchanged (`state`: `prepare(world)`)."""
        if state is not None:
            places = self.compiled_places(state, action)
            if places is not None:
                return places
        copy = world.copy()
        copy.apply(action)
        return self.finish(copy, clock)

    def compiled_places(self, state: CompiledState, action: Action | None) -> tuple[int, ...] | None:
        """The places of `state` played on in C after `action` (None: the policy's move), None when the playout
        reached a pass limit (the engine draws those places)."""
        if self.suited:
            assert self._native_suited is not None
            first = NO_SUITED_MOVE if action is None else self.suited_move(action)
            return self._native_suited(self._suited_rules, cast(SuitedPlayoutState, state), first, None)
        assert self._native is not None
        return self._native(self._native_rules, cast(PlayoutState, state),
                            NO_MOVE if action is None else self.native_move(action), None)

    def native_move(self, action: Action) -> tuple[int, int, int]:
        """`action` as _playout.c takes a move: (rank position, size, wild cards), a pass (-1, 0, 0)."""
        if isinstance(action, Play):
            assert action.rank is not None
            return self._native_position[action.rank], action.size, self._wild_count(action)
        return -1, 0, 0

    @staticmethod
    def suited_move(action: Action) -> tuple[int, int, int, int]:
        """`action` as `finish_suited` takes a move: (card bits, rank - 2, joker cell column, row: 4 the fifth),
        -1 for no cell; a pass (0, -1, -1, -1)."""
        if isinstance(action, Play):
            assert action.rank is not None
            cell = action.cell
            if cell is None:
                return card_bits(action.bits), action.rank - 2, -1, -1
            return card_bits(action.bits), action.rank - 2, cell.column, 4 if cell.suit is None else cell.suit
        return 0, -1, -1, -1

    def finish(self, world: Match, clock: Clock | None = None) -> tuple[int, ...]:
        """Play `world` to its end (a state from `Match.from_view` ends with its deal); the places of its last deal.

        Raises `TimeUpError` when `clock` runs out on the way, so that a long playout cannot overrun the budget.
        """
        deal = world.deal
        held = sum(world.hand(p).bits for p in range(self.rules.players))
        moves = 0
        native = self._native is not None
        while not world.is_over:
            if world.deal != deal:  # a match of several deals: the next deal's cards
                deal = world.deal
                held = sum(world.hand(p).bits for p in range(self.rules.players))
            if native and world.phase is Phase.PLAY:  # the exchange is over: the rest may run compiled
                state = self.prepare(world)
                places = None if state is None else self.compiled_places(state, None)
                if places is not None:
                    return places
                native = False
            moves += 1
            if moves % CHECK == 0 and clock is not None:
                clock.check()
            legal = world.legal_actions()
            action = legal[0] if len(legal) == 1 else self.choose(world, legal, held)
            if isinstance(action, Play):
                held -= action.bits
            world.apply(action)
        return world.last_places

    def choose(self, world: Match, legal: tuple[Action, ...], held: int) -> Action:
        """The policy's action for the player to act in `world`; `held`: the bits of every card still held."""
        if world.phase is not Phase.PLAY:
            return fallback_action(legal)
        player = world.to_act
        assert player is not None
        hand = world.hand(player)
        size = len(hand)
        groups: list[Play] = []
        for action in legal:
            if not isinstance(action, Play):
                break
            if action.size == size:
                return action
            natural = action.size - self._wild_count(action)
            if not natural or (action.rank is not None and hand.count_rank(action.rank) == natural):
                groups.append(action)
        table = world.table
        if not groups:
            return legal[0] if table is None or self._fight(world, player, hand.bits) else PASS
        bosses = _Bosses(self, held - hand.bits, world.reversed)
        for play in groups:
            if bosses.beaten(play) is False and self._runs_out(hand.bits - play.bits, bosses):
                return play
        top = self.ranks[0 if world.reversed else -1]
        kept = [self._kept(play, top) for play in groups]
        spare = [p for p, keep in zip(groups, kept, strict=True) if not keep and not (
            p.size > 1 and bosses.beaten(p) is False)]
        spare = spare or [p for p, keep in zip(groups, kept, strict=True) if not keep]
        if table is None:
            if not spare:
                return groups[0]
            exposed = {s for p, s in enumerate(world.hand_sizes()) if p != player and s}
            return next((p for p in spare[:3] if p.size not in exposed), spare[0])
        if spare:
            return spare[0]
        return groups[0] if self._fight(world, player, hand.bits) else PASS

    def _kept(self, play: Play, top: Rank) -> bool:
        rank = play.rank
        return ((self.fours and play.size >= 4) or rank is top or (rank is Rank.JOKER and self.high_jokers)
                or self._wild_count(play) > 0)

    def _runs_out(self, rest: int, bosses: _Bosses) -> bool:
        """With the lead, a hand of bosses and at most one other group goes out."""
        losers = 0
        for at, mask in enumerate(self.rank_masks):
            count = bits_size(rest & mask)
            if count and not bosses.is_boss(at, count):
                losers += 1
                if losers > 1:
                    return False
        if rest & self.wild_mask and self.declared:  # a lead of wild cards only stands for a low rank
            losers += 1
        return losers <= 1

    def _wild_count(self, play: Play) -> int:
        """Wild cards in an interned play (cached by identity; the entry keeps the play alive, so ids stay unique)."""
        found = self._wilds.get(id(play))
        if found is None or found[0] is not play:
            found = self._wilds[id(play)] = play, self.rules.wild_count(play.cards)
        return found[1]

    def _fight(self, world: Match, player: int, hand: int) -> bool:
        """This hand is down to FIGHT groups (its wild cards one group), or an opponent to FIGHT cards."""
        if sum(1 for mask in self._group_masks if hand & mask) <= FIGHT:
            return True
        return any(0 < size <= FIGHT for p, size in enumerate(world.hand_sizes()) if p != player)


class _Bosses:
    """Which groups the cards still out (the others' hands, as one pool) can beat, in the current order."""

    def __init__(self, rollout: Rollout, out: int, reversed_: bool) -> None:
        self.rollout = rollout
        self.counts = [bits_size(out & mask) for mask in rollout.rank_masks]
        self.wilds = bits_size(out & rollout.wild_mask)
        self.reversed = reversed_

    def is_boss(self, at: int, size: int) -> bool:
        """No `size` cards still out beat `size` cards of the natural rank at position `at` (normal order)."""
        if self.wilds >= size:
            return False
        counts, wilds = self.counts, self.wilds
        equal = 0 if self.rollout.strict else 1
        stronger = range(0, at + equal) if self.reversed else range(at + 1 - equal, len(counts))
        return not any(counts[i] and counts[i] + wilds >= size for i in stronger if i != at or equal)

    def beaten(self, play: Play) -> bool | None:
        """False when `play` is a boss, True when it is not, None for a play of another kind (jokers)."""
        at = self.rollout.position.get(play.rank) if play.rank is not None else None
        return None if at is None else not self.is_boss(at, play.size)


NativeFinish = Callable[[tuple[int, ...], PlayoutState, tuple[int, int, int], list[tuple[int, int, int, int]] | None],
                        tuple[int, ...]]
NativeSuited = Callable[[tuple[int, ...], SuitedPlayoutState, tuple[int, int, int, int],
                         list[tuple[int, int, int, int, int]] | None], tuple[int, ...] | None]


def _compiled() -> tuple[NativeFinish, NativeSuited] | None:
    """_playout's `finish` and `finish_suited` where the installed SDK carries them (a compiled wheel, sdk/setup.py)."""
    try:
        from president_sdk.bots.expert._playout import finish, finish_suited
    except ImportError:
        return None
    return finish, finish_suited


def _mask(cards: list[Card]) -> int:
    """Every count bit of the slots of `cards` (a hand's bits & mask: its cards among them)."""
    return CardSet(cards).bits * SLOT_MAX
