"""Match records: the rules, the seed, each deal's hands and every action, as JSON.

A record replays to the identical state (`MatchRecord.replay`); replaying
checks every action and stops at the first illegal one with its reason.
Actions are written in their text form (``"6H 6S as K"``, ``"pass"``), the
one notation the engine, the CLI and the server's store share.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from president_engine.actions import Action, parse_action
from president_engine.cards import CardSet
from president_engine.errors import CardParseError, DealError, IllegalActionError, RecordError, RulesError
from president_engine.match import Match
from president_engine.rules import Rules

FORMAT = "president-match/2"
FORMER_FORMATS = ("president-match/1",)
"""Formats of earlier engines, refused by name: /1 wrote actions as JSON objects."""


@dataclass(frozen=True, slots=True)
class DealRecord:
    seats: tuple[int, ...]
    """The player at each seat."""
    hands: tuple[CardSet, ...]
    """The dealt hands by seat, before any exchange."""
    shuffled: bool
    """True when the hands came from the seeded shuffle (replay checks they still do)."""
    actions: tuple[tuple[int, Action], ...]
    """(player, action) in order."""
    pass_order: tuple[int, ...] = ()
    """An explicit deal's given order of the pass limit's places (`Match` pass_orders); empty: drawn."""


class ReplayError(RecordError):
    """A record whose actions do not replay: names the deal, the action and the reason."""

    def __init__(self, deal: int, index: int, player: int, action: Action, cause: IllegalActionError) -> None:
        super().__init__(f"deal {deal}, action {index + 1}: player {player} {action}: {cause}")
        self.deal, self.index, self.player, self.action, self.cause = deal, index, player, action, cause


@dataclass(frozen=True, slots=True)
class MatchRecord:
    rules: Rules
    seed: int
    deals: tuple[DealRecord, ...]

    @classmethod
    def from_match(cls, match: Match, *, first: int = 1, last: int | None = None) -> MatchRecord:
        """The match's record; with `first` and `last`, of those deals only (numbered from 1, both included)."""
        deals = []
        first = max(first, 1)
        last = len(match.deal_hands) if last is None else min(last, len(match.deal_hands))
        actions = match.actions_by_deal(first) if first <= last else []
        for index in range(first - 1, last):
            deals.append(DealRecord(
                seats=match.deal_seats[index],
                hands=match.deal_hands[index],
                shuffled=index >= match.explicit_deals,
                actions=tuple(actions[index - first + 1]),
                pass_order=(match.pass_orders[index] or ()) if index < len(match.pass_orders) else (),
            ))
        return cls(rules=match.rules, seed=match.seed, deals=tuple(deals))

    def start(self) -> Match:
        """The match as first dealt, before any action (replay applies the actions to it)."""
        explicit = [d for d in self.deals if not d.shuffled]
        if any(d.shuffled for d in self.deals[:len(explicit)]):
            raise RecordError("explicit hands must come before shuffled deals")
        try:  # an explicit deal sits as recorded: the seats it was given, or those the rules gave it (the same)
            return Match(self.rules, seed=self.seed, hands=[d.hands for d in explicit] or None,
                         seats=[d.seats for d in explicit] or None,
                         pass_orders=[d.pass_order or None for d in explicit] or None)
        except DealError as exc:
            raise RecordError(f"the record's explicit deals cannot be dealt: {exc}") from None

    def replay(self) -> Match:
        """The match this record describes, every action checked; raises ReplayError."""
        match = self.start()
        for number, deal in enumerate(self.deals, 1):
            if match.deal != number:
                raise RecordError(f"deal {number}: the record has more deals than the match played")
            if match.seats != deal.seats:
                raise RecordError(f"deal {number}: seats {deal.seats} but the rules seat {match.seats}")
            if match.deal_hands[-1] != deal.hands:
                raise RecordError(f"deal {number}: the hands are not the ones seed {self.seed} deals")
            for index, (player, action) in enumerate(deal.actions):
                try:
                    match.check(action, player)
                    match.apply(action)
                except IllegalActionError as exc:
                    raise ReplayError(number, index, player, action, exc) from None
        return match

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "deals": [{
                "seats": list(d.seats),
                "hands": [str(h) for h in d.hands],
                "shuffled": d.shuffled,
                "actions": [{"player": p, "action": str(a)} for p, a in d.actions],
                **({"pass_order": list(d.pass_order)} if d.pass_order else {}),
            } for d in self.deals],
        }

    def dumps(self, *, indent: int | None = 1) -> str:
        """The record as JSON text; ``indent=None`` is compact."""
        return json.dumps(self.to_json(), indent=indent)

    @classmethod
    def from_json(cls, data: Any) -> MatchRecord:
        try:
            found = data.get("format")
            if found in FORMER_FORMATS:
                raise RecordError(f"a {found} record: this engine reads {FORMAT} only")
            if found != FORMAT:
                raise RecordError(f"not a {FORMAT} record (format {found!r})")
            deals = []
            for d in data["deals"]:
                actions = []
                for entry in d["actions"]:
                    player, text = entry["player"], entry["action"]
                    if not isinstance(player, int) or not isinstance(text, str):
                        raise RecordError(f'an action is {{"player": number, "action": text}}, got {entry!r}')
                    actions.append((player, parse_action(text)))
                deals.append(DealRecord(
                    seats=tuple(int(s) for s in d["seats"]),
                    hands=tuple(CardSet(h) for h in d["hands"]),
                    shuffled=bool(d.get("shuffled", False)),
                    actions=tuple(actions),
                    pass_order=tuple(int(p) for p in d.get("pass_order", ())),
                ))
            return cls(rules=Rules.from_dict(data["rules"]), seed=int(data["seed"]), deals=tuple(deals))
        except (KeyError, TypeError, AttributeError) as exc:
            raise RecordError(f"malformed record: {exc!r}") from None
        except (CardParseError, RulesError) as exc:
            raise RecordError(f"malformed record: {exc}") from None

    @classmethod
    def loads(cls, text: str) -> MatchRecord:
        try:
            return cls.from_json(json.loads(text))
        except json.JSONDecodeError as exc:
            raise RecordError(f"not JSON: {exc}") from None
