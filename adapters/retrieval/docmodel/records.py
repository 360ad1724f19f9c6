"""The typed records a document is read into (pure data), and the typed answer read from them.

A document (:class:`Document`) is a list of :class:`Record`: each sentence, list item, ``key: value`` line,
table row, defined term and FAQ answer once, with its section trail, its quantities
(:class:`~.quantity.Quantity`, rates and ranges included) and its conditions (:class:`Condition`: "except
...", "unless ...", "only with ...", "otherwise ..."). A table row keeps its cells keyed by their headers;
a ``key: value`` line, a defined term and a FAQ answer keep their key. :class:`TypedAnswer` is what a
question gets back: a :class:`~ioa_p2p.planning.values.Value` (number + unit, a text, a clock time), the
record kind and the slot it came from, the rate's denominator, the conditions that qualify it, and the
:class:`Span` of the source (path, line, text) to cite.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ioa_p2p.adapters.retrieval.docmodel.quantity import Quantity
from ioa_p2p.planning.values import Value

SENTENCE = "sentence"  # a sentence of a paragraph
ITEM = "item"  # a list item (bullets, numbered steps)
FIELD = "field"  # a "key: value" line
ROW = "row"  # a table row: cells keyed by the headers
TERM = "term"  # a defined term and its definition
ANSWER = "answer"  # a FAQ answer, keyed by its question
KINDS = (SENTENCE, ITEM, FIELD, ROW, TERM, ANSWER)


@dataclass(frozen=True, slots=True)
class Span:
    """Where a value was read: the file, its 1-based line, the record's text."""

    path: str
    line: int
    text: str

    @property
    def citation(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Condition:
    """A condition or exception that qualifies a record: ``kind`` is ``except``, ``unless``, ``only``,
    ``otherwise``, ``if``, ``minimum`` or ``maximum``; ``text`` the clause as written."""

    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class Record:
    kind: str  # one of KINDS
    path: str
    line: int
    text: str  # as written (a row: its cells joined by " | ")
    section: tuple[str, ...] = ()  # the heading trail
    key: str = ""  # a field's key, a term, a FAQ question, a row's first cell
    value: str = ""  # a field's value, a term's definition, a FAQ answer
    cells: tuple[tuple[str, str], ...] = ()  # (header, cell) for a row
    table: int = -1  # which table of the document a row belongs to
    quantities: tuple[Quantity, ...] = ()
    conditions: tuple[Condition, ...] = ()
    words: frozenset[str] = frozenset()  # the search terms of its text and key (facts.terms)
    context: frozenset[str] = frozenset()  # ... of its section trail, a row's headers, its document

    @property
    def span(self) -> Span:
        return Span(self.path, self.line, self.text)

    def cell(self, header: str) -> str:
        return next((c for h, c in self.cells if h == header), "")


@dataclass(frozen=True, slots=True)
class Document:
    path: str
    title: str
    records: tuple[Record, ...] = field(default=())
    currency: str = ""  # the currency of its prices when numbers carry none ("All rates in EUR")


@dataclass(frozen=True, slots=True)
class TypedAnswer:
    """A typed answer: ``value`` (a :class:`Value`: number + unit, clock time, date or text), the answer
    type it was asked as, where it came from, and how sure the match is (0..1).

    ``per``/``per_amount`` say what a rate is per ("EUR 12 per hour": per "h"); ``conditions`` are the
    record's conditions and exceptions, for the caller to apply; ``slot`` names the cell's header or the
    field's key the value was read from ("" for a sentence)."""

    value: Value
    kind: str  # the answer type: duration, amount, quantity, count, time, date, name, reason, definition
    span: Span
    confidence: float
    record_kind: str = SENTENCE
    slot: str = ""
    per: str = ""
    per_amount: float = 1.0
    conditions: tuple[Condition, ...] = ()

    @property
    def number(self) -> float | None:
        return self.value.number

    @property
    def unit(self) -> str:
        return self.value.unit

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "value": self.value.to_dict(),
            "kind": self.kind,
            "source": {"path": self.span.path, "line": self.span.line, "text": self.span.text[:300]},
            "confidence": round(self.confidence, 3),
            "record": self.record_kind,
        }
        if self.slot:
            out["slot"] = self.slot
        if self.per:
            out["per"] = self.per if self.per_amount == 1 else f"{self.per_amount:g} {self.per}"
        if self.conditions:
            out["conditions"] = [[c.kind, c.text] for c in self.conditions]
        return out
