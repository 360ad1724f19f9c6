"""ioa_p2p.adapters.calculator: the ``calculator`` adapter: exact arithmetic from plain-language tasks.

- ``adapter.py``   :class:`CalculatorAdapter`, its options, :func:`calculate` (the whole pipeline)
- ``parser.py``    normalising words and symbols, tokens, runs, the Pratt parser (expression trees)
- ``evaluate.py``  exact evaluation with ``Fraction`` within the work budget
- ``render.py``    the canonical expression text and how values are shown
- ``values.py``    limits, budget, values, constants
"""

from ioa_p2p.adapters.calculator.adapter import (
    Calculation,
    CalculatorAdapter,
    CalculatorOptions,
    calculate,
)
from ioa_p2p.adapters.calculator.render import format_value
from ioa_p2p.adapters.calculator.values import Limits

__all__ = ["CalculatorAdapter", "CalculatorOptions", "Calculation", "Limits", "calculate", "format_value"]
