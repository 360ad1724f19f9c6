"""Kind ``calculator``: exact arithmetic from natural-language tasks, with no LLM and no ``eval``.

Pipeline (pure functions, no I/O): normalise the text (words such as "plus", "times", "divided by",
"squared", "percent", "square root of", "sum of"; thousands separators; unicode operators)
-> tokenise -> split into runs of arithmetic tokens (other words end a run) -> a small Pratt
parser builds an expression tree -> exact evaluation with :class:`fractions.Fraction`.

Supported: ``+ - * / ^ ** mod %`` (postfix percent, ``X% of Y``, ``a % b`` as modulo when a
number follows), parentheses (and ``2(3+4)``), unary minus, ``n!``, ``sqrt``, ``cbrt``, ``abs``,
``factorial``, ``sum|product|average|mean of a, b and c``, ``difference between a and b``.
``X%`` alone is ``X/100`` (so ``50 + 10%`` is 50.1, not 55). Roots and non-integer powers are
exact when the result is rational, otherwise a 50-digit decimal approximation marked inexact.

Limits: every intermediate numerator/denominator is at most ``max_bits`` bits (``9^9^9`` is
refused before it is computed), the total work of a task is bounded (``max_work_bits``),
factorials up to ``max_factorial``, nesting up to :data:`MAX_DEPTH`, number literals up to
:data:`MAX_LITERAL_CHARS` characters. Anything else raises :class:`~ioa_p2p.errors.TaskRejected`
with the reason: that includes tasks with no arithmetic operation at all.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from ioa_p2p.adapters.base import AdapterCard, Task, TaskContext, TaskResult, parse_options
from ioa_p2p.adapters.calculator.dates import date_calculation
from ioa_p2p.adapters.calculator.evaluate import evaluate
from ioa_p2p.adapters.calculator.parser import is_operation, parse
from ioa_p2p.adapters.calculator.render import approx, digit_count, format_value, render
from ioa_p2p.adapters.calculator.values import (
    MAX_INPUT_CHARS,
    MAX_SHOWN_EXPRESSION,
    MAX_SHOWN_INT_DIGITS,
    Budget,
    Limits,
)
from ioa_p2p.errors import AdapterOptionsError, TaskRejected

KIND = "calculator"


@dataclass(frozen=True, slots=True)
class Calculation:
    expression: str
    value: Fraction
    exact: bool

    def shown(self) -> str:
        return format_value(self.value, self.exact)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "expression": self.expression,
            "value": self.shown(),
            "exact": self.exact,
            "approx": approx(self.value),
        }
        if self.exact and digit_count(self.value) <= MAX_SHOWN_INT_DIGITS:
            out["fraction"] = f"{self.value.numerator}/{self.value.denominator}"
        return out


# --------------------------------------------------------------------------- public API


def calculate(text: str, limits: Limits | None = None) -> list[Calculation]:
    """Every arithmetic operation in ``text``, evaluated exactly.

    Raises :class:`TaskRejected` if there is none, or if one cannot be computed (division by zero,
    limits); never anything else.
    """
    limits = limits or Limits()
    try:
        nodes = [n for n in parse(str(text)) if is_operation(n)]
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps recursion far below the limit
        raise TaskRejected("the expression is nested too deeply") from None
    if not nodes:
        raise TaskRejected(
            "no arithmetic found: give numbers and operators, e.g. 'what is 12.5% of 2,400?' "
            "or 'compute (3+4)*5/7'"
        )
    if len(nodes) > limits.max_expressions:
        raise TaskRejected(f"more than {limits.max_expressions} calculations in one task")
    budget = Budget(limits)
    out = []
    for node in nodes:
        value = evaluate(node, budget)
        shown = render(node)
        if len(shown) > MAX_SHOWN_EXPRESSION:
            shown = shown[: MAX_SHOWN_EXPRESSION - 1] + "…"
        out.append(Calculation(shown, value.q, value.exact))
    return out


@dataclass(frozen=True, slots=True)
class CalculatorOptions:
    max_bits: int = 100_000
    max_factorial: int = 3_000
    max_expressions: int = 20
    max_work_bits: int = 2_000_000
    name: str = "calculator"
    skills: tuple[str, ...] = ("arithmetic", "percentages", "exact fractions", "powers and roots")


class CalculatorAdapter:
    """Answers arithmetic questions exactly; rejects everything else."""

    OPTIONS: ClassVar[type] = CalculatorOptions  # what `ioa adapters` lists

    def __init__(self, options: CalculatorOptions | None = None) -> None:
        options = options or CalculatorOptions()
        o = options
        if min(o.max_bits, o.max_factorial, o.max_expressions, o.max_work_bits) < 1:
            raise AdapterOptionsError("calculator limits must be positive integers")
        self.options = options
        self.limits = Limits(o.max_bits, o.max_factorial, o.max_expressions, o.max_work_bits)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> CalculatorAdapter:
        return cls(parse_options(CalculatorOptions, options, KIND))

    def describe(self) -> AdapterCard:
        return AdapterCard(
            name=self.options.name,
            description=(
                "Exact calculator: evaluates arithmetic in plain-language tasks (percentages, "
                "fractions, powers, roots, sums, averages) without an LLM."
            ),
            skills=self.options.skills,
            kind=KIND,
            task_types=("arithmetic", "date arithmetic"),
            input_types=("text/plain",),
            output_types=("text/plain",),
        )

    def can_do(self, task: Task) -> float:
        """Cheap estimate (0..1) that this adapter can do ``task``: 1 when it holds a calculation."""
        if date_calculation(task.text[:MAX_INPUT_CHARS]) is not None:
            return 1.0
        try:
            return 1.0 if calculate(task.text, self.limits) else 0.0
        except TaskRejected:
            return 0.0

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        dated = date_calculation(task.text[:MAX_INPUT_CHARS])
        if dated is not None:
            value = dated.to_dict()
            text = f"{dated.expression} = {value['text']}"
            return TaskResult.success(text, data={"value": value, "confidence": 1.0, "results": []})
        # Pure and bounded (<~0.5 s), but CPU-bound: keep it off the node's event loop.
        job = functools.partial(calculate, task.text, self.limits)
        results = await ctx.run_sync(job)
        lines = [f"{c.expression} = {c.shown()}" for c in results]
        await ctx.progress(f"{len(results)} calculation(s) done", 1.0)
        last = results[-1]
        value = {"kind": "number", "value": float(last.value), "unit": "", "text": last.shown()}
        data = {"results": [c.to_dict() for c in results], "value": value, "confidence": 1.0}
        return TaskResult.success("\n".join(lines), data=data)

    async def aclose(self) -> None:
        return None


__all__ = [
    "Calculation",
    "CalculatorAdapter",
    "CalculatorOptions",
    "Limits",
    "calculate",
    "format_value",
    "parse",
]
