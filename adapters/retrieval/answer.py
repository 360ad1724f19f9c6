"""Answer spans (pure): the fact in the retrieved passages that answers a question, and its value.

Passages are cut into **facts**: sentences and list items, ``key: value`` lines, rows of markdown and of
space-aligned tables (cells named by the header row), each with its **context** (file name, heading trail,
the header of the block or table it sits in). A fact scores the IDF-weighted share of the question's terms
it holds (terms in the context count 0.6); a fact that names another model of the same family as one the
question names (``X5`` when the question says ``X7``) without the question's own counts a third; documents
that say they were superseded count 0.7 unless the question names them.

The value is read by what the question asks: a date for "when" / "which date", a name for "who", a version
for "which version", else a number (the value of a ``key: value`` line, the cell of the best-matching table
column, or the number nearest the question's words, preferring the unit its attribute implies). A
question about every row ("both", "all", "each", "across") gets the column's values as a list.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ioa_p2p.planning.values import Value, dates_in, numbers_in

_WORD = re.compile(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*")
_STOP_WORDS = """
    a an the of in on at to for by with from and or is are was were be been do does did what which
    who whom when where how much many it its this that these those there their our we i you me my
    your please tell find look up get give search according document documents docs value number
    amount what's whats s than as per into about can could would should may might will shall has
    have had any all both each every across over under after before between
    """
_STOP = frozenset(_STOP_WORDS.split())
_CODE = re.compile(r"^(?=.*\d)(?=.*[a-z])[a-z]+-?\d+[a-z]?$")
_SUPERSEDED = re.compile(r"\b(superseded|replaced by|obsolete|no longer valid|outdated)\b", re.I)
_AGGREGATE = re.compile(r"\b(both|all|each|every|across|total|combined)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(])")
_NAME = re.compile(r"\b([A-Z][a-zà-ÿ'-]+(?:\s+[A-Z][a-zà-ÿ'-]+){1,2})\b")
_VERSION = re.compile(r"\b\d+\.\d+\.\d+\b|\bv\d+(?:\.\d+)+\b")
#: attribute words -> the units a value of that attribute is given in
UNIT_HINTS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("weight", "weigh", "heavy", "mass"), ("kg", "g", "lb")),
    (
        (
            "price",
            "cost",
            "pay",
            "costs",
            "credit",
            "allowance",
            "fee",
            "budget",
            "revenue",
            "penalty",
            "reimburse",
            "diem",
        ),
        ("EUR", "USD", "%"),
    ),
    (("capacity", "energy"), ("kWh", "Wh")),
    (("power", "output"), ("kW", "W")),
    (("efficiency", "rate", "discount", "vat", "share"), ("%",)),
    (("minutes", "journey", "duration"), ("min", "h")),
    (("hours",), ("h",)),
    (("voltage",), ("V",)),
)


#: question words that name an attribute under another word
SYNONYMS = {
    "heavy": "weight",
    "heavier": "weight",
    "weigh": "weight",
    "lighter": "weight",
    "light": "weight",
    "cost": "price",
    "costs": "price",
    "expensive": "price",
    "cheaper": "price",
    "pay": "price",
    "long": "length",
    "longer": "length",
    "sold": "sell",
    "sale": "sell",
    "sales": "sell",
    "effect": "valid",
    "effective": "valid",
}


def stem(word: str) -> str:
    if re.search(r"(ch|sh|x|ss|z)es$", word) and len(word) > 5:
        return word[:-2]
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("s", "")):
        if (
            len(word) > len(suffix) + 2
            and not word.endswith("ss")
            and word.endswith(suffix)
            and not _CODE.match(word)
        ):
            word = word[: -len(suffix)] + keep
            if suffix in ("ing", "ed") and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "ls":
                word = word[:-1]  # capped -> cap, shipped -> ship
            return word
    return word


def terms(text: str) -> set[str]:
    """Content terms: lower-cased, stemmed, stop words out; hyphenated codes kept whole and in parts."""
    out: set[str] = set()
    for token in _WORD.findall(text.lower()):
        parts = [token, *token.split("-")] if "-" in token else [token]
        out.update(stem(p) for p in parts if p not in _STOP and (len(p) > 1 or p.isdigit()))
    return out


def _named(question: str) -> set[str]:
    """Terms of the question's codes (X7, IR-2291) and capitalised words after its first word."""
    words = re.findall(r"[A-Za-z0-9]+(?:[.\-][A-Za-z0-9]+)*", question)
    out = {stem(w.lower()) for w in words[1:] if w[:1].isupper() and w.lower() not in _STOP}
    return out | {t for t in terms(question) if _CODE.match(t)}


def question_terms(text: str) -> set[str]:
    """A question's terms, with the attribute its adjectives and verbs name ("heavy" -> weight)."""
    words = {w for w in _WORD.findall(text.lower())}
    return terms(text) | {stem(SYNONYMS[w]) for w in words if w in SYNONYMS}


@dataclass(frozen=True, slots=True)
class Fact:
    path: str
    line: int
    text: str  # the fact as written
    context: str  # file name, headings, block / table header
    cells: tuple[tuple[str, str], ...] = ()  # (column header, cell) for table rows
    table: str = ""  # an id shared by the rows of one table
    prior: float = 0.0  # the search score of the passage it is in


@dataclass(frozen=True, slots=True)
class Answer:
    value: Value
    fact: Fact
    score: float  # 0..1, the adapter's confidence that the fact answers the question

    @property
    def citation(self) -> str:
        return f"{self.fact.path}:{self.fact.line}"


def facts_of(
    path: str,
    start_line: int,
    heading: str,
    text: str,
    superseded: bool = False,
    title: str = "",
    prior: float = 0.0,
) -> list[Fact]:
    """The facts of one passage (``text`` starts at source line ``start_line``; ``title``: the document's
    first line, context for every fact)."""
    lines = text.splitlines()
    context0 = re.sub(r"[_\-./]+", " ", path) + " " + title + " " + heading
    out: list[Fact] = []
    i = 0
    block_header = ""
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            if stripped.startswith("#"):
                block_header = stripped.lstrip("# ")
                out.append(Fact(path, start_line + i, block_header, context0))
            i += 1
            continue
        table = _table_at(lines, i)
        if table is not None:
            header, rows, used = table
            tid = f"{path}:{start_line + i}"
            for offset, cells in rows:
                named = tuple(zip(header, cells, strict=False))
                own = " | ".join(cells) + " \0 " + " ".join(header)
                out.append(Fact(path, start_line + i + offset, own, f"{context0} {block_header}", named, tid))
            i += used
            continue
        indented = line[:1].isspace()
        if not indented and i + 1 < len(lines) and lines[i + 1][:1].isspace() and lines[i + 1].strip():
            block_header = stripped
        first = i
        while i + 1 < len(lines) and _continues(lines[i + 1]):
            i += 1
            stripped += " " + lines[i].strip()
        for sentence in _SENTENCE_END.split(stripped.lstrip("-*• ").strip()):
            if sentence:
                out.append(Fact(path, start_line + first, sentence, f"{context0} {block_header}"))
        i += 1
    mark = " \0superseded" if superseded else ""
    return [Fact(f.path, f.line, f.text, f.context + mark, f.cells, f.table, prior) for f in out]


def _continues(line: str) -> bool:
    """A wrapped line of the same paragraph (not blank, a list item, a heading, a table or indented)."""
    s = line.strip()
    return bool(s) and not line[:1].isspace() and not re.match(r"([-*•|#]|\d+[.)])\s", s + " ")


def _table_at(lines: Sequence[str], i: int) -> tuple[list[str], list[tuple[int, list[str]]], int] | None:
    """A markdown or space-aligned table starting at line i: (header, [(offset, cells)], lines used)."""
    if lines[i].strip().startswith("|"):
        rows: list[tuple[int, list[str]]] = []
        j = i
        while j < len(lines) and lines[j].strip().startswith("|"):
            cells = [c.strip() for c in lines[j].strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                rows.append((j - i, cells))
            j += 1
        if len(rows) >= 2:
            return rows[0][1], rows[1:], j - i
        return None
    split = [re.split(r"\s{2,}", lines[k].strip()) for k in range(i, min(len(lines), i + 50))]
    width = len(split[0])
    if width < 3 or len(split) < 2 or len(split[1]) != width or numbers_in(lines[i]):
        return None
    rows, j = [], 1
    while j < len(split) and len(split[j]) == width and lines[i + j].strip():
        rows.append((j, split[j]))
        j += 1
    return split[0], rows, j


class Scorer:
    """IDF-weighted matching of a question's terms against facts (IDF over the given facts)."""

    def __init__(self, question: str, facts: Sequence[Fact]) -> None:
        self.question = question
        self.q_terms = question_terms(question)
        n = max(1, len(facts))
        df: dict[str, int] = {}
        for f in facts:
            for t in terms(f.text) | terms(f.context):
                df[t] = df.get(t, 0) + 1
        self.idf = {t: math.log(1 + n / (1 + df.get(t, 0))) for t in self.q_terms}
        for t in _named(question) & self.q_terms:  # names and codes pin the answer down: they weigh double
            self.idf[t] *= 2
        self.total = sum(self.idf.values()) or 1.0
        self.codes = {t for t in self.q_terms if _CODE.match(t)}
        self.names_superseded = bool(_SUPERSEDED.search(question))
        # a named term (Munich) that some fact of a document states: that document's facts must state it
        self.named = _named(question) & self.q_terms
        self.stated: dict[str, set[str]] = {}
        for f in facts:
            self.stated.setdefault(f.path, set()).update(terms(f.text) & self.named)

    def score(self, fact: Fact) -> float:
        own, ctx = terms(fact.text), terms(fact.context)
        got = sum(w * (1.0 if t in own else 0.6 if t in ctx else 0.0) for t, w in self.idf.items())
        value = got / self.total
        everywhere = own | ctx
        for code in self.codes:
            family = re.match(r"[a-z]+", code)
            siblings = {t for t in everywhere if _CODE.match(t) and t != code}
            if family and code not in everywhere and any(s.startswith(family.group()) for s in siblings):
                value *= 0.33
        for _name in self.stated.get(fact.path, set()) - own - ctx:
            value *= 0.6
        if "\0superseded" in fact.context and not self.names_superseded:
            value *= 0.7
        return value


def answer(question: str, facts: Sequence[Fact], *, expected: str = "") -> Answer | None:
    """The best-scoring fact that holds a value of the kind the question asks for, with that value."""
    scorer = Scorer(question, facts)
    kind = expected or expected_kind(question)
    wanted = _units_wanted(question) if kind == "number" else ()

    def confidence(fact: Fact) -> float:
        # a passage answers a how/why question by meaning too: its search score counts
        lexical = scorer.score(fact)
        return max(lexical, fact.prior) if kind == "passage" else lexical

    def rank(fact: Fact) -> float:
        bonus = 0.1 if wanted and any(n.unit in wanted for n in numbers_in(fact.text)) else 0.0
        return confidence(fact) + bonus

    for fact in sorted(facts, key=lambda f: -rank(f))[:12]:
        if kind != "passage" and confidence(fact) < 0.1:
            break
        value = extract(question, fact, kind, scorer, facts)
        if value is not None:
            return Answer(value, fact, round(min(1.0, confidence(fact)), 4))
    if kind == "number" and not expected:  # no number answers it: the best passage may
        return answer(question, facts, expected="passage")
    return None


def expected_kind(question: str) -> str:
    q = question.lower()
    if re.search(r"\b(dates)\b", q):
        return "dates"
    if re.search(r"^\s*when\b|\b(what|which) (date|day)\b|\bdate\b|\bwhen (was|is|did|does|will)\b", q):
        return "date"
    if re.search(r"\bwho\b|\bwhose\b|\bwhich person\b|\bname of the (person|lead|manager|head)\b", q):
        return "name"
    if re.search(r"\bversion\b", q):
        return "version"
    if re.search(r"^\s*(how (do|does|is|are|can|should|to)|why|explain|describe|search|summari[sz]e)\b", q):
        return "passage"
    return "number"


def extract(question: str, fact: Fact, kind: str, scorer: Scorer, facts: Sequence[Fact]) -> Value | None:
    text = fact.text
    if kind in ("date", "dates"):
        found = dates_in(text)
        if not found:
            return None
        if kind == "dates":
            same = [d for f in facts if f.path == fact.path for d in dates_in(f.text)]
            days = (
                tuple(dict.fromkeys(d for _, _, d in same)) if len(found) < 2 else tuple(d for *_, d in found)
            )
            return Value.of_list(tuple(Value.of_date(d) for d in days))
        start, end, day = _closest(list(found), text, scorer)
        return Value.of_date(day, text[start:end])
    if kind == "name":
        names = [(m.start(), m.end(), m.group(1)) for m in _NAME.finditer(text)]
        names = [n for n in names if not (terms(n[2]) & scorer.q_terms)]
        if not names:
            return None
        return Value.of_text(_closest(list(names), text, scorer)[2])
    if kind == "version":
        found_v = [(m.start(), m.end(), m.group()) for m in _VERSION.finditer(text)]
        return Value.of_text(_closest(list(found_v), text, scorer)[2]) if found_v else None
    if kind == "passage":
        return Value.of_text(text.split("\0")[0].strip()[:400])
    if fact.cells:
        return _cell_value(question, fact, scorer, facts)
    return _number_value(question, text, scorer)


def _units_wanted(question: str) -> tuple[str, ...]:
    q = terms(question)
    wanted: list[str] = []
    for words, units in UNIT_HINTS:
        if q & {stem(w) for w in words}:
            wanted += units
    return tuple(wanted)


def _number_value(question: str, text: str, scorer: Scorer) -> Value | None:
    found = [
        f
        for f in numbers_in(text)
        if not (f.unit == "" and 1900 <= f.number <= 2100 and "year" not in question)
    ]
    if not found:
        return None
    wanted = _units_wanted(question)
    preferred = [f for f in found if f.unit in wanted] if wanted else []
    pool = preferred or found
    colon = text.find(":")
    if colon != -1 and terms(text[:colon]) & scorer.q_terms:
        after = [f for f in pool if f.start > colon]
        if after:
            return Value.of_number(after[0].number, after[0].unit, after[0].text)
    spans = [(f.start, f.end, f) for f in pool]
    best = _closest(spans, text, scorer)[2]
    return Value.of_number(best.number, best.unit, best.text)


def _cell_value(question: str, fact: Fact, scorer: Scorer, facts: Sequence[Fact]) -> Value | None:
    columns = [(h, c) for h, c in fact.cells if numbers_in(c) or dates_in(c)]
    if not columns:
        return None
    q_terms = scorer.q_terms

    def col_score(header: str) -> float:
        return sum(scorer.idf.get(t, 0.0) for t in terms(header) & q_terms)

    header, cell = max(columns, key=lambda hc: (col_score(hc[0]), -columns.index(hc)))
    row_key = fact.cells[0][1] if fact.cells else ""
    if _AGGREGATE.search(question) and not (terms(row_key) & q_terms):
        rows = [f for f in facts if f.table == fact.table and f.table]
        values = []
        for row in rows:
            match = [c for h, c in row.cells if h == header]
            nums = numbers_in(match[0]) if match else []
            if nums:
                values.append(Value.of_number(nums[0].number, nums[0].unit, nums[0].text))
        if len(values) > 1:
            return Value.of_list(tuple(values))
    nums = numbers_in(cell)
    if nums:
        wanted = _units_wanted(question)
        pick = next((n for n in nums if n.unit in wanted), nums[0])
        return Value.of_number(pick.number, pick.unit, pick.text)
    days = dates_in(cell)
    return Value.of_date(days[0][2]) if days else None


def _closest(spans: Sequence[tuple[int, int, Any]], text: str, scorer: Scorer) -> tuple[int, int, Any]:
    """The span most tied to the question's words: each word weighs its IDF over its distance."""
    anchors = [
        (m.start(), scorer.idf.get(stem(m.group()), scorer.idf.get(m.group(), 0.0)))
        for m in _WORD.finditer(text.lower())
    ]
    anchors = [(pos, w) for pos, w in anchors if w > 0]
    if not anchors:
        return spans[0]

    def pull(span: tuple[int, int, object]) -> float:
        total = 0.0
        for pos, weight in anchors:
            gap = (span[0] - pos) / 6 if span[0] >= pos else (pos - span[1]) / 4 + 2
            total += weight / (1 + max(0.0, gap))
        return total

    return max(spans, key=pull)


def superseded(text: str) -> bool:
    head = "\n".join(text.splitlines()[:3])
    return bool(_SUPERSEDED.search(head))


__all__ = [
    "Answer",
    "Fact",
    "Scorer",
    "answer",
    "expected_kind",
    "extract",
    "facts_of",
    "superseded",
    "terms",
]
