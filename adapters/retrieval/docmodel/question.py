"""What a question asks for (pure): its answer type, the dimensions a value may have, its terms, the
quantities and situation it states, and whether it asks for an extreme or a rate's denominator.

The answer type comes from the question's own form, not from any document's wording:

============  ===================================================  ==========================================
kind          asked by                                             a value that fits
============  ===================================================  ==========================================
duration      how long, for how long, within how many hours         a quantity of time
amount        how much does X cost, what is the fee / deposit       a quantity of money
quantity      how much <stuff>, how heavy / far / hot, how many     a quantity of the dimension named
              calories (a unit named as the counted noun)
count         how many <things>, how many times, number of          a bare number (or a frequency: "twice")
time          what time, at what time, when does X open / close    a clock time
when          when is / was / does (not a clock form)               a clock time, a date or a duration
date          which date, on what day                               a date
name          who, which / what <noun> (not a measure)              a name, a cell, a field's text
reason        why, what caused, the reason                          the clause that gives the cause
definition    what is a / an X, what does X mean                    the definition of a defined term
value         anything else ("what is the COP of X")                whatever the record states
============  ===================================================  ==========================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.adapters.retrieval.docmodel.quantity import (
    DIMENSIONS,
    UNIT_ALIASES,
    Quantity,
    dimension,
    quantities_in,
)
from ioa_p2p.adapters.retrieval.facts import question_terms, stem

_MONEY = (
    "cost costs price prices fee fees charge charged charges pay pays paid deposit fine fines rate rates "
    "fare fares rent tariff bill surcharge refund compensation budget salary allowance spend spent "
    "penalty worth credit reimbursement premium levy toll wage wages"
)
MONEY_WORDS = frozenset(_MONEY.split())
#: words of a question that name a dimension ("how heavy" -> mass)
DIMENSION_WORDS: dict[str, str] = {
    "heavy": "mass", "weight": "mass", "weigh": "mass", "weighs": "mass", "mass": "mass",
    "far": "length", "distance": "length", "clearance": "length", "high": "length", "height": "length",
    "wide": "length", "width": "length", "deep": "length", "depth": "length", "tall": "length",
    "temperature": "temperature", "hot": "temperature", "warm": "temperature", "cold": "temperature",
    "storage": "data", "space": "data", "volume": "volume", "capacity": "", "power": "power",
    "energy": "energy", "calories": "energy", "loud": "sound", "noise": "sound", "sound": "sound",
    "percent": "ratio", "percentage": "ratio", "share": "ratio", "discount": "ratio", "save": "ratio",
    "saves": "ratio", "voltage": "voltage", "vat": "ratio", "tax": "ratio", "interest": "ratio",
    "growth": "ratio", "margin": "ratio", "commission": "ratio",
}  # fmt: skip
_MAX = re.compile(r"\b(?:max(?:imum)?|most|at most|up to|highest|longest|largest|cap|limit)\b", re.I)
_MIN = re.compile(r"\b(?:min(?:imum)?|least|at least|lowest|shortest|smallest)\b", re.I)
_PER = re.compile(
    r"\b(?:per|a|an|each|every)\s+(?P<per>[a-zA-Z³²]+)\b|\b(?P<ly>hourly|daily|weekly|monthly|yearly|annual|annually|nightly)\b",
    re.I,
)
_LY = {"hourly": "h", "daily": "days", "weekly": "weeks", "monthly": "months", "yearly": "years",
       "annual": "years", "annually": "years", "nightly": "night"}  # fmt: skip
_CLOCK_VERBS = r"(?:open|close|start|begin|end|finish|leave|depart|arrive|shut|run|sail)"


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    kind: str
    dimensions: tuple[str, ...] = ()  # the dimensions a value may have (() = any)
    terms: frozenset[str] = frozenset()
    stated: tuple[Quantity, ...] = ()  # quantities the question itself states
    extreme: str = ""  # "max" | "min" | ""
    per: str = ""  # the denominator asked: "h", "days", "user", "m³" ("" when none)
    last: bool = False  # the end of a range is asked ("close", "until", "end")
    unit: str = ""  # the unit the question names for its answer ("how many days": days)
    counted: str = ""  # what a count counts ("how many customers": custom), stemmed

    @property
    def numeric(self) -> bool:
        return self.kind in ("duration", "amount", "quantity", "count")


def read_question(question: str) -> Query:
    """The :class:`Query` of ``question`` (see the module docstring)."""
    q = " ".join(question.split())
    low = q.lower()
    words = re.findall(r"[a-z³²]+", low)
    kind, dims = _kind(low, words)
    per = ""
    for m in _PER.finditer(low):
        word = m.group("per") or ""
        if m.group("ly"):
            per = _LY[m.group("ly").lower()]
        elif word not in ("the", "this", "that", "one", "few", "lot") and (
            m.group(0).startswith(("per", "each", "every"))
            or UNIT_ALIASES.get(word, "") in DIMENSIONS["time"]
        ):
            per = UNIT_ALIASES.get(word, "") or stem(word)
    extreme = "max" if _MAX.search(low) else "min" if _MIN.search(low) else ""
    last = bool(re.search(r"\b(?:close|closes|closing|end|ends|finish|finishes|until|last|shut)\b", low))
    terms = frozenset(question_terms(q))
    named = re.search(r"\b(?:how many|number of|in)\s+([a-z³²]+)\b", low)
    unit = UNIT_ALIASES.get(named.group(1), "") if named and kind in ("duration", "quantity") else ""
    counted = (
        re.search(r"\b(?:how many|number of)\s+(?:[a-z]+\s+)??([a-z]+)\b", low) if kind == "count" else None
    )
    noun = stem(counted.group(1)) if counted and counted.group(1) != "times" else ""
    return Query(q, kind, dims, terms, tuple(quantities_in(q)), extreme, per, last, unit, noun)


def _kind(low: str, words: list[str]) -> tuple[str, tuple[str, ...]]:
    if re.match(r"\W*why\b", low) or re.search(
        r"\bwhat caused\b|\b(?:the|a) (?:root )?(?:cause|reason)\b", low
    ):
        return "reason", ()
    if re.search(
        r"\bhow long\b|\bhow (?:far|long|much time) (?:in advance|ahead|before|beforehand)\b"
        r"|\b(?:longest|shortest|maximum|minimum) (?:time |period |stay |you|one|a \w+ (?:may|can|must))"
        r"|\bfor how many (?:hours|days|weeks|months|years|minutes)\b|\bwithin how many\b",
        low,
    ):
        return "duration", ("time",)
    if re.search(rf"\b(?:what|which) time\b|\bwhen (?:does|do|will|did) .*\b{_CLOCK_VERBS}\w*\b", low):
        return "time", ()
    if re.search(r"\b(?:what|which) (?:date|day)\b|\bon what day\b", low):
        return "date", ()
    if re.search(r"^\W*(?:and )?when\b|\bby when\b", low):
        return "when", ()
    if re.search(r"\bwho\b|\bwhose\b", low):
        return "name", ()
    many = re.search(r"\b(?:how many|number of)\s+([a-z³²]+)", low)
    if many:
        noun = many.group(1)
        if noun == "times":
            return "count", ()
        unit = UNIT_ALIASES.get(noun, "")
        if unit:
            return ("duration", ("time",)) if dimension(unit) == "time" else ("quantity", (dimension(unit),))
        return "count", ()
    if re.search(r"\bhow (?:heavy|far|hot|warm|cold|high|wide|deep|tall|loud|big)\b", low):
        dim = DIMENSION_WORDS.get(re.search(r"\bhow (\w+)", low).group(1), "")  # type: ignore[union-attr]
        return "quantity", (dim,) if dim else ()
    definition = re.match(r"\W*(?:what|who) (?:is|are) (?:a|an)\s+([a-z -]+?)\??$", low)
    if definition or re.search(r"\bwhat does .+ mean\b|\bdefin", low):
        return "definition", ()
    named = [DIMENSION_WORDS[w] for w in words if DIMENSION_WORDS.get(w)]
    if any(w in MONEY_WORDS for w in words) or re.search(r"\bhow much (?:is|are|does|do|did|will)\b", low):
        priced = [w for w in words if w in MONEY_WORDS and w not in ("rate", "rates")]  # "VAT rate": a ratio
        if named and not priced:
            return "quantity", (named[0],)
        return "amount", ("money",)
    if named:
        return "quantity", (named[0],)
    if re.search(r"\bhow much\b", low):
        return "quantity", ()
    if re.search(r"\b(?:which|what) (?!is\b|are\b|was\b|were\b|does\b|do\b|did\b)[a-z]+", low) or re.search(
        r"\bin which\b|\bwhere\b", low
    ):
        return "name", ()
    return "value", ()
