"""Exact evaluation of expression trees with :class:`fractions.Fraction`, within the budget (pure)."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

from ioa_p2p.adapters.calculator.parser import Node
from ioa_p2p.adapters.calculator.render import short
from ioa_p2p.adapters.calculator.values import APPROX_DIGITS, Budget, Value, bit_size
from ioa_p2p.errors import TaskRejected

# --------------------------------------------------------------------------- evaluation


def evaluate(node: Node, budget: Budget) -> Value:
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
    if kind == "round":
        value, digits = evaluate(node[1], budget), evaluate(node[2], budget)
        if digits.q.denominator != 1 or not 0 <= digits.q <= 30:
            raise TaskRejected("round(x, n) needs a whole number of digits n from 0 to 30")
        return _checked(Value(round_half_up(value.q, int(digits.q)), value.exact), budget)
    if kind == "agg":
        return _aggregate(node[1], [evaluate(n, budget) for n in node[2]], budget)
    if kind == "chain":
        value = evaluate(node[2], budget)
        for op, operand in node[3]:
            value = _checked(_binary(op, value, evaluate(operand, budget), budget), budget)
        return value
    a, b = evaluate(node[2], budget), evaluate(node[3], budget)
    return _checked(_binary(node[1], a, b, budget), budget)


def round_half_up(q: Fraction, digits: int) -> Fraction:
    """``q`` rounded to ``digits`` decimals, halves away from zero (2.5 -> 3, money's rounding)."""
    scale = Fraction(10) ** digits
    n = math.floor(abs(q) * scale + Fraction(1, 2))
    return (n if q >= 0 else -n) / scale


def _binary(op: str, a: Value, b: Value, budget: Budget) -> Value:
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


def _log2(q: Fraction) -> float:
    """About log2 of the larger of |numerator| and denominator (>= 1 unless q is 0 or +-1)."""
    n = max(abs(q.numerator), q.denominator)
    return math.log2(n) if n.bit_length() < 1000 else float(n.bit_length())


def _checked(v: Value, budget: Budget) -> Value:
    bits = bit_size(v.q)
    if bits > budget.limits.max_bits:
        raise TaskRejected(
            f"a number in this calculation needs more than {budget.limits.max_bits} bits; "
            "refusing to compute it"
        )
    budget.spent += bits
    if budget.spent > budget.limits.max_work_bits:
        raise TaskRejected("this calculation is too much work (too many operations on huge numbers)")
    return v


def _power(a: Value, b: Value, budget: Budget) -> Value:
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
            f"the power {short(base)}^{short(exp)} would be larger than "
            f"{budget.limits.max_bits} bits; refusing to compute it"
        )
    if exp.denominator == 1:
        return Value(_ipow(base, exp.numerator), exact)
    if base < 0 and exp.denominator % 2 == 0:
        raise TaskRejected("a negative number to a fractional power with an even root has no real value")
    if abs(exp.numerator) * bit_size(base) <= budget.limits.max_bits and exp.denominator <= 1000:
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


def _function(name: str, v: Value, budget: Budget) -> Value:
    if name == "abs":
        return Value(abs(v.q), v.exact)
    if name == "sqrt":
        return _root(v, 2)
    if name == "cbrt":
        return _root(v, 3)
    if name == "ceil":
        return Value(Fraction(math.ceil(v.q)), v.exact)
    if name == "floor":
        return Value(Fraction(math.floor(v.q)), v.exact)
    if name == "round":
        return Value(round_half_up(v.q, 0), v.exact)
    if v.q.denominator != 1 or v.q < 0:
        raise TaskRejected("factorial needs a non-negative whole number")
    if v.q > budget.limits.max_factorial:
        raise TaskRejected(f"factorial of more than {budget.limits.max_factorial} refused (too large)")
    return _checked(Value(Fraction(math.factorial(int(v.q))), v.exact), budget)


def _aggregate(name: str, items: list[Value], budget: Budget) -> Value:
    exact = all(v.exact for v in items)
    if name == "diff":
        return Value(items[0].q - items[1].q, exact)
    if name in ("minimum", "maximum"):
        pick = min if name == "minimum" else max
        return Value(pick(v.q for v in items), exact)
    if name == "product":
        total = Fraction(1)
        for v in items:
            total = _checked(Value(total * v.q), budget).q
        return Value(total, exact)
    total = sum((v.q for v in items), Fraction(0))
    return _checked(Value(total / len(items) if name == "avg" else total, exact), budget)
