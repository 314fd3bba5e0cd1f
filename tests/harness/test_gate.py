"""The CI gate: claims parsed, and judged by the paired interval."""

from __future__ import annotations

import pytest
from president_harness.ladder.gate import MIN_UNITS, ClaimError, judge, parse_claim

NAMES = ("mybot", "normal", "easy")


def test_parse_claims() -> None:
    claim = parse_claim("mybot > normal", NAMES)
    assert (claim.better, claim.worse) == ("mybot", "normal")
    assert (parse_claim(" easy<mybot ", NAMES).better, parse_claim("easy<mybot", NAMES).worse) == ("mybot", "easy")
    for bad in ("mybot >> normal", "mybot > nobody", "mybot > mybot", "mybot"):
        with pytest.raises(ClaimError):
            parse_claim(bad, NAMES)


BOARD = 4
"""Deals behind each unit below: boards of four deals (their mean places are quarters)."""


def test_claim_passes_only_when_the_interval_excludes_zero() -> None:
    strong = [{"mybot": 1.5, "normal": 2.5}, {"mybot": 1.0, "normal": 2.25}, {"mybot": 1.75, "normal": 2.5},
              {"mybot": 1.25, "normal": 2.0}, {"mybot": 1.5, "normal": 2.75}]
    assert judge(parse_claim("mybot > normal", NAMES), strong, 4, per_unit=BOARD).holds
    assert not judge(parse_claim("normal > mybot", NAMES), strong, 4, per_unit=BOARD).holds
    noisy = [{"mybot": 1.0, "normal": 3.0}, {"mybot": 3.0, "normal": 1.0}, {"mybot": 1.5, "normal": 2.0}]
    assert not judge(parse_claim("mybot > normal", NAMES), noisy, 4, per_unit=BOARD).holds
    assert not judge(parse_claim("mybot > normal", NAMES), strong[:1], 4, per_unit=BOARD).holds  # one unit
    assert not judge(parse_claim("mybot > easy", NAMES), strong, 4, per_unit=BOARD).holds  # never met
    # the same five values as matches of one deal each: a deal's place can swing by 3, five deals prove nothing
    assert not judge(parse_claim("mybot > normal", NAMES), strong, 4).holds


def test_identical_units_below_the_minimum_prove_nothing() -> None:
    same = [{"mybot": 1.0, "normal": 2.0}] * (MIN_UNITS - 1)
    assert not judge(parse_claim("mybot > normal", NAMES), same, 4, per_unit=BOARD).holds  # too few units
    assert judge(parse_claim("mybot > normal", NAMES), same + same[:1], 4, per_unit=BOARD).holds
