"""ioa_p2p.adapters.calculator: the ``calculator`` adapter: exact arithmetic from plain-language tasks."""

from ioa_p2p.adapters.calculator.adapter import (
    Calculation,
    CalculatorAdapter,
    CalculatorOptions,
    Limits,
    calculate,
    format_value,
)

__all__ = ["CalculatorAdapter", "CalculatorOptions", "Calculation", "Limits", "calculate", "format_value"]
