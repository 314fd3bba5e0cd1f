"""President as an OpenSpiel game (``pyspiel.load_game("president", {...})`` after `register`).

The deal is chance: one chance node per card, in the order the rules deal
them (one card at a time from the first seat dealt to), each outcome a card
slot (0-51 by rank and suit, 52 the joker) with its probability among the
cards not yet dealt; a match of several deals deals each one this way.
Player actions are the indices of the engine's fixed action space
(docs/learning.md), legal ones from the engine's own list.  Imperfect
information: observation and information-state strings and tensors are
built from what the player may see (`Match.observation`, and the events
`visible_to` them for the history).  Returns are zero-sum (`Reward`), the
sum of every deal's, paid at the end of the match (terminal rewards, as
OpenSpiel's MCTS wants).

Parameters: ``preset`` (cardverse), ``players`` and ``deals`` (0: the
preset's), ``reward`` (places or points), ``options`` (a JSON object of
further rule options, e.g. ``{"jokers": 2}``).
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import numpy as np
import pyspiel
from president_engine import Action, CardSet, Match, Observation, Phase, Rank, Rules
from president_engine.action_space import action_space
from president_engine.cards import CARDS, SLOT_BITS, SLOT_COUNT, slot_count
from president_engine.events import DealEnded, DealStarted, HandDealt, Played, visible_to
from president_engine.observation_tensor import RANKS, observation_fields, observation_tensor
from president_engine.rules import MAX_DECKS

from president_learn.reward import Reward

GAME_NAME = "president"
_PARAMETERS: dict[str, Any] = {"preset": "cardverse", "players": 0, "deals": 0, "reward": "places", "options": "{}"}

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="President",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_DECKS * 54,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


def rules_from_parameters(params: dict[str, Any]) -> tuple[Rules, Reward]:
    """The rules and reward that the game's parameters name (RulesError, ValueError when they are wrong)."""
    merged = {**_PARAMETERS, **params}
    options = json.loads(str(merged["options"]))
    if not isinstance(options, dict):
        raise ValueError("options: a JSON object of rule options, e.g. {\"jokers\": 2}")
    for name in ("players", "deals"):
        if int(merged[name]):
            options[name] = int(merged[name])
    return Rules.preset(str(merged["preset"]), **options), Reward.parse(str(merged["reward"]))


class PresidentGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no types
    """The static game: rules, action space, bounds."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.rules, self.reward = rules_from_parameters(params or {})
        self.space = action_space(self.rules)
        rules = self.rules
        deals = _max_deals(rules)
        low, high = self.reward.bounds(rules)
        moves = rules.deck_size * rules.players + 4  # each play followed by at most everyone passing; 4 exchange steps
        info = pyspiel.GameInfo(
            num_distinct_actions=self.space.size,
            max_chance_outcomes=SLOT_COUNT,
            num_players=rules.players,
            min_utility=low * deals,
            max_utility=high * deals,
            utility_sum=0.0,
            max_game_length=deals * moves,
        )
        super().__init__(GAME_TYPE, info, params or {})

    def new_initial_state(self) -> PresidentState:
        return PresidentState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> PresidentObserver:
        del params
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if iig_obs_type is not None and (not iig_obs_type.public_info
                                         or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("President observes as one player: public information and that player's own cards")
        return PresidentObserver(self.rules, perfect_recall=recall)


class _Fixed:
    """What every state of a game shares: never copied when OpenSpiel clones a state (it deep-copies them)."""

    def __init__(self, game: PresidentGame) -> None:
        self.rules = game.rules
        self.space = game.space
        self.reward = game.reward

    def __deepcopy__(self, memo: dict[int, Any]) -> _Fixed:
        return self


class _Progress:
    """A state's changing part, with a clone that copies the match the engine's way (`Match.copy`)."""

    def __init__(self, rules: Rules) -> None:
        self.match = Match(rules)
        """The engine's state; while a deal is dealt only its public fields (seats, roles, scores) are read."""
        self.deals: list[tuple[CardSet, ...]] = []
        """The hands of each deal dealt so far, by seat."""
        self.actions: list[Action] = []
        """Every player action so far, to rebuild the match when a deal has been dealt."""
        self.received: list[list[list[int]]] = []
        """Card slots each player was dealt, in order, per deal (a player saw them arrive one by one)."""
        self.order: list[int] = []
        """The seat each card of the deal in progress goes to, in order."""
        self.hands: list[int] = []
        """The bits of each seat's cards dealt so far in the deal in progress."""
        self.left = 0
        """The bits of the cards not yet dealt."""
        self.returns = [0.0] * rules.players
        """Each player's rewards of the deals played so far."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Progress:
        new = copy.copy(self)
        new.match = self.match.copy()
        new.deals = list(self.deals)
        new.actions = list(self.actions)
        new.received = [[list(cards) for cards in deal] for deal in self.received]
        new.hands = list(self.hands)
        return new


class PresidentState(pyspiel.State):  # type: ignore[misc]
    """A match in progress: the engine's `Match`, with each deal dealt by chance."""

    def __init__(self, game: PresidentGame) -> None:
        super().__init__(game)
        self._fixed = _Fixed(game)
        self._p = _Progress(game.rules)
        self._start_dealing(0)

    @property
    def rules(self) -> Rules:
        return self._fixed.rules

    @property
    def match(self) -> Match:
        """The engine's match (hidden cards included); while dealing, only its public fields mean anything."""
        return self._p.match

    # ------------------------------------------------------------------ dealing

    def _start_dealing(self, start_seat: int) -> None:
        n = self.rules.players
        p = self._p
        p.order = [(start_seat + i) % n for i in range(self.rules.deck_size)]
        p.hands = [0] * n
        p.left = self.rules.deck.bits
        p.received.append([[] for _ in range(n)])

    @property
    def dealing(self) -> bool:
        """True while the cards of a deal are going out (chance nodes)."""
        return len(self._p.deals) < self.match.deal

    def dealt(self, player: int) -> CardSet:
        """The cards `player` has been dealt so far in the deal being dealt."""
        return CardSet.from_bits(self._p.hands[self.match.seat_of(player)])

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = self._p.left
        total = len(CardSet.from_bits(left))
        return [(slot, count / total) for slot in range(SLOT_COUNT) if (count := slot_count(left, slot))]

    def _deal_card(self, slot: int) -> None:
        p = self._p
        if not slot_count(p.left, slot):
            raise ValueError(f"chance outcome {slot}: no {CARDS[slot]} left to deal")
        seat = p.order[sum(self._hand_sizes())]
        unit = 1 << (slot * SLOT_BITS)
        p.left -= unit
        p.hands[seat] += unit
        p.received[-1][self.match.seats[seat]].append(slot)
        if not p.left:
            p.deals.append(tuple(CardSet.from_bits(h) for h in p.hands))
            p.match = Match(self.rules, hands=p.deals)
            for action in p.actions:
                p.match.apply(action)

    def _hand_sizes(self) -> list[int]:
        return [len(CardSet.from_bits(h)) for h in self._p.hands]

    # ------------------------------------------------------------------ pyspiel.State

    def current_player(self) -> int:
        if self.dealing:
            return int(pyspiel.PlayerId.CHANCE)
        if self.match.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        to_act = self.match.to_act
        assert to_act is not None
        return to_act

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []
        return sorted(self._fixed.space.indices(self.match.legal_actions()))

    def _apply_action(self, action: int) -> None:
        p = self._p
        if self.dealing:
            self._deal_card(action)
            return
        match = self.match
        chosen = self._fixed.space.action(action, match.legal_actions())
        p.actions.append(chosen)
        seen = len(match.events)
        match.apply(chosen)
        for event in match.events[seen:]:
            if isinstance(event, DealEnded):
                earned = self._fixed.reward.deal(self.rules, event.places)
                p.returns = [a + b for a, b in zip(p.returns, earned, strict=True)]
            elif isinstance(event, DealStarted):
                self._start_dealing((event.seats.index(event.dealer) + 1) % self.rules.players)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {CARDS[action]}"
        space = self._fixed.space
        if player == self.current_player():
            for legal in self.match.legal_actions():
                if space.index(legal) == action:
                    return str(legal)
        return space.label(action)

    def is_terminal(self) -> bool:
        return not self.dealing and self.match.is_over

    def returns(self) -> list[float]:
        """Every deal's rewards added up, at the end of the match (terminal rewards: 0 until then)."""
        return list(self._p.returns) if self.is_terminal() else [0.0] * self.rules.players

    def __str__(self) -> str:
        """Every hand and the public state (a debugging view, hidden cards included)."""
        match = self.match
        if self.dealing:
            hands = " | ".join(str(self.dealt(p)) for p in range(self.rules.players))
            return f"deal {match.deal} dealing: {hands}"
        hands = " | ".join(str(match.hand(p)) for p in range(self.rules.players))
        return f"deal {match.deal} {match.phase.value}, to act {match.to_act}, table {match.table}: {hands}"

    # ------------------------------------------------------------------ what a player sees

    def observation(self, player: int) -> Observation:
        """`player`'s engine observation; while dealing, the cards dealt so far and the public fields."""
        if not self.dealing:
            return self.match.observation(player)
        match = self.match
        sizes = self._hand_sizes()
        return Observation(
            rules=self.rules, deal=match.deal, phase=Phase.PLAY, to_act=None,
            hand_sizes=tuple(sizes[match.seat_of(p)] for p in range(self.rules.players)), seats=match.seats,
            roles=tuple(match.roles), scores=tuple(match.scores), places=(), rank_order=self.rules.rank_order,
            reversed=False, direction=1, table=None, table_player=None, trick=(), played=CardSet(), exchange=(),
            player=player, hand=self.dealt(player), owed=0, legal_actions=())

    def history_seen(self, player: int) -> list[str]:
        """Everything `player` has seen, in order: the cards dealt to them one by one, then the visible events."""
        seen: list[str] = []
        deal = 0
        deals = self._p.deals
        received = self._p.received
        for event in self.match.events if deals else ():  # before the first deal is dealt: nothing seen
            shown = visible_to(event, player)
            if isinstance(event, DealStarted):
                deal = event.deal
                if deal > len(deals):
                    break
            if isinstance(shown, HandDealt):
                seen.append("dealt " + " ".join(str(CARDS[s]) for s in received[deal - 1][player]))
            elif shown is not None:
                seen.append(repr(shown))
        if self.dealing:
            seen.append(f"deal {self.match.deal} dealt " + " ".join(str(CARDS[s]) for s in received[-1][player]))
        return seen


class PresidentObserver:
    """OpenSpiel's observer: the engine's observation tensor; with perfect recall, plus what each seat played."""

    def __init__(self, rules: Rules, *, perfect_recall: bool) -> None:
        self.rules = rules
        self.perfect_recall = perfect_recall
        fields = observation_fields(rules)
        self._size = fields[-1].stop
        pieces = [(f.name, f.size) for f in fields]
        if perfect_recall:
            pieces.append(("played_by_seat", rules.players * RANKS))
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {}
        start = 0
        for name, size in pieces:
            self.dict[name] = self.tensor[start:start + size]
            start += size
        self._dealing_fields = [f for f in fields if f.name in ("phase", "leading")]

    def set_from(self, state: PresidentState, player: int) -> None:
        """Fill `tensor` with what `player` sees of `state` (while dealing: phase and leading stay 0)."""
        obs = state.observation(player)
        self.tensor[:self._size] = observation_tensor(obs)
        if state.dealing:
            for f in self._dealing_fields:
                self.tensor[f.start:f.stop] = 0.0
        if self.perfect_recall:
            by_seat = self.dict["played_by_seat"].reshape(self.rules.players, RANKS)
            by_seat[:] = 0.0
            if not state.dealing:
                _played_by_seat(by_seat, state, obs)

    def string_from(self, state: PresidentState, player: int) -> str:
        if self.perfect_recall:
            return f"p{player}\n" + "\n".join(state.history_seen(player))
        obs = state.observation(player)
        if state.dealing:
            return f"p{player} deal {obs.deal} dealing, dealt {obs.hand}"
        table = "-" if obs.table is None else str(obs.table)
        order = " ".join(str(r) for r in obs.rank_order)
        return (f"p{player} deal {obs.deal} {obs.phase.value} to act {obs.to_act} hand {obs.hand or '-'}"
                f" | table {table} by {obs.table_player} | cards {list(obs.hand_sizes)} | played {obs.played or '-'}"
                f" | order {order} | roles {[r.value for r in obs.roles]} | scores {list(obs.scores)}"
                f" | trick {[str(e) for e in obs.trick]}")


def _played_by_seat(out: np.ndarray[Any, np.dtype[np.float32]], state: PresidentState, obs: Observation) -> None:
    """What each seat (relative to the observer) played in this deal, per rank / copies, from the log as
    the observer sees it (`visible_to`)."""
    rules = state.rules
    n = rules.players
    me = obs.seats.index(obs.player)
    seat_of = {obs.seats[(me + k) % n]: k for k in range(n)}
    axis = (*rules.rank_order, Rank.JOKER)
    copies = [4 * rules.decks] * 13 + [rules.jokers * rules.decks]
    for event in reversed(state.match.events):
        if isinstance(event, DealStarted):
            break
        shown = visible_to(event, obs.player)
        if isinstance(shown, Played):
            for i, rank in enumerate(axis):
                count = shown.play.cards.count_rank(rank)
                if count:
                    out[seat_of[shown.player], i] += count / copies[i]


def _max_deals(rules: Rules) -> int:
    """The most deals a match can last: `deals`, or enough for the best score to reach `target_score`."""
    if rules.target_score is None:
        assert rules.deals is not None
        return rules.deals
    total = sum(rules.points)
    by_target = math.ceil(rules.players * rules.target_score / total) + 1
    return by_target if rules.deals is None else min(rules.deals, by_target)


def register() -> None:
    """Register the game with OpenSpiel (once per process; later calls do nothing)."""
    if GAME_NAME not in pyspiel.registered_names():
        pyspiel.register_game(GAME_TYPE, PresidentGame)

