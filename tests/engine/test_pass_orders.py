"""A given pass-limit order: an explicit deal the pass limit ends ranks the players still holding cards as given
(a game taken from another server's log, whose 20-pass rule drew that order), other deals as the seed draws."""

from __future__ import annotations

import pytest
from president_engine import PASS, DealError, Match, MatchRecord, Phase, Play, Rules
from president_engine.deal import shuffled_deal
from president_engine.events import DealEnded

RULES = Rules.preset("daifugo", deals=2)
HANDS = [shuffled_deal(RULES, 11, 1, 0), shuffled_deal(RULES, 11, 2, 0)]


def _passed_out(m: Match) -> tuple[int, ...]:
    """The exchange as the first legal give-backs, then every player passes until the pass limit ends the deal
    in progress: its places."""
    deal = m.deal
    while m.phase is Phase.GIVE_BACK:
        m.apply(m.legal_actions()[0])
    for _ in range(20):
        m.apply(PASS)
    ended = [e for e in m.events if isinstance(e, DealEnded) and e.deal == deal]
    assert ended, "20 passes in a row end the deal (UECDA 4.8)"
    return ended[0].places


def test_the_given_order_ranks_the_players_the_pass_limit_finds_holding_cards() -> None:
    drawn = _passed_out(Match(RULES, seed=3, hands=HANDS))
    given = tuple(reversed(drawn))
    m = Match(RULES, seed=3, hands=HANDS, pass_orders=[given])
    assert _passed_out(m) == given != drawn
    both = Match(RULES, seed=3, hands=HANDS, pass_orders=[given, (0, 1, 2, 3, 4)])
    assert _passed_out(both) == given and _passed_out(both) == (0, 1, 2, 3, 4) != _passed_out(m), \
        "each explicit deal follows its own order; one without any draws from the seed"


def test_only_the_players_still_holding_cards_follow_the_order() -> None:
    """A player out before the pass limit keeps the place it took; the rest follow the order."""
    m = Match(RULES, seed=5, hands=HANDS, pass_orders=[(4, 3, 2, 1, 0)])
    while 0 not in m.hand_sizes():
        plays = [a for a in m.legal_actions() if isinstance(a, Play)]
        m.apply(max(plays, key=lambda a: len(a.cards)) if plays else PASS)  # the longest play: someone goes out
    assert m.deal == 1
    out = [p for p in range(5) if m.hand_sizes()[p] == 0]
    assert len(out) == 1
    assert _passed_out(m) == (*out, *(p for p in (4, 3, 2, 1, 0) if p not in out))


def test_a_pass_order_naming_each_player_once_and_for_an_explicit_deal_only() -> None:
    for order in ((0, 1, 2, 3), (0, 1, 2, 3, 3), (0, 1, 2, 3, 5)):
        with pytest.raises(DealError, match="does not name each of players 0 to 4 once"):
            Match(RULES, hands=HANDS, pass_orders=[order])
    with pytest.raises(DealError, match="a pass order given for a deal without explicit hands"):
        Match(RULES, hands=HANDS[:1], pass_orders=[None, (0, 1, 2, 3, 4)])


def test_a_copy_and_the_record_keep_the_order() -> None:
    given = (2, 4, 0, 1, 3)
    m = Match(RULES, seed=3, hands=HANDS, pass_orders=[given, None])
    assert _passed_out(m.copy()) == given
    _passed_out(m)
    record = MatchRecord.from_match(m)
    assert record.deals[0].pass_order == given and record.deals[1].pass_order == ()
    again = MatchRecord.loads(record.dumps())
    assert again == record and again.replay().events == m.events
    written = record.to_json()["deals"]
    assert written[0]["pass_order"] == list(given) and "pass_order" not in written[1], "none written for a drawn one"
