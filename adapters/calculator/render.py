"""Showing expressions and values: the canonical expression text, exact and approximate numbers (pure)."""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

from ioa_p2p.adapters.calculator.parser import Node
from ioa_p2p.adapters.calculator.values import MAX_SHOWN_INT_DIGITS, SHOW_DIGITS, bit_size

# --------------------------------------------------------------------------- rendering


def render(node: Node) -> str:
    kind = node[0]
    if kind == "num":
        return short(node[1])
    if kind == "neg":
        return f"-{_wrap(node[1])}"
    if kind == "pct":
        return f"{_wrap(node[1])}%"
    if kind == "pctof":
        return f"{_wrap(node[1])}% of {_wrap(node[2])}"
    if kind == "fn":
        return f"{_wrap(node[2])}!" if node[1] == "fact" else f"{node[1]}({render(node[2])})"
    if kind == "round":
        return f"round({render(node[1])}, {render(node[2])})"
    if kind == "agg":
        inner = ", ".join(render(n) for n in node[2])
        return f"{_AGG_NAMES[node[1]]}({inner})"
    if kind == "chain":
        return _wrap(node[2]) + "".join(f" {op} {_wrap(operand)}" for op, operand in node[3])
    return f"{_wrap(node[2])} {node[1]} {_wrap(node[3])}"


_AGG_NAMES = {
    "sum": "sum",
    "product": "product",
    "avg": "average",
    "diff": "difference",
    "minimum": "min",
    "maximum": "max",
}


def _wrap(node: Node) -> str:
    text = render(node)
    return text if node[0] in ("num", "fn", "agg", "round") else f"({text})"


def short(q: Fraction) -> str:
    if q.denominator == 1 and q.numerator.bit_length() < 1300:
        return str(q.numerator)
    return approx(q) if not _terminates(q) or digit_count(q) > 60 else _decimal_str(q)


def digit_count(q: Fraction) -> int:
    return int(bit_size(q) * 0.30103) + 1


def _terminates(q: Fraction) -> bool:
    d = q.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _decimal_str(q: Fraction) -> str:
    with localcontext() as ctx:
        ctx.prec = digit_count(q) + 5
        text = format(Decimal(q.numerator) / Decimal(q.denominator), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def approx(q: Fraction) -> str:
    with localcontext() as ctx:
        ctx.prec = SHOW_DIGITS + 2
        ctx.Emax, ctx.Emin = 10**9, -(10**9)
        d = Decimal(q.numerator) / Decimal(q.denominator)
        return format(d, f".{SHOW_DIGITS}g")


def format_value(q: Fraction, exact: bool) -> str:
    if not exact:
        return f"≈ {approx(q)}"
    if q.denominator == 1:
        if digit_count(q) <= MAX_SHOWN_INT_DIGITS:
            return str(q.numerator)
        return f"≈ {approx(q)} (an exact whole number of about {digit_count(q)} digits)"
    if _terminates(q) and digit_count(q) <= 60:
        return _decimal_str(q)
    if digit_count(q) <= 60:
        return f"{q.numerator}/{q.denominator} ≈ {approx(q)}"
    return f"≈ {approx(q)}"
