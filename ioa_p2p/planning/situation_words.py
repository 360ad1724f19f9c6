"""The words of a situated question and of the rules its situation selects (pure; issue 23, p-chain).

A rule of the documents that names whom or what it is for ("Households receiving council tax support pay
half price") is selected by a question whose words name that situation ("We receive council tax support
..."): :func:`selects` compares the rule's **subject** (its words before the amount or share it states,
never the amount it is taken of: "half the adult fare" names no adult) with the question's words, by
stems (never a mere prefix: "free" is no "freezer"), counting only the **telling** words (those at most two
sentences of the document use: the document's own subject, named everywhere, selects nothing).
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet


def words_in(text: str) -> list[str]:
    """The words of ``text``, lower-cased, a plural "s" dropped ("bins" -> "bin")."""
    words = re.findall(r"[a-z]+", text.lower().replace("-", " "))
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


def stem(word: str) -> str:
    """A word without its inflection ("receiving", "receive" -> "receiv"; "freezers" -> "freezer")."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def word_overlap(wanted: set[str], words: set[str]) -> int:
    """How many of ``wanted`` share a stem with one of ``words`` (never a mere prefix: "free" / "freezer")."""
    stems = {stem(w) for w in words}
    return sum(1 for w in wanted if stem(w) in stems)


#: how many of its own words a modifier's sentence must share with the question to be selected by it
SELECTED = 2

#: words that say what a rule does or what a price is, never whom or what it is for
FORM_WORDS = frozenset(
    words_in(
        "price prices pay pays paid cost costs charge charged charges fee fees half third quarter twice "
        "double doubled halved times off discount reduced reduction less more extra surcharge supplement "
        "adds add every each per year years month day days week time given above below rate amount total "
        "bill get "
        "receive receiving only also full standard normal usual holder holders"
    )
)
STOP = frozenset(
    words_in(
        "a an the of in on at to for and or is are was be by with from as it its this that these those our "
        "we i you my your their who which what how much many will would can do does did have has not no "
        "any all some one two three if than then so into per"
    )
)


_FORM = re.compile(
    r"\d+(?:[.,]\d+)?\s?(?:%|per\s?cent)|\b(?:half|(?:a|one)\s+third|two\s+thirds|(?:a|one)\s+quarter|three\s+quarters|"
    r"twice|double|doubled|halved|tripled|trebled|\d+(?:\.\d+)?\s+times)\b|(?:EUR|GBP|USD|CHF|[€£$])\s?\d",
    re.I,
)
_PER = re.compile(r"\b(?:each|every|per)\b", re.I)


def subject_of(sentence: str) -> str:
    """The words of a rule's sentence before its form ("Households receiving council tax support pay" of
    "... pay half price"): whom or what it is for, never the amount it is taken of ("the adult fare")."""
    m = _FORM.search(sentence)
    return sentence[: m.start()] if m else sentence


def telling_stems(sentences: list[str]) -> set[str]:
    """The stems that at most two of the document's sentences use: words that tell one rule from another
    (the document's subject, named everywhere, selects none)."""
    counts: dict[str, int] = {}
    for sentence in set(sentences):
        for w in {stem(w) for w in words_in(sentence)}:
            counts[w] = counts.get(w, 0) + 1
    return {w for w, n in counts.items() if n <= 2}


def selects(question: str, sentence: str, telling: set[str], exclude: AbstractSet[str] = frozenset()) -> bool:
    """Whether the question's words name the subject of the rule ``sentence`` states: its telling words
    count one each, its other words half, at least :data:`SELECTED` in all, one telling word among them;
    never ``exclude`` (the words of the value the rule applies to). A subject that holds a number ("teams
    of 4 to 10 runners") is a count this check does not weigh."""
    subject = subject_of(sentence)
    if re.search(r"\d", subject):
        return False
    own = {w for w in words_in(subject)} - STOP - FORM_WORDS - set(exclude)
    asked = set(words_in(question)) - STOP
    rare = word_overlap({w for w in own if stem(w) in telling}, asked)
    common = word_overlap({w for w in own if stem(w) not in telling}, asked)
    # a subject of one word ("Railcard holders", "Students") is named whole by that word
    return rare >= 1 and rare + common / 2 >= min(SELECTED, len(own))


__all__ = [
    "FORM_WORDS",
    "SELECTED",
    "STOP",
    "selects",
    "stem",
    "subject_of",
    "telling_stems",
    "word_overlap",
    "words_in",
]
