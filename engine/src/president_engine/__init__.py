"""President (Asshole, Scum, Daifugō, Presidente, Elnök): the rules engine.

Pure Python, no dependencies.  Start with `Rules.preset` and `Match`::

    from president_engine import Match, Rules, fallback_action
    match = Match(Rules.preset("cardverse"), seed=7)
    while not match.is_over:
        match.apply(fallback_action(match.legal_actions()))

Installed from a wheel built with a C compiler, its hot modules are mypyc's extensions (`compiled`).
"""

from president_engine.actions import PASS, Action, GiveBack, Pass, Play, Request, parse_action
from president_engine.cards import JOKER, Card, CardSet, Rank, Suit
from president_engine.deal import board_hands, shuffled_deal
from president_engine.errors import (
    CardParseError,
    DealError,
    IllegalActionError,
    IllegalReason,
    RecordError,
    RulesError,
)
from president_engine.events import Event, visible_to
from president_engine.exchange import ExchangePair, exchange_pairs, exchange_partner
from president_engine.fallback import Fault, fallback_action
from president_engine.match import Match
from president_engine.observation import Observation, PublicObservation
from president_engine.phase import Phase
from president_engine.record import MatchRecord
from president_engine.roles import Role
from president_engine.rules import (
    PRESETS,
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

__all__ = [
    "JOKER",
    "PASS",
    "PRESETS",
    "Action",
    "Beat",
    "Card",
    "CardParseError",
    "CardSet",
    "DealError",
    "DealFrom",
    "Event",
    "ExchangePair",
    "Fault",
    "FirstLead",
    "GiveBack",
    "IllegalActionError",
    "IllegalReason",
    "JokerAlone",
    "Match",
    "MatchRecord",
    "NextLead",
    "Observation",
    "Pass",
    "Phase",
    "Play",
    "PublicObservation",
    "Rank",
    "RecordError",
    "Request",
    "RevolutionEffect",
    "RevolutionTrigger",
    "Role",
    "Rules",
    "RulesError",
    "Seating",
    "Suit",
    "TrickEnd",
    "board_hands",
    "exchange_pairs",
    "exchange_partner",
    "fallback_action",
    "parse_action",
    "shuffled_deal",
    "visible_to",
]
