"""The calculator's limits, budget and values (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

MAX_INPUT_CHARS = 20_000
MAX_DEPTH = 64
MAX_LITERAL_CHARS = 400
APPROX_DIGITS = 50
SHOW_DIGITS = 15
MAX_SHOWN_INT_DIGITS = 400
MAX_SHOWN_EXPRESSION = 300


@dataclass(frozen=True, slots=True)
class Limits:
    max_bits: int = 100_000
    max_factorial: int = 3_000
    max_expressions: int = 20
    #: Sum of the sizes (bits) of all intermediate results of one task: bounds the time (~0.5 s).
    max_work_bits: int = 2_000_000


@dataclass(slots=True)
class Budget:
    limits: Limits
    spent: int = 0


@dataclass(frozen=True, slots=True)
class Value:
    q: Fraction
    exact: bool = True


def bit_size(q: Fraction) -> int:
    return max(q.numerator.bit_length(), q.denominator.bit_length())
