"""The thing a question asks about, which the answering document must mention (pure).

"What does the hut charge for a hot shower?" over a hut's price list of beds, meals and tea: the best fact
is a price, and it answers another question. qualifiers.py and agreement.py catch near misses by class
(a year, a version, a code, a name, a designator); this module catches the plainest one: a **content word
of the question that the document never uses in any form** ("shower", "harpsichord", "drysuit"). The
retrieval then abstains (the task fails as ``absent``, the planner names the value missing, exit 3).

The check is made for questions that ask what something costs when the answer found is an amount of money
(the adapter's gate): there the thing priced is the subject, and a price of something else is the usual near
miss. What is not a subject word: stop words, the words of asking and computing ("price", "cost", "look up",
"multiply", "pass ... to print"), time and count units ("night", "week", "people"), units, numbers and
number words, the adjectives of asking ("how long", "how far"), words inside code (backticks), names
(qualifiers.py checks those). A word counts as used when the document has it in any form: the same stem,
or a word sharing its first letters (``snorkelling`` / ``snorkel``, ``moving`` / ``move``).
"""

from __future__ import annotations

import os
import re

from ioa_p2p.adapters.retrieval.qualifiers import Qualifier
from ioa_p2p.adapters.retrieval.terms import CODE, STOP, stem, terms, weekdays_in
from ioa_p2p.planning.values import ALIASES

_FRAME_TEXT = """
    fare fares price prices priced cost costs costing charge charges charged charging fee fees rate rates
    pay pays paying paid payable ask asks asked quote quoted quotes tariff tariffs list listed total totals
    amount sum way ways option options thing things order orders purchase extra extras additional
    product result results answer value values figure number count much many
    worth quarter quarters third thirds previous former earlier later latest last old older
    file files sheet sheets table tables page pages
    look lookup retrieve fetch find get give read check tell show state say says use using need needs
    needed want wants multiply multiplied times add added adding plus subtract subtracted minus take taken
    takes double doubled triple tripled halve halved half divide divided split compute computed calculate
    calculated work worked out pass passed feed fed hand handed print printed run running code call set
    variable translate translated translation into then next after first second third also again
    day days daily night nights nightly week weeks weekly month months monthly year years yearly annual
    hour hours hourly minute minutes second seconds time times per each every one two three four five six
    seven eight nine ten eleven twelve dozen hundred thousand single pair couple people person persons
    someone anyone everyone whole full new current usual standard normal regular basic
    cover covers covering include includes including included get gets come comes coming
    long far big large small heavy light old young often soon late early fast slow high low tall wide deep
    """
FRAME = frozenset(stem(w) for w in _FRAME_TEXT.split())
#: a document word sharing this many first letters with the question's word uses it (a form of it)
SHARED_PREFIX = 5
PHRASE_WORDS = 4
_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z(])")
_CODE_SPAN = re.compile(r"`[^`]*`")
_TOKEN = re.compile(r"[A-Za-z][\w'’-]*|\d[\d.,]*|[^\sA-Za-z\d]")
_DAY_WORD = re.compile(r"week(?:day|end)s?")
_ARTICLES = frozenset({"a", "an", "the", "one", "each", "every"})
_SITUATION = re.compile(r"\b(?:i|i'm|i've|i'd|my|we|we're|we'd|we've|our|us)\b", re.IGNORECASE)


def unmentioned_subjects(
    question: str, document: str, path: str = "", *, situated: bool = False
) -> list[Qualifier]:
    """The words of the things ``question`` names (its noun phrases) that ``document`` (and its path) uses
    in no form; none for a question about the asker's own situation, unless ``situated``: then only such a
    question is checked, on its asking sentence alone (evidence_scope.py)."""
    text = _CODE_SPAN.sub(" ", question)
    if bool(_SITUATION.search(text)) != situated:  # "we're two adults and a dog": the situation's words
        return []  # are givens
    asking = _asking_sentence(text) if situated else _asking_part(text)
    asked = [w for w in noun_phrase_words(asking) if _is_subject(w)]
    if not asked:
        return []
    used = terms(f"{document}\n{path.replace('-', ' ').replace('_', ' ').replace('/', ' ')}")
    by_prefix: dict[str, list[str]] = {}
    for t in used:
        if len(t) >= SHARED_PREFIX:
            by_prefix.setdefault(t[:SHARED_PREFIX], []).append(t)
    missing = []
    dated = bool(weekdays_in(document))  # it tells days apart: "weekday" / "weekend" are its terms
    for word in dict.fromkeys(asked):
        s = stem(word)
        if (
            dated
            and _DAY_WORD.fullmatch(word.lower())
            or s in used
            or any(is_form_of(s, t) for t in by_prefix.get(s[:SHARED_PREFIX], ()))
        ):
            continue
        missing.append(Qualifier(word, "subject", ()))
    return missing


def is_form_of(word: str, other: str) -> bool:
    """Whether two stems (sharing their first :data:`SHARED_PREFIX` letters) are forms of one word: one
    extends the other (``snorkel`` / ``snorkell``, ``heat`` / ``heater``) or they part only in their last
    letters (``electrical`` / ``electricity``, ``cancellation`` / ``cancelled``); ``motorcycle`` and
    ``motorway`` share a first part and are different things."""
    if word.startswith(other) or other.startswith(word):
        return True
    common = len(os.path.commonprefix([word, other]))
    return common >= max(SHARED_PREFIX, min(len(word), len(other)) - 2)


def _asking_part(text: str) -> str:
    """The sentences that ask ("A parcel goes next-day to the islands. What is the price?": the second):
    those ending in a question mark when there are others; the statements before them are givens."""
    sentences = [x for x in _SENTENCE.split(text) if x.strip()]
    asking = [x for x in sentences if x.rstrip().endswith("?")]
    return " ".join(asking) if asking and len(asking) < len(sentences) else text


def _asking_sentence(text: str) -> str:
    """The last sentence that ends in a question mark (the whole text when none does): a situated
    question's statements before it are givens."""
    sentences = [x for x in _SENTENCE.split(text) if x.strip()]
    asking = [x for x in sentences if x.rstrip().endswith("?")]
    return asking[-1] if asking else text


def noun_phrase_words(text: str) -> list[str]:
    """The lower-case words of the noun phrases that open with an article or a possessive ("a hot shower",
    "Brisa's daily drysuit rental"), at most :data:`PHRASE_WORDS` each; a phrase ends at a stop word (a
    preposition, a conjunction), a verb form in -ed, punctuation or a clause; names, numbers and units
    inside it are passed over (qualifiers.py and agreement.py read those)."""
    out: list[str] = []
    inside, n = False, 0
    for token in _TOKEN.findall(text):
        low = token.lower()
        if low in _ARTICLES or low.endswith(("'s", "’s")):
            inside, n = True, 0
            continue
        if not inside:
            continue
        if token[0].isdigit() or low in ALIASES:
            continue  # "a 16 A hook-up", "the 3 kg parcel"
        if not token[0].isalpha() or low in STOP or low.endswith("ed") or n >= PHRASE_WORDS:
            inside = False
            continue
        n += 1
        if token[0].isupper():
            continue  # a name or a designator's letter
        out += [p for p in low.split("-") if p]
    return out


def _is_subject(word: str) -> bool:
    if len(word) < 3 or not word.isalpha() or CODE.match(word):
        return False
    if len(word) > 5 and word.endswith("est"):  # "the heaviest pump": a superlative (superlative.py)
        return False
    s = stem(word)
    return not ({s, word} & (FRAME | STOP) or word in ALIASES or s in ALIASES)


__all__ = ["FRAME", "is_form_of", "noun_phrase_words", "unmentioned_subjects"]
