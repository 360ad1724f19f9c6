"""Kind ``retrieval``: answer from a local folder of documents by embedding search, with citations.

The folder (option ``path``) is scanned for ``.md``, ``.txt``, ``.rst``, ``.csv`` and ``.tsv`` files, for
configuration files, data feeds and web pages (``.yaml``, ``.yml``, ``.ini``, ``.cfg``, ``.conf``, ``.toml``,
``.json``, ``.html``, ``.htm``: :mod:`.formats`), for AsciiDoc, Org, MediaWiki, recfile and XML documents
(:mod:`.markup`), all read as the text the rest understands, and (option ``sniff_text``, on by default) for
any other file whose first bytes are UTF-8 text (:mod:`.text_sniff`); no hidden files,
no symlinks, at most ``max_files`` files of at most ``max_file_kb`` KiB. Each file is cut into
passages of about ``chunk_chars`` characters along its structure (headings start a passage,
paragraphs and fenced code blocks are kept whole when they fit) and every passage remembers its
line range and heading trail. Passages are embedded with :mod:`ioa_p2p.embedding` (option
``embedding``, default the offline wordllama model) together with their file name and headings.

A task is answered with the ``top_k`` best passages, each cited as ``path:first-last`` lines. The
score is ``(1 - keyword_weight) * cosine + keyword_weight * keyword overlap`` (the share of the
question's content words found in the passage), so exact names still count. Passages under
``min_score`` are dropped; when none is left the task fails with the best score found.

The index is built on the first task and cached in memory per file, keyed by (path, size,
modification time): every task re-checks the folder (a ``stat`` per file) and re-embeds only the
files that changed. Embedding runs in a worker thread, off the node's event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import trio

from ioa_p2p.adapters.base import TASK_ERROR, AdapterCard, Task, TaskContext, TaskResult, parse_options
from ioa_p2p.adapters.needs import AdapterNeeds
from ioa_p2p.adapters.retrieval.agreement import near_misses
from ioa_p2p.adapters.retrieval.answer import Answer
from ioa_p2p.adapters.retrieval.chunks import Passage, chunk_document
from ioa_p2p.adapters.retrieval.docmodel.wire import with_records
from ioa_p2p.adapters.retrieval.evidence_scope import scope_misses
from ioa_p2p.adapters.retrieval.index import DocIndex, RetrievalOptions, scan_folder
from ioa_p2p.adapters.retrieval.passage_scores import content_words, score_passages
from ioa_p2p.adapters.retrieval.subject import unmentioned_subjects
from ioa_p2p.adapters.retrieval.tariff import charged
from ioa_p2p.embedding import Embedder, make_embedder
from ioa_p2p.errors import AdapterOptionsError, IoAError, TaskRejected
from ioa_p2p.planning.answer_types import request_act
from ioa_p2p.planning.refusal import ABSENT

KIND = "retrieval"
MAX_QUERY_CHARS = 2_000
SHOWN_PASSAGE_CHARS = 1_200
MAX_DOCUMENT_CHARS = 16_000
MAX_DOCUMENT_BYTES = 24_000  # with the passages (<= 3 x 2,400 chars) well inside MAX_DATA_BYTES


# --------------------------------------------------------------------------- the adapter


#: Words of an arithmetic task that name nothing to search for.
_ARITHMETIC = "calculate compute evaluate work out plus minus times divided multiplied sqrt abs "
_ARITHMETIC += "round total days weeks between after before from"
_ARITHMETIC_WORDS = frozenset(_ARITHMETIC.split())


class RetrievalAdapter:
    """Finds the passages of a local document folder that answer a question."""

    OPTIONS: ClassVar[type] = RetrievalOptions  # what `ioa adapters` lists
    NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(home_paths=("path",))  # a relative folder: in the node home

    def __init__(self, options: RetrievalOptions, embedder: Embedder | None = None) -> None:
        root = Path(options.path).expanduser()
        if not root.is_dir():
            raise AdapterOptionsError(f"retrieval option path: {options.path!r} is not a folder")
        if options.chunk_chars < 100 or not 1 <= options.top_k <= 20:
            raise AdapterOptionsError("retrieval options: chunk_chars >= 100 and 1 <= top_k <= 20")
        if not 0 <= options.keyword_weight <= 1 or options.max_files < 1 or options.max_file_kb < 1:
            raise AdapterOptionsError(
                "retrieval options: 0 <= keyword_weight <= 1, max_files >= 1, max_file_kb >= 1"
            )
        self.options = options
        self.root = root.resolve()
        where = "[agent.options.embedding] of adapter 'retrieval'"
        self.embedder = embedder if embedder is not None else make_embedder(options.embedding, where)
        self.index = DocIndex(self.root, self.embedder, options)
        self._lock = trio.Lock()
        self.builds = 0

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> RetrievalAdapter:
        return cls(parse_options(RetrievalOptions, options, KIND))

    def describe(self) -> AdapterCard:
        description = self.options.description or (
            f"Answers questions from the documents in {self.root.name or self.root} with cited "
            "passages (file and line numbers), offline."
        )
        return AdapterCard(
            name=self.options.name,
            description=description,
            skills=self.options.skills,
            kind=KIND,
            task_types=("question",),
            input_types=("text/plain",),
            output_types=("text/plain",),
        )

    def can_do(self, task: Task) -> float:
        """Cheap, from the request's form alone (:func:`~ioa_p2p.planning.answer_types.request_act`): 0 for
        what is not a question over documents (arithmetic to do, code to run, a text to translate or count)
        and for bare arithmetic (no word to search for besides "calculate"); else 0.5: whether the documents
        answer is known only by searching, and a search below ``min_score`` / ``min_answer_score`` fails the
        task rather than completing it."""
        text = task.text.strip()[:MAX_QUERY_CHARS]
        words = {w for w in content_words(text) if not w.replace("_", "").isdigit()}
        if "```" in text or not (words - _ARITHMETIC_WORDS):
            return 0.0
        if request_act(text) in ("compute", "code", "transform"):
            return 0.0
        return 0.5

    async def aclose(self) -> None:
        self.index.files.clear()

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        query = task.text.strip()[:MAX_QUERY_CHARS]
        if not content_words(query):
            raise TaskRejected("the task has no words to search the documents for")
        if self.can_do(task) <= 0.0:
            raise TaskRejected(f"not a question over the documents ({request_act(query)}): {query[:120]!r}")
        async with self._lock:  # one refresh at a time; searches are quick
            await ctx.progress(f"checking the documents in {self.root.name}")
            changed = await trio.to_thread.run_sync(self._refresh)
            if changed:
                self.builds += 1
            hits, found = await trio.to_thread.run_sync(self.index.find_answer, query)
            passages, _ = self.index.all()
            stats = {
                "files": len(self.index.files),
                "passages": len(passages),
                "model": self.embedder.model_id,
                "skipped": self.index.skipped[:20],
            }
        if not passages:
            return TaskResult.failed(
                TASK_ERROR, f"no documents to search in {self.root}", data={"index": stats}
            )
        good = [(s, p) for s, p in hits if s >= self.options.min_score][: self.options.top_k]
        if not good:
            best = hits[0][0] if hits else 0.0
            return TaskResult.failed(
                TASK_ERROR,
                f"no passage in {self.root.name} matches the question well enough "
                f"(best score {best:.2f} < min_score {self.options.min_score:g})",
                data={"index": stats, ABSENT: True},  # the documents do not state it (planning/refusal.py)
            )
        if found is None or found.score < self.options.min_answer_score:
            shown = f"best {found.score:.2f}: {found.fact.text[:200]!r}" if found else "none found"
            return TaskResult.failed(
                TASK_ERROR,
                f"nothing in {self.root.name} answers this ({shown}; min_answer_score "
                f"{self.options.min_answer_score:g})",
                # the best-matching document's typed records still travel: a planner derives from them
                data=with_records(
                    self.index.document_of(good[0][1].path),
                    {
                        "index": stats,
                        "confidence": found.score if found else 0.0,
                        "query": query,
                        ABSENT: True,
                    },
                ),
            )
        await ctx.progress(f"found {len(good)} passage(s)", 1.0)
        fact = found.fact
        entry = self.index.files.get(fact.path)
        lines = "\n".join(entry.lines) if entry else ""
        unnamed = near_misses(query, lines, fact.path, fact.text) if entry else []
        if entry and charged(query, found.value):  # the thing priced
            unnamed += unmentioned_subjects(query, lines, fact.path)  # is no other thing's price (subject.py)
        if entry:  # a label, a given amount, a past value, a situated thing unnamed (evidence_scope.py)
            seen = {q.shown for q in unnamed}
            unnamed += [
                q
                for q in scope_misses(query, lines, fact.path, fact.text, found.value)
                if q.shown not in seen
            ]
        if unnamed:  # a near miss: the answer's document names no year, version, item the question does
            shown = ", ".join(q.shown for q in unnamed)
            return TaskResult.failed(
                TASK_ERROR,
                f"{fact.path} never names {shown}: its {found.value.shown()!r} answers another question",
                data={"index": stats, "query": query, "unnamed": [q.shown for q in unnamed], ABSENT: True},
            )
        # the whole document the answer was read from: where a quantity's operands are defined
        whole = "\n".join(entry.lines)[:MAX_DOCUMENT_CHARS] if entry else ""
        document = whole.encode()[:MAX_DOCUMENT_BYTES].decode(errors="ignore")  # data stays within its bound
        return TaskResult.success(
            _answer_text(found, good),
            data=with_records(
                entry.document if entry is not None else None,
                {
                    "value": found.value.to_dict(),
                    "confidence": found.score,
                    **({"typed": found.typed.to_dict()} if found.typed is not None else {}),
                    "citation": {
                        "path": fact.path,
                        "line": fact.line,
                        "text": fact.text.split("\0")[0][:500],
                    },
                    "query": query,
                    "root": self.root.name,
                    "document": {"path": fact.path, "text": document},
                    "passages": [
                        {
                            "path": p.path,
                            "start_line": p.start_line,
                            "end_line": p.end_line,
                            "heading": p.heading,
                            "score": round(s, 4),
                            "text": p.text[: SHOWN_PASSAGE_CHARS * 2],
                        }
                        for s, p in good
                    ],
                    "index": stats,
                },
            ),
        )

    def _refresh(self) -> bool:
        try:
            return self.index.refresh()
        except OSError as exc:
            raise TaskRejected(f"cannot read the documents in {self.root}: {exc}") from None
        except IoAError:
            raise


def _answer_text(found: Answer, hits: Sequence[tuple[float, Passage]]) -> str:
    """The value first, then the fact it was read from and the passages found (citations only)."""
    fact = found.fact.text.split("\0")[0].strip()
    lines = [found.value.shown(), f"source: {found.citation}: {fact[:300]}"]
    for n, (score, p) in enumerate(hits, 1):
        title = f" ({p.heading})" if p.heading else ""
        lines.append(f"[{n}] {p.citation}{title}, score {score:.2f}")
    return "\n".join(lines)


__all__ = [
    "DocIndex",
    "Passage",
    "RetrievalAdapter",
    "RetrievalOptions",
    "chunk_document",
    "content_words",
    "scan_folder",
    "score_passages",
]
