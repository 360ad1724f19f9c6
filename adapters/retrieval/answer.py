"""Answer spans (pure): the fact in the retrieved passages that answers a question, and its value.

Facts and their scoring are in :mod:`~ioa_p2p.adapters.retrieval.facts` (sentences, list items, ``key:
value`` lines, table rows, each with its context); the value a fact states is read by the question's
answer type in :mod:`~ioa_p2p.adapters.retrieval.extract`. :func:`answer` tries the best-scoring facts in
turn (a fact whose numbers carry a unit the answer type wants first) and returns the first that states a
value of the kind asked for; a question no number answers may be answered by the best passage.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ioa_p2p.adapters.retrieval.capacity import fitting_rows
from ioa_p2p.adapters.retrieval.clock_value import HOURS_ASKED
from ioa_p2p.adapters.retrieval.docmodel import TypedAnswer
from ioa_p2p.adapters.retrieval.evidence_scope import asks_past, superseded_fact
from ioa_p2p.adapters.retrieval.extract import counts, extract
from ioa_p2p.adapters.retrieval.facts import SECTION, Fact, Scorer, facts_of, section_of, superseded, terms
from ioa_p2p.adapters.retrieval.fit import bare_clock_count, misfit, states_count, unnamed_row
from ioa_p2p.adapters.retrieval.number_span import periods_in
from ioa_p2p.adapters.retrieval.superlative import extreme_row
from ioa_p2p.adapters.retrieval.tariff import per_dimension_pattern
from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.dimensions import mismatch
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.units import factor
from ioa_p2p.planning.values import ALIASES, Value, is_money, numbers_in

#: answer types -> the extractor kinds of :func:`~ioa_p2p.adapters.retrieval.extract.extract`
_KINDS = {"date": "date", "dates": "dates", "time": "time", "name": "name", "version": "version",
          "passage": "passage", "reason": "reason"}  # fmt: skip


_CAUSE_LEAD = re.compile(
    r"\W*(?:why\b[^.?]{0,40}:|reasons?\b[^.?]{0,30}:|causes?:|root cause|because\b)", re.I
)
_CAUSE_SECTION = re.compile(r"\b(?:root cause|causes?|reasons?|why|what happened|what went wrong)\b", re.I)


@dataclass(frozen=True, slots=True)
class Answer:
    value: Value
    fact: Fact
    score: float  # 0..1, the adapter's confidence that the fact answers the question
    typed: TypedAnswer | None = None  # the typed document model's answer, when it is the one given

    @property
    def citation(self) -> str:
        return f"{self.fact.path}:{self.fact.line}"


def answer(
    question: str, facts: Sequence[Fact], *, expected: str = "", scope: Mapping[str, float] | None = None
) -> Answer | None:
    """The best-scoring fact that holds a value of the kind the question asks for, with that value;
    ``scope`` weighs the facts of each document set (:func:`~ioa_p2p.adapters.retrieval.scope.scope_weights`,
    keyed by a file's folder) in the ranking."""
    weights = scope or {}
    scorer = Scorer(question, facts)
    kind = expected or expected_kind(question)
    asked = answer_type(question)
    wanted = asked.units if kind == "number" else ()
    per = asked.per.split()[-1][:5] if asked.per else ""

    def confidence(fact: Fact) -> float:
        # a passage answers a how/why question by meaning too: its search score counts
        lexical = scorer.score(fact)
        if kind in ("passage", "reason"):
            return max(lexical, fact.prior)
        return max(lexical, named_row(fact, scorer)) if fact.cells else lexical

    # a price asked for a stated quantity ("for five and a half hours"): a rate per that kind of unit
    per_quantity = (
        per_dimension_pattern([q.dimension for q in stated_quantities(question)])
        if asked.kind == "amount"
        else None
    )

    def rank(fact: Fact) -> float:
        found = numbers_in(fact.text)
        fits = any(n.unit in wanted for n in found) or bool(
            fact.cells and found and not any(n.unit for n in found)
        )
        spelled = periods_in(fact.text)  # "ten working days", "a 3-year warranty"
        fits = fits or bool(spelled) and (asked.kind == "duration" or any(p.unit in wanted for p in spelled))
        bonus = (
            0.1 if wanted and fits else 0.0
        )  # a table's cells carry no unit: the header or the doc says it
        if per and re.search(rf"\bper[- ](?:\w+ )?{re.escape(per)}", fact.text.lower()):
            bonus += 0.15  # "the rate per card": a fact stating a rate per card
        if fact.cells and _row_and_column(fact, scorer):
            bonus += 0.1  # a table cell at the row and the column the question names: the figure itself
        if per_quantity is not None and per_quantity.search(fact.text + " " + fact.context.split("\0")[0]):
            bonus += 0.15
        if asked.kind == "count" and states_count(question, fact.text.split("\0")[0]):
            bonus += 0.15  # "how many requests": "3.2 million requests took longer ..."
        if entity and _key_names(fact, entity):
            bonus += 0.3  # "the first day of the autumn half term": the line keyed "Half term: ..."
        if kind == "passage" and fact.kind != "heading":
            bonus += _about(fact, scorer)
        about = kind == "reason" and confidence(fact) >= 0.5 * top  # (a cause of another thing is none)
        if about and _CAUSE_SECTION.search(fact.context):
            bonus += 0.5  # "why ...?": the section that gives the cause
        elif about and _CAUSE_LEAD.match(fact.text):
            bonus += 0.5  # "Why the change: ...", "Reason: ...": a sentence that gives the cause
        return confidence(fact) * weights.get(fact.path.rpartition("/")[0], 1.0) + bonus

    top = max((confidence(f) for f in facts), default=0.0) if kind == "reason" else 0.0
    of = _OF_ENTITY.search(question)
    entity = {t for t in terms(of.group(1)) if not t.isdigit()} if of else set()
    everything = sorted(facts, key=lambda f: -rank(f))
    if kind == "passage":  # "how is X done": the section about X answers from where it opens
        openings = _openings(facts)
        opened = [openings.get(_section_key(f), f) if _about(f, scorer) else f for f in everything]
        everything = list(dict.fromkeys(opened))
    ordered = everything[:12]
    # "the heaviest pump": the row of the table found with the extreme value, as sure as the table's best row
    top_row = next((f for f in everything if f.cells and confidence(f) >= 0.1), None)
    extreme = extreme_row(question, top_row, facts) if top_row is not None else None
    if extreme is not None and top_row is not None:
        ordered = [extreme, *(f for f in ordered if f is not extreme)]
    if kind == "name" and top_row is not None and extreme is None:  # "which room seats 150 theatre-style"
        fitting = fitting_rows(question, top_row, facts)
        if fitting is not None:
            return Answer(fitting, top_row, round(min(1.0, confidence(top_row)), 4))
    for fact in ordered:
        sure = confidence(top_row) if fact is extreme and top_row is not None else confidence(fact)
        if kind not in ("passage", "reason") and sure < 0.1:
            continue  # ranked with bonuses: a weak fact ahead of a surer one ends nothing
        if quotes(question, fact.text):  # a line that quotes the request itself answers nothing
            continue
        if kind == "passage" and fact.text.split("\0")[0].rstrip().endswith("?"):
            continue  # a question (a FAQ's, an example request) answers nothing
        fact = _first_or_last(question, fact, facts) if kind == "time" else fact
        value = extract(question, fact, kind, scorer, facts)
        if value is not None and mismatch(question, value):
            continue  # "300 mm" for "how much water": a value of another dimension answers nothing asked
        if value is not None and misfit(question, fact.text, value, in_table=bool(fact.cells)):
            continue  # "5 credits" for "how many sessions", "every 20 minutes" for "how long" (fit.py)
        if (
            value is not None
            and kind == "number"
            and fact is not extreme
            and unnamed_row(question, fact.cells)
        ):
            continue  # "Science | 6 | 8" for "the hours of maths": a row the question does not name
        table_text = f"{fact.text} {fact.context.split(SECTION)[-1]}"
        if value is not None and fact.cells and bare_clock_count(question, value, table_text):
            continue  # "Mathematics | 8 | 7" under "LESSONS PER FORTNIGHT" for "how many hours"
        if value is not None and replaced_value(
            question, value, scorer.replaced.get(fact.path, set()), scorer
        ):
            continue  # "canapes £6.90" where the thread says "(not £6.90 as in my first email)"
        if value is not None and added_to_unstated(fact.text, value):
            continue  # "costs the partner's price plus a 0.50 EUR roaming fee": an add-on, not the cost
        if value is not None and superseded_fact(question, fact.text, value):
            continue  # "last week's price was £12.50" for "the price now": a later sentence may state it
        if value is not None:
            return Answer(in_asked_unit(question, value), fact, round(min(1.0, sure), 4))
    if kind == "hours" and not expected:  # no span of two clock times: the question as its type reads
        return answer(question, facts, expected=_KINDS.get(answer_type(question).kind, "number"), scope=scope)
    if kind == "date" and not expected and re.match(r"\W*when\b", question, re.I):
        return answer(question, facts, expected="time", scope=scope)  # "when is last entry": a clock time
    if kind in ("number", "reason", "name") and not expected:  # nothing of that kind: the best passage may
        return answer(question, facts, expected="passage", scope=scope)
    return None


#: "the first day of the autumn half term at X": what the question asks about (its attribute comes before)
_OF_ENTITY = re.compile(r"\bof (?:the |an? )?([\w' -]+?)(?= at | in | for | from |[,?.;:(]|$)", re.I)


#: an amount added to a price the sentence names but does not state ("the partner's price plus a 0.50 EUR
#: fee", "cost price plus GBP 3"): the add-on, not what the thing costs
_ADDED = re.compile(
    r"\b(?:price|cost|rate|fare|tariff|charge)s?\s+plus\s+(?:an?\s+|the\s+)?(?:[£€$]\s?|[A-Z]{3}\s)?"
    r"(\d[\d,]*(?:\.\d+)?)",
    re.IGNORECASE,
)


def added_to_unstated(text: str, value: Value) -> bool:
    """``value`` is an amount ``text`` adds to a price it names without a figure (see :data:`_ADDED`)."""
    if value.kind != "number" or value.number is None or not is_money(value.unit):
        return False
    return any(float(m.group(1).replace(",", "")) == value.number for m in _ADDED.finditer(text))


def replaced_value(question: str, value: Value, replaced: set[float], scorer: Scorer) -> bool:
    """An amount of money its document says was replaced (corrections.py), for a question about no
    earlier value or time ("for orders in 2025", "what did it cost")."""
    money = value.kind == "number" and value.number is not None and is_money(value.unit)
    asked_then = scorer.names_superseded or asks_past(question)
    return money and value.number in replaced and not asked_then


def _key_names(fact: Fact, entity: set[str]) -> bool:
    """A ``key: value`` line or a table row whose key (its first cell) is the thing the question asks
    about ("Half term: Monday 26 ...")."""
    text = fact.text.split("\0")[0]
    colon = text.find(":")
    key_text = fact.cells[0][1] if fact.cells else text[:colon] if 0 < colon <= 60 else ""
    key = {t for t in terms(key_text) if not t.isdigit()}
    return bool(key) and key <= entity


def _about(fact: Fact, scorer: Scorer) -> float:
    """0.25 when the section a fact opens or sits in is about what the question asks ("Invitations" for
    "how is a member invited": a heading word and a question word of one stem), else 0."""
    heading = section_of(fact).split(">")[-1]
    words = {t for t in terms(heading) if len(t) >= 4}
    asked = {t for t in scorer.q_terms if len(t) >= 4}
    return 0.25 if any(_one_stem(h, a) for h in words for a in asked) else 0.0


def _one_stem(a: str, b: str) -> bool:
    """Two words of one stem: a common start of 4 letters or more, most of the shorter word
    ("admit" / "admission", "invit" / "invitation"; not "charge" / "charter")."""
    n = len(os.path.commonprefix([a, b]))
    return n >= 4 and n >= 0.75 * min(len(a), len(b))


def _section_key(fact: Fact) -> tuple[str, str]:
    """A fact's file and the heading of the section it sits in (its last part, as the heading reads)."""
    return fact.path, section_of(fact).split(">")[-1].strip()[:40]


def _openings(facts: Sequence[Fact]) -> dict[tuple[str, str], Fact]:
    """The first fact (not a heading) of each section among ``facts``."""
    first: dict[tuple[str, str], Fact] = {}
    for f in facts:
        key = _section_key(f)
        if f.kind != "heading" and (key not in first or f.line < first[key].line):
            first[key] = f
    return first


def named_row(fact: Fact, scorer: Scorer) -> float:
    """How surely the question names this table row: a cell of words (not a figure) whose words the
    question mostly uses ("Station Road car park (multi-storey)" for "... in the Station Road car park");
    0 when none. A row can be named while the question's other words state conditions the row does not."""
    best = 0.0
    if scorer.contradicts(fact) or scorer.excludes(fact):  # the row named, at another amount than the
        return 0.0  # question states, or for the days or hours it excludes
    designation = terms(f"{fact.cells[0][0]} {fact.cells[0][1]}") if fact.cells else set()
    designation = {t for t in designation if "#" in t}
    asked = {
        t for t in scorer.q_terms if "#" in t and any(t.split("#")[0] == d.split("#")[0] for d in designation)
    }
    if asked and not asked & designation:
        return 0.0  # the question names another row ("Zone B" for the row of Zone C)
    key = {t for t in terms(fact.cells[0][1]) if not t.isdigit()} if fact.cells else set()
    if len(key) == 1 and key <= scorer.named:  # "Glasshouse": a row named by a name the question uses
        best = 0.35
    for _, cell in fact.cells[:3]:
        own = {t for t in terms(cell) if not t.isdigit()}
        if len(own) >= 2 and not numbers_in(cell):
            share = len(own & scorer.q_terms) / len(own)
            if share >= 0.5 and len(own & scorer.q_terms) >= 2:
                best = max(best, 0.2 + 0.3 * share)
    headers = {t for h, _ in fact.cells[1:] for t in terms(h)}
    return best if headers & scorer.q_terms else best / 2  # no column the question names: half as sure


def _row_and_column(fact: Fact, scorer: Scorer) -> bool:
    """The question names both the row (its first cell, or a cell of words: a lot code's row is named by
    its origin) and a column (a header) of a table fact."""
    key = terms(fact.cells[0][1]) if fact.cells else set()
    key |= {t for _, c in fact.cells[1:] if not numbers_in(c) for t in terms(c)}
    headers = {t for h, _ in fact.cells[1:] for t in terms(h)}
    return bool(key & scorer.q_terms) and bool(headers & scorer.q_terms)


def _first_or_last(question: str, fact: Fact, facts: Sequence[Fact]) -> Fact:
    """ "The first departure": the table's first row; "the last sailing": its last (rows in line order)."""
    which = re.search(r"\b(first|earliest|last|latest)\b(?:\s+([a-z]+))?", question, re.I)
    rows = [f for f in facts if fact.table and f.table == fact.table]
    if which is None or not rows:
        return fact
    if which.group(2) and _names_column(f"{which.group(1)} {which.group(2)}", fact):
        return fact  # "last entry on a Saturday": the "Last entry" column of the row named, no row order
    pick = min if which.group(1).lower() in ("first", "earliest") else max
    return pick(rows, key=lambda f: f.line)


def _names_column(phrase: str, fact: Fact) -> bool:
    """``phrase`` ("last entry", "first train") is a column header of ``fact``'s table: the question
    names the column, not a row by its order."""
    want = terms(phrase)
    return any(want and want <= terms(header) for header, _ in fact.cells)


def quotes(question: str, text: str) -> bool:
    """Whether ``text`` quotes ``question``: holds most of its words in a row (at least 6, and 70 % of
    them; a document that cites the request, such as an example of it, is not an answer to it)."""
    words = re.findall(r"[a-z0-9]+", question.lower())
    run = max(6, -(-len(words) * 7 // 10))
    if len(words) < run:
        return False
    said = " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "
    return any(" " + " ".join(words[i : i + run]) + " " in said for i in range(len(words) - run + 1))


_IN_UNIT = re.compile(r"\b(?:in|into|as|expressed in) (?:a number of )?([a-z]+)\b", re.I)


def in_asked_unit(question: str, value: Value) -> Value:
    """ "In minutes, how long ...": a value stated in another unit ("4 hours") converted to the unit the
    question names (240 min); the value as found when the question names none or it does not convert."""
    if value.kind != "number" or value.number is None or not value.unit:
        return value
    for m in _IN_UNIT.finditer(question):
        unit = ALIASES.get(m.group(1).lower(), "")
        scale = factor(value.unit, unit) if unit and unit != value.unit else None
        if scale is not None:
            return Value.of_number(float(f"{value.number * scale:.12g}"), unit)
    return value


def expected_kind(question: str) -> str:
    """The extractor kind for ``question``: its answer type, numbers for the numeric ones; ``hours`` for the
    span of clock times "what are the opening hours" asks (clock_value.py)."""
    if HOURS_ASKED.search(question) and answer_type(question).kind not in ("reason", "passage"):
        return "hours"
    return _KINDS.get(answer_type(question).kind, "number")


__all__ = [
    "Answer",
    "Fact",
    "Scorer",
    "answer",
    "counts",
    "expected_kind",
    "quotes",
    "extract",
    "facts_of",
    "superseded",
    "terms",
]
