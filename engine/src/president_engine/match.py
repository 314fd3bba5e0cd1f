"""`Match`: the state of a whole match, from the first deal to the result.

A Match is mutable (``apply``) and cheap to ``copy`` for simulation.  The
player to act is `to_act`; `legal_actions()` lists what they may do in the
engine's fixed order (movegen.py); `check`/`can_apply` explain or test any
other action.  Players keep their identity (their seat in deal 1) for the
whole match; seats only matter for the order of play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeVar

from president_engine.actions import PASS, Action, GiveBack, Pass, Play, Request
from president_engine.cards import (
    SLOT_BITS,
    SLOT_COUNT,
    SLOT_MAX,
    CardSet,
    Rank,
    bits_contains,
    bits_size,
    rank_bucket_mask,
    slot_count,
)
from president_engine.deal import shuffled_deal
from president_engine.errors import DealError, IllegalActionError, IllegalReason
from president_engine.events import (
    CardsGiven,
    CardsRequested,
    DealEnded,
    DealStarted,
    Event,
    HandDealt,
    MatchEnded,
    Passed,
    Played,
    RevolutionHappened,
)
from president_engine.movegen import beats, bucket_row, general_plays, give_backs, requests, simple_plays
from president_engine.observation import Observation, PublicObservation, read_deal
from president_engine.phase import Phase
from president_engine.roles import Role, roles_by_place
from president_engine.rules import (
    FirstLead,
    NextLead,
    RevolutionEffect,
    RevolutionTrigger,
    Rules,
    Seating,
    TrickEnd,
)
from president_engine.tables import JOKER_MASK, Tables, tables_for

# Trick-end modes; Final names (and the Final aliases of enum members) compile to C constants under mypyc.
_ALL_PASS: Final = 0
_ALL_PASS_FINAL: Final = 1
_ONE_ORBIT: Final = 2
_PASS: Final = PASS
_View = TypeVar("_View", bound=PublicObservation)
_THREE_OF_CLUBS_BITS: Final = 1 << ((3 - 2) * 4 * SLOT_BITS)


class Match:
    """A match in progress; see the module docstring."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Match:
        """A bare instance: `copy` and `from_view` fill in every field themselves (this compiles with mypyc too)."""
        return object.__new__(cls)

    def __init__(self, rules: Rules, *, seed: int = 0,
                 hands: Sequence[Sequence[CardSet]] | None = None) -> None:
        self._begin(rules, seed, [list(h) for h in hands] if hands else [])
        for deal, deal_hands in enumerate(self._explicit, 1):
            self._validate_hands(deal, deal_hands)
        self._start_deal()

    def _begin(self, rules: Rules, seed: int, explicit: list[list[CardSet]]) -> None:
        """Every field, before the first deal (or before `from_view` fills in a deal in progress)."""
        self.rules = rules
        self.seed = seed
        self._t: Tables = tables_for(rules)
        n = rules.players
        self._n = n
        self._mode = (_ONE_ORBIT if rules.trick_end is TrickEnd.ONE_ORBIT
                      else _ALL_PASS_FINAL if rules.pass_is_final else _ALL_PASS)
        self._rev_on = rules.revolution
        self._rev_four = rules.revolution and RevolutionTrigger.FOUR_OF_A_KIND in rules.revolution_triggers
        self._rev_singles = rules.revolution and RevolutionTrigger.FOUR_SINGLES in rules.revolution_triggers
        self._equal_skip = rules.equal_skip
        self._explicit = explicit
        self.explicit_deals = len(explicit)
        """How many deals (the first ones) use explicit hands instead of the shuffle."""
        self._horizon: int | None = None
        """The last deal this match plays before it ends (None: as the rules say); see `from_view`."""
        self.events: list[Event] = []
        """Everything that happened, in order (hidden cards included: see events.visible_to)."""
        self.deal_hands: list[tuple[CardSet, ...]] = []
        """The hands dealt in each deal, by seat of that deal, before any exchange."""
        self.deal_seats: list[tuple[int, ...]] = []
        self.scores = [0] * n
        self.roles = [Role.NEUTRAL] * n
        self.last_places: tuple[int, ...] = ()
        self.winner: int | None = None
        self.deal = 0
        self.phase = Phase.PLAY
        self._playing = True
        """phase is Phase.PLAY (read on every action)."""
        self.is_over = False
        """True once the match has ended (phase OVER)."""
        self._seat_player = list(range(n))
        self._player_seat = list(range(n))
        self._legal: tuple[Action, ...] | None = None
        # per deal
        self._hands: list[int] = []
        self._sizes: list[int] = []
        self._bp: list[list[tuple[Play, ...]]] = [[()] * 13 for _ in range(n)]
        """Simple rules only: each seat's canonical plays per rank, by strength in the normal order."""
        self._holders = n
        self._out: list[int] = []
        self._direction = 1
        self._rev = 0
        self._exchange_steps: list[tuple[Phase, int, int, int]] = []
        """(phase, receiver, giver, cards owed) still to come in this deal's exchange."""
        self._requests: dict[int, int] = {}
        self._pending_tribute: list[tuple[int, int, int]] = []
        # per trick
        self._turn = 0
        self._table: Play | None = None
        self._table_strength = -2
        self._last = -1
        self._mask = 0
        self._run_rank: Rank | None = None
        self._run_len = 0

    @classmethod
    def from_view(cls, view: PublicObservation, hands: Sequence[CardSet], *,
                  requests: Mapping[int, CardSet] | None = None) -> Match:
        """The state `view` shows, with `hands[p]` as player p's hand: a determinized world for search.

        Everything public comes from the view (a spectator's or a player's
        own); the cards it hides are `hands`, and, in a Norwegian exchange,
        `requests`: receiver -> the cards named in requests already made that
        the view does not show (none by default).  The state goes on exactly
        as the match would under the same actions, to the end of this deal,
        where it ends (`is_over`; `scores` add this deal's points to the
        view's).  Its event log starts empty and holds what happens after the
        view, so its own observations and records do not know the past.
        Hands that do not fit the view raise DealError.
        """
        if view.phase is Phase.OVER:
            raise ValueError("the match is over: there is nothing to search")
        rules = view.rules
        n = rules.players
        m = Match.__new__(Match)
        m._begin(rules, 0, [])
        t = m._t
        if len(hands) != n:
            raise DealError(f"{len(hands)} hands for {n} players")
        for p, hand in enumerate(hands):
            if len(hand) != view.hand_sizes[p]:
                raise DealError(f"player {p} holds {view.hand_sizes[p]} cards, not {len(hand)}")
        if isinstance(view, Observation) and hands[view.player] != view.hand:
            raise DealError(f"player {view.player}'s hand is {view.hand}, not {hands[view.player]}")
        if not sum(hands, view.played) <= t.deck:
            raise DealError("the hands and the cards played hold more copies of a card than the deck has")
        m._horizon = view.deal
        m.deal = view.deal
        m.scores = list(view.scores)
        m.roles = list(view.roles)
        m._seat_player = list(view.seats)
        for seat, player in enumerate(view.seats):
            m._player_seat[player] = seat
        seat_of = m._player_seat
        m._hands = [hands[p].bits for p in view.seats]
        m._sizes = [view.hand_sizes[p] for p in view.seats]
        if t.simple:
            m._bp = [bucket_row(t, h) for h in m._hands]
        m._out = [seat_of[p] for p in view.places]
        m._holders = n - len(view.places)
        m._direction = view.direction
        m._rev = 1 if view.reversed else 0
        m._start_trick(0)
        if view.phase is not Phase.PLAY:
            m._resume_exchange(view, requests or {})
            return m
        actor = view.to_act
        assert actor is not None
        m._start_trick(seat_of[view.trick[0].player if view.trick else actor])
        m._turn = seat_of[actor]
        table = view.table
        if table is not None and table.rank is not None:
            m._table = t.play(table.bits, table.rank) if table.declared is None else t.declared_play(
                table.bits, table.rank)
            m._table_strength = t.strength[m._rev][table.rank]
            m._last = seat_of[view.table_player] if view.table_player is not None else -1
        for entry in view.trick:
            bit = 1 << seat_of[entry.player]
            if isinstance(entry, Played):
                if m._mode == _ALL_PASS:
                    m._mask = 0
                elif m._mode == _ONE_ORBIT:
                    m._mask |= bit
                if m._rev_singles:
                    m._count_single(entry.play.size, entry.play.rank or Rank.JOKER)
            else:
                m._mask |= bit
                if m._rev_singles and not entry.skipped:
                    m._run_rank, m._run_len = None, 0
        return m

    def _resume_exchange(self, view: PublicObservation, requests: Mapping[int, CardSet]) -> None:
        """The exchange steps still to come at `view` (REQUEST or GIVE_BACK), and the requests made before it."""
        pairs = self._exchange_pairs()
        if view.phase is Phase.REQUEST:
            self._pending_tribute = pairs
            done = next(i for i, (receiver, _, _) in enumerate(pairs) if receiver == view.to_act)
            self._requests = {receiver: requests[receiver].bits if receiver in requests else 0
                              for receiver, _, _ in pairs[:done]}
            self._exchange_steps = [(Phase.REQUEST, r, g, o) for r, g, o in pairs[done:]]
            self._exchange_steps += [(Phase.GIVE_BACK, r, g, o) for r, g, o in pairs]
        else:
            done = sum(1 for given in view.exchange if not given.tribute)
            self._exchange_steps = [(Phase.GIVE_BACK, r, g, o) for r, g, o in pairs[done:]]
        self.phase = self._exchange_steps[0][0]
        self._playing = False

    # ------------------------------------------------------------------ public view

    @property
    def to_act(self) -> int | None:
        """The player who must act now, or None when the match is over."""
        if self._playing:
            return self._seat_player[self._turn]
        if self.phase is Phase.OVER:
            return None
        return self._exchange_steps[0][1]

    @property
    def seats(self) -> tuple[int, ...]:
        """The player at each seat in the current deal."""
        return tuple(self._seat_player)

    def seat_of(self, player: int) -> int:
        return self._player_seat[player]

    def hand(self, player: int) -> CardSet:
        return CardSet.from_bits(self._hands[self._player_seat[player]])

    def hand_sizes(self) -> tuple[int, ...]:
        """Cards held by each player, by player."""
        return tuple(self._sizes[self._player_seat[p]] for p in range(self._n))

    @property
    def reversed(self) -> bool:
        """True while a revolution has reversed the rank order."""
        return bool(self._rev)

    @property
    def direction(self) -> int:
        return self._direction

    @property
    def rank_order(self) -> tuple[Rank, ...]:
        """The current rank order, low to high."""
        order = self.rules.rank_order
        return tuple(reversed(order)) if self._rev else order

    @property
    def table(self) -> Play | None:
        """The play to beat, or None when the player to act leads."""
        return self._table

    @property
    def table_player(self) -> int | None:
        return None if self._last < 0 else self._seat_player[self._last]

    @property
    def places(self) -> tuple[int, ...]:
        """Players who finished in this deal, in order."""
        return tuple(self._seat_player[s] for s in self._out)

    def passed_players(self) -> tuple[int, ...]:
        """Players who passed in this trick (all_pass: since the last play) or had their turn (one_orbit)."""
        return tuple(self._seat_player[s] for s in range(self._n) if self._mask >> s & 1)

    def actions_by_deal(self) -> list[list[tuple[int, Action]]]:
        """(player, action) as applied, per deal, read from the event log."""
        deals: list[list[tuple[int, Action]]] = []
        for e in self.events:
            if isinstance(e, DealStarted):
                deals.append([])
            elif isinstance(e, Played):
                deals[-1].append((e.player, e.play))
            elif isinstance(e, Passed):
                if not e.skipped:
                    deals[-1].append((e.player, PASS))
            elif isinstance(e, CardsRequested):
                deals[-1].append((e.receiver, Request(e.cards)))
            elif isinstance(e, CardsGiven) and not e.tribute:
                assert e.cards is not None
                deals[-1].append((e.giver, GiveBack(e.cards)))
        return deals

    def public_observation(self) -> PublicObservation:
        """Everything a spectator may know now."""
        return self._view(PublicObservation, None)

    def observation(self, player: int) -> Observation:
        """Everything `player` may know now, and nothing more."""
        if not 0 <= player < self._n:
            raise ValueError(f"no player {player} in a {self._n}-player match")
        return self._view(Observation, player, player=player, hand=self.hand(player), owed=self.owed(player),
                          legal_actions=self.legal_actions() if self.to_act == player else ())

    def _view(self, kind: type[_View], viewer: int | None, **private: Any) -> _View:
        trick, played, exchange = read_deal(self.events, viewer)
        return kind(rules=self.rules, deal=self.deal, phase=self.phase, to_act=self.to_act,
                    hand_sizes=self.hand_sizes(), seats=self.seats, roles=tuple(self.roles),
                    scores=tuple(self.scores), places=self.places, rank_order=self.rank_order,
                    reversed=self.reversed, direction=self.direction, table=self.table,
                    table_player=self.table_player, trick=trick, played=played, exchange=exchange, **private)

    def owed(self, player: int) -> int:
        """Cards `player` must name or give back in the current exchange step."""
        if self.phase in (Phase.REQUEST, Phase.GIVE_BACK) and self._exchange_steps[0][1] == player:
            return self._exchange_steps[0][3]
        return 0

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> tuple[Action, ...]:
        """Every legal action of the player to act, in the engine's fixed order."""
        legal = self._legal
        if legal is None:
            t = self._t
            if self._playing:
                if t.simple:
                    legal = simple_plays(t, self._bp[self._turn], self._table, self._table_strength, self._rev)
                else:
                    legal = general_plays(t, self._hands[self._turn], self._table, self._table_strength, self._rev)
            elif self.phase is Phase.OVER:
                legal = ()
            else:
                step, actor, _, owed = self._exchange_steps[0]
                hand = self._hands[self._player_seat[actor]]
                legal = give_backs(t, hand, owed) if step is Phase.GIVE_BACK else requests(t, hand, owed)
            self._legal = legal
        return legal

    # ------------------------------------------------------------------ checking

    def can_apply(self, action: Action, player: int | None = None) -> bool:
        try:
            self.check(action, player)
        except IllegalActionError:
            return False
        return True

    def check(self, action: Action, player: int | None = None) -> Action:
        """Raise IllegalActionError saying why `action` is illegal now; else return it resolved.

        The resolved action is the interned equivalent with the rank filled in,
        keeping the exact cards the player chose.
        """
        if self.phase is Phase.OVER:
            raise IllegalActionError(IllegalReason.MATCH_OVER, "the match is over")
        actor = self.to_act
        if player is not None and player != actor:
            raise IllegalActionError(IllegalReason.NOT_YOUR_TURN, f"it is player {actor}'s turn, not {player}'s")
        if self.phase is Phase.PLAY:
            if isinstance(action, Pass):
                if self._table is None:
                    raise IllegalActionError(IllegalReason.LEADER_MUST_PLAY, "the leader must play, not pass")
                return PASS
            if not isinstance(action, Play):
                raise IllegalActionError(IllegalReason.WRONG_PHASE, "the players are playing: play cards or pass")
            return self._check_play(action)
        if self.phase is Phase.REQUEST:
            if not isinstance(action, Request):
                raise IllegalActionError(IllegalReason.WRONG_PHASE, "the exchange is waiting for a request")
            return self._check_request(action)
        if not isinstance(action, GiveBack):
            raise IllegalActionError(IllegalReason.WRONG_PHASE, "the exchange is waiting for cards to give back")
        owed = self._exchange_steps[0][3]
        if len(action.cards) != owed:
            raise IllegalActionError(IllegalReason.WRONG_COUNT, f"give back exactly {owed} card(s)")
        hand = self._hands[self._player_seat[self._exchange_steps[0][1]]]
        if not bits_contains(hand, action.cards.bits):
            raise IllegalActionError(IllegalReason.CARDS_NOT_HELD, f"you do not hold {action.cards}")
        return action

    def _check_play(self, action: Play) -> Play:
        t = self._t
        bits = action.bits
        if not bits:
            raise IllegalActionError(IllegalReason.EMPTY_PLAY, "a play needs at least one card")
        if not bits_contains(self._hands[self._turn], bits):
            raise IllegalActionError(IllegalReason.CARDS_NOT_HELD, f"you do not hold {action.cards}")
        natural = bits & ~t.special_mask
        plain_jokers = bits & JOKER_MASK if t.has_jokers and not t.jokers_wild else 0
        ranks = {r for r in t.natural_ranks if natural & rank_bucket_mask(r)}
        if len(ranks) > 1:
            raise IllegalActionError(IllegalReason.MIXED_RANKS, "all natural cards of a play must have one rank")
        table = self._table
        stands_for: str | None  # what the cards stand for by themselves; None for a follow that declares
        if plain_jokers:
            if bits != plain_jokers:
                raise IllegalActionError(IllegalReason.JOKER_NOT_WILD, "jokers are not wild: play them alone")
            rank, stands_for = Rank.JOKER, "the joker rank"
        elif ranks:
            rank = ranks.pop()
            stands_for = "its own rank" if natural == bits else "the rank of its natural cards"
        elif not t.declared:
            rank, stands_for = Rank.JOKER, "the joker rank"
        elif table is None:
            rank = self.rules.wild_lead_rank
            stands_for = f"{rank} when it leads"
        else:  # a follow of wild cards alone declares its rank; an echoed `rank` counts as the declaration
            stands_for = None
            declared = action.declared if action.declared is not None else action.rank
            if declared is None or declared is Rank.JOKER or declared in self.rules.wild_ranks:
                raise IllegalActionError(
                    IllegalReason.BAD_DECLARED_RANK,
                    "a follow of wild cards only must declare a rank that is not wild (e.g. '6H 6S as K')")
            rank = declared
        if action.declared is not None and stands_for is not None:
            raise IllegalActionError(
                IllegalReason.WRONG_RANK,
                f"{action.cards} stands for {stands_for}: only a follow of wild cards alone declares a rank")
        if action.rank is not None and action.rank is not rank:
            raise IllegalActionError(IllegalReason.WRONG_RANK, f"these cards stand for {rank}, not {action.rank}")
        if table is not None:
            if action.size != table.size:
                raise IllegalActionError(IllegalReason.WRONG_COUNT, f"play exactly {table.size} card(s) or pass")
            if not beats(t, bits, rank, table, self._table_strength, self._rev):
                raise IllegalActionError(IllegalReason.DOES_NOT_BEAT, f"{action.cards} does not beat {table.cards}")
        return t.play(bits, rank) if stands_for is not None else t.declared_play(bits, rank)

    def _check_request(self, action: Request) -> Request:
        owed = self._exchange_steps[0][3]
        if len(action.cards) > owed:
            raise IllegalActionError(IllegalReason.BAD_REQUEST, f"name at most {owed} card(s)")
        hand = self._hands[self._player_seat[self._exchange_steps[0][1]]]
        deck = self._t.deck.bits
        for card in action.cards.distinct():
            named = action.cards.count(card)
            if named > slot_count(deck, card.slot) - slot_count(hand, card.slot):
                raise IllegalActionError(IllegalReason.BAD_REQUEST,
                                         f"you cannot ask for {card}: you hold every copy or the deck has none")
        return action

    # ------------------------------------------------------------------ applying

    def apply(self, action: Action) -> None:
        """Apply the action of the player to act; raise IllegalActionError and change nothing if illegal."""
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        for candidate in legal:
            if candidate is action:
                break
        else:
            action = self.check(action)
        self._legal = None
        if self._playing:
            if action is _PASS:
                self._pass(self._turn)
            else:
                self._play(self._turn, action)  # type: ignore[arg-type]
        else:
            self._exchange_action(action)

    def copy(self) -> Match:
        """An independent copy, for simulation: lists are copied, everything they hold is immutable."""
        new = Match.__new__(Match)
        new.rules = self.rules
        new.seed = self.seed
        new._t = self._t
        new._n = self._n
        new._mode = self._mode
        new._rev_on = self._rev_on
        new._rev_four = self._rev_four
        new._rev_singles = self._rev_singles
        new._equal_skip = self._equal_skip
        new._explicit = self._explicit
        new.explicit_deals = self.explicit_deals
        new._horizon = self._horizon
        new.events = list(self.events)
        new.deal_hands = list(self.deal_hands)
        new.deal_seats = list(self.deal_seats)
        new.scores = list(self.scores)
        new.roles = list(self.roles)
        new.last_places = self.last_places
        new.winner = self.winner
        new.deal = self.deal
        new.phase = self.phase
        new._playing = self._playing
        new.is_over = self.is_over
        new._seat_player = list(self._seat_player)
        new._player_seat = list(self._player_seat)
        new._legal = self._legal
        new._hands = list(self._hands)
        new._sizes = list(self._sizes)
        new._bp = [list(row) for row in self._bp]
        new._holders = self._holders
        new._out = list(self._out)
        new._direction = self._direction
        new._rev = self._rev
        new._exchange_steps = list(self._exchange_steps)
        new._requests = dict(self._requests)
        new._pending_tribute = list(self._pending_tribute)
        new._turn = self._turn
        new._table = self._table
        new._table_strength = self._table_strength
        new._last = self._last
        new._mask = self._mask
        new._run_rank = self._run_rank
        new._run_len = self._run_len
        return new

    def _play(self, s: int, play: Play) -> None:
        events = self.events
        t = self._t
        player = self._seat_player[s]
        facts = t.facts[id(play)]
        events.append(facts.played[player])
        rank = play.rank
        assert rank is not None
        hand = self._hands[s] = self._hands[s] - play.bits
        left = self._sizes[s] = self._sizes[s] - play.size
        if t.simple:
            key = facts.row_key
            self._bp[s][key >> 16] = t.canonical(key | (hand >> facts.shift) & 0xFFFF)
        beaten = self._table
        self._table = play
        self._last = s
        mode = self._mode
        if mode == _ALL_PASS:
            self._mask = 0
        elif mode == _ONE_ORBIT:
            self._mask |= 1 << s
        if self._rev_on:
            self._revolution_check(play.size, rank)
        self._table_strength = facts.strength[self._rev]
        if not left:
            self._out.append(s)
            events.append(t.went_out[player][len(self._out)])
            self._holders -= 1
            if self._holders == 1:
                self._end_deal()
                return
        at = s
        if self._equal_skip and beaten is not None and beaten.rank is rank:
            for _ in range(play.size):
                skipped = self._next_seat(at)
                if skipped < 0:
                    break
                self._mask |= 1 << skipped
                events.append(t.skipped[self._seat_player[skipped]])
                at = skipped
        following = self._next_seat(at)
        if following < 0:
            self._end_trick()
        else:
            self._turn = following

    def _revolution_check(self, size: int, rank: Rank) -> None:
        revolt = self._rev_four and size >= 4
        if self._rev_singles and self._count_single(size, rank):
            revolt = True
        if revolt:
            self._rev ^= 1
            if self.rules.revolution_effect is RevolutionEffect.RANKS_AND_DIRECTION:
                self._direction = -self._direction
            self.events.append(RevolutionHappened(bool(self._rev), self._direction))

    def _count_single(self, size: int, rank: Rank) -> bool:
        """Follow the run of single plays of one rank (RULES 1.2 four_singles); True when it makes four."""
        if size == 1 and rank is self._run_rank:
            self._run_len += 1
        else:
            self._run_rank, self._run_len = (rank, 1) if size == 1 else (None, 0)
        if self._run_len >= 4:
            self._run_rank, self._run_len = None, 0
            return True
        return False

    def _refresh_buckets(self, s: int) -> None:
        if self._t.simple:
            self._bp[s] = bucket_row(self._t, self._hands[s])

    def _pass(self, s: int) -> None:
        self.events.append(self._t.passed[self._seat_player[s]])
        self._mask |= 1 << s
        if self._rev_singles:
            self._run_rank, self._run_len = None, 0
        following = self._next_seat(s)
        if following < 0:
            self._end_trick()
        else:
            self._turn = following

    def _next_seat(self, s: int) -> int:
        """The next seat to act in this trick after seat s, or -1 when the trick is over."""
        n, d, sizes, mask, last, mode = self._n, self._direction, self._sizes, self._mask, self._last, self._mode
        t = s
        for _ in range(n):
            t = (t + d) % n
            if t == last and mode != _ONE_ORBIT:
                return -1
            if not sizes[t]:
                continue
            if mask >> t & 1:
                if mode == _ALL_PASS:
                    return -1
                continue
            return t
        return -1

    def _end_trick(self) -> None:
        winner = self._last
        leader = winner if self._sizes[winner] else self._next_holder(winner)
        self.events.append(self._t.trick_won[self._seat_player[winner]][self._seat_player[leader]])
        self._start_trick(leader)

    def _next_holder(self, s: int) -> int:
        n, d = self._n, self._direction
        t = s
        for _ in range(n):
            t = (t + d) % n
            if self._sizes[t]:
                return t
        raise AssertionError("no player holds cards")

    def _start_trick(self, leader: int) -> None:
        self._turn = leader
        self._table = None
        self._table_strength = -2
        self._last = -1
        self._mask = (1 << leader) if self._mode == _ONE_ORBIT else 0
        self._run_rank = None
        self._run_len = 0

    # ------------------------------------------------------------------ deals

    def _validate_hands(self, deal: int, hands: Sequence[CardSet]) -> None:
        rules = self.rules
        if len(hands) != rules.players:
            raise DealError(f"deal {deal}: {len(hands)} hands for {rules.players} players")
        total = CardSet()
        for seat, hand in enumerate(hands):
            if not hand:
                raise DealError(f"deal {deal}: the hand of seat {seat} is empty")
            if deal >= 2 and rules.exchange and len(hand) < 2:
                raise DealError(f"deal {deal}: with exchange every hand needs at least 2 cards (seat {seat})")
            total = total + hand
        if not total <= self._t.deck:
            raise DealError(f"deal {deal}: the hands hold more copies of a card than the deck has")

    def _start_deal(self) -> None:
        rules = self.rules
        n = self._n
        self.deal += 1
        deal = self.deal
        if deal == 1:
            start = 0
        else:
            places = self.last_places
            if rules.seating is Seating.BY_RANK:
                self._seat_player = list(places)
                for seat, player in enumerate(places):
                    self._player_seat[player] = seat
            start = (self._player_seat[places[-1]] + 1) % n
        dealer = self._seat_player[(start - 1) % n]
        if deal <= len(self._explicit):
            hands = self._explicit[deal - 1]
        else:
            hands = shuffled_deal(rules, self.seed, deal, start)
        self._hands = [h.bits for h in hands]
        sizes = self._sizes = [bits_size(h) for h in self._hands]
        if self._t.simple:
            self._bp = [bucket_row(self._t, h) for h in self._hands]
        self._holders = n
        self._out = []
        self._direction = 1
        self._rev = 0
        seats = tuple(self._seat_player)
        self.deal_hands.append(tuple(hands))
        self.deal_seats.append(seats)
        by_player = self._player_seat
        self.events.append(DealStarted(deal, seats, dealer, tuple(sizes[by_player[p]] for p in range(n)),
                                       tuple(self.roles)))
        self.events.extend(HandDealt(p, hands[by_player[p]]) for p in range(n))
        self._exchange_steps = []
        self._requests = {}
        self._pending_tribute = []
        if deal >= 2 and rules.exchange:
            pair_players = self._exchange_pairs()
            if rules.exchange_requests:
                self._exchange_steps += [(Phase.REQUEST, r, g, o) for r, g, o in pair_players]
            self._exchange_steps += [(Phase.GIVE_BACK, r, g, o) for r, g, o in pair_players]
            self._pending_tribute = pair_players
            if not rules.exchange_requests:
                self._pay_tributes()
        self._table = None
        self._start_trick(0)
        self._next_phase()

    def _exchange_pairs(self) -> list[tuple[int, int, int]]:
        """(receiver, giver, cards owed) of this deal's exchange, by the players' roles."""
        pairs = [(Role.PRESIDENT, Role.SCUM, 2)]
        if self._n >= 4:
            pairs.append((Role.VICE_PRESIDENT, Role.VICE_SCUM, 1))
        holders = {role: p for p, role in enumerate(self.roles)}
        return [(holders[a], holders[b], owed) for a, b, owed in pairs]

    def _next_phase(self) -> None:
        if self._exchange_steps:
            self.phase = self._exchange_steps[0][0]
            self._playing = False
            return
        self.phase = Phase.PLAY
        self._playing = True
        if self.deal == 1:
            leader = 0
            if self.rules.first_lead is FirstLead.THREE_OF_CLUBS:
                holders = [s for s in range(self._n) if self._hands[s] & (SLOT_MAX * _THREE_OF_CLUBS_BITS)]
                leader = holders[0] if holders else 0
        else:
            role = Role.PRESIDENT if self.rules.next_lead is NextLead.PRESIDENT else Role.SCUM
            leader = self._player_seat[self.roles.index(role)]
        self._start_trick(leader)
        self.events.append(self._t.play_started[self._seat_player[leader]])

    def _exchange_action(self, action: Action) -> None:
        step, receiver, giver, _ = self._exchange_steps.pop(0)
        if step is Phase.REQUEST:
            assert isinstance(action, Request)
            self._requests[receiver] = action.cards.bits
            self.events.append(CardsRequested(receiver, giver, action.cards))
            if not self._exchange_steps or self._exchange_steps[0][0] is not Phase.REQUEST:
                self._pay_tributes()
        else:
            assert isinstance(action, GiveBack)
            self._move(receiver, giver, action.cards.bits, tribute=False)
        self._next_phase()

    def _pay_tributes(self) -> None:
        for receiver, giver, owed in self._pending_tribute:
            hand = self._hands[self._player_seat[giver]]
            wanted = self._requests.get(receiver, 0)
            given = 0
            for slot in range(SLOT_COUNT):  # the named cards the giver holds go first
                take = min(slot_count(wanted, slot), slot_count(hand, slot))
                given += take << (slot * SLOT_BITS)
            for slot in self._t.tribute_slots:
                while bits_size(given) < owed and slot_count(hand - given, slot):
                    given += 1 << (slot * SLOT_BITS)
            self._move(giver, receiver, given, tribute=True)

    def _move(self, giver: int, receiver: int, bits: int, *, tribute: bool) -> None:
        gs, rs = self._player_seat[giver], self._player_seat[receiver]
        size = bits_size(bits)
        self._hands[gs] -= bits
        self._sizes[gs] -= size
        self._hands[rs] += bits
        self._sizes[rs] += size
        self._refresh_buckets(gs)
        self._refresh_buckets(rs)
        self.events.append(CardsGiven(giver, receiver, size, tribute, CardSet.from_bits(bits)))

    def _end_deal(self) -> None:
        last = next(s for s in range(self._n) if self._sizes[s])
        self._out.append(last)
        places = tuple(self._seat_player[s] for s in self._out)
        points = [0] * self._n
        for place, player in enumerate(places):
            points[player] = self.rules.points[place]
            self.scores[player] += points[player]
        self.last_places = places
        self.events.append(DealEnded(self.deal, places, tuple(points), tuple(self.scores)))
        by_place = roles_by_place(self._n)
        for place, player in enumerate(places):
            self.roles[player] = by_place[place]
        rules = self.rules
        done = (rules.deals is not None and self.deal >= rules.deals) or (
            rules.target_score is not None and max(self.scores) >= rules.target_score) or (
            self._horizon is not None and self.deal >= self._horizon)
        if done:
            best = max(self.scores)
            self.winner = next(p for p in places if self.scores[p] == best)
            self.phase = Phase.OVER
            self._playing = False
            self.is_over = True
            self.events.append(MatchEnded(self.winner, tuple(self.scores), places))
            return
        self._start_deal()
