"""The documents a question is about, by the names it uses (pure).

A folder of documents often holds several document sets (one company's handbook, another's travel policy,
a ferry timetable) that answer similar questions: "the claims deadline" is in two handbooks with different
figures. A question that names its subject ("a Vantor business trip") is about the set that uses that name.
:func:`scope_weights` gives each document set (a file's folder) a weight: the sets that use the most of the
question's distinctive names keep their scores, the others are weighed down. A name is distinctive when
some sets use it and at most half of them do ("EUR" or "VAT" names no subject); a question without such
names leaves every score as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ioa_p2p.planning.literal import names_in

#: The weight of a document set that uses fewer of the question's distinctive names than the best one.
OFF_SCOPE = 0.6
MAX_NAMES = 8


def question_names(question: str) -> list[str]:
    """The names and codes ``question`` uses, as lower-case words of three characters or more."""
    words: list[str] = []
    for name in names_in(question):
        for w in re.split(r"[\s/]+", name.lower().removesuffix("'s")):
            w = w.strip(".,;:!?()'\"")
            if len(w) >= 3 and w not in words:
                words.append(w)
    return words[:MAX_NAMES]


def set_of(path: str) -> str:
    """The document set a file belongs to: its folder ("" at the top)."""
    return path.rpartition("/")[0]


def scope_weights(question: str, texts: Mapping[str, str]) -> dict[str, float]:
    """Document set -> weight (1.0 or :data:`OFF_SCOPE`) for ``question``; ``texts`` maps each set to its
    lower-case text (paths and contents). Empty when the question names nothing distinctive."""
    if len(texts) < 2:
        return {}
    uses: dict[str, set[str]] = {s: set() for s in texts}
    for word in question_names(question):
        pattern = re.compile(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])")
        having = [s for s, text in texts.items() if pattern.search(text)]
        if having and len(having) * 2 <= len(texts):
            for s in having:
                uses[s].add(word)
    best = max(len(u) for u in uses.values())
    if best == 0:
        return {}
    return {s: 1.0 if len(u) == best else OFF_SCOPE for s, u in uses.items()}


__all__ = ["OFF_SCOPE", "question_names", "scope_weights", "set_of"]
