"""Rendering a `Summary`: a terminal table, JSON, Markdown (CI pages) and JUnit XML (CI test reports)."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from typing import Any

from president_engine.intervals import Interval
from president_engine.narrate import counted, plural
from president_service.league.arena_ratings import PROVISIONAL_MARK, PROVISIONAL_SIGMA, provisional

from president_harness.ladder.gate import Verdict
from president_harness.ladder.summary import Speed, Summary

STATISTIC = ("paired place difference per {unit}: place(B) - place(A) over the {units} both played;"
             " 'A > B' holds when its 95% Student-t interval lies above 0")


def _num(value: float) -> str:
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return "n/a" if math.isnan(value) else f"{value:.2f}"


def _ci(interval: Interval) -> str:
    return f"[{_num(interval.low)}, {_num(interval.high)}]"


def _statistic(summary: Summary) -> str:
    return STATISTIC.format(unit=_unit(summary), units=plural(_unit(summary)))


def _unit(summary: Summary) -> str:
    return "board" if summary.format.value == "duplicate" else "match"


def _verdict_line(v: Verdict, unit: str) -> str:
    d = v.difference
    return (f"{'PASS' if v.holds else 'FAIL'}  {v.claim.text}: {v.claim.better} finishes {_num(d.mean)} places"
            f" ahead of {v.claim.worse} per {unit}, 95% CI {_ci(d)} over {counted(d.n, unit)}")


def _standings_rows(summary: Summary) -> list[list[str]]:
    rows = []
    for rank, s in enumerate(summary.standings, 1):
        r = s.rating
        mark = PROVISIONAL_MARK if provisional(r.sigma) else ""
        rows.append([str(rank), r.name, f"{r.ordinal:.2f}{mark}", _num(s.place.mean), _ci(s.place), str(r.deals)])
    return rows


_HEAD = ["#", "bot", "rating ↓", "mean place", "95% CI", "deals"]
_RATING_NOTE = ("ordered by rating (↓): OpenSkill's conservative estimate mu - 3 sigma, as on the arena's and"
                " tournaments' tables; mean place: 1 = first, with its 95% interval")


def _standing_notes(summary: Summary) -> list[str]:
    """Why a row stands where it does: its rating is provisional, or a bot below it has the better mean place."""
    notes = []
    if any(provisional(s.rating.sigma) for s in summary.standings):
        notes.append(f"{PROVISIONAL_MARK} provisional: sigma above {PROVISIONAL_SIGMA:g} (few deals), so the rating is"
                     " mostly its uncertainty")
    for above, below in zip(summary.standings, summary.standings[1:], strict=False):
        if not below.place.mean < above.place.mean:
            continue
        a, b = below.rating.name, above.rating.name
        d = summary.pair(a, b).difference
        ahead = f"{a} finishes {_num(d.mean)} places ahead of {b} per {_unit(summary)}, 95% CI {_ci(d)}"
        if d.low > 0:
            notes.append(f"{a} stands below {b} but is better: {ahead}; the rating has not caught up (it needs"
                         " more deals than the mean place to settle an order)")
        else:
            notes.append(f"{b} and {a}: order not settled ({ahead}, which includes 0); the rating and the mean place"
                         " disagree within their uncertainty")
    return notes


def _h2h_rows(summary: Summary) -> tuple[list[str], list[list[str]]]:
    names = [s.rating.name for s in summary.standings]
    rows = []
    for a in names:
        row = [a]
        for b in names:
            if a == b:
                row.append("-")
                continue
            h = summary.pair(a, b)
            row.append(f"{100 * h.ahead / h.deals:.0f}% ({h.deals})" if h.deals else "")
        rows.append(row)
    return ["ahead of →", *names], rows


def _grid(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(c) for c in col) for col in zip(head, *rows, strict=True)]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [head, *rows]]


def _status(summary: Summary) -> str:
    return (f"{summary.counted}/{summary.scheduled} matches, {counted(summary.units, _unit(summary))},"
            f" {summary.format.value} format, {summary.preset}, {summary.players} players")


def terminal(summary: Summary) -> str:
    """Plain-text tables for a terminal."""
    lines = [f"Ladder {summary.name}: {_status(summary)}", ""]
    lines += [*_grid(_HEAD, _standings_rows(summary)), _RATING_NOTE, *_standing_notes(summary)]
    head, rows = _h2h_rows(summary)
    lines += ["", "Head to head: share of deals the row bot finished ahead of the column bot (deals)"]
    lines += _grid(head, rows)
    if summary.misbehaved:
        lines += ["", "Faults (answers replaced or refused, clock strikes, seats taken over, program crashes)"]
        lines += _grid(_FAULT_HEAD, _fault_rows(summary))
    lines += _notes(summary)
    if summary.speed is not None:
        lines += ["", *_speed_lines(summary.speed)]
    if summary.verdicts:
        lines += ["", *(_verdict_line(v, _unit(summary)) for v in summary.verdicts)]
    return "\n".join(lines) + "\n"


def _speed_lines(speed: Speed) -> list[str]:
    """This run's pace and where its CPU time went, per move (the server's only when it is the ladder's own; the
    command bots' only when some ran)."""
    per_match = f", {speed.moves / speed.matches:.0f} moves a match" if speed.matches else ""
    parts = [f"ladder and in-process bots {speed.per_move_us(speed.ladder_cpu_s):.0f} us"]
    if speed.server_cpu_s is not None:
        parts.insert(0, f"server {speed.per_move_us(speed.server_cpu_s):.0f} us")
    elif speed.served:
        parts.insert(0, "server not measured (not the ladder's own)")
    if speed.bots_cpu_s:
        parts.append(f"command bots {speed.per_move_us(speed.bots_cpu_s):.0f} us")
    busy = [cpu for cpu in (speed.server_cpu_s, speed.ladder_cpu_s, speed.bots_cpu_s) if cpu is not None]
    load = sum(busy) / speed.seconds if speed.seconds else 0.0
    uncounted = ", not counting Ray's own processes" if speed.on_ray else ""
    return [f"This run: {counted(speed.matches, 'match')} in {speed.seconds:.1f} s ({speed.matches_per_s:.1f} matches/s"
            f"{per_match}), {speed.parallel} at once",
            f"CPU per move: {', '.join(parts)} ({load:.1f} of {speed.cores} cores busy on average{uncounted})"]


_FAULT_HEAD = ["bot", "errors", "time-outs", "illegal", "strikes", "taken over", "crashes"]


def _fault_rows(summary: Summary) -> list[list[str]]:
    return [[f.name, str(f.errors), str(f.timeouts), str(f.invalid), str(f.strikes), str(f.takeovers),
             str(f.crashes)] for f in summary.misbehaved]


def _notes(summary: Summary) -> list[str]:
    notes = []
    if summary.taken_over:
        notes.append(f"warning: in {counted(summary.taken_over, 'match')} the server played a seat for a bot"
                     " that timed out")
    for index, error in summary.failed:
        notes.append(f"error: match {index} failed every attempt: {error}")
    if not summary.complete:
        notes.append(f"incomplete: {counted(summary.scheduled - summary.counted, 'match')} not played yet"
                     " (run again to resume)")
    return ["", *notes] if notes else []


def markdown(summary: Summary) -> str:
    """A Markdown report (for CI job summaries and pages)."""
    def table(head: list[str], rows: list[list[str]]) -> list[str]:
        return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
                *("| " + " | ".join(r) + " |" for r in rows)]

    out = [f"# Ladder {summary.name}", "", _status(summary) + ".", ""]
    if summary.verdicts:
        out += ["## Gate", ""]
        out += [f"- {'✅' if v.holds else '❌'} {_verdict_line(v, _unit(summary))}" for v in summary.verdicts]
        out += ["", "Statistic: " + _statistic(summary) + ".", ""]
    out += ["## Standings", "", *table(_HEAD, _standings_rows(summary)), "",
            _RATING_NOTE[0].upper() + _RATING_NOTE[1:] + ".", "",
            *(f"- {note}." for note in _standing_notes(summary)), *([""] if _standing_notes(summary) else [])]
    head, rows = _h2h_rows(summary)
    out += ["## Head to head", "", "Share of deals the row bot finished ahead of the column bot (deals).", "",
            *table(head, rows)]
    if summary.misbehaved:
        out += ["", "## Faults", "", *table(_FAULT_HEAD, _fault_rows(summary))]
    if summary.runs is not None:
        out += ["", f"Each match's record and its command bots' output: [{summary.runs.name}/]({summary.runs.name}/)"
                    f" (match-NNNNN, by schedule index)."]
    out += [line for line in _notes(summary)]
    if summary.speed is not None:
        out += ["", "## Speed", "", *(f"{line}." for line in _speed_lines(summary.speed))]
    return "\n".join(out) + "\n"


def _interval_json(i: Interval) -> dict[str, Any]:
    def num(x: float) -> float | None:
        return None if math.isnan(x) or math.isinf(x) else x
    return {"mean": num(i.mean), "low": num(i.low), "high": num(i.high), "n": i.n}


def to_json(summary: Summary) -> dict[str, Any]:
    """Everything in the summary as JSON-ready data (unbounded interval ends are null)."""
    return {
        "name": summary.name, "format": summary.format.value, "preset": summary.preset,
        "players": summary.players, "scheduled": summary.scheduled, "counted": summary.counted,
        "units": summary.units, "complete": summary.complete, "taken_over": summary.taken_over,
        "ordered_by": "ordinal",
        "standings": [{"name": s.rating.name, "mu": s.rating.mu, "sigma": s.rating.sigma,
                       "ordinal": s.rating.ordinal, "provisional": provisional(s.rating.sigma), "deals": s.rating.deals,
                       "place": _interval_json(s.place)}
                      for s in summary.standings],
        "head_to_head": [{"a": h.a, "b": h.b, "ahead": h.ahead, "deals": h.deals,
                          "difference": _interval_json(h.difference)} for h in summary.head_to_head],
        "gate": {"statistic": _statistic(summary), "passed": summary.passed,
                 "claims": [{"claim": v.claim.text, "better": v.claim.better, "worse": v.claim.worse,
                             "holds": v.holds, "difference": _interval_json(v.difference)}
                            for v in summary.verdicts]},
        "failed": [{"index": i, "error": e} for i, e in summary.failed],
        "faults": [{"name": f.name, "errors": f.errors, "timeouts": f.timeouts, "invalid": f.invalid,
                    "strikes": f.strikes, "taken_over": f.takeovers, "crashes": f.crashes} for f in summary.faults],
        "runs": None if summary.runs is None else str(summary.runs),
        "speed": None if summary.speed is None else {
            "matches": summary.speed.matches, "moves": summary.speed.moves, "seconds": summary.speed.seconds,
            "matches_per_s": summary.speed.matches_per_s, "parallel": summary.speed.parallel,
            "cores": summary.speed.cores, "server_cpu_s": summary.speed.server_cpu_s,
            "ladder_cpu_s": summary.speed.ladder_cpu_s, "bots_cpu_s": summary.speed.bots_cpu_s},
    }


def json_text(summary: Summary) -> str:
    return json.dumps(to_json(summary), indent=2) + "\n"


def junit(summary: Summary, *, strict: bool = False) -> str:
    """JUnit XML: one test case per claim, one that fails while matches failed or are missing, and with
    `strict` one that fails when a bot misbehaved."""
    suite = ET.Element("testsuite", name=f"ladder.{summary.name}")
    failures = 0
    unit = _unit(summary)
    for v in summary.verdicts:
        case = ET.SubElement(suite, "testcase", classname=f"ladder.{summary.name}", name=v.claim.text)
        if not v.holds:
            failures += 1
            ET.SubElement(case, "failure", message=f"claim not supported at 95%: {v.claim.text}").text = \
                _verdict_line(v, unit)
        ET.SubElement(case, "system-out").text = _verdict_line(v, unit)
    case = ET.SubElement(suite, "testcase", classname=f"ladder.{summary.name}", name="all matches played")
    if not summary.complete:
        failures += 1
        ET.SubElement(case, "failure", message="ladder incomplete").text = "\n".join(_notes(summary)).strip()
    if strict:
        case = ET.SubElement(suite, "testcase", classname=f"ladder.{summary.name}", name="no bot misbehaved")
        if summary.misbehaved:
            failures += 1
            ET.SubElement(case, "failure", message="a bot misbehaved").text = "\n".join(
                _grid(_FAULT_HEAD, _fault_rows(summary)))
    suite.set("tests", str(len(summary.verdicts) + 1 + strict))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
