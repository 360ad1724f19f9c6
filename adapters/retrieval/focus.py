"""A naturally worded question asked again by its subject, in the documents' own words (pure).

"Our university is sending 3 academics to the summit on Full passes; the booking was paid on 12 May. What's
the total including VAT?" states a situation: most of its words (university, sending, booking) are in no
document, and the fact that holds the price it starts from ("Full pass | 690 | 890 | 1,090") shares two of
its fourteen terms, so no fact scores as an answer. Such a question is asked once more by its subject: the
words of the question that the documents use (their vocabulary), in the question's order, without the
amounts, dates and clock times it states (the documents state rates, not the asker's quantities) and without
the words that only ask ("how much", "what's the total"). The fact that answers the focused question is the
passage a derivation starts from; whether it closes is the planner's to judge (planning/derive.py).

Only a question that states a situation is focused (:func:`situated`): it speaks in the first person, states
a quantity or a date, or has several sentences; a plain "What is the X of Y?" that finds nothing stays
unanswered.
"""

from __future__ import annotations

import re

from ioa_p2p.adapters.retrieval.terms import STOP, stem
from ioa_p2p.planning.values import dates_in, numbers_in

#: Words that only ask or narrate (the question's form, never its subject).
_ASKING_WORDS = """
    want wants wanted need needs needed going make making got get getting set back owe owed much many
    total altogether overall including included include plus also still just only whole exactly roughly
    approximately earliest latest soonest hear know think like able let lets yes no
    """
_ASKING = frozenset(_ASKING_WORDS.split())
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|we|we're|we've|my|our|us|me)\b", re.I)
_AGE = re.compile(r"\b\d+(?:\s+|-)(?:years?|yrs?)(?:\s+|-)old\b|\baged\s+\d+", re.I)
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*[A-Za-z]|[A-Za-z]")
#: at least this many of the question's words must be left to ask by
MIN_FOCUS_WORDS = 2


def situated(question: str) -> bool:
    """Whether ``question`` states a situation (first person, a stated quantity or date, several
    sentences): a natural question whose subject is worth asking again on its own."""
    plain = re.sub(r"\([^)]*\)", " ", question)  # "the VAT rate (Tiered Saver)": a qualifier, no sentence
    sentences = [
        s for s in re.split(r"(?<=[.?!;])\s+", plain.strip()) if len(re.findall(r"[A-Za-z]+", s)) >= 3
    ]
    stated = any(n.unit or n.number >= 2 for n in numbers_in(question)) or bool(dates_in(question))
    return bool(_FIRST_PERSON.search(question)) or stated or len(sentences) >= 2


def focus_query(question: str, vocabulary: set[str]) -> str:
    """The words of ``question`` that ``vocabulary`` (stems of the documents' terms) holds, in order,
    without its amounts, dates, clock times and asking words; "" when fewer than two are left."""
    text = _CLOCK.sub(" ", _AGE.sub(" ", question))
    for start, end, _ in sorted(dates_in(text), key=lambda d: -d[0]):
        text = text[:start] + " " + text[end:]
    for n in sorted(numbers_in(text), key=lambda n: -n.start):
        text = text[: n.start] + " " + text[n.end :]  # "3 hours", "EUR 40", "24": the asker's amounts
    kept: list[str] = []
    for word in _WORD.findall(text):
        low = word.lower().strip("'")
        low = low[:-2] if low.endswith("'s") else low
        if low in STOP or low in _ASKING:
            continue
        if stem(low) in vocabulary or any(stem(p) in vocabulary for p in low.split("-") if len(p) > 2):
            kept.append(word[:-2] if word.lower().endswith("'s") else word)
    unique = list(dict.fromkeys(kept))
    return " ".join(unique) if len(unique) >= MIN_FOCUS_WORDS else ""


__all__ = ["MIN_FOCUS_WORDS", "focus_query", "situated"]
