"""`Match`: the state of a whole match, from the first deal to the result.

A Match is mutable (``apply``) and cheap to ``copy`` for simulation.  The
player to act is `to_act`; `legal_actions()` lists what they may do in the
engine's fixed order (movegen.py); `check`/`can_apply` explain or test any
other action.  Players keep their identity (their number) for the whole
match; seats only matter for the order of play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeVar

from president_engine.actions import PASS, Action, GiveBack, Pass, Play, Request
from president_engine.cards import CardSet, Rank, Suit, bits_size
from president_engine.deal import explicit_seats, given_pass_order, validate_hands
from president_engine.deal_flow import deal_score, deal_start, end_deal_by_passes, first_leader, last_holder
from president_engine.errors import DealError, IllegalActionError, IllegalReason
from president_engine.events import CardsGiven, CardsRequested, Event, RevolutionHappened, actions_by_deal
from president_engine.exchange import ExchangePair, tribute_bits
from president_engine.legality import check_give_back, check_play, check_request
from president_engine.movegen import bucket_row, general_plays, give_backs, requests, shaped_plays, simple_plays
from president_engine.observation import DealReading, Observation, PublicObservation
from president_engine.phase import Phase
from president_engine.roles import Role
from president_engine.rules import Rules
from president_engine.tables import (
    ALL_PASS,
    HAS_EIGHT,
    HAS_JACK,
    HAS_SIX,
    ONE_ORBIT,
    PASS_COUNT,
    PlayFacts,
    Tables,
    lock_suits,
    single_run,
    tables_for,
    trick_lock,
)
from president_engine.worlds import World

# The Final alias of a value compiles to a C constant under mypyc.
_PASS: Final = PASS
_View = TypeVar("_View", bound=PublicObservation)


class Match:
    """A match in progress; see the module docstring."""

    __slots__ = ("_back", "_bp", "_checked", "_direction", "_exchange_steps", "_explicit", "_explicit_seats",
                 "_hands", "_holders", "_horizon", "_last", "_last_play", "_leader", "_legal", "_lock", "_mask", "_n",
                 "_out", "_passes", "_pending_tribute", "_player_seat", "_playing", "_reading", "_requests", "_rev",
                 "_run_len", "_run_rank", "_seat_player", "_sizes", "_t", "_table", "_table_strength", "_turn",
                 "deal", "deal_hands", "deal_seats", "events", "explicit_deals", "is_over", "last_places",
                 "pass_orders", "phase", "roles", "rules", "scores", "seed", "winner")
    """Slots: no per-instance dict (a server holds a match per live match, a search copies it per playout)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Match:
        """A bare instance: `copy` and `from_view` fill in every field themselves (this compiles with mypyc too)."""
        return object.__new__(cls)

    def __init__(self, rules: Rules, *, seed: int = 0,
                 hands: Sequence[Sequence[CardSet]] | None = None,
                 seats: Sequence[Sequence[int] | None] | None = None,
                 pass_orders: Sequence[Sequence[int] | None] | None = None) -> None:
        """`hands`: explicit hands for the first deals, by seat; `seats`: for each of those deals, the players by
        seat (None: as the rules seat them), so a deal taken from another server's log sits as it did there;
        `pass_orders`: for each of those deals, every player once (None: drawn), the order in which the players
        still holding cards take the places left if the pass limit ends it, as that log ranked them."""
        explicit = [list(h) for h in hands] if hands else []
        given = list(seats) if seats else []
        if len(given) > len(explicit):
            raise DealError(f"deal {len(explicit) + 1}: seats given for a deal without explicit hands")
        for deal, deal_hands in enumerate(explicit, 1):
            validate_hands(rules, deal, deal_hands)
        self._begin(rules, seed, explicit,
                    [None if s is None else explicit_seats(rules, deal, s) for deal, s in enumerate(given, 1)])
        self.pass_orders = given_pass_order(rules, len(explicit), pass_orders or ())
        self._start_deal()

    def _begin(self, rules: Rules, seed: int, explicit: list[list[CardSet]],
               seats: list[tuple[int, ...] | None]) -> None:
        """Every field, before the first deal (or before `from_view` fills in a deal in progress)."""
        self.rules = rules
        self.seed = seed
        self._t: Tables = tables_for(rules)
        n = rules.players
        self._n = n
        self._explicit = explicit
        self.explicit_deals = len(explicit)
        """How many deals (the first ones) use explicit hands instead of the shuffle."""
        self._explicit_seats = seats
        """The players by seat given for the first explicit deals (None: the rules' seating)."""
        self.pass_orders = ()
        """For the first explicit deals, the order of the pass limit's places (None: drawn); see `__init__`."""
        self._horizon: int | None = None
        """The last deal this match plays before it ends (None: as the rules say); see `from_view`."""
        self.events: list[Event] = []
        """Everything that happened, in order (hidden cards included: see events.visible_to)."""
        self._reading = DealReading()
        """Where the deal in progress stands in `events`, for the views."""
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
        self._checked: Action | None = None
        """What `check` last resolved in this state, so `apply` of it does not check again."""
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
        self._pending_tribute: list[ExchangePair] = []
        # per trick
        self._turn = 0
        self._table: Play | None = None
        self._table_strength = -2
        self._last = -1
        self._mask = 0
        self._run_rank: Rank | None = None
        self._run_len = 0
        self._lock = 0
        """The locked suit set (suit_lock), 0 for none."""
        self._back = 0
        """1 while 11-back reverses the order until the trick ends (jack_back)."""
        self._leader = 0
        """The seat that led this trick."""
        self._last_play = -1
        """The seat of the deal's last play, -1 before the first (a trick ended with no play: pass_count)."""
        self._passes = 0
        """Passes in a row in this deal (pass_limit)."""

    @classmethod
    def from_view(cls, view: PublicObservation, hands: Sequence[CardSet], *,
                  requests: Mapping[int, CardSet] | None = None) -> Match:
        """The state `view` shows, with `hands[p]` as player p's hand, and in a Norwegian exchange `requests`:
        receiver -> the cards named in requests made that the view does not show (a determinized world, worlds.py).

        The state goes on exactly as the match would under the same actions, to the end of this deal, where it
        ends (`is_over`; `scores` add this deal's points to the view's).  Its event log starts empty and holds what
        happens after the view, so its own observations and records do not know the past.  Hands that do not fit
        the view raise DealError.
        """
        w = World(view, hands, requests or {})
        m = Match.__new__(Match)
        m._begin(view.rules, 0, [], [])
        m._horizon = m.deal = w.deal
        m.scores = w.scores
        m.roles = w.roles
        m._seat(w.seats)
        m._hands = w.hands
        m._sizes = w.sizes
        if m._t.simple:
            m._bp = [bucket_row(m._t, h) for h in w.hands]
        m._out = w.out
        m._holders = m._n - len(w.out)
        m._direction = w.direction
        m._rev = w.rev
        m._exchange_steps = w.steps
        m._pending_tribute = w.tributes
        m._requests = w.requests
        if w.steps:
            m.phase = w.steps[0][0]
            m._playing = False
        m._turn, m._leader, m._mask, m._lock, m._back, m._passes = w.turn, w.leader, w.mask, w.lock, w.back, w.passes
        m._run_rank, m._run_len = w.run_rank, w.run_len
        m._table, m._table_strength, m._last, m._last_play = w.table, w.table_strength, w.last, w.last
        return m

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
    def suit_lock(self) -> tuple[Suit, ...]:
        """The suits every play of this trick must have (suit_lock); empty while nothing is locked."""
        return lock_suits(self._lock)

    @property
    def jack_back(self) -> bool:
        """True while 11-back reverses the rank order for the rest of the trick."""
        return bool(self._back)

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

    def actions_by_deal(self, first: int = 1) -> list[list[tuple[int, Action]]]:
        """(player, action) as applied, per deal from deal `first` on, read from the event log."""
        return actions_by_deal(self.events, first)

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
        trick, played, exchange = self._reading.view(self.events, viewer)
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
                    legal = simple_plays(t, self._bp[self._turn], self._table, self._table_strength,
                                         self._rev ^ self._back)
                elif t.shaped:
                    legal = shaped_plays(t, self._hands[self._turn], self._table, self._table_strength,
                                         self._rev ^ self._back, self._lock)
                else:
                    legal = general_plays(t, self._hands[self._turn], self._table, self._table_strength,
                                          self._rev ^ self._back)
                if self._table is None and t.leader_may_pass:
                    legal = (*legal, _PASS)
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
        keeping the exact cards the player chose; `apply` of it checks nothing again.
        """
        if self.phase is Phase.OVER:
            raise IllegalActionError(IllegalReason.MATCH_OVER, "the match is over")
        actor = self.to_act
        if player is not None and player != actor:
            raise IllegalActionError(IllegalReason.NOT_YOUR_TURN, f"it is player {actor}'s turn, not {player}'s")
        resolved: Action
        if self.phase is Phase.PLAY:
            if isinstance(action, Pass):
                if self._table is None and not self._t.leader_may_pass:
                    raise IllegalActionError(IllegalReason.LEADER_MUST_PLAY, "the leader must play, not pass")
                resolved = PASS
            elif isinstance(action, Play):
                resolved = check_play(self._t, self._hands[self._turn], action, self._table, self._table_strength,
                                      self._rev ^ self._back, self._lock)
            else:
                raise IllegalActionError(IllegalReason.WRONG_PHASE, "the players are playing: play cards or pass")
        else:
            _, receiver, _, owed = self._exchange_steps[0]
            hand = self._hands[self._player_seat[receiver]]
            if self.phase is Phase.REQUEST:
                if not isinstance(action, Request):
                    raise IllegalActionError(IllegalReason.WRONG_PHASE, "the exchange is waiting for a request")
                resolved = check_request(self._t, hand, action, owed)
            elif isinstance(action, GiveBack):
                resolved = check_give_back(hand, action, owed)
            else:
                raise IllegalActionError(IllegalReason.WRONG_PHASE, "the exchange is waiting for cards to give back")
        self._checked = resolved
        return resolved

    # ------------------------------------------------------------------ applying

    def apply(self, action: Action) -> list[Event]:
        """Apply the action of the player to act and return the events it wrote.

        An illegal action raises IllegalActionError and changes nothing.
        """
        if action is not self._checked:
            legal = self._legal
            if legal is None:
                legal = self.legal_actions()
            for candidate in legal:
                if candidate is action:
                    break
            else:
                action = self.check(action)
        self._legal = None
        self._checked = None
        events = self.events
        start = len(events)
        if self._playing:
            if action is _PASS:
                self._pass(self._turn)
            else:
                self._play(self._turn, action)  # type: ignore[arg-type]
        else:
            self._exchange(action)
        return events[start:]

    def copy(self) -> Match:
        """An independent copy, for simulation: lists are copied, everything they hold is immutable."""
        new = Match.__new__(Match)
        new.rules = self.rules
        new.seed = self.seed
        new._t = self._t
        new._n = self._n
        new._explicit = self._explicit
        new._explicit_seats = self._explicit_seats
        new.pass_orders = self.pass_orders
        new.explicit_deals = self.explicit_deals
        new._horizon = self._horizon
        new.events = list(self.events)
        new._reading = self._reading.copy()
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
        new._checked = self._checked
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
        new._lock = self._lock
        new._back = self._back
        new._leader = self._leader
        new._last_play = self._last_play
        new._passes = self._passes
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
        self._last = self._last_play = s
        self._passes = 0
        mode = t.trick_mode
        if mode == ALL_PASS:
            self._mask = 0
        elif mode == ONE_ORBIT:
            self._mask |= 1 << s
        if t.revolution:
            self._revolution_check(play.size, rank, facts)
        stops = t.effects and self._effects(facts, beaten)
        self._table_strength = facts.strength[self._rev ^ self._back]
        if not left:
            self._out.append(s)
            events.append(t.went_out[player][len(self._out)])
            self._holders -= 1
            if self._holders == 1:
                self._out.append(last_holder(self._sizes))
                self._score_deal()
                return
        if stops:
            self._end_trick()
            return
        at = s
        if t.equal_skip and beaten is not None and beaten.rank is rank:
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

    def _effects(self, facts: PlayFacts, beaten: Play | None) -> bool:
        """The lock, 11-back and 6-reverse of a play (UECDA 4.4, 5); True when it ends the trick (8-stop, spade 3)."""
        t = self._t
        if t.suit_lock:
            self._lock = trick_lock(self._lock, facts, t.facts[id(beaten)] if beaten is not None else None)
        if not facts.lone_joker:
            if t.jack_back and facts.marks & HAS_JACK:
                self._back ^= 1
            if t.six_reverse and facts.marks & HAS_SIX:
                self._direction = -self._direction
            if t.eight_stop and facts.marks & HAS_EIGHT:
                return True
        return t.spade_three and beaten is not None and t.facts[id(beaten)].lone_joker

    def _revolution_check(self, size: int, rank: Rank, facts: PlayFacts) -> None:
        t = self._t
        revolt = t.revolution_four and size >= (5 if facts.sequence else 4)
        if t.revolution_singles and self._count_single(size, rank):
            revolt = True
        if revolt:
            self._rev ^= 1
            if t.revolution_turns:
                self._direction = -self._direction
            self.events.append(RevolutionHappened(bool(self._rev), self._direction))

    def _count_single(self, size: int, rank: Rank) -> bool:
        """Follow the run of single plays of one rank (RULES 1.2 four_singles); True when it makes four."""
        self._run_rank, self._run_len, revolt = single_run(self._run_rank, self._run_len, size, rank)
        return revolt

    def _pass(self, s: int) -> None:
        t = self._t
        self.events.append(t.passed[self._seat_player[s]])
        self._mask |= 1 << s
        if t.revolution_singles:
            self._run_rank, self._run_len = None, 0
        if t.pass_limit:
            self._passes += 1
            if self._passes >= t.pass_limit:
                self._out.extend(end_deal_by_passes(self.seed, self.deal, self._sizes, self._seat_player,
                                                    self.pass_orders[self.deal - 1]
                                                    if self.deal <= len(self.pass_orders) else None))
                self._score_deal()
                return
        following = self._next_seat(s)
        if following < 0:
            self._end_trick()
        else:
            self._turn = following

    def _next_seat(self, s: int) -> int:
        """The next seat to act in this trick after seat s, or -1 when the trick is over."""
        n, d, sizes, mask, last = self._n, self._direction, self._sizes, self._mask, self._last
        mode = self._t.trick_mode
        if mode == PASS_COUNT and mask.bit_count() >= self._holders - 1:
            return -1
        t = s
        for _ in range(n):
            t = (t + d) % n
            if t == last and mode < ONE_ORBIT:
                return -1
            if not sizes[t]:
                continue
            if mask >> t & 1:
                if mode == ALL_PASS:
                    return -1
                continue
            return t
        return -1

    def _end_trick(self) -> None:
        winner = self._last
        if winner < 0:  # pass_count: all passed with no play; the deal's last play (or this trick's lead) leads
            winner = self._last_play if self._last_play >= 0 else self._leader
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
        self._turn = self._leader = leader
        self._table = None
        self._table_strength = -2
        self._last = -1
        self._mask = (1 << leader) if self._t.trick_mode == ONE_ORBIT else 0
        self._run_rank = None
        self._run_len = 0
        self._lock = 0
        self._back = 0

    # ------------------------------------------------------------------ between tricks (deal_flow.py)

    def _seat(self, seats: Sequence[int]) -> None:
        """Seat the players in this order, seat 0 first."""
        self._seat_player = list(seats)
        for seat, player in enumerate(seats):
            self._player_seat[player] = seat

    def _start_deal(self) -> None:
        """Deal the next deal and begin its exchange or its play."""
        self.deal += 1
        d = deal_start(self.rules, self.seed, self.deal, self._explicit, self._explicit_seats, self.roles,
                       self._seat_player, self.last_places)
        self.roles = d.roles
        self._seat(d.seats)
        hands = self._hands = [h.bits for h in d.hands]
        self._sizes = [bits_size(h) for h in hands]
        if self._t.simple:
            self._bp = [bucket_row(self._t, h) for h in hands]
        self._holders = self._n
        self._out = []
        self._last_play = -1
        self._passes = 0
        self._direction = 1
        self._rev = 0
        self.deal_hands.append(d.hands)
        self.deal_seats.append(d.seats)
        self.events.extend(d.events)
        self._exchange_steps = d.steps
        self._requests = {}
        self._pending_tribute = d.tributes
        if d.tributes and not self.rules.exchange_requests:
            self._pay_tributes()
        self._table = None
        self._start_trick(0)
        self._next_phase()

    def _next_phase(self) -> None:
        """The exchange's next step, or, once it is done, the first lead of the deal."""
        if self._exchange_steps:
            self.phase = self._exchange_steps[0][0]
            self._playing = False
            return
        self.phase = Phase.PLAY
        self._playing = True
        leader = first_leader(self.rules, self.deal, self.roles, self._hands, self._player_seat)
        self._start_trick(leader)
        self.events.append(self._t.play_started[self._seat_player[leader]])

    def _exchange(self, action: Action) -> None:
        """Apply the request or the give-back of the exchange step now due (already checked)."""
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
            self._move(giver, receiver, tribute_bits(hand, self._requests.get(receiver, 0), owed,
                                                     self._t.tribute_slots), tribute=True)

    def _move(self, giver: int, receiver: int, bits: int, *, tribute: bool) -> None:
        """Move cards from `giver`'s hand to `receiver`'s."""
        size = bits_size(bits)
        for s, sign in ((self._player_seat[giver], -1), (self._player_seat[receiver], 1)):
            self._hands[s] += sign * bits
            self._sizes[s] += sign * size
            if self._t.simple:
                self._bp[s] = bucket_row(self._t, self._hands[s])
        self.events.append(CardsGiven(giver, receiver, size, tribute, CardSet.from_bits(bits)))

    def _score_deal(self) -> None:
        """Every place is known: score the deal, give the roles, then end the match or deal again."""
        places = tuple(self._seat_player[s] for s in self._out)
        score = deal_score(self.rules, self.deal, places, self.scores, self._horizon)
        self.scores = score.scores
        self.roles = score.roles
        self.last_places = places
        self.events.extend(score.events)
        if not score.over:
            self._start_deal()
            return
        self.winner = score.winner
        self.phase = Phase.OVER
        self._playing = False
        self.is_over = True
