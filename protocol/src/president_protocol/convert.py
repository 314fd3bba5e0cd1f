"""Conversion between the engine's values and the `president.v1` messages.

The one place where the wire format meets the engine, so the server and the
SDK agree by construction.  Conversions come in pairs (``*_to_proto`` and a
``*_from_proto`` that gives back an equal engine value).  Messages only the
server builds from its own state (strikes, clocks, summaries) are the
service's.  Conventions:

- Engine enums map by member name with the proto enum's prefix
  (``JokerAlone.HIGH`` <-> ``JOKER_ALONE_HIGH``); `Rank` numbers are the face
  values on both sides; `Suit` is shifted by one so that 0 is "no suit".
- Messages from outside are checked: a value the engine cannot hold raises
  `WireError` (the service answers MALFORMED), a bad rule option raises the
  engine's `RulesError` naming the option (BAD_OPTION).
- Nothing here hides cards: events must already have gone through
  `visible_to` for their receiver, and observations come from the engine
  (`Match.observation`, `Match.public_observation`), which decides what each
  may see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from google.protobuf.timestamp_pb2 import Timestamp
from president_engine.actions import PASS, Action, Cell, GiveBack, Pass, Play, Request
from president_engine.cards import CARDS, JOKER, SLOT_BITS, SLOT_MAX, Card, CardSet, Rank, Suit, card_slot
from president_engine.errors import CardParseError, RulesError
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
    PlayStarted,
    RevolutionHappened,
    TrickWon,
    WentOut,
)
from president_engine.fallback import Fault
from president_engine.observation import Observation, PublicObservation, TrickEntry
from president_engine.phase import Phase
from president_engine.record import DealRecord, MatchRecord
from president_engine.roles import Role
from president_engine.rules import (
    DAIFUGO_OPTIONS,
    Beat,
    DealFrom,
    FirstLead,
    JokerAlone,
    NextLead,
    RevolutionEffect,
    RevolutionTrigger,
    Rules,
    Seating,
    TrickEnd,
)

from president_protocol.v1 import president_pb2 as pb

if TYPE_CHECKING:
    from google.protobuf.internal.enum_type_wrapper import _EnumTypeWrapper

class WireError(ValueError):
    """A message that does not describe a valid engine value; `field` says where."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


E = TypeVar("E", bound=Enum)
V = TypeVar("V", bound=int)


class _EnumMap(Generic[E, V]):
    """An engine enum and its proto enum, matched by member name behind a prefix."""

    def __init__(self, engine: type[E], proto: _EnumTypeWrapper[V], prefix: str) -> None:
        self._to: dict[E, V] = {member: proto.Value(prefix + member.name) for member in engine}
        self._from: dict[int, E] = {value: member for member, value in self._to.items()}
        self._names = {number: value.name for number, value in proto.DESCRIPTOR.values_by_number.items()}

    def to_proto(self, member: E) -> V:
        return self._to[member]

    def from_proto(self, value: int, field: str) -> E:
        try:
            return self._from[value]
        except KeyError:
            raise WireError(field, f"{self._names.get(value, value)} is not a valid value") from None


_RANK = _EnumMap(Rank, pb.Rank, "RANK_")
_SUIT = _EnumMap(Suit, pb.Suit, "SUIT_")
_ROLE = _EnumMap(Role, pb.Role, "ROLE_")
_PHASE = _EnumMap(Phase, pb.Phase, "PHASE_")
_FAULT = _EnumMap(Fault, pb.BotFault, "BOT_FAULT_")


def fault_to_proto(fault: Fault | None) -> pb.BotFault.ValueType:
    """Act.fault: BOT_FAULT_UNSPECIFIED for the bot's own answer."""
    return pb.BOT_FAULT_UNSPECIFIED if fault is None else _FAULT.to_proto(fault)


def fault_from_proto(value: int, field: str = "act.fault") -> Fault | None:
    return None if value == pb.BOT_FAULT_UNSPECIFIED else _FAULT.from_proto(value, field)
_JOKER_ALONE = _EnumMap(JokerAlone, pb.JokerAlone, "JOKER_ALONE_")
_BEAT = _EnumMap(Beat, pb.Beat, "BEAT_")
_TRICK_END = _EnumMap(TrickEnd, pb.TrickEnd, "TRICK_END_")
_TRIGGER = _EnumMap(RevolutionTrigger, pb.RevolutionTrigger, "REVOLUTION_TRIGGER_")
_EFFECT = _EnumMap(RevolutionEffect, pb.RevolutionEffect, "REVOLUTION_EFFECT_")
_FIRST_LEAD = _EnumMap(FirstLead, pb.FirstLead, "FIRST_LEAD_")
_NEXT_LEAD = _EnumMap(NextLead, pb.NextLead, "NEXT_LEAD_")
_SEATING = _EnumMap(Seating, pb.Seating, "SEATING_")
_DEAL_FROM = _EnumMap(DealFrom, pb.DealFrom, "DEAL_FROM_")


# ---------------------------------------------------------------------------
# Ranks, roles, phases, cards
# ---------------------------------------------------------------------------

def role_to_proto(role: Role) -> pb.Role.ValueType:
    return _ROLE.to_proto(role)


def phase_to_proto(phase: Phase) -> pb.Phase.ValueType:
    return _PHASE.to_proto(phase)


def card_to_proto(card: Card) -> pb.Card:
    if card.suit is None:
        return pb.Card(rank=pb.RANK_JOKER)
    return pb.Card(rank=_RANK.to_proto(card.rank), suit=_SUIT.to_proto(card.suit))


def card_from_proto(msg: pb.Card, field: str = "card") -> Card:
    if msg.rank == pb.RANK_JOKER:
        if msg.suit != pb.SUIT_UNSPECIFIED:
            raise WireError(field, "a joker has no suit")
        return JOKER
    rank = _RANK.from_proto(msg.rank, field)
    if msg.suit == pb.SUIT_UNSPECIFIED:
        raise WireError(field, f"the {rank.name.lower()} needs a suit")
    suit = _SUIT.from_proto(msg.suit, field)
    return CARDS[card_slot(rank, suit)]


_CARD_MESSAGES: tuple[pb.Card, ...] = tuple(card_to_proto(card) for card in CARDS)
"""One message per card slot, shared: only ever copied (a message constructor copies what it is given)."""


def _card_messages(cards: CardSet) -> list[pb.Card]:
    """The cards as shared messages, in the engine's order, read straight from the bits (the hot path)."""
    out: list[pb.Card] = []
    bits = cards.bits
    while bits:
        shift = ((bits & -bits).bit_length() - 1) // SLOT_BITS * SLOT_BITS
        out += [_CARD_MESSAGES[shift // SLOT_BITS]] * ((bits >> shift) & SLOT_MAX)
        bits &= ~(SLOT_MAX << shift)
    return out


def cards_to_proto(cards: CardSet) -> list[pb.Card]:
    """The cards in the engine's order (ascending, jokers last)."""
    return [card_to_proto(card) for card in cards]


_SHIFTS: dict[tuple[int, int], int] = {(m.rank, m.suit): card.slot * SLOT_BITS
                                       for card, m in zip(CARDS, _CARD_MESSAGES, strict=True)}
"""(rank, suit) on the wire -> the card's bit offset in a CardSet (every valid card)."""


def cards_from_proto(msgs: Iterable[pb.Card], field: str = "cards") -> CardSet:
    if isinstance(msgs, Iterator):
        msgs = list(msgs)  # read twice when a card is wrong
    bits = 0
    for msg in msgs:  # the hot path (every prompt): straight to the bits
        shift = _SHIFTS.get((msg.rank, msg.suit))
        if shift is None or (bits >> shift) & SLOT_MAX == SLOT_MAX:
            return _cards_checked(msgs, field)
        bits += 1 << shift
    return CardSet.from_bits(bits)


def _cards_checked(msgs: Iterable[pb.Card], field: str) -> CardSet:
    """The cards one by one, naming the first that cannot be (an invalid card, too many copies)."""
    try:
        return CardSet(card_from_proto(msg, field) for msg in msgs)
    except CardParseError as exc:
        raise WireError(field, str(exc)) from None


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------

def _rank_or_none(rank: Rank | None) -> pb.Rank.ValueType:
    return pb.RANK_UNSPECIFIED if rank is None else _RANK.to_proto(rank)


def play_to_proto(play: Play) -> pb.PlayAction:
    cell = None if play.cell is None else pb.JokerCell(
        column=play.cell.column, suit=pb.SUIT_UNSPECIFIED if play.cell.suit is None else _SUIT.to_proto(play.cell.suit))
    return pb.PlayAction(cards=_card_messages(play.cards), rank=_rank_or_none(play.rank),
                         declared=_rank_or_none(play.declared), cell=cell)


def play_from_proto(msg: pb.PlayAction, field: str = "play") -> Play:
    rank = None if msg.rank == pb.RANK_UNSPECIFIED else _RANK.from_proto(msg.rank, f"{field}.rank")
    declared = None if msg.declared == pb.RANK_UNSPECIFIED else _RANK.from_proto(msg.declared, f"{field}.declared")
    cell = None
    if msg.HasField("cell"):
        suit = None if msg.cell.suit == pb.SUIT_UNSPECIFIED else _SUIT.from_proto(msg.cell.suit, f"{field}.cell.suit")
        try:
            cell = Cell(msg.cell.column, suit)
        except CardParseError as exc:
            raise WireError(f"{field}.cell", str(exc)) from None
    return Play(cards_from_proto(msg.cards, f"{field}.cards"), declared, rank=rank, cell=cell)


def action_to_proto(action: Action) -> pb.Action:
    if isinstance(action, Play):
        return pb.Action(play=play_to_proto(action))
    if isinstance(action, Pass):
        return pb.Action(pass_turn=pb.PassAction())
    if isinstance(action, GiveBack):
        return pb.Action(give_back=pb.GiveBackAction(cards=_card_messages(action.cards)))
    return pb.Action(request=pb.RequestAction(cards=_card_messages(action.cards)))


def action_from_proto(msg: pb.Action, field: str = "action") -> Action:
    kind = msg.WhichOneof("kind")
    if kind == "play":
        return play_from_proto(msg.play, f"{field}.play")
    if kind == "pass_turn":
        return PASS
    if kind == "give_back":
        return GiveBack(cards_from_proto(msg.give_back.cards, f"{field}.give_back.cards"))
    if kind == "request":
        return Request(cards_from_proto(msg.request.cards, f"{field}.request.cards"))
    raise WireError(field, "no action given (set play, pass_turn, give_back or request)")


def actions_to_proto(actions: Iterable[Action]) -> list[pb.Action]:
    return [action_to_proto(action) for action in actions]


def actions_from_proto(msgs: Iterable[pb.Action]) -> tuple[Action, ...]:
    return tuple(action_from_proto(msg, f"actions[{i}]") for i, msg in enumerate(msgs))


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------

def rules_to_proto(rules: Rules) -> pb.Rules:
    """The effective rules: every field set except `deals`/`target_score` when unlimited and the Daifugō options
    while they have their defaults (so that the rules of every match without them read as before)."""
    daifugo = {name: _DAIFUGO_TO_PROTO.get(name, _same)(getattr(rules, name)) for name in DAIFUGO_OPTIONS
               if getattr(rules, name) != getattr(_DEFAULTS, name)}
    return pb.Rules(**daifugo,
        players=rules.players,
        decks=rules.decks,
        jokers=rules.jokers,
        rank_order=pb.RankList(ranks=[_RANK.to_proto(r) for r in rules.rank_order]),
        joker_wild=rules.joker_wild,
        joker_alone=_JOKER_ALONE.to_proto(rules.joker_alone),
        wild_lead_rank=_RANK.to_proto(rules.wild_lead_rank),
        wild_ranks=pb.RankList(ranks=[_RANK.to_proto(r) for r in sorted(rules.wild_ranks)]),
        beat=_BEAT.to_proto(rules.beat),
        suit_order=pb.SuitList(suits=[_SUIT.to_proto(s) for s in rules.suit_order or ()]),
        trick_end=_TRICK_END.to_proto(rules.trick_end),
        pass_is_final=rules.pass_is_final,
        revolution=rules.revolution,
        revolution_triggers=pb.RevolutionTriggerList(
            triggers=sorted(_TRIGGER.to_proto(t) for t in rules.revolution_triggers)),
        revolution_effect=_EFFECT.to_proto(rules.revolution_effect),
        equal_skip=rules.equal_skip,
        exchange=rules.exchange,
        exchange_requests=rules.exchange_requests,
        first_lead=_FIRST_LEAD.to_proto(rules.first_lead),
        next_lead=_NEXT_LEAD.to_proto(rules.next_lead),
        seating=_SEATING.to_proto(rules.seating),
        points=pb.PointList(points=rules.points),
        deals=rules.deals,
        target_score=rules.target_score,
    )


_DEFAULTS = Rules()


def _same(value: Any) -> Any:
    return value


_DAIFUGO_TO_PROTO: dict[str, Callable[[Any], Any]] = {
    "tribute_suits": lambda suits: pb.SuitList(suits=[_SUIT.to_proto(s) for s in suits]),
    "deal_from": _DEAL_FROM.to_proto,
}
"""The Daifugō options whose wire form is not their engine value."""


def _ranks(msg: Any, field: str) -> list[Rank]:
    return [_RANK.from_proto(r, field) for r in msg.ranks]


_OPTION_FROM_PROTO: dict[str, Callable[[Any, str], Any]] = {
    "players": lambda v, f: int(v),
    "decks": lambda v, f: int(v),
    "jokers": lambda v, f: int(v),
    "rank_order": lambda m, f: tuple(_ranks(m, f)),
    "joker_wild": lambda v, f: bool(v),
    "joker_alone": _JOKER_ALONE.from_proto,
    "wild_lead_rank": _RANK.from_proto,
    "wild_ranks": lambda m, f: frozenset(_ranks(m, f)),
    "beat": _BEAT.from_proto,
    "suit_order": lambda m, f: tuple(_SUIT.from_proto(s, f) for s in m.suits) or None,
    "trick_end": _TRICK_END.from_proto,
    "pass_is_final": lambda v, f: bool(v),
    "revolution": lambda v, f: bool(v),
    "revolution_triggers": lambda m, f: frozenset(_TRIGGER.from_proto(t, f) for t in m.triggers),
    "revolution_effect": _EFFECT.from_proto,
    "equal_skip": lambda v, f: bool(v),
    "exchange": lambda v, f: bool(v),
    "exchange_requests": lambda v, f: bool(v),
    "first_lead": _FIRST_LEAD.from_proto,
    "next_lead": _NEXT_LEAD.from_proto,
    "seating": _SEATING.from_proto,
    "points": lambda m, f: tuple(m.points),
    "deals": lambda v, f: int(v),
    "target_score": lambda v, f: int(v),
    "sequences": lambda v, f: bool(v),
    "eight_stop": lambda v, f: bool(v),
    "suit_lock": lambda v, f: bool(v),
    "joker_spade_three": lambda v, f: bool(v),
    "jack_back": lambda v, f: bool(v),
    "six_reverse": lambda v, f: bool(v),
    "tribute_suits": lambda m, f: tuple(_SUIT.from_proto(s, f) for s in m.suits),
    "pass_count": lambda v, f: bool(v),
    "leader_may_pass": lambda v, f: bool(v),
    "pass_limit": lambda v, f: int(v),
    "deal_from": _DEAL_FROM.from_proto,
    "reseat_every": lambda v, f: int(v),
    "rank_reset_every": lambda v, f: int(v),
}
"""How each field of `Rules` becomes an engine option value (fields are named as the options)."""


def overrides_from_proto(msg: pb.Rules) -> dict[str, Any]:
    """The options set in `msg`, as engine values; a bad value raises RulesError naming it."""
    options: dict[str, Any] = {}
    for field, value in msg.ListFields():
        try:
            options[field.name] = _OPTION_FROM_PROTO[field.name](value, field.name)
        except WireError as exc:
            raise RulesError(field.name, str(exc).removeprefix(f"{field.name}: ")) from None
    return options


def rules_from_proto(msg: pb.Rules) -> Rules:
    """Effective rules as sent by the service (unset fields take the engine's defaults)."""
    return Rules(**overrides_from_proto(msg))


# ---------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------

def match_result_to_proto(ended: MatchEnded) -> pb.MatchResult:
    return pb.MatchResult(winner=ended.winner, totals=ended.totals, last_places=ended.last_places)


def match_result_from_proto(msg: pb.MatchResult) -> MatchEnded:
    return MatchEnded(winner=msg.winner, totals=tuple(msg.totals), last_places=tuple(msg.last_places))


def cards_given_to_proto(event: CardsGiven) -> pb.CardsGiven:
    return pb.CardsGiven(
        giver=event.giver, receiver=event.receiver, count=event.count, tribute=event.tribute,
        cards=None if event.cards is None else pb.Hand(cards=_card_messages(event.cards)))


def cards_given_from_proto(msg: pb.CardsGiven) -> CardsGiven:
    cards = cards_from_proto(msg.cards.cards, "cards_given.cards") if msg.HasField("cards") else None
    return CardsGiven(giver=msg.giver, receiver=msg.receiver, count=msg.count, tribute=msg.tribute, cards=cards)


def _played_to_proto(event: Played) -> pb.Played:
    return pb.Played(player=event.player, play=play_to_proto(event.play))


def _played_from_proto(msg: pb.Played) -> Played:
    return Played(player=msg.player, play=play_from_proto(msg.play, "played.play"))


def _passed_to_proto(event: Passed) -> pb.Passed:
    return pb.Passed(player=event.player, skipped=event.skipped)


def _passed_from_proto(msg: pb.Passed) -> Passed:
    return Passed(player=msg.player, skipped=msg.skipped)


def event_to_proto(event: Event, seq: int) -> pb.Event:
    """An engine event, already redacted for its receiver by `visible_to`, with its match seq."""
    if isinstance(event, DealStarted):
        return pb.Event(seq=seq, deal_started=pb.DealStarted(
            deal=event.deal, seats=event.seats, dealer=event.dealer, hand_sizes=event.hand_sizes,
            roles=[_ROLE.to_proto(r) for r in event.roles]))
    if isinstance(event, HandDealt):
        return pb.Event(seq=seq, hand_dealt=pb.HandDealt(player=event.player, cards=_card_messages(event.cards)))
    if isinstance(event, CardsRequested):
        return pb.Event(seq=seq, cards_requested=pb.CardsRequested(
            receiver=event.receiver, giver=event.giver, cards=_card_messages(event.cards)))
    if isinstance(event, CardsGiven):
        return pb.Event(seq=seq, cards_given=cards_given_to_proto(event))
    if isinstance(event, PlayStarted):
        return pb.Event(seq=seq, play_started=pb.PlayStarted(leader=event.leader))
    if isinstance(event, Played):
        return pb.Event(seq=seq, played=_played_to_proto(event))
    if isinstance(event, Passed):
        return pb.Event(seq=seq, passed=_passed_to_proto(event))
    if isinstance(event, RevolutionHappened):
        return pb.Event(seq=seq, revolution_happened=pb.RevolutionHappened(
            reversed=event.reversed, direction=event.direction))
    if isinstance(event, TrickWon):
        return pb.Event(seq=seq, trick_won=pb.TrickWon(winner=event.winner, next_leader=event.next_leader))
    if isinstance(event, WentOut):
        return pb.Event(seq=seq, went_out=pb.WentOut(player=event.player, place=event.place))
    if isinstance(event, DealEnded):
        return pb.Event(seq=seq, deal_ended=pb.DealEnded(
            deal=event.deal, places=event.places, points=event.points, totals=event.totals))
    return pb.Event(seq=seq, match_ended=match_result_to_proto(event))


SERVICE_EVENTS = frozenset({"strike_recorded", "seat_taken_over"})
"""`Event.kind` values of the server's own (its clock); they have no engine form."""


def event_from_proto(msg: pb.Event) -> Event | None:
    """The engine event in `msg`, or None for a service event (see SERVICE_EVENTS)."""
    kind = msg.WhichOneof("kind")
    if kind == "deal_started":
        m = msg.deal_started
        return DealStarted(deal=m.deal, seats=tuple(m.seats), dealer=m.dealer, hand_sizes=tuple(m.hand_sizes),
                           roles=tuple(_ROLE.from_proto(r, "deal_started.roles") for r in m.roles))
    if kind == "hand_dealt":
        return HandDealt(player=msg.hand_dealt.player, cards=cards_from_proto(msg.hand_dealt.cards))
    if kind == "cards_requested":
        m2 = msg.cards_requested
        return CardsRequested(receiver=m2.receiver, giver=m2.giver, cards=cards_from_proto(m2.cards))
    if kind == "cards_given":
        return cards_given_from_proto(msg.cards_given)
    if kind == "play_started":
        return PlayStarted(leader=msg.play_started.leader)
    if kind == "played":
        return _played_from_proto(msg.played)
    if kind == "passed":
        return _passed_from_proto(msg.passed)
    if kind == "revolution_happened":
        return RevolutionHappened(reversed=msg.revolution_happened.reversed,
                                  direction=msg.revolution_happened.direction)
    if kind == "trick_won":
        m3 = msg.trick_won
        return TrickWon(winner=m3.winner, next_leader=m3.next_leader if m3.HasField("next_leader") else None)
    if kind == "went_out":
        return WentOut(player=msg.went_out.player, place=msg.went_out.place)
    if kind == "deal_ended":
        m4 = msg.deal_ended
        return DealEnded(deal=m4.deal, places=tuple(m4.places), points=tuple(m4.points), totals=tuple(m4.totals))
    if kind == "match_ended":
        return match_result_from_proto(msg.match_ended)
    if kind in SERVICE_EVENTS:
        return None
    raise WireError("event", "no event given")


# ---------------------------------------------------------------------------
# Observations and prompts
# ---------------------------------------------------------------------------

def _trick_entry_to_proto(entry: TrickEntry) -> pb.TrickEntry:
    if isinstance(entry, Played):
        return pb.TrickEntry(played=_played_to_proto(entry))
    return pb.TrickEntry(passed=_passed_to_proto(entry))


def _trick_entry_from_proto(msg: pb.TrickEntry) -> TrickEntry:
    kind = msg.WhichOneof("kind")
    if kind == "played":
        return _played_from_proto(msg.played)
    if kind == "passed":
        return _passed_from_proto(msg.passed)
    raise WireError("observation.trick", "an entry is a play or a pass")


def _public_fields(obs: PublicObservation, exchange: Iterable[CardsGiven]) -> dict[str, Any]:
    return dict(
        deal=obs.deal,
        phase=_PHASE.to_proto(obs.phase),
        to_act=obs.to_act,
        hand_sizes=obs.hand_sizes,
        seats=obs.seats,
        roles=[_ROLE.to_proto(r) for r in obs.roles],
        scores=obs.scores,
        places=obs.places,
        rank_order=[_RANK.to_proto(r) for r in obs.rank_order],
        reversed=obs.reversed,
        direction=obs.direction,
        table=None if obs.table is None else play_to_proto(obs.table),
        table_player=obs.table_player,
        trick=[_trick_entry_to_proto(e) for e in obs.trick],
        played=_card_messages(obs.played),
        exchange=[cards_given_to_proto(e) for e in exchange],
    )


def observation_to_proto(obs: Observation) -> pb.Observation:
    """A seat's view (its rules and legal actions travel in Welcome and Prompt)."""
    return pb.Observation(player=obs.player, hand=_card_messages(obs.hand), owed=obs.owed,
                          **_public_fields(obs, obs.exchange))


def public_observation_to_proto(obs: PublicObservation) -> pb.Observation:
    """A spectator's view: no player, hand or owed cards, and no card of the exchange.

    Given a player's `Observation` (a PublicObservation too) it sends the
    spectator's part of it, as the engine's `PublicObservation.public` says.
    """
    public = obs.public()
    return pb.Observation(**_public_fields(public, public.exchange))


def _public_from_proto(msg: pb.Observation, rules: Rules) -> dict[str, Any]:
    return dict(
        rules=rules,
        deal=msg.deal,
        phase=_PHASE.from_proto(msg.phase, "observation.phase"),
        to_act=msg.to_act if msg.HasField("to_act") else None,
        hand_sizes=tuple(msg.hand_sizes),
        seats=tuple(msg.seats),
        roles=tuple(_ROLE.from_proto(r, "observation.roles") for r in msg.roles),
        scores=tuple(msg.scores),
        places=tuple(msg.places),
        rank_order=tuple(_RANK.from_proto(r, "observation.rank_order") for r in msg.rank_order),
        reversed=msg.reversed,
        direction=msg.direction,
        table=play_from_proto(msg.table, "observation.table") if msg.HasField("table") else None,
        table_player=msg.table_player if msg.HasField("table_player") else None,
        trick=tuple(_trick_entry_from_proto(e) for e in msg.trick),
        played=cards_from_proto(msg.played, "observation.played"),
        exchange=tuple(cards_given_from_proto(e) for e in msg.exchange),
    )


def observation_from_proto(msg: pb.Observation, rules: Rules, legal_actions: Sequence[Action] = ()) -> Observation:
    """A seat's Observation again, given the rules from Welcome and the legal actions from Prompt."""
    if not msg.HasField("player"):
        raise WireError("observation.player", "a spectator's public view is not a player's observation")
    return Observation(player=msg.player, hand=cards_from_proto(msg.hand, "observation.hand"), owed=msg.owed,
                       legal_actions=tuple(legal_actions), **_public_from_proto(msg, rules))


def public_observation_from_proto(msg: pb.Observation, rules: Rules) -> PublicObservation:
    """A spectator's view again, given the match's rules."""
    if msg.HasField("player") or msg.hand:
        raise WireError("observation.player", "a player's observation is not a spectator's public view")
    return PublicObservation(**_public_from_proto(msg, rules))


def prompt_to_proto(turn_id: int, obs: Observation, *, deadline: Timestamp | None = None,
                    time_bank_remaining_ms: int = 0) -> pb.Prompt:
    """The prompt for the player of `obs`, whose turn it is (legal actions from `obs`)."""
    return pb.Prompt(turn_id=turn_id, observation=observation_to_proto(obs),
                     legal_actions=actions_to_proto(obs.legal_actions), deadline=deadline,
                     time_bank_remaining_ms=time_bank_remaining_ms)


def prompt_from_proto(msg: pb.Prompt, rules: Rules) -> Observation:
    """The prompted player's Observation, legal actions included."""
    return observation_from_proto(msg.observation, rules, actions_from_proto(msg.legal_actions))


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------

def replay_to_proto(record: MatchRecord, *, names: Sequence[str], result: MatchEnded | None) -> pb.Replay:
    """The record as a Replay; `result` None (unset) for the deals of a match not over."""
    return pb.Replay(
        rules=rules_to_proto(record.rules),
        seed=record.seed,
        deals=[pb.DealRecord(
            seats=deal.seats,
            hands=[pb.Hand(cards=_card_messages(hand)) for hand in deal.hands],
            shuffled=deal.shuffled,
            actions=[pb.RecordedAction(player=p, action=action_to_proto(a)) for p, a in deal.actions],
            pass_order=deal.pass_order,
        ) for deal in record.deals],
        names=names,
        result=None if result is None else match_result_to_proto(result),
    )


def replay_from_proto(msg: pb.Replay) -> MatchRecord:
    """The engine record (names and result are not part of it: replaying gives the result)."""
    return MatchRecord(
        rules=rules_from_proto(msg.rules),
        seed=msg.seed,
        deals=tuple(DealRecord(
            seats=tuple(deal.seats),
            hands=tuple(cards_from_proto(h.cards, f"deals[{d}].hands") for h in deal.hands),
            shuffled=deal.shuffled,
            actions=tuple((a.player, action_from_proto(a.action, f"deals[{d}].actions[{i}]"))
                          for i, a in enumerate(deal.actions)),
            pass_order=tuple(deal.pass_order),
        ) for d, deal in enumerate(msg.deals)),
    )
