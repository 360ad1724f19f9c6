"""Conditions and exceptions a sentence states (pure): "except for e-bikes", "unless another reader has
reserved the item", "only with a coach present", "otherwise 18:00", "if ...", minimums and caps.

:func:`conditions_in` returns each clause with its kind; :func:`split_otherwise` splits "A from April to
September and B otherwise" into the branch that holds under the stated condition and the fallback, so that a
question naming a situation can pick its branch.
"""

from __future__ import annotations

import re

from ioa_p2p.adapters.retrieval.docmodel.records import Condition

_CLAUSE_END = r"(?=[,.;:)]|\s(?:and|but)\s|$)"
_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("except", re.compile(
        r"\b(?:except(?: for| when| on| in)?|excluding|other than|apart from)\s+(.+?)" + _CLAUSE_END, re.I)),
    ("unless", re.compile(r"\bunless\s+(.+?)" + _CLAUSE_END, re.I)),
    ("only", re.compile(r"\bonly\s+((?:with|for|when|if|on|in|within|to|by)\s.+?)" + _CLAUSE_END, re.I)),
    ("otherwise", re.compile(r"\b(?:otherwise|else|in all other cases)\b(.*?)" + _CLAUSE_END, re.I)),
    ("if", re.compile(r"\b(?:if|when|where|provided that|as long as)\s+(.+?)" + _CLAUSE_END, re.I)),
    ("minimum", re.compile(
        r"\b(?:at least|minimum(?: of)?|no less than|not less than)\s+(.+?)" + _CLAUSE_END, re.I)),
    ("maximum", re.compile(
        r"\b(?:up to|at most|maximum(?: of)?|no more than|not more than|capped at)\s+(.+?)" + _CLAUSE_END,
        re.I)),
)  # fmt: skip


def conditions_in(text: str) -> tuple[Condition, ...]:
    """The conditions and exceptions of a sentence, in order of position."""
    found: list[tuple[int, Condition]] = []
    for kind, form in _FORMS:
        for m in form.finditer(text):
            clause = m.group(1).strip(" ,;")
            if kind == "otherwise" and not clause:
                clause = text[: m.start()].strip(" ,;")[-120:]
            found.append((m.start(), Condition(kind, clause[:160])))
    return tuple(c for _, c in sorted(found, key=lambda x: x[0]))


_OTHERWISE = re.compile(r"\b(?:and|,|;)?\s*(?:otherwise|else|at other times|in all other cases)\b", re.I)


def split_otherwise(text: str) -> tuple[str, str] | None:
    """("the branch under its condition", "the fallback") for "A <when ...> and B otherwise"; None when
    the text has no fallback."""
    m = _OTHERWISE.search(text)
    if not m:
        return None
    before, after = text[: m.start()].strip(" ,;"), text[m.end() :].strip(" ,;.")
    if after:  # "X; otherwise Y"
        return before, after
    # "A from April to September and B otherwise": the last "and"/"," splits the two branches
    parts = re.split(r"\s+and\s+|,\s+|;\s+", before)
    if len(parts) < 2:
        return None
    return " ".join(parts[:-1]), parts[-1]
