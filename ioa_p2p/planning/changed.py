"""How much one quantity changed, read from the document that states both its old and its new value (pure).

Issue 23, p-chain5. "By how much did the pudding go up on the winter menu?", "By what percentage does the
day pass go up on 1 March?", "How much has the DH-24P's price gone up since the Rev. B datasheet?": the
question names one thing and asks the size of a change, never both ends (``relations.change`` takes "from
A to B"). A lookup cannot answer it (it reads one number, the old or the new one), so the plan is a lookup
of the thing, which brings its document's text and typed records, and ``change(v1)`` (``change%(v1)`` for
a percentage), worked out here from that text:

- a sentence about the thing that states both ends ("goes up from £12 to £14"): the two;
- else a sentence that states its earlier value ("the sticky toffee pudding was £6.95", "Rev. B listed
  the DH-24 at £269.00 and the DH-24P at £329.00": the amount after the thing's own name) and another
  line about the thing with an amount of the same kind (its row, or its column of a table): the new one.

Every telling word of the thing that holds a digit ("4pm", "DH-24P") must be in the line read: a sentence
about another item or another time is never taken. No earlier value found: the step is refused, the
earlier value named as missing (planning/refusal.py), never a difference with a guessed operand.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.missing import Missing
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep
from ioa_p2p.planning.values import Value

#: The calc templates of a change: the new less the old value, or that as a percentage of the old.
CHANGE = "change(v1)"
PERCENT_CHANGE = "change%(v1)"
TEMPLATES = frozenset({CHANGE, PERCENT_CHANGE})

_RISE = r"gone up|go up|went up|goes up|risen|rise|rose|rises|increased?|increases|grown|grow|grew"
_FALL = (
    r"fallen|fall|fell|falls|dropped|drops?|come down|came down|comes down|gone down|go down|went down|"
    r"goes down|decreased?|decreases|been cut|cut"
)
_ASKED = re.compile(
    r"^(?:(?P<pct>by what (?:percentage|percent|%)|what percentage)|(?:by )?how much(?: money)?)\s+"
    r"(?:has|have|did|does|do|will|would|is|are|was|were)\s+(?P<what>.+?)\s+"
    rf"(?P<verb>{_RISE}|{_FALL})(?:\s+by)?(?P<when>(?:\s+\S.*)?)$",
    re.I,
)
_THAN_BEFORE = re.compile(
    r"^(?:(?P<pct>by what (?:percentage|percent|%))|how much)\s+(?P<verb>dearer|more expensive|pricier|"
    r"higher|cheaper|less expensive|lower)\s+(?:is|are|will)\s+(?:be\s+)?(?P<what>.+?)\s+than\s+"
    r"(?:it|they)\s+(?:was|were|used to be|cost)(?P<when>(?:\s+\S.*)?)$",
    re.I,
)
_BOTH_ENDS = re.compile(r"^\s*(?:from|between)\s+.+\s+(?:to|and)\s+", re.I)
_CONDITION = re.compile(r"^\s*(?:if|when|once|after i|should)\b", re.I)
_QUANTITY_NOUN = re.compile(
    r"\b(?:price|prices|cost|costs|charge|charges|fee|fees|rate|rates|fare|fares|rent|bill|tariff|levy|tax|"
    r"subscription|subs|premium|salary|wage|pay|revenue|total|amount|value|RRP|deposit|toll|sum)\b",
    re.I,
)
_MONEY_ASKED = re.compile(
    r"[£$€]|\b(?:price|prices|cost|costs|dearer|cheaper|expensive|pricier|fee|fare|charge|charged|pay|paid|EUR|GBP|"
    r"USD|CHF)\b",
    re.I,
)
_GENERIC = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "for",
        "at",
        "in",
        "on",
        "to",
        "and",
        "its",
        "their",
        "our",
        "my",
        "your",
        "price",
        "prices",
        "cost",
        "costs",
        "charge",
        "charges",
        "fee",
        "fees",
        "rate",
        "rates",
        "new",
        "old",
        "current",
        "recommended",
        "standard",
        "usual",
        "now",
        "per",
        "one",
        "each",
    ]
)
#: An amount in a line: a currency sign or code before it, or a bare decimal/whole number.
_AMOUNT = re.compile(
    r"(?<![\w.-])(?:(?P<cur>[£$€]|EUR|GBP|USD|CHF|NZD|AUD|CAD)\s?)?(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<p>p\b)?(?![\w-]|\.\d|:\d|/\d)"
)
_OLD_MARK = re.compile(
    r"\b(?:was|were|previous|previously|formerly|former|earlier|old|used to (?:be|cost)|old price|listed|"
    r"last year|before|until|prior|then)\b",
    re.I,
)
_FROM_TO = re.compile(
    rf"\bfrom\s+(?P<a>{_AMOUNT.pattern})\s+(?:to|→|->)\s+(?P<b>{_AMOUNT.pattern.replace('?P<', '?P<b_')})",
    re.I,
)
_ROUNDING = r"\s*[.;,]?\s*(?:give|to|round(?:ed)?|answer)\b[^.?]*(?:decimal|places?|dp)\b.*$"


def _asked(text: str) -> re.Match[str] | None:
    """The change question in ``text``: from a question word at a sentence start up to its "?"."""
    for start in re.finditer(r"(?:^|(?<=[.!?] )|(?<=, and ))(?=by |how |what )", text, re.I):
        end = text.find("?", start.start())
        part = text[start.start() : end if end >= 0 else len(text)]
        part = re.sub(_ROUNDING, "", part, flags=re.I).strip().rstrip(".! ")
        named = _antecedent(
            text[: start.start()]
        )  # "What did X charge for the hake ..., and how much has it"
        part = re.sub(r"^((?:by )?how much \w+ )(?:it|they)\b", rf"\g<1>{named}", part) if named else part
        m = _ASKED.match(part) or _THAN_BEFORE.match(part)
        if m is not None:
            return m
    return _told(text)


def _antecedent(before: str) -> str:
    """The thing an earlier question of the request prices ("What did Saffron & Salt charge for the hake
    before the winter menu" -> "Saffron & Salt's hake"), which a following "it" stands for; "" if none."""
    m = re.search(
        r"\b(?:[Ww]hat|[Hh]ow much) (?:did|does|do|was|is) (?P<owner>(?:the )?[A-Z][\w&'’ -]*?) "
        r"(?:charge|cost|ask)\w* (?:for )?"
        r"(?:the |a |an )?(?P<thing>[a-z][\w' -]*?)(?: before| until| on| in| at| last|,|$)",
        before.strip(),
    )
    return f"{m.group('owner')}'s {m.group('thing')}" if m else ""


_SHORT_ASK = re.compile(r"(?:^|(?<=[.!?] ))(?P<pct>by what (?:percentage|percent|%)|by how much)\s*\?", re.I)


def _told(text: str) -> re.Match[str] | None:
    """ "The society's water bill rose compared with last year. By what percentage?": the statement before
    a bare "by how much?" read as the change question it asks."""
    short = _SHORT_ASK.search(text)
    if short is None:
        return None
    before = re.split(r"(?<=[a-z0-9)][.!?]) ", text[: short.start()].strip())[-1].rstrip(".! ")
    asked = (
        "By what percentage did "
        if "%" in short.group("pct") or "perc" in short.group("pct")
        else "How much did "
    )
    verbs = {"rose": "rise", "went up": "go up", "fell": "fall", "dropped": "drop", "came down": "come down"}
    m = re.match(
        rf"^(?P<what>.+?) (?P<verb>{'|'.join(verbs)}|increased|decreased)\b(?P<when>.*)$", before, re.I
    )
    if m is None:
        return None
    verb = verbs.get(m.group("verb").lower(), m.group("verb").lower().removesuffix("d"))
    return _ASKED.match(f"{asked}{m.group('what')} {verb}{m.group('when')}")


def _parsed(question: str) -> tuple[str, str, bool, bool] | None:
    """(thing, time words, percentage asked, a fall asked) of a change question; None for another one."""
    m = _asked(re.sub(r"\s+", " ", question).strip())
    if m is None:
        return None
    what, when, verb = m.group("what").strip(" ,"), m.group("when").strip(" ,"), m.group("verb").lower()
    pronoun = re.fullmatch(r"(?:it|they|that|this|them)", what, re.I)
    if _BOTH_ENDS.match(when) or _CONDITION.match(when) or pronoun:
        return None
    if re.search(r"\d", re.sub(r"\b\d{4}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+[A-Z][a-z]+", "", what)) and re.search(
        r"\b\d+\s*(?:x|times|of them|units|items)\b", what
    ):
        return None  # a count of things the user buys: a calculation, not a change of one value
    fall = bool(re.fullmatch(rf"{_FALL}|cheaper|less expensive|lower", verb))
    return what, when, m.group("pct") is not None, fall


def change_plan(question: str) -> tuple[PlanStep, ...] | None:
    """A lookup of the thing whose change is asked, then ``change(v1)`` / ``change%(v1)``; None when the
    question asks no change of one named thing."""
    parsed = _parsed(question)
    if parsed is None:
        return None
    what, pct = parsed[0], parsed[2]
    what = re.sub(r"^(The|A|An)\s", lambda m: m.group(1).lower() + " ", what)
    owned = re.match(r"[A-Z][\w&' -]*?['’]s\s", what)  # "Saffron & Salt's hake"
    named = what if owned or re.match(r"(?:the|a|an)\s|\w+['’]s\s|\w+ing\s", what, re.I) else f"the {what}"
    priced = _MONEY_ASKED.search(question) and not _QUANTITY_NOUN.search(what)  # a level or a count: as is
    lookup = f"What is the price of {named}?" if priced else f"What is {named}?"
    template, unit = (PERCENT_CHANGE, "%") if pct else (CHANGE, "")
    calc = PlanStep(2, CALC, question.strip(), template, (1,), unit=unit)
    return (PlanStep(1, LOOKUP, lookup.rstrip("?"), lookup), calc)


def _words(text: str) -> list[str]:
    return [w.lower().strip("'’.") for w in re.findall(r"[\w][\w'’.+-]*", text)]


def _telling(what: str) -> tuple[list[str], list[str]]:
    """(the thing's telling words, those that hold a digit: each must be in a line read)."""
    words = [re.sub(r"['’]s$", "", w) for w in _words(what)]
    telling = [w for w in words if w not in _GENERIC and len(w) > 1]
    return telling, [w for w in telling if re.search(r"\d", w)]


def _fit(line: str, telling: list[str], coded: list[str]) -> float:
    words = set(_words(line)) | {re.sub(r"['’]s$", "", w) for w in _words(line)}
    if any(c not in words for c in coded):
        return 0.0
    stems = {w[:5] for w in words}
    hits = [w for w in telling if w in words or (len(w) > 4 and w[:5] in stems)]
    share = len(hits) / len(telling) if telling else 0.0
    return max(share, 0.5) if telling and telling[-1] in hits else share  # its head noun: the thing itself


_CURRENCY_AFTER = r"\s?(?:€|EUR|GBP|USD|CHF|NZD|AUD|CAD|euros?|pounds?|dollars?)\b"


def _amounts(text: str) -> list[tuple[int, float, bool]]:
    """(position, amount, marked by a currency) of each amount in ``text`` (dates and codes skipped)."""
    out = []
    for m in _AMOUNT.finditer(text):
        n = float(m.group("n").replace(",", ""))
        if m.group("p"):
            n /= 100
        marked = bool(m.group("cur") or m.group("p"))
        rest = text[m.end() :]
        if not marked and re.match(r"\s?(?:[A-Za-z°%]|:\d)", rest) and not re.match(_CURRENCY_AFTER, rest):
            continue  # "50 kW", "24 L/day", "4pm": a measure, not an amount of money
        if not marked and re.match(r"(?:19|20)\d\d$", m.group("n")):
            continue
        out.append((m.start(), n, marked))
    return out


def _lines(found: Value) -> list[str]:
    texts = [*found.evidence, *(r.text for r in (found.records.records if found.records else ()))]
    lines = [ln.strip() for t in texts for ln in re.split(r"\n|(?<=[.;])\s+(?=[A-Z])", t) if ln.strip()]
    return list(dict.fromkeys(lines))


def _both_ends(lines: list[str], telling: list[str], coded: list[str]) -> tuple[float, float] | None:
    best: tuple[float, tuple[float, float]] | None = None
    for line in lines:
        fit = _fit(line, telling, coded)
        m = _FROM_TO.search(line)
        if fit <= 0 or m is None:
            return_pair = None
        else:
            a, b = _amounts(m.group("a")), _amounts(m.group("b"))
            return_pair = (a[0][1], b[0][1]) if a and b else None
        if return_pair is not None and (best is None or fit > best[0]):
            best = (fit, return_pair)
    return best[1] if best and best[0] >= 0.5 else None


def _after_name(line: str, telling: list[str]) -> float | None:
    """The amount after the thing's name in ``line`` (its own, in a list of several): after the first
    mention of its last telling word the line holds ("fast" of "Voltway Plus DC fast")."""
    low = line.lower()
    for word in reversed(telling):
        m = re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", low)
        if m is not None:
            after = [a for a in _amounts(line) if a[0] >= m.end()]
            return after[0][1] if after else None
    return None


def _old_value(lines: list[str], telling: list[str], coded: list[str]) -> tuple[str, float] | None:
    scored = [(_fit(ln, telling, coded), ln) for ln in lines if _OLD_MARK.search(ln)]
    scored = [(f, ln) for f, ln in scored if f >= 0.5 and _after_name(ln, telling) is not None]
    if not scored:
        return None
    fit, line = max(scored, key=lambda s: s[0])
    amount = _after_name(line, telling)
    return (line, amount) if amount is not None else None


def _column_amount(line: str, header: str, coded: list[str]) -> float | None:
    """The amount in the column of a table row whose header names the thing's code ("DH-24P")."""
    columns = [c.strip().lower() for c in re.split(r"\s{2,}|\s*\|\s*", header) if c.strip()]
    amounts = _amounts(line)
    hits = [i for i, c in enumerate(columns) if all(k in _words(c) for k in coded)]
    if len(hits) != 1 or len(amounts) != len(columns):
        return None
    return amounts[hits[0]][1]


def _new_value(found: Value, old_line: str, old: float, telling: list[str], coded: list[str]) -> float | None:
    candidates: list[tuple[float, float, float]] = []  # (fit, -closeness, amount)
    for line in _lines(found):
        if line == old_line or old_line.startswith(line) or _OLD_MARK.search(line):
            continue
        fit = _fit(line, telling, coded)
        own = _after_name(line, telling) if fit >= 0.5 else None
        if own is not None and found.number in {a[1] for a in _amounts(line)}:
            own = found.number  # the lookup read this row's column the question names
        if own is not None and own != old:
            candidates.append((fit, -abs(own - old) / old if old else 0.0, own))
    for r in found.records.records if found.records is not None else ():
        for header, cell in r.cells if r.kind == "row" and r.text != old_line else ():
            fit = _fit(f"{r.key} {header}", telling, coded)
            amounts = _amounts(cell) if fit >= 0.5 else []
            if len(amounts) == 1 and amounts[0][1] != old:
                candidates.append((fit, -abs(amounts[0][1] - old) / old if old else 0.0, amounts[0][1]))
    if found.records is not None and coded:
        for r in found.records.records:
            header = r.section[-1] if r.section else ""
            amount = _column_amount(r.text, header, coded) if header and r.text != old_line else None
            if amount is not None and amount != old and r.rules and old and abs(amount - old) / old < 1:
                candidates.append((0.5, -abs(amount - old) / old, amount))
    if not candidates:
        return found.number if found.number is not None and found.number != old else None
    return max(candidates)[2]


_BY = re.compile(
    rf"\b(?:up|down|rise|rises|rose|risen|increase|increases|increased|fall|falls|fell|drop|drops|dropped|"
    rf"cut|reduced|raised)\s+by\s+(?P<by>{_AMOUNT.pattern})(?P<pct>\s?%|\s?per ?cent)?",
    re.I,
)


def _stated_by(lines: list[str], telling: list[str], coded: list[str], percent: bool) -> float | None:
    """The change a line about the thing states outright ("goes up by £2", "rises by 5%"), when it is in
    the form asked (an amount, or a percentage); None otherwise."""
    best: tuple[float, float] | None = None
    for line in lines:
        fit = _fit(line, telling, coded)
        m = _BY.search(line) if fit >= 0.5 else None
        if m is None or bool(m.group("pct")) != percent:
            continue
        number = float(m.group("by").lstrip("£$€ ").split()[-1].replace(",", "").removesuffix("p"))
        number = number / 100 if m.group("by").endswith("p") else number
        if best is None or fit > best[0]:
            best = (fit, number)
    return best[1] if best else None


def change_values(question: str, found: Value | None) -> tuple[float, float] | None:
    """(old, new) of the thing ``question`` asks the change of, read from ``found``'s document."""
    parsed = _parsed(question)
    if parsed is None or found is None:
        return None
    telling, coded = _telling(parsed[0])
    if not telling:
        return None
    lines = _lines(found)
    both = _both_ends(lines, telling, coded)
    if both is not None:
        return both
    old = _old_value(lines, telling, coded)
    if old is None:
        return None
    new = _new_value(found, old[0], old[1], telling, coded)
    return (old[1], new) if new is not None else None


def change_expression(step: PlanStep, found: Value | None) -> str | None:
    """The calculator's expression for a ``change(v1)`` step; None when an end is not stated."""
    parsed = _parsed(step.text)
    if parsed is None or found is None:
        return None
    stated = _stated_by(_lines(found), *_telling(parsed[0]), step.template == PERCENT_CHANGE)
    if stated is not None:  # "goes up by £2", "rises by 5%": the change itself, as asked
        return f"{stated:g}"
    ends = change_values(step.text, found)
    if ends is None:
        return None
    old, new = (f"{n:g}" for n in ends)
    first, second = (old, new) if parsed[3] else (new, old)
    if step.template == PERCENT_CHANGE:
        return f"({first} - {second}) / {old} * 100" if ends[0] else None
    return f"{first} - {second}"


def change_missing(step: PlanStep, found: Value | None) -> Missing | None:
    """The end of the change the documents read do not state, named; None when both are stated."""
    if change_expression(step, found) is not None:
        return None
    parsed = _parsed(step.text)
    what = parsed[0] if parsed else "the value asked about"
    when = f" ({parsed[1]})" if parsed and parsed[1] else ""
    unit = found.unit if found is not None else ""
    shown = found.shown() if found is not None else "nothing"
    return Missing(
        f"the earlier value of {what}{when}", unit, f"the documents read state one value ({shown})"
    )
