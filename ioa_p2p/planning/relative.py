"""A value the documents state relative to another quantity is never the level a question asks for (pure).

"A fan oven is set 20 °C lower than the conventional temperature in a recipe", "Seniors pay EUR 4 less
than the adult fare", "check-in closes 30 minutes earlier than departure": the number is an offset from
another quantity (the base), not an answer to "what should the fan oven be set to", "what does a senior
pay", "when does check-in close". The retrieval may still read it as the answer span (its words fit the
question best). :func:`relative_base` tells such a value from the sentence it was read from (the first
sentence of the evidence that states it: the number, a unit, a comparative and "than <base>"), unless the
question itself asks for a difference ("how much lower", "by how much", "the difference", "than"). A
lookup with such a value does not answer its step (planning/results.py), and the step is refused with the
base named as the missing value (planning/refusal.py :func:`~ioa_p2p.planning.refusal.dimension_refusal`).
"""

from __future__ import annotations

import re

from ioa_p2p.planning.values import NUMBER, Value, format_number

_COMPARATIVE = (
    r"(?:lower|higher|less|more|fewer|cheaper|dearer|earlier|later|longer|shorter|above|below|warmer|"
    r"cooler|hotter|colder|faster|slower|bigger|smaller|heavier|lighter|extra)"
)
#: after the number: its unit (a few characters), the comparative, "than <base>"
_AFTER = re.compile(
    rf"^\s*(?:[°%]\s*[CF]?|[A-Za-z€$£]{{1,8}}\.?)?\s*{_COMPARATIVE}\s+than\s+(?P<base>[^.;:,()]{{3,80}})",
    re.I,
)
_DIFFERENCE = re.compile(
    rf"\bhow (?:much|many|far|long)\b[^?]*\b{_COMPARATIVE}\b|\bdifference\b|\bthan\b|\boffset\b", re.I
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")


def relative_base(question: str, value: Value | None) -> str:
    """The quantity ``value`` is stated relative to ("the conventional temperature in a recipe"), when the
    sentence it was read from states it as an offset and ``question`` asks for no difference; "" else."""
    if value is None or value.kind != NUMBER or value.number is None or _DIFFERENCE.search(question):
        return ""
    shown = re.escape(format_number(value.number))
    number = re.compile(rf"(?<![\d.,]){shown}(?:\.0+)?(?![\d]|[.,]\d)")
    for passage in value.evidence:
        for sentence in _SENTENCE.split(passage):
            found = list(number.finditer(sentence))
            if not found:
                continue
            after = _AFTER.match(sentence[found[0].end() :])
            return " ".join(after.group("base").split()) if after else ""
    return ""


__all__ = ["relative_base"]
