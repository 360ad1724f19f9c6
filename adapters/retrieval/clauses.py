"""Numbered terms and conditions in plain text read as headings and one list item per clause, line for line
(pure).

Terms of hire, rules and contracts number their clauses::

    3. Prices
    3.1 Pay-as-you-go: unlocking costs CHF 1.00, then CHF 0.25 per minute ...
        minute on an e-bike.
    3.2 Day pass: CHF 14.00 for unlimited rides ...

Read as plain text, a clause runs into the next one (one paragraph: "... on an e-bike. 3.2 Day pass") and
its number reads as a quantity ("3.2 Day" as 3.2 days). Text where four or more lines open with a dotted
clause number (``3.1``, ``12.4.2``) is rendered so: a section line (``3. Prices``: a number, a short title,
no sentence) a ``##`` heading; a clause line a list item ``- 3.1 ...``, its continuation lines (indented)
kept under it; every other line as it is.
"""

from __future__ import annotations

import re

CLAUSE_FORMATS = frozenset({".txt", ".text", ""})
MIN_CLAUSES = 4
_CLAUSE = re.compile(r"^(?:Clause\s+|§\s*)?\d{1,3}(?:\.\d{1,3})+\.?\s+\S")
_SECTION = re.compile(r"^(?:Part\s+|Section\s+)?\d{1,3}\.?\s+[A-Z][^.:;]{0,60}$")


def render_clauses(suffix: str, text: str) -> str | None:
    """``text`` with its numbered sections as headings and clauses as list items; None when fewer than
    :data:`MIN_CLAUSES` lines open with a dotted clause number (or the suffix is not plain text)."""
    if suffix not in CLAUSE_FORMATS:
        return None
    lines = text.splitlines()
    if sum(1 for line in lines if _CLAUSE.match(line)) < MIN_CLAUSES:
        return None
    out = []
    for line in lines:
        if _CLAUSE.match(line):
            out.append("- " + line)
        elif _SECTION.match(line.rstrip()):
            out.append("## " + line.rstrip())
        else:
            out.append(line)
    return "\n".join(out)
