"""ioa_p2p.planning: requests as plans of typed steps with data dependencies (pure, no I/O).

- ``types.py``    :class:`Plan`, :class:`PlanStep`, step kinds and the abilities they need
- ``values.py``   :class:`Value` (numbers with units, dates, text, lists), reading values from text
- ``expr.py``     arithmetic instructions in words -> expressions over earlier values
- ``natural.py``  naturally worded questions -> lookups + a computation
- ``parse.py``    :func:`plan_request`: clauses, kinds, references, code blocks and variables
- ``routing.py``  which members can do a step (abilities first, wording second)
- ``compose.py``  task texts with values bound, result values, the concluding answer
"""

from ioa_p2p.planning.compose import StepOutcome, answers, conclusion, describe, value_of
from ioa_p2p.planning.parse import plan_request
from ioa_p2p.planning.types import ABILITIES, CALC, CODE, DATE, KINDS, LOOKUP, TASK, Plan, PlanStep
from ioa_p2p.planning.values import Value, parse_value

__all__ = [
    "ABILITIES",
    "CALC",
    "CODE",
    "DATE",
    "KINDS",
    "LOOKUP",
    "TASK",
    "Plan",
    "PlanStep",
    "StepOutcome",
    "Value",
    "answers",
    "conclusion",
    "describe",
    "parse_value",
    "plan_request",
    "value_of",
]
