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
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import trio

from ioa_p2p.adapters.base import AdapterCard, Task, TaskContext, TaskResult, parse_options
from ioa_p2p.adapters.calculator.dates import date_calculation
from ioa_p2p.errors import AdapterOptionsError, TaskRejected

KIND = "calculator"
MAX_INPUT_CHARS = 20_000
MAX_DEPTH = 64
MAX_LITERAL_CHARS = 400
APPROX_DIGITS = 50
SHOW_DIGITS = 15
MAX_SHOWN_INT_DIGITS = 400
MAX_SHOWN_EXPRESSION = 300

# --------------------------------------------------------------------------- limits and values


@dataclass(frozen=True, slots=True)
class Limits:
    max_bits: int = 100_000
    max_factorial: int = 3_000
    max_expressions: int = 20
    #: Sum of the sizes (bits) of all intermediate results of one task: bounds the time (~0.5 s).
    max_work_bits: int = 2_000_000


@dataclass(slots=True)
class _Budget:
    limits: Limits
    spent: int = 0


@dataclass(frozen=True, slots=True)
class Value:
    q: Fraction
    exact: bool = True


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
            "approx": _approx(self.value),
        }
        if self.exact and _digits(self.value) <= MAX_SHOWN_INT_DIGITS:
            out["fraction"] = f"{self.value.numerator}/{self.value.denominator}"
        return out


# --------------------------------------------------------------------------- normalising and tokens

_PHRASES: tuple[tuple[str, str], ...] = (
    (r"\braised to the power of\b", " ^ "),
    (r"\bto the power of\b", " ^ "),
    (r"\bto the power\b", " ^ "),
    (r"\braised to\b", " ^ "),
    (r"\bmultiplied by\b", " * "),
    (r"\btimes\b", " * "),
    (r"\bdivided by\b", " / "),
    (r"\bplus\b", " + "),
    (r"\bminus\b", " - "),
    (r"\bsquared\b", " ^ 2 "),
    (r"\bcubed\b", " ^ 3 "),
    (r"\bper ?cent\b", " % "),
    (r"\bsquare root( of)?\b", " sqrt "),
    (r"\bcube root( of)?\b", " cbrt "),
    (r"\bmodulo\b", " mod "),
    (r"(?<=[\d)])\s*factorial\b", " ! "),
    (r"\bfactorial( of)?\b", " fact "),
    (r"\babsolute value( of)?\b", " abs "),
    (r"\b(?:sum|total)( of)?\b", " sum "),
    (r"\bproduct( of)?\b", " product "),
    (r"\b(?:average|mean)( of)?\b", " avg "),
    (r"\bdifference (?:between|of)\b", " diff "),
)
_PHRASE_RES = tuple((re.compile(p), r) for p, r in _PHRASES)
_UNICODE = str.maketrans(
    {
        "×": "*",
        "·": "*",
        "∗": "*",
        "÷": "/",
        "−": "-",
        "–": "-",
        "√": " sqrt ",
        "²": "^2",
        "³": "^3",
    }
)
_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d]|,\d)")
_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{4}\b")
_TIMES_X = re.compile(r"(?<=[\d)])\s*x\s*(?=[\d(])")
_TOKEN = re.compile(
    r"(?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d{1,4}(?![\d.]))?)"
    r"|(?P<op>\*\*|[-+*/^%!(),])"
    r"|(?P<word>[a-z_]+)"
    r"|(?P<space>\s+)"
    r"|(?P<other>.)",
    re.DOTALL,
)
FUNCTIONS = frozenset({"sqrt", "cbrt", "abs", "fact"})
AGGREGATES = frozenset({"sum", "product", "avg", "diff"})
_KEEP_WORDS = FUNCTIONS | AGGREGATES | {"mod", "of", "and"}
_DROP_WORDS = frozenset({"the", "numbers", "number", "values", "value", "between"})


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str  # "num" | "op" | "word"
    text: str


def normalise(text: str) -> str:
    text = text.lower().translate(_UNICODE).replace("**", "^")
    text = _DATE.sub(" date ", text)  # 2024-01-05 is a date, not 2024 - 1 - 5
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)
    for pattern, repl in _PHRASE_RES:
        text = pattern.sub(repl, text)
    return _TIMES_X.sub(" * ", text)


def runs(text: str) -> list[list[Tok]]:
    """Maximal runs of arithmetic tokens; other words and punctuation end a run."""
    out: list[list[Tok]] = []
    current: list[Tok] = []
    for m in _TOKEN.finditer(normalise(text)):
        kind = m.lastgroup or ""
        value = m.group()
        if kind == "space" or (kind == "word" and value in _DROP_WORDS):
            continue
        if kind in ("num", "op") or (kind == "word" and value in _KEEP_WORDS):
            current.append(Tok(kind, value))
            continue
        if current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


# --------------------------------------------------------------------------- parser

Node = tuple[Any, ...]


class _ParseError(Exception):
    pass


class _Parser:
    """Pratt parser over one run of tokens. Binding powers: + - 10, * / mod 20, unary - 25, ^ 30,
    postfix ! and % 40."""

    def __init__(self, tokens: list[Tok]) -> None:
        self.toks = tokens
        self.pos = 0
        self.depth = 0

    def peek(self) -> Tok | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def at(self, *texts: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.text in texts

    def take(self) -> Tok:
        tok = self.peek()
        if tok is None:
            raise _ParseError("the expression ends too early")
        self.pos += 1
        return tok

    def expect(self, text: str) -> None:
        if not self.at(text):
            raise _ParseError(f"expected {text!r}")
        self.pos += 1

    def expr(self, min_bp: int = 0) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise TaskRejected(f"the expression is nested more than {MAX_DEPTH} levels deep")
        try:
            left = self.prefix()
            while True:
                tok = self.peek()
                if tok is None:
                    break
                step = self.infix(tok, left, min_bp)
                if step is None:
                    break
                left = step
            return left
        finally:
            self.depth -= 1

    def prefix(self) -> Node:
        tok = self.take()
        if tok.kind == "num":
            return ("num", _literal(tok.text))
        if tok.text in ("-", "+"):
            operand = self.expr(25)
            return ("neg", operand) if tok.text == "-" else operand
        if tok.text == "(":
            inner = self.expr(0)
            self.expect(")")
            return inner
        if tok.text in FUNCTIONS:
            if self.at("of"):
                self.pos += 1
            return ("fn", tok.text, self.expr(25))
        if tok.text in AGGREGATES:
            return self.aggregate(tok.text)
        raise _ParseError(f"unexpected {tok.text!r}")

    def aggregate(self, name: str) -> Node:
        if self.at("of"):
            self.pos += 1
        items = [self.expr(10)]
        while self.at(",", "and"):
            self.pos += 1
            if self.at("and"):
                self.pos += 1
            items.append(self.expr(10))
        if len(items) < 2 or (name == "diff" and len(items) != 2):
            want = "two numbers" if name == "diff" else "at least two numbers"
            raise _ParseError(f"{name} needs {want}")
        return ("agg", name, tuple(items))

    def infix(self, tok: Tok, left: Node, min_bp: int) -> Node | None:
        op = tok.text
        if op == "%" and min_bp < 40:
            self.pos += 1
            nxt = self.peek()
            if nxt is not None and nxt.text == "of":
                self.pos += 1
                return ("pctof", left, self.expr(20))
            if nxt is not None and (nxt.kind == "num" or nxt.text == "(") and min_bp < 20:
                return ("bin", "mod", left, self.expr(20))
            return ("pct", left)
        if op == "!" and min_bp < 40:
            self.pos += 1
            return ("fn", "fact", left)
        if op == "^" and min_bp < 30:
            self.pos += 1
            return ("bin", "^", left, self.expr(29))
        if op in ("*", "/", "mod") and min_bp < 20:
            self.pos += 1
            return _chain(20, op, left, self.expr(20))
        if op == "(" and min_bp < 20:  # implicit multiplication: 2(3+4)
            return _chain(20, "*", left, self.expr(20))
        if op in ("+", "-") and min_bp < 10:
            self.pos += 1
            return _chain(10, op, left, self.expr(10))
        return None


def _chain(level: int, op: str, left: Node, right: Node) -> Node:
    """Left-associative runs of one precedence level as one flat node: 1+2-3+... has depth 1."""
    if left[0] == "chain" and left[1] == level:
        left[3].append((op, right))
        return left
    return ("chain", level, left, [(op, right)])


def _literal(text: str) -> Fraction:
    if len(text) > MAX_LITERAL_CHARS:
        raise TaskRejected(f"a number has more than {MAX_LITERAL_CHARS} characters")
    if text.endswith("."):
        text = text[:-1]
    return Fraction(text)


_CANNOT_START = frozenset({"*", "/", "^", "%", "!", ")", ",", "and", "of", "mod"})


def parse(text: str) -> list[Node]:
    """Every arithmetic expression found in ``text``, in order (bare numbers included)."""
    if len(text) > MAX_INPUT_CHARS:
        raise TaskRejected(f"the task is longer than {MAX_INPUT_CHARS} characters")
    found: list[Node] = []
    problems: list[str] = []
    for tokens in runs(text):
        parser = _Parser(tokens)
        while parser.peek() is not None:
            if parser.at(*_CANNOT_START):
                parser.pos += 1
                continue
            start = parser.pos
            try:
                node = parser.expr(0)
            except _ParseError as exc:
                problems.append(str(exc))
                # Not arithmetic here: look further on, past what was consumed (keeps this linear).
                parser.pos = max(start + 1, parser.pos)
                continue
            if _tree_depth(node) > MAX_DEPTH:
                raise TaskRejected(f"an expression has more than {MAX_DEPTH} levels of operations")
            found.append(node)
    if not any(_is_operation(n) for n in found) and problems:
        raise TaskRejected(f"no complete arithmetic expression found: {problems[0]}")
    return found


def _tree_depth(node: Node) -> int:
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((c, depth + 1) for c in _children(current))
    return deepest


def _children(node: Node) -> tuple[Node, ...]:
    kind = node[0]
    if kind in ("neg", "pct"):
        return (node[1],)
    if kind == "pctof":
        return (node[1], node[2])
    if kind == "fn":
        return (node[2],)
    if kind == "agg":
        return tuple(node[2])
    if kind == "bin":
        return (node[2], node[3])
    if kind == "chain":
        return (node[2], *(operand for _, operand in node[3]))
    return ()


# --------------------------------------------------------------------------- evaluation


def evaluate(node: Node, budget: _Budget) -> Value:
    kind = node[0]
    if kind == "num":
        return _checked(Value(node[1]), budget)
    if kind == "neg":
        inner = evaluate(node[1], budget)
        return Value(-inner.q, inner.exact)
    if kind == "pct":
        inner = evaluate(node[1], budget)
        return _checked(Value(inner.q / 100, inner.exact), budget)
    if kind == "pctof":
        a, b = evaluate(node[1], budget), evaluate(node[2], budget)
        return _checked(Value(a.q / 100 * b.q, a.exact and b.exact), budget)
    if kind == "fn":
        return _function(node[1], evaluate(node[2], budget), budget)
    if kind == "agg":
        return _aggregate(node[1], [evaluate(n, budget) for n in node[2]], budget)
    if kind == "chain":
        value = evaluate(node[2], budget)
        for op, operand in node[3]:
            value = _checked(_binary(op, value, evaluate(operand, budget), budget), budget)
        return value
    a, b = evaluate(node[2], budget), evaluate(node[3], budget)
    return _checked(_binary(node[1], a, b, budget), budget)


def _binary(op: str, a: Value, b: Value, budget: _Budget) -> Value:
    exact = a.exact and b.exact
    if op == "+":
        return Value(a.q + b.q, exact)
    if op == "-":
        return Value(a.q - b.q, exact)
    if op == "*":
        return Value(a.q * b.q, exact)
    if op in ("/", "mod") and b.q == 0:
        raise TaskRejected("division by zero")
    if op == "/":
        return Value(a.q / b.q, exact)
    if op == "mod":
        return Value(a.q % b.q, exact)
    return _power(a, b, budget)


def _bits(q: Fraction) -> int:
    return max(q.numerator.bit_length(), q.denominator.bit_length())


def _log2(q: Fraction) -> float:
    """About log2 of the larger of |numerator| and denominator (>= 1 unless q is 0 or +-1)."""
    n = max(abs(q.numerator), q.denominator)
    return math.log2(n) if n.bit_length() < 1000 else float(n.bit_length())


def _checked(v: Value, budget: _Budget) -> Value:
    bits = _bits(v.q)
    if bits > budget.limits.max_bits:
        raise TaskRejected(
            f"a number in this calculation needs more than {budget.limits.max_bits} bits; "
            "refusing to compute it"
        )
    budget.spent += bits
    if budget.spent > budget.limits.max_work_bits:
        raise TaskRejected("this calculation is too much work (too many operations on huge numbers)")
    return v


def _power(a: Value, b: Value, budget: _Budget) -> Value:
    base, exp = a.q, b.q
    exact = a.exact and b.exact
    if base == 0:
        if exp < 0:
            raise TaskRejected("zero to a negative power (division by zero)")
        return Value(Fraction(1 if exp == 0 else 0), exact)
    if base in (1, -1) and exp.denominator == 1:
        return Value(base ** (exp.numerator % 2), exact)
    if abs(exp) > budget.limits.max_bits or float(abs(exp)) * _log2(base) > budget.limits.max_bits:
        raise TaskRejected(
            f"the power {_short(base)}^{_short(exp)} would be larger than "
            f"{budget.limits.max_bits} bits; refusing to compute it"
        )
    if exp.denominator == 1:
        return Value(_ipow(base, exp.numerator), exact)
    if base < 0 and exp.denominator % 2 == 0:
        raise TaskRejected("a negative number to a fractional power with an even root has no real value")
    if abs(exp.numerator) * _bits(base) <= budget.limits.max_bits and exp.denominator <= 1000:
        return _root(Value(_ipow(base, exp.numerator), exact), exp.denominator)
    sign = -1 if base < 0 and exp.numerator % 2 else 1
    with localcontext() as ctx:
        ctx.prec = APPROX_DIGITS
        ctx.Emax, ctx.Emin = 10**9, -(10**9)
        magnitude = (Decimal(abs(base.numerator)) / Decimal(base.denominator)) ** (
            Decimal(exp.numerator) / Decimal(exp.denominator)
        )
    return Value(sign * Fraction(magnitude), False)


def _ipow(base: Fraction, n: int) -> Fraction:
    if n >= 0:
        return Fraction(base.numerator**n, base.denominator**n)
    return Fraction(base.denominator**-n, base.numerator**-n)


def _root(v: Value, n: int) -> Value:
    q = v.q
    if q < 0 and n % 2 == 0:
        raise TaskRejected(f"even root ({n}) of a negative number has no real value")
    sign = -1 if q < 0 else 1
    q = abs(q)
    num, den = _iroot(q.numerator, n), _iroot(q.denominator, n)
    if num**n == q.numerator and den**n == q.denominator:
        return Value(sign * Fraction(num, den), v.exact)
    with localcontext() as ctx:
        ctx.prec = APPROX_DIGITS
        ctx.Emax, ctx.Emin = 10**9, -(10**9)
        approx = (Decimal(q.numerator) / Decimal(q.denominator)) ** (Decimal(1) / Decimal(n))
    return Value(sign * Fraction(approx), False)


def _iroot(x: int, n: int) -> int:
    """Largest r with r**n <= x (x >= 0), by Newton's method on integers."""
    if x < 2:
        return x
    r = 1 << -(-x.bit_length() // n)  # an overestimate
    while True:
        s = ((n - 1) * r + x // r ** (n - 1)) // n
        if s >= r:
            return r
        r = s


def _function(name: str, v: Value, budget: _Budget) -> Value:
    if name == "abs":
        return Value(abs(v.q), v.exact)
    if name == "sqrt":
        return _root(v, 2)
    if name == "cbrt":
        return _root(v, 3)
    if v.q.denominator != 1 or v.q < 0:
        raise TaskRejected("factorial needs a non-negative whole number")
    if v.q > budget.limits.max_factorial:
        raise TaskRejected(f"factorial of more than {budget.limits.max_factorial} refused (too large)")
    return _checked(Value(Fraction(math.factorial(int(v.q))), v.exact), budget)


def _aggregate(name: str, items: list[Value], budget: _Budget) -> Value:
    exact = all(v.exact for v in items)
    if name == "diff":
        return Value(items[0].q - items[1].q, exact)
    if name == "product":
        total = Fraction(1)
        for v in items:
            total = _checked(Value(total * v.q), budget).q
        return Value(total, exact)
    total = sum((v.q for v in items), Fraction(0))
    return _checked(Value(total / len(items) if name == "avg" else total, exact), budget)


# --------------------------------------------------------------------------- rendering


def render(node: Node) -> str:
    kind = node[0]
    if kind == "num":
        return _short(node[1])
    if kind == "neg":
        return f"-{_wrap(node[1])}"
    if kind == "pct":
        return f"{_wrap(node[1])}%"
    if kind == "pctof":
        return f"{_wrap(node[1])}% of {_wrap(node[2])}"
    if kind == "fn":
        return f"{_wrap(node[2])}!" if node[1] == "fact" else f"{node[1]}({render(node[2])})"
    if kind == "agg":
        inner = ", ".join(render(n) for n in node[2])
        return f"{_AGG_NAMES[node[1]]}({inner})"
    if kind == "chain":
        return _wrap(node[2]) + "".join(f" {op} {_wrap(operand)}" for op, operand in node[3])
    return f"{_wrap(node[2])} {node[1]} {_wrap(node[3])}"


_AGG_NAMES = {"sum": "sum", "product": "product", "avg": "average", "diff": "difference"}


def _wrap(node: Node) -> str:
    text = render(node)
    return text if node[0] in ("num", "fn", "agg") else f"({text})"


def _short(q: Fraction) -> str:
    if q.denominator == 1 and q.numerator.bit_length() < 1300:
        return str(q.numerator)
    return _approx(q) if not _terminates(q) or _digits(q) > 60 else _decimal_str(q)


def _digits(q: Fraction) -> int:
    return int(_bits(q) * 0.30103) + 1


def _terminates(q: Fraction) -> bool:
    d = q.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _decimal_str(q: Fraction) -> str:
    with localcontext() as ctx:
        ctx.prec = _digits(q) + 5
        text = format(Decimal(q.numerator) / Decimal(q.denominator), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _approx(q: Fraction) -> str:
    with localcontext() as ctx:
        ctx.prec = SHOW_DIGITS + 2
        ctx.Emax, ctx.Emin = 10**9, -(10**9)
        d = Decimal(q.numerator) / Decimal(q.denominator)
        return format(d, f".{SHOW_DIGITS}g")


def format_value(q: Fraction, exact: bool) -> str:
    if not exact:
        return f"≈ {_approx(q)}"
    if q.denominator == 1:
        if _digits(q) <= MAX_SHOWN_INT_DIGITS:
            return str(q.numerator)
        return f"≈ {_approx(q)} (an exact whole number of about {_digits(q)} digits)"
    if _terminates(q) and _digits(q) <= 60:
        return _decimal_str(q)
    if _digits(q) <= 60:
        return f"{q.numerator}/{q.denominator} ≈ {_approx(q)}"
    return f"≈ {_approx(q)}"


# --------------------------------------------------------------------------- public API


def _is_operation(node: Node) -> bool:
    while node[0] == "neg":
        node = node[1]
    return bool(node[0] != "num")


def calculate(text: str, limits: Limits | None = None) -> list[Calculation]:
    """Every arithmetic operation in ``text``, evaluated exactly.

    Raises :class:`TaskRejected` if there is none, or if one cannot be computed (division by zero,
    limits); never anything else.
    """
    limits = limits or Limits()
    try:
        nodes = [n for n in parse(str(text)) if _is_operation(n)]
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps recursion far below the limit
        raise TaskRejected("the expression is nested too deeply") from None
    if not nodes:
        raise TaskRejected(
            "no arithmetic found: give numbers and operators, e.g. 'what is 12.5% of 2,400?' "
            "or 'compute (3+4)*5/7'"
        )
    if len(nodes) > limits.max_expressions:
        raise TaskRejected(f"more than {limits.max_expressions} calculations in one task")
    budget = _Budget(limits)
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
        results = await trio.to_thread.run_sync(job, abandon_on_cancel=True)  # type: ignore[call-arg]
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
