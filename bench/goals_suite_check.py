"""Recomputing a goal suite's expected answers from the facts each goal's ``why`` quotes (stdlib only).

README
======

The answer checkers of the suites (``bench/goal_suite3/check_answers.py``, ``goal_suite4/``,
``goal_suite_probe2/``) are thin: each names its documents, how its facts are quoted and the suite's own
helpers, and hands the rest to :class:`AnswerChecker` here. Nothing here imports the planner (``ioa_p2p``):
the check is independent of what it checks.

Every goal's ``why`` quotes the facts it uses (``"..."``, or another quote the suite picks, e.g. ``«...»``
where facts hold double quotes) and ends with ``Check: <expression>``, the arithmetic of the answer written
with the numbers of those facts. For each goal :meth:`AnswerChecker.goal_problems` checks:

- the kind (one of :data:`KINDS`), a goal, a why, the sources (each a file under ``docs/``);
- every quoted fact occurs in one of the goal's sources (whitespace-normalised), and a goal with sources
  quotes at least one;
- the ``Check`` expression, evaluated with :data:`COMMON_NAMES` (``date``, ``timedelta``, ``ceil``,
  ``floor``, ``sqrt``, ``min``, ``max``, ``round``, ``clock``, ``mins``, ``workdays_after``,
  ``workdays_before``, ``school_days``, ``age_on``, ``nearest``), the suite's own names and ``run(**vars)``
  (the goal's own Python code run in a fresh interpreter with ``vars`` bound, its printed output), gives the
  expected answer: a number within ``tol``, the same date, the same text (for ``all_of`` the same set);
- the text answer of a single lookup (no code run) occurs in one of its sources;
- a goal that must be **refused** (``expected`` ``{"type": "refused", "missing": ...}``: the value it needs is
  in no document, so the planner must name it missing, exit 3) has no ``Check`` but an ``Absent: "..."`` list:
  each phrase (the thing asked about) occurs in none of its sources, case-insensitively.

:func:`check_main` runs a checker over split files and prints goal ids and problem counts only (``--show``
adds the reasons, never a goal's text or answer), exit 0 when every goal checks out, else 1.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from math import floor
from pathlib import Path
from typing import Any

KINDS = ("single", "chained", "three_agent", "natural")
DOUBLE_QUOTED = re.compile(r'"([^"]+)"')
GUILLEMETS = re.compile(r"«([^»]+)»")
FENCED = re.compile(r"```(?:python)?\s*\n(.*?)```", re.DOTALL)
INLINE = re.compile(r"`([^`\n]+)`")
BARE = re.compile(r"\brun (print\(.*?\))(?= with )")
#: errors a Check expression may raise on a bad goal (reported, never a crash)
CHECK_ERRORS = (
    ValueError,
    TypeError,
    NameError,
    KeyError,
    SyntaxError,
    ZeroDivisionError,
    subprocess.SubprocessError,
)


def squash(text: str) -> str:
    return " ".join(text.split())


def goal_code(goal: str) -> str:
    """A goal's Python code: a fenced block, else the first inline code, else ``run print(..) with``."""
    for pattern in (FENCED, INLINE, BARE):
        m = pattern.search(goal)
        if m:
            return m.group(1).strip()
    raise ValueError("no code in the goal")


class Printed(float):
    """A program's output that is a number: usable in arithmetic, its printed text kept in ``raw``."""

    raw: str


def run_code(code: str, bindings: Mapping[str, Any]) -> float | str:
    """Run ``code`` with ``bindings`` set, in a fresh Python; its output (a :class:`Printed` number when it
    is one, else the text)."""
    prelude = "".join(f"{name} = {value!r}\n" for name, value in bindings.items())
    done = subprocess.run(
        [sys.executable, "-I", "-c", prelude + code], capture_output=True, text=True, timeout=30, check=True
    )
    out = done.stdout.strip()
    try:
        number = Printed(out)
    except ValueError:
        return out
    number.raw = out
    return number


def clock(start: str, minutes: int) -> str:
    """``HH:MM`` ``minutes`` after ``start`` (``HH:MM``) on the same day."""
    hours, mins_ = map(int, start.split(":"))
    total = hours * 60 + mins_ + minutes
    return f"{total // 60:02d}:{total % 60:02d}"


def mins(start: str, end: str) -> int:
    """Minutes from ``start`` to a later ``end`` (both ``HH:MM``, same day)."""
    (h1, m1), (h2, m2) = (map(int, t.split(":")) for t in (start, end))
    return (h2 * 60 + m2) - (h1 * 60 + m1)


def workdays_after(day: date, n: int) -> date:
    """The ``n``-th Monday-to-Friday day after ``day`` (``day`` itself not counted)."""
    while n:
        day += timedelta(days=1)
        n -= day.weekday() < 5
    return day


def workdays_before(day: date, n: int) -> date:
    """The ``n``-th Monday-to-Friday day before ``day`` (``day`` itself not counted)."""
    while n:
        day -= timedelta(days=1)
        n -= day.weekday() < 5
    return day


def school_days(first: date, last: date, *closed: tuple[date, date]) -> int:
    """Weekdays from ``first`` to ``last`` (both counted) outside the ``closed`` ranges."""
    days, current = 0, first
    while current <= last:
        if current.weekday() < 5 and not any(a <= current <= b for a, b in closed):
            days += 1
        current += timedelta(days=1)
    return days


def age_on(born: date, day: date) -> int:
    """Completed years of age on ``day``."""
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


def nearest(value: float, step: float) -> float:
    """``value`` rounded to the nearest multiple of ``step`` (halves up)."""
    return floor(value / step + 0.5 + 1e-9) * step


COMMON_NAMES: Mapping[str, Any] = {
    "date": date,
    "timedelta": timedelta,
    "ceil": math.ceil,
    "floor": math.floor,
    "sqrt": math.sqrt,
    "min": min,
    "max": max,
    "round": round,
    "abs": abs,
    "clock": clock,
    "mins": mins,
    "workdays_after": workdays_after,
    "workdays_before": workdays_before,
    "school_days": school_days,
    "age_on": age_on,
    "nearest": nearest,
}


def agrees(expected: Mapping[str, Any], value: Any) -> bool:
    """Does a recomputed ``value`` give the ``expected`` answer?"""
    kind = expected["type"]
    if kind == "number":
        if isinstance(value, str):  # printed with a currency or separators: "EUR 1,250.00"
            numbers = re.findall(r"-?\d[\d,]*(?:\.\d+)?", value)
            value = float(numbers[0].replace(",", "")) if len(numbers) == 1 else None
        return (
            isinstance(value, int | float) and abs(float(value) - expected["value"]) <= expected["tol"] + 1e-9
        )
    if kind == "date":
        return isinstance(value, date) and value.isoformat() == expected["value"]
    if expected.get("all_of"):
        return isinstance(value, list) and sorted(value) == sorted(expected["all_of"])
    return bool(getattr(value, "raw", value) == expected["value"])


@dataclass(frozen=True)
class AnswerChecker:
    """One suite's answer checker: its documents folder, how its facts are quoted, its own helpers."""

    docs: Path
    names: Mapping[str, Any] = field(default_factory=dict)
    quote: re.Pattern[str] = DOUBLE_QUOTED

    def documents(self) -> dict[str, str]:
        """Every file under ``docs``, by its path relative to it."""
        return {
            p.relative_to(self.docs).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(self.docs.rglob("*"))
            if p.is_file()
        }

    def computed_answer(self, g: Mapping[str, Any]) -> Any:
        """The value of the goal's ``Check`` expression."""
        why = g["why"]
        if "Check:" not in why:
            raise ValueError("the why has no Check: expression")
        expression = why.rsplit("Check:", 1)[1].strip()

        def run(**bindings: Any) -> float | str:
            return run_code(goal_code(g["goal"]), bindings)

        names = {**COMMON_NAMES, **self.names, "run": run}
        return eval(expression, {"__builtins__": {}}, names)  # our own data, never input from elsewhere

    def goal_problems(self, g: Mapping[str, Any], docs: Mapping[str, str]) -> list[str]:
        """What is wrong with one goal (empty when it checks out); reasons never quote the goal."""
        problems = []
        if g.get("kind") not in KINDS or not g.get("goal") or not g.get("why"):
            problems.append("needs a kind, a goal and a why")
            if not g.get("why") or not g.get("goal"):
                return problems
        texts = []
        for source in g.get("sources", []):
            if source not in docs:
                problems.append("a source is not under docs/")
            else:
                texts.append(squash(docs[source]))
        if g["expected"].get("type") == "refused":
            return problems + self.refusal_problems(g, texts)
        facts = self.quote.findall(g["why"].rsplit("Check:", 1)[0])
        missing = sum(1 for fact in facts if not any(squash(fact) in t for t in texts))
        if missing:
            problems.append(f"{missing} quoted fact(s) not in the sources")
        if g.get("sources") and not facts:
            problems.append("sources but no quoted fact")
        try:
            value = self.computed_answer(g)
        except CHECK_ERRORS as exc:
            return [*problems, f"the Check expression fails ({type(exc).__name__})"]
        if not agrees(g["expected"], value):
            problems.append("the Check expression does not give the expected answer")
        exp = g["expected"]
        ran_code = "run(" in g["why"].rsplit("Check:", 1)[1]
        lookup = exp["type"] == "text" and g.get("kind") == "single" and not ran_code
        if lookup and texts:
            forms = exp.get("all_of") or [exp.get("value"), *exp.get("accept", [])]
            if not any(squash(f).lower() in t.lower() for f in forms if f for t in texts):
                problems.append("a text answer found in none of its sources")
        return problems

    def refusal_problems(self, g: Mapping[str, Any], texts: list[str]) -> list[str]:
        """A goal that must be refused: it names what is missing, and that is in none of its sources."""
        why = g["why"]
        if "Check:" in why:
            return ["a goal that must be refused has a Check expression"]
        if not texts or "Absent:" not in why or not g["expected"].get("missing"):
            return ["a goal that must be refused needs sources, a missing value and an Absent: list"]
        absent = self.quote.findall(why.rsplit("Absent:", 1)[1])
        if not absent:
            return ["the Absent: list quotes nothing"]
        found = sum(1 for phrase in absent if any(squash(phrase).lower() in t.lower() for t in texts))
        return [f"{found} phrase(s) said to be absent occur in the sources"] if found else []


def check_main(
    checker: AnswerChecker,
    splits: Iterable[tuple[str, Callable[[], list[dict[str, Any]]]]],
    description: str,
    argv: list[str] | None = None,
) -> int:
    """Check every goal of every split (``(name, reader)`` pairs); print ids and counts only."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--show", action="store_true", help="print the problem reasons (ids and kinds only)")
    args = parser.parse_args(argv)
    docs = checker.documents()
    seen: set[str] = set()
    bad = total = 0
    for split, read in splits:
        for g in read():
            total += 1
            found = checker.goal_problems(g, docs)
            if g["id"] in seen:
                found.append("duplicate id")
            seen.add(g["id"])
            if found:
                bad += 1
                print(
                    f"{split} {g['id']}: " + ("; ".join(found) if args.show else f"{len(found)} problem(s)")
                )
    print(f"{total} goals checked, {bad} with problems")
    return 1 if bad else 0


@dataclass(frozen=True)
class HeldoutProbe:
    """A probe folder (``docs/`` and ``heldout.json``, facts quoted in «guillemets»): its checker, reader
    and the ``goal_problems``/``main`` its ``check_answers.py`` exposes.

    ``python bench/goal_suite_probeN/check_answers.py`` prints counts and problem ids (``--show``: also
    the reasons). Every fact quoted in «guillemets» occurs in the goal's sources, the ``Check`` expression
    (with ``run(**vars)`` running the goal's own code) gives the expected answer, a single lookup's text
    answer is in its sources, and a goal that must be refused names what is missing and its ``Absent:``
    phrases occur in none of its sources. Exit code 0 when every goal checks out, 1 otherwise."""

    root: Path
    checker: AnswerChecker = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "checker", AnswerChecker(self.root / "docs", quote=GUILLEMETS))

    def read_split(self, name: str = "heldout") -> list[dict[str, Any]]:
        return list(json.loads((self.root / f"{name}.json").read_text(encoding="utf-8"))["goals"])

    def goal_problems(self, g: dict[str, Any], docs: dict[str, str]) -> list[str]:
        return self.checker.goal_problems(g, docs)

    def main(self, description: str, argv: list[str] | None = None) -> int:
        return check_main(self.checker, [("heldout", self.read_split)], description, argv)
