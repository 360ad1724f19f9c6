"""A thing the question asks about that the answering document never mentions (pure).

"What does a glamping pod cost per night?" over a tariff of tent and touring pitches: the best-scoring
fact (the tourist tax, a tent pitch) answers another question. qualifiers.py catches names, codes and
years a document lacks; this module catches ordinary words: a content term of the question (stemmed, four
letters or more, not a number, a stop word or a word of the request's own machinery such as "multiply",
"result", "print") that no word of the answering document shares its stem or its first six letters with
(so "snorkel" meets "snorkelling", "interpreter" meets "interpreting", but "motorcycle" never "motorway").
Each such term is a :class:`~ioa_p2p.adapters.retrieval.qualifiers.Qualifier` of kind ``term``: the
retrieval abstains (the task fails as ``absent``, the planner names the value missing).

Only the phrase that names the thing priced is checked (:func:`asked_phrase`): the words after the last
"price of", "cost of", "charge for/to", "fee for", "how much is", else the four before the last
"costs"/"charges"; a question without one is not checked (a paraphrase such as "high season" for a column
"High" is never read as a missing thing). A quantity the question gives ("12 days late"), a superlative
("the heaviest": superlative.py chooses) and the period of a rate ("for a year") are dropped from it.
Chosen on the readable splits: docs/performance.md "Reading the files a user keeps" has the census.
"""

from __future__ import annotations

import re

from ioa_p2p.adapters.retrieval.qualifiers import Qualifier
from ioa_p2p.adapters.retrieval.terms import WORD, stem, terms
from ioa_p2p.planning.values import ALIASES

MIN_TERM = 4
PREFIX = 6
#: words of a request's own machinery (what to do with the value), never what the document should name
_REQUEST_WORDS = frozenset(
    " ".join(
        (
            "retrieve lookup look find fetch read check state list give tell show know want need like",
            "multiply multiplied times divide divided halve half double triple add added plus minus",
            "subtract sum total result product answer value figure number amount quantity print code",
            "pass feed python run compute calculate work round rounded convert percent percentage",
            "price prices cost costs charge charges charged fee fees rate rates pay paid much many",
            "does worth",
            # the period a rate is for (tariff.py reads it): never the thing priced
            "year yearly annual annually month monthly week weekly day daily night nightly hour hourly",
            "whole full first extra additional each",
            # which value of a change, and the document itself: never the thing priced
            "previous old new current latest earlier later before after",
            "file list sheet table page notice card leaflet brochure schedule",
        )
    ).split()
)

_REQUEST_STEMS = _REQUEST_WORDS | {stem(w) for w in _REQUEST_WORDS}


def unknown_terms(question: str, document: str, path: str = "") -> list[Qualifier]:
    """The content terms of ``question`` that ``document`` (and its path) never mentions."""
    asked = _SUPERLATIVE.sub(" ", asked_phrase(question))  # "the heaviest": a choice (superlative.py)
    asked = _QUANTITY.sub(" ", asked)  # "12 days late", "a 3-hour slot": a quantity the question gives
    wanted = {
        t
        for t in terms(asked, years=False)
        if len(t) >= MIN_TERM and t.isalpha() and t not in _REQUEST_STEMS and not _a_unit(t, asked)
    }
    if not wanted:
        return []
    known = terms(document) | terms(path.replace("/", " ").replace("-", " ").replace("_", " "))
    words = {w for w in WORD.findall(document.lower())}
    prefixes = {w[:PREFIX] for w in words | known if len(w) >= PREFIX}
    return [
        Qualifier(t, "term", (re.escape(t),))
        for t in sorted(wanted)
        if t not in known and (len(t) < PREFIX or t[:PREFIX] not in prefixes) and not _prefix_of(t, known)
    ]


def _a_unit(term: str, text: str) -> bool:
    """A unit's name ("kilometres", "litre"): a quantity's unit, compared by value elsewhere."""
    return any(w.lower() in ALIASES and stem(w.lower()) == term for w in WORD.findall(text.lower()))


def _prefix_of(term: str, known: set[str]) -> bool:
    """A short term that begins a known word ("guide" in "guided")."""
    return len(term) < PREFIX and any(k.startswith(term) for k in known)


_QUANTITY = re.compile(r"\b\d+(?:[.,]\d+)?(?:\s*-\s*|\s+)[A-Za-z]+(?:\s+[A-Za-z]+)?")
_SUPERLATIVE = re.compile(r"\b(?:the|most|least)\s+[a-z]{4,}est\b", re.IGNORECASE)
_AFTER = re.compile(
    r"\b(?:(?:price|cost|charge|rate|fee|tariff)s?\s+(?:of|for|to)|how\s+much\s+(?:is|are))\s+"
    r"(?P<phrase>[^?.;,]*)",
    re.IGNORECASE,
)
_BEFORE = re.compile(r"(?P<phrase>[^?.;,]*?)\s+(?:costs?|charges?)\b", re.IGNORECASE)
#: where the thing priced ends: its circumstances (when, where, for how long) and the request's next step
_CUT = re.compile(
    r"\s(?:and|then|plus|times|if|when|so|in|on|during|for|from|at|by|over|between|until)\s.*$", re.IGNORECASE
)


def asked_phrase(question: str) -> str:
    """The phrase that names what the question asks the value of: after its last "price of", "cost of",
    "charge for", "fee for", "pay to", "how much is", else before its last "costs"/"charges" (four words at
    most), cut at "and", "then"; "" when the question marks no such phrase."""
    after = list(_AFTER.finditer(question))
    if after:
        return _CUT.sub("", after[-1]["phrase"]).strip()
    before = list(_BEFORE.finditer(question))
    return " ".join(before[-1]["phrase"].split()[-4:]) if before else ""


__all__ = ["asked_phrase", "unknown_terms"]
