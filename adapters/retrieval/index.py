"""The ``retrieval`` adapter's options and its document index (blocking; the adapter runs it in a worker
thread).

:class:`RetrievalOptions` are the adapter's options. :class:`DocIndex` holds the passages and vectors of one
folder, cached per file by (size, modification time) (:func:`scan_folder`), and answers a question: the
best passages, the facts read from them, the typed document model's answers, a price's terms and the
several charges a situation incurs (:meth:`DocIndex.find_answer`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ioa_p2p.adapters.retrieval import typed as typed_policy
from ioa_p2p.adapters.retrieval.agreement import near_misses
from ioa_p2p.adapters.retrieval.answer import (
    Answer,
    Fact,
    added_to_unstated,
    answer,
    expected_kind,
    facts_of,
    quotes,
)
from ioa_p2p.adapters.retrieval.answer import superseded as is_superseded
from ioa_p2p.adapters.retrieval.bill import bill_items
from ioa_p2p.adapters.retrieval.chunks import (
    Passage,
    chunk_document,
    section_openers,
    whole_blocks,
    with_caption,
)
from ioa_p2p.adapters.retrieval.described import described_designator
from ioa_p2p.adapters.retrieval.docmodel import Document, TypedAnswer, ranked, read_document
from ioa_p2p.adapters.retrieval.facts import Scorer, row_designators, terms
from ioa_p2p.adapters.retrieval.fit import misfit
from ioa_p2p.adapters.retrieval.focus import focus_query, situated
from ioa_p2p.adapters.retrieval.formats import STRUCTURED, readable
from ioa_p2p.adapters.retrieval.passage_scores import score_passages
from ioa_p2p.adapters.retrieval.qualifiers import Qualifier
from ioa_p2p.adapters.retrieval.quoting import message_title, unquoted
from ioa_p2p.adapters.retrieval.scope import scope_weights, set_of
from ioa_p2p.adapters.retrieval.tariff import asks_price, charge_terms, charged
from ioa_p2p.adapters.retrieval.terms import question_terms
from ioa_p2p.adapters.retrieval.text_sniff import looks_like_text
from ioa_p2p.adapters.retrieval.typed import line_fit, prefer_typed, reading_of, with_reading
from ioa_p2p.embedding import Embedder, Matrix
from ioa_p2p.planning.answer_types import MONEY_UNITS
from ioa_p2p.planning.dimensions import mismatch
from ioa_p2p.planning.values import Value


@dataclass(frozen=True, slots=True)
class RetrievalOptions:
    path: str
    chunk_chars: int = 800
    top_k: int = 3
    min_score: float = 0.2
    keyword_weight: float = 0.3
    extensions: tuple[str, ...] = (
        "md",
        "txt",
        "rst",
        "csv",
        *sorted(suffix.lstrip(".") for suffix in STRUCTURED),
    )
    #: a file of another suffix (or none) is read too when its first bytes are UTF-8 text (text_sniff.py)
    sniff_text: bool = True
    max_files: int = 2_000
    max_file_kb: int = 1_024
    embedding: dict[str, Any] = field(default_factory=dict)  # {"backend": "wordllama"} by default
    name: str = "doc-retrieval"
    description: str = ""
    skills: tuple[str, ...] = ("document search", "question answering", "citations")
    #: An answer span below this confidence (0..1, see answer.py) fails the task: nothing answers it.
    min_answer_score: float = 0.15
    answer_candidates: int = 16  # passages the answer span is looked for in


# --------------------------------------------------------------------------- the index


@dataclass(slots=True)
class _FileEntry:
    key: tuple[int, int]  # (size, mtime_ns)
    passages: list[Passage]
    matrix: Matrix
    title: str = ""  # the first non-blank line
    superseded: bool = False  # its head says it was superseded / replaced
    lines: tuple[str, ...] = ()  # the file's lines (a passage cut inside a table is read whole)
    document: Document | None = None  # the typed records (docmodel), read once with the file
    depths: tuple[int, ...] = ()  # each line's quote level in an e-mail or forum thread (quoting.py)


@dataclass(slots=True)
class DocIndex:
    """Passages and their vectors for one folder, rebuilt per changed file."""

    root: Path
    embedder: Embedder
    options: RetrievalOptions
    files: dict[str, _FileEntry] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    sets: dict[str, str] = field(default_factory=dict)  # document set -> its paths and text, lower case
    _vocabulary: set[str] | None = None  # the stems of every document's terms (focus.py)

    def refresh(self) -> bool:
        """Re-scan the folder; re-embed changed files. Returns True if anything changed. Blocking."""
        found, skipped = scan_folder(self.root, self.options)
        changed = set(self.files) != set(found)
        fresh: dict[str, _FileEntry] = {}
        for rel, key in found.items():
            entry = self.files.get(rel)
            if entry is None or entry.key != key:
                entry = self._embed_file(rel, key)
                changed = True
            fresh[rel] = entry
        self.files, self.skipped = fresh, skipped
        if changed or not self.sets:
            texts: dict[str, list[str]] = {}
            for rel, entry in sorted(fresh.items()):
                texts.setdefault(set_of(rel), []).extend([rel, *entry.lines])
            self.sets = {s: "\n".join(lines).lower() for s, lines in texts.items()}
            self._vocabulary = None
        return changed

    def _embed_file(self, rel: str, key: tuple[int, int]) -> _FileEntry:
        raw = (self.root / rel).read_bytes()[: self.options.max_file_kb * 1024]
        text = readable(rel, raw.decode("utf-8", "replace"))  # YAML, INI, JSON, HTML: as text (formats.py)
        lines, depths = unquoted(text.splitlines())  # a thread's ">" levels: markers off, depth kept
        text = "\n".join(lines) if any(depths) else text
        passages = chunk_document(rel, text, self.options.chunk_chars)
        matrix = self.embedder.embed([p.embedding_text() for p in passages])
        title = next((line.strip().lstrip("# ") for line in text.splitlines() if line.strip()), "")
        title = message_title(text) or title  # a saved message: its subject and parties (quoting.py)
        old = is_superseded(text) or bool(
            re.search(r"(?:^|[-_./])(?:superseded|obsolete|outdated)(?:[-_./]|$)", rel)
        )
        document = read_document(rel, text)
        lines_of = tuple(text.splitlines())
        kept = tuple(depths) if any(depths) else ()
        return _FileEntry(key, passages, matrix, title[:200], old, lines_of, document, kept)

    def document_of(self, path: str) -> Document | None:
        return entry.document if (entry := self.files.get(path)) is not None else None

    def documents(self) -> list[Document]:
        """The typed records of every file (read once per file version, at load)."""
        return [e.document for e in self.files.values() if e.document is not None]

    def all(self) -> tuple[list[Passage], Matrix]:
        passages = [p for entry in self.files.values() for p in entry.passages]
        mats = [entry.matrix for entry in self.files.values() if len(entry.passages)]
        matrix = np.vstack(mats) if mats else np.zeros((0, self.embedder.dim), dtype=np.float32)
        return passages, matrix

    def search(self, query: str, k: int = 0) -> list[tuple[float, Passage]]:
        passages, matrix = self.all()
        if not passages:
            return []
        query_vec = self.embedder.embed([query])[0]
        scores = score_passages(query_vec, matrix, query, passages, self.options.keyword_weight)
        weights = self.scope(query)  # a question that names its subject: that document set
        if weights:
            scores = scores * np.array([weights.get(set_of(p.path), 1.0) for p in passages])
        order = np.argsort(-scores, kind="stable")[: k or self.options.top_k]
        return [(float(scores[i]), passages[i]) for i in order]

    def scope(self, query: str) -> dict[str, float]:
        return scope_weights(query, self.sets)

    def facts(self, hits: Sequence[tuple[float, Passage]]) -> list[Fact]:
        """The facts of the passages found (answer spans are read from them)."""
        out: list[Fact] = []
        for score, p in hits:
            entry = self.files.get(p.path)
            title, old = (entry.title, entry.superseded) if entry else ("", False)
            start, text = whole_blocks(entry.lines, p) if entry else (p.start_line, p.text)
            heading = with_caption(p.heading, entry.lines, start) if entry else p.heading
            depths = entry.depths[start - 1 :] if entry else ()
            out += facts_of(p.path, start, heading, text, old, title, score, depths)
        return out

    def find_answer(self, query: str) -> tuple[list[tuple[float, Passage]], Answer | None]:
        """The passages for ``query`` and the answer span read from the best candidates. A question that
        states a situation answered from a document that never names what the question names (a near
        miss, qualifiers.py) is asked again by its subject (focus.py): the answer of a document that names
        it all replaces the near miss. Blocking."""
        hits, found = self.answer_as_asked(query)
        hits, found = self.as_described(query, hits, found)
        subject = found is not None and any(q.kind in SUBJECT_KINDS for q in self.unnamed(query, found))
        if found is None or not subject or not situated(query):
            return hits, found  # (a fact of another weekday or group is a near miss of the right document)
        focused = focus_query(query, self.vocabulary())
        again, refound = self.answer_as_asked(focused) if focused else ([], None)
        sure = refound is not None and refound.score >= self.options.min_answer_score
        if sure and refound is not None and not self.unnamed(query, refound):
            return again, refound
        return hits, found

    def as_described(
        self, query: str, hits: list[tuple[float, Passage]], found: Answer | None
    ) -> tuple[list[tuple[float, Passage]], Answer | None]:
        """A question that describes a class its document defines ("a 2-axle lorry over 3.5 t" for
        "Class 3  Goods vehicles over 3.5 t with 2 axles") asked again with the class named (described.py),
        when the answer found is not of that class; the answer of the question as asked otherwise."""
        paths = list(dict.fromkeys([*([found.fact.path] if found else []), *(p.path for _, p in hits[:3])]))
        for path in paths:
            entry = self.files.get(path)
            designator = described_designator(query, entry.lines) if entry else None
            if designator is None:
                continue
            named = {t for t in terms(designator) if "#" in t}
            if found is not None and found.fact.cells and named <= row_terms(found.fact):
                return hits, found  # the answer is the row of the class described already
            again, refound = self.answer_as_asked(f"{query} ({designator})")
            if refound is not None and refound.fact.cells and named <= row_designators(refound.fact):
                return again, refound  # (the class's row: a sentence that mentions it is no answer)
        return hits, found

    def unnamed(self, query: str, found: Answer) -> list[Qualifier]:
        """What ``query`` names that the document ``found`` was read from never names (qualifiers.py)."""
        entry = self.files.get(found.fact.path)
        lines = "\n".join(entry.lines) if entry else ""
        return near_misses(query, lines, found.fact.path, found.fact.text) if entry else []

    def vocabulary(self) -> set[str]:
        """The terms of every document (their stems), read once per change of the folder."""
        if self._vocabulary is None:
            self._vocabulary = terms("\n".join(self.sets.values()))
        return self._vocabulary

    def answer_as_asked(self, query: str) -> tuple[list[tuple[float, Passage]], Answer | None]:
        """The passages for ``query`` and the answer read from them, the question as worded. Blocking."""
        hits = self.search(query, max(self.options.top_k, self.options.answer_candidates))
        # a passage that quotes the request (an example of it in the docs) holds no answer to it
        answering = [(s, p) for s, p in hits if not quotes(query, p.text)]
        if expected_kind(query) == "passage":  # "how is X done": where the section about X opens, too
            openers = section_openers(answering, {k: e.passages for k, e in self.files.items()})
            answering += [(s, p) for s, p in openers if not quotes(query, p.text)]
        facts = self.facts(answering)
        found = answer(query, facts, scope=self.scope(query))
        if found is not None:  # a table's bare figure in the currency its heading states ("(EUR)"), or
            # the document's for a price from a row the question names ("group D": the row "D")
            found = self.in_currency(found, asks_price(query) and names_row(query, found.fact))
        typed = self.typed_answers(query, answering) if typed_policy.TYPED_POLICY != "none" else []
        # "300 mm" for "how much water": no answer, nor another figure of its sentence ("closed for 2 days")
        wrong = {(t.span.path, t.span.line) for t in typed if mismatch(query, t.value)}
        wrong |= {(t.span.path, t.span.line) for t in typed if misfit(query, t.span.text, t.value)}
        excluding = Scorer(query, [])  # "outside Amsterdam, Paris and London": not the line naming them
        wrong |= {
            (t.span.path, t.span.line)
            for t in typed
            if excluding.excludes(Fact(t.span.path, 0, t.span.text, ""))
        }
        wrong |= {(t.span.path, t.span.line) for t in typed if added_to_unstated(t.span.text, t.value)}
        typed = [t for t in typed if (t.span.path, t.span.line) not in wrong]
        if typed and prefer_typed(query, found, typed, line_fit(query, facts, typed[0].span, found)):
            fact = Fact(typed[0].span.path, typed[0].span.line, typed[0].span.text, "")
            found = Answer(typed[0].value, fact, typed[0].confidence, typed[0])
        elif found is not None and typed:  # the scorer's answer stands; its typed reading travels with it
            reading = reading_of(found, typed)
            value = found.value if reading is None else with_reading(found.value, reading.value, found.fact)
            found = Answer(value, found.fact, found.score, reading)
        if found is not None and asks_price(query):  # or, for a price, the one its document states
            found = self.in_currency(found, True)
        where = found.fact.path if found is not None else (answering[0][1].path if answering else "")
        if where and asks_price(query):  # several charges the situation incurs: each on its own terms
            found_fact = found.fact if found is not None else None
            items = bill_items(query, self.folder_facts(where), self.folder_names(where), found_fact)
            if items:  # charges the question names outright: as sure as a good single answer
                sure = max(found.score if found is not None else 0.0, BILL_CONFIDENCE)
                value = items[0][1] if len(items) == 1 else Value.of_list(tuple(v for _, v in items))
                return hits, Answer(value, items[0][0], sure)
        if found is not None and charged(query, found.value):  # a price: what it is per, on what terms
            rules = self.folder_facts(found.fact.path)
            terms = charge_terms(query, found.fact, found.value, rules)
            if terms:
                found = Answer(found.value.with_terms(terms), found.fact, found.score, found.typed)
        return hits, found

    def in_currency(self, found: Answer, price: bool) -> Answer:
        """A figure read from a table cell with no unit ("70.00" under "Price per MWh"), in the currency
        the table's heading states ("TOLLS PER CROSSING (EUR)") or, for a ``price`` asked, the one its
        document states its prices in ("Prices in EUR"); the answer as found otherwise."""
        value, document = found.value, self.document_of(found.fact.path)
        if value.kind != "number" or value.unit or not found.fact.cells:
            return found
        stated = _BRACKETED_CURRENCY.search(found.fact.context.split("\0")[0])  # "TOLLS ... (EUR)"
        currency = stated.group(1) if stated and stated.group(1) in MONEY_UNITS else ""
        currency = currency or (document.currency if document is not None and price else "")
        if not currency:
            return found
        return Answer(replace(value, unit=currency), found.fact, found.score, found.typed)

    def typed_answers(self, query: str, hits: Sequence[tuple[float, Passage]]) -> list[TypedAnswer]:
        """The typed document model's best answers (docmodel) from the documents the passages found are
        in, each weighted by its best passage's score and the question's scope."""
        scope = self.scope(query)
        weights: dict[str, float] = {}
        for score, p in hits:
            weight = max(score, 0.0) * scope.get(set_of(p.path), 1.0)
            weights[p.path] = max(weights.get(p.path, 0.0), weight)
        top = max(weights.values(), default=0.0)
        if top > 0:  # the best document counts whole: the typed model's confidence is its own
            weights = {path: w / top for path, w in weights.items()}
        documents = [d for d in self.documents() if d.path in weights]
        return ranked(query, documents, weights, typed_policy.TYPED_CANDIDATES) if documents else []

    def folder_names(self, path: str) -> set[str]:
        """The terms of the file names and titles of ``path``'s folder (names, not charges)."""
        folder = path.rpartition("/")[0]
        names = [f"{rel} {e.title}" for rel, e in self.files.items() if rel.rpartition("/")[0] == folder]
        return terms(re.sub(r"[_\-./]+", " ", " ".join(names)))

    def folder_facts(self, path: str) -> list[Fact]:
        """The facts of every document in ``path``'s folder (where the rules of a price are stated)."""
        folder = path.rpartition("/")[0]
        out: list[Fact] = []
        for rel, entry in sorted(self.files.items()):
            if rel.rpartition("/")[0] != folder:
                continue
            seen: set[tuple[int, str]] = set()
            for p in entry.passages:
                if len(out) < MAX_RULE_FACTS:
                    start, text = whole_blocks(entry.lines, p)  # a table cut by a passage: read whole
                    heading = with_caption(p.heading, entry.lines, start)
                    depths = entry.depths[start - 1 :]
                    for f in facts_of(rel, start, heading, text, entry.superseded, entry.title, 0.0, depths):
                        if (f.line, f.text) not in seen:
                            seen.add((f.line, f.text))
                            out.append(f)
        return out[:MAX_RULE_FACTS]


def names_row(query: str, fact: Fact) -> bool:
    """The question names this table row: its key's words or its designator ("group D")."""
    if not fact.cells:
        return False
    asked = question_terms(query)
    key = {t for t in terms(fact.cells[0][1]) if not t.isdigit()}
    return bool(key and key <= asked) or bool(row_designators(fact) & asked)


def row_terms(fact: Fact) -> set[str]:
    """The terms a fact itself states (a table row: its cells and its key under the first header)."""
    return terms(fact.text.split("\0")[0]) | (row_designators(fact) if fact.cells else set())


#: a heading or title that states the currency of the table under it: "LIFT PASS PRICES (EUR)"
_BRACKETED_CURRENCY = re.compile(r"\(([A-Z]{3})\)")
BILL_CONFIDENCE = 0.3
#: near misses that mean another document: the question's names and codes are not in it (qualifiers.py)
SUBJECT_KINDS = frozenset({"name", "code", "compound"})
MAX_RULE_FACTS = 2_000


def scan_folder(root: Path, o: RetrievalOptions) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """Document files under ``root`` -> (size, mtime_ns); skipped files with the reason."""
    found: dict[str, tuple[int, int]] = {}
    skipped: list[str] = []
    suffixes = {"." + e.lower().lstrip(".") for e in o.extensions}
    for dirpath, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            if name.startswith(".") or not _readable_suffix(path, suffixes, o.sniff_text):
                continue
            if path.is_symlink() or not path.is_file():
                skipped.append(f"{rel} (symlink or not a regular file)")
                continue
            if len(found) >= o.max_files:
                skipped.append(f"{rel} (over max_files = {o.max_files})")
                continue
            stat = path.stat()
            if stat.st_size > o.max_file_kb * 1024:
                skipped.append(f"{rel} ({stat.st_size} bytes; only the first {o.max_file_kb} KiB used)")
            found[rel] = (stat.st_size, stat.st_mtime_ns)
    return found, skipped[:100]


def _readable_suffix(path: Path, suffixes: set[str], sniff: bool) -> bool:
    """A listed suffix, or (with ``sniff``) a file whose first bytes read as UTF-8 text."""
    if path.suffix.lower() in suffixes:
        return True
    return sniff and path.is_file() and not path.is_symlink() and looks_like_text(path)


__all__ = [
    "BILL_CONFIDENCE",
    "MAX_RULE_FACTS",
    "SUBJECT_KINDS",
    "DocIndex",
    "RetrievalOptions",
    "scan_folder",
]
