"""Just enough English grammar to find the clauses of a goal: word classes and verb forms (pure).

Open-class words (verbs, nouns) are looked up in the lemminflect lexicon (shipped inside its wheel, read
lazily on first use, about 1 s): :func:`verb_forms` tells whether a word can be a verb and whether it is
the base form ("put", "email", "turn") or an inflected one ("clicked", "takes"). There is no list of
action verbs here. Closed-class words (question words, auxiliaries, pronouns, determiners, particles,
prepositions) are listed, as every grammar lists them.

:func:`clause_kind` reads the first words of a piece of text and says what it is:

- ``IMPERATIVE``: it starts with a verb in the base form ("put the articles into English", "email Bob");
  a word that is also a noun counts as a verb only when an object follows it (a determiner, a pronoun, a
  particle, a proper noun, a question word): "and email the team" is a clause, "and email marketing" not;
- ``QUESTION``: a question word or an auxiliary first ("how has NVDA traded", "is that text genuine");
- ``REQUEST``: a subject saying what it wants ("I need them written out", "the robot has to build a map");
- ``STATEMENT``: a subject and a finite verb without a request ("Someone clicked an email") — context;
- ``FRAGMENT``: no verb at all ("Chicago to Tokyo in April", "a bag of potatoes").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from enum import Enum
from typing import cast

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*|\d[\d.,:/%x-]*|[^\sA-Za-z\d]")


class ClauseKind(Enum):
    IMPERATIVE = "imperative"
    QUESTION = "question"
    REQUEST = "request"
    STATEMENT = "statement"
    FRAGMENT = "fragment"

    @property
    def asks(self) -> bool:
        """True when the clause asks for something (a need), False for context and fragments."""
        return self in (ClauseKind.IMPERATIVE, ClauseKind.QUESTION, ClauseKind.REQUEST)


WH_WORDS = frozenset("what which where when how who whom whose why whether".split())  # noqa: SIM905
AUXILIARIES = frozenset(
    """is are was were am be been do does did can could should would will shall may might must has have had
    isn't aren't wasn't don't doesn't didn't can't couldn't shouldn't won't wouldn't""".split()  # noqa: SIM905
)
SUBJECTS = frozenset(
    """i we you he she they it someone somebody everyone everybody nobody anyone one i'm we're you're they're
    it's he's she's i've we've i'd we'd i'll we'll""".split()  # noqa: SIM905
)
#: Words that open an object or a complement after a verb.
OBJECT_OPENERS = frozenset(
    """the a an my our your his her their its this that these those me us him them it you each every all
    some any both either no up out down over off into onto through back away about for from to with in on
    at by around across together what which where when how who whether if myself ourselves itself
    themselves yourself something somewhere anything anywhere everything everyone someone nothing
    sure""".split()  # noqa: SIM905
)
#: Words a clause may start with before its verb ("then put", "also tell", "please check").
LEAD_INS = frozenset("then also please just finally first next afterwards later so and or but plus".split())  # noqa: SIM905
#: Verbs of wanting: a subject followed by one of these asks for something ("I need", "we'd like").
WANTING = frozenset("need needs want wants like wish require requires hope".split())  # noqa: SIM905
#: "has to", "have to", "need to" after any subject ask for something too.
OBLIGATION = frozenset("has have had need needs got".split())  # noqa: SIM905


@functools.lru_cache(maxsize=1)
def _lexicon():  # type: ignore[no-untyped-def]  # lemminflect has no type hints
    from lemminflect import getAllLemmas  # noqa: PLC0415  # lazy: its tables load on first use

    return getAllLemmas


def lexicon() -> Callable[[str], dict[str, tuple[str, ...]]]:
    """The lexicon's lookup: a word -> its lemmas by word class ("old" -> {"ADJ": ("old",), ...})."""
    return cast("Callable[[str], dict[str, tuple[str, ...]]]", _lexicon())


@functools.lru_cache(maxsize=65536)
def verb_forms(word: str) -> tuple[bool, bool, bool]:
    """(can be a verb, is that verb's base form, can also be a noun or adjective) for a lower-case word."""
    lemmas: dict[str, tuple[str, ...]] = _lexicon()(word)
    verbs = lemmas.get("VERB", ()) + lemmas.get("AUX", ())
    other = bool(lemmas.get("NOUN") or lemmas.get("ADJ") or lemmas.get("PROPN"))
    return bool(verbs), word in verbs, other


def tokens(text: str) -> list[str]:
    """Words, numbers and punctuation marks of ``text`` in order, case kept."""
    return _TOKEN.findall(text)


def _is_object(token: str | None) -> bool:
    if token is None:
        return False
    low = token.lower()
    proper = token[:1].isupper() and low not in SUBJECTS
    return low in OBJECT_OPENERS or proper or token[:1] in "'\"\u2018\u201c"


def starts_verb(words: list[str], *, first_of_sentence: bool) -> bool:
    """True when ``words`` open with a verb in the base form that heads a clause (see the module doc)."""
    if not words:
        return False
    head = words[0]
    if head[:1].isupper() and not first_of_sentence:
        return False  # a proper noun ("Netflix or Prime")
    low = head.lower()
    if low in AUXILIARIES or low in SUBJECTS or low in OBJECT_OPENERS:
        return False
    verb, base, other = verb_forms(low)
    if not verb:
        return False
    if not base:
        return not first_of_sentence and not other and len(words) > 1  # "boiled down", "written out"
    if not other:
        return True
    after = words[1] if len(words) > 1 else None
    if first_of_sentence:  # "Plan tomorrow's runs": a verb unless a verb follows ("Plan changes are ...")
        return after is not None and not _finite(after, None)
    return _is_object(after)


def _finite(word: str, following: str | None) -> bool:
    """True when ``word`` (not the first of its clause) is likely a conjugated verb."""
    low = word.lower()
    if low in AUXILIARIES:
        return True
    verb, base, other = verb_forms(low)
    if not verb or low.endswith("ing"):
        return False
    if not other:
        return True  # "clicked", "ran", "come", "gave"
    return low.endswith("s") and following is not None and (_is_object(following) or following[:1].isdigit())


def opens_clause(text: str) -> bool:
    """True when the text after a connective starts a clause of its own (a cut), not more of a list."""
    words = _words(text)
    if not words:
        return False
    first = words[0].lower()
    if first in WH_WORDS or first in AUXILIARIES:
        return True
    if first in SUBJECTS:
        return len(words) > 1 and (verb_forms(words[1].lower())[0] or words[1].lower() in AUXILIARIES)
    return starts_verb(words, first_of_sentence=False)


def clause_kind(text: str) -> ClauseKind:
    """What the clause ``text`` is (see the module docstring)."""
    words = _words(text)
    if not words:
        return ClauseKind.FRAGMENT
    first = words[0].lower()
    if first in WH_WORDS or first in AUXILIARIES or text.rstrip(" \"')").endswith("?"):
        return ClauseKind.QUESTION
    if starts_verb(words, first_of_sentence=True):
        return ClauseKind.IMPERATIVE
    if _asks_for(words):
        return ClauseKind.REQUEST
    following: list[str | None] = [*words[2:], None][: len(words) - 1]  # one word: nothing follows it
    if first in SUBJECTS or any(_finite(w, f) for w, f in zip(words[1:], following, strict=True)):
        return ClauseKind.STATEMENT
    return ClauseKind.FRAGMENT


def _words(text: str) -> list[str]:
    """The words of ``text`` without its lead-ins, contractions cut ("What's" -> "What")."""
    words = [re.split(r"['\u2019]", t)[0] or t for t in tokens(text) if t[:1].isalnum()]
    while words and words[0].lower() in LEAD_INS:
        words = words[1:]
    return words


def _asks_for(words: list[str]) -> bool:
    """A subject wanting something ("I need", "we would like") or obliged to ("the robot has to")."""
    lower = [w.lower() for w in words]
    for i in range(1, len(lower)):
        before = lower[i - 1]
        if lower[i] in WANTING and (before in SUBJECTS or before in ("would", "'d", "really", "also")):
            return True
        if lower[i] in OBLIGATION and i + 1 < len(lower) and lower[i + 1] == "to":
            return True
    return False


__all__ = [
    "AUXILIARIES",
    "LEAD_INS",
    "OBJECT_OPENERS",
    "SUBJECTS",
    "WH_WORDS",
    "ClauseKind",
    "clause_kind",
    "opens_clause",
    "starts_verb",
    "tokens",
    "verb_forms",
]
