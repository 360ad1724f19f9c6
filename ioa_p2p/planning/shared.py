"""Two coordinated phrases with the words they share spelt out in each (pure).

"between the nimbus-sync 3.4.0 and 3.4.1 releases", "the difference between the cup scores of the Kenya lot
and the Brazil lot in the Orrin feed": a person names what two things have in common once; each lookup of one
of them needs it whole. :func:`shared_words` spreads the words around two items of one kind (a version, a
number, a code), :func:`shared_attribute` the attribute before "of" and the place after the second phrase.
"""

from __future__ import annotations

import re

#: a token that names one of a kind: a version, a number, a code ("3.4.0", "12", "AL-350", "Q4")
_ITEM = re.compile(r"(?:v?\d+(?:[.,]\d+)*[a-z]?|[A-Z]+-?\d[\w-]*|[A-Z]\d+)")


_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b(?!-)", re.I)


def shared_words(a: str, b: str) -> tuple[str, str]:
    """Two coordinated phrases with the words they share spelt out in each: "the nimbus 3.4.0" and "3.4.1
    releases" -> "the nimbus 3.4.0 release" and "the nimbus 3.4.1 release". When ``a`` ends and ``b`` starts
    with an item of one kind (a version, a number, a code), ``a``'s words before its item qualify both and
    ``b``'s words after its item name what both are; otherwise the phrases are returned as they are."""
    wa, wb = a.split(), b.split()
    if len(wa) < 1 or len(wb) < 1 or not (_ITEM.fullmatch(wa[-1]) and _ITEM.fullmatch(wb[0])):
        return a, b
    before, after = wa[:-1], wb[1:]
    if not all(re.fullmatch(r"[a-z][a-z'-]*[?.!]?", w) for w in after) or _MONTH.search(a + " " + b):
        return a, b  # "3 March 2025" and "9 April 2025": dates, no shared words
    head = " ".join(after).rstrip("?.!")
    singular = re.sub(r"(?<=[a-z]{3})s$", "", head) if head and not head.endswith("ss") else head
    first = " ".join([*wa, singular]).strip()
    second = " ".join([*before, wb[0], singular]).strip()
    return first, second


_ATTRIBUTE = re.compile(r"^(?P<attr>(?:the\s+)?[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}\s+of)\s+\S", re.I)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
_CONTEXT = re.compile(r"\s+(?P<ctx>(?:in|at|from|on)\s+the\s+[\w'-]+(?:\s+[\w'-]+){0,3})$", re.I)


def shared_attribute(a: str, b: str) -> tuple[str, str]:
    """Two coordinated noun phrases with what one states for both spelt out in the other: "the cup scores
    of the Kenya lot" and "the Brazil lot in the Orrin feed" -> "the cup scores of the Kenya lot in the
    Orrin feed" and "the cup scores of the Brazil lot in the Orrin feed": the attribute before the first's
    "of" when the second names none, the place after the second when the first names none."""
    attr, ctx = _ATTRIBUTE.match(a), _CONTEXT.search(b)
    first, second = a, b
    if attr is not None and not re.search(r"\bof\b", b, re.I):
        thing = _ARTICLE.sub("the ", b)
        second = f"{attr.group('attr')} {thing}"
    if ctx is not None and _CONTEXT.search(a) is None:
        first = f"{a} {ctx.group('ctx')}"
    return first, second


__all__ = ["shared_attribute", "shared_words"]
