"""A check the user asks for over a value found before it: a step whose answer is yes or no (pure; issue
23, p-words2).

"Check that it is under 500", "is the total within the budget of EUR 80?", "does it exceed the limit?",
"is EUR 50 enough for both?", "will 20 kg be enough?": :func:`check_steps` makes the clause a small piece
of code that prints ``yes`` or ``no``, its inputs bound to the values it compares:

- **what is checked**: "it", "that", "the total", "the result" -> the last value found; "their total",
  "both", "them", "the two together" -> the sum of the values found and not used yet (a calculation step
  added first);
- **what it is checked against**: a number the clause states (with its unit, "EUR 80", "500 kg"), an earlier
  value its words name ("the limit" after a lookup of the weight limit), or else a value the documents
  must state: a lookup added for it ("the weight limit (Acme)"). When that lookup finds nothing, the check
  never runs: the conclusion names the missing value (exit 3), as for every value a step needs;
- **how**: "under", "below", "less than" (<); "within", "at most", "no more than", "not over" (<=); "over",
  "above", "more than", "exceed" (>); "at least", "no less than" (>=); "enough" and "cover": the amount
  available is at least the value checked.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.followups import unused
from ioa_p2p.planning.lookups import words_of
from ioa_p2p.planning.types import CALC, CODE, LOOKUP, TASK, PlanStep

_OPS = (
    (r"under|below|less than|lower than|smaller than|cheaper than|short of", "<"),
    (r"within|at most|no more than|not more than|not over|up to|inside", "<="),
    (r"over|above|more than|greater than|higher than|bigger than|beyond|in excess of", ">"),
    (r"at least|no less than|not less than", ">="),
)
_REL = "|".join(words for words, _ in _OPS)
_SUBJECT = (
    r"(?P<subj>it|that|this|they|them|both|the (?:total|sum|result|answer|amount|cost|bill|price|figure|"
    r"value|charge|fee|weight|load|difference|two together|two)|their (?:total|sum|combined \w+)|"
    r"the two together)"
)
_CHECK_THAT = re.compile(
    r"^(?:(?:then|and|now|finally|please)\s+)*(?:check|see|confirm|verify|find out|tell me)\s+"
    r"(?:whether|if|that)\s+"
    + _SUBJECT
    + rf"\s+(?:is|are|stays?|comes? to|will be|would be|remains?|falls?)\s+(?P<rel>{_REL})\s+(?P<bound>.+?)"
    r"\s*[.?!]?\s*$",
    re.I,
)
_IS_IT = re.compile(
    r"^(?:(?:so|and|then)\s+)?(?:is|are|will|would)\s+"
    + _SUBJECT
    + rf"\s+(?:be\s+|stay\s+|come\s+)?(?P<rel>{_REL})\s+(?P<bound>.+?)\s*\?\s*$",
    re.I,
)
_EXCEEDS = re.compile(
    r"^(?:(?:so|and|then)\s+)?(?:does|do|will|would)\s+" + _SUBJECT + r"\s+(?P<verb>exceed|go over|break|"
    r"fit (?:within|in|into|under)|stay (?:within|under))\s+(?P<bound>.+?)\s*\?\s*$",
    re.I,
)
_ENOUGH = re.compile(
    r"^(?:(?:so|and|then)\s+)?(?:is|are|will|would)\s+(?P<bound>.+?)\s+(?:be\s+)?(?:enough|sufficient)"
    r"(?:\s+(?:for|to (?:cover|pay for|buy))\s+" + _SUBJECT + r")?\s*\?\s*$"
    r"|^(?:(?:so|and|then)\s+)?(?:will|would|does|do|can)\s+(?P<bound2>.+?)\s+cover\s+"
    + _SUBJECT.replace("subj", "subj2")
    + r"\s*\?\s*$",
    re.I,
)
_NUMBER = re.compile(
    r"^(?:[A-Z]{3}\s*|[£$€]\s*)?(-?\d[\d,]*(?:\.\d+)?)(?:\s*(?:[A-Za-z%°/²³]+\.?\s*){0,2})?$"
)
_ALL = re.compile(r"^(?:them|both|they|their \w+(?: \w+)?|the two(?: together)?)$", re.I)


def _relation(m: re.Match[str]) -> str:
    if "verb" in m.groupdict() and m.group("verb"):
        return ">" if m.group("verb").lower() in ("exceed", "go over", "break") else "<="
    said = m.group("rel").lower()
    return next(op for words, op in _OPS if re.fullmatch(words, said))


def _bound(
    phrase: str, index: int, before: list[PlanStep], context: str
) -> tuple[str, tuple[int, ...], list[PlanStep]]:
    """(the bound as code, the earlier steps it reads, lookups added for it)."""
    phrase = re.sub(r"^(?:the|a|an)\s+(?=\w)", "the ", phrase.strip(" .?"), flags=re.I)
    stated = re.sub(r"(?i)^the\s+(?:\w+\s+){0,3}?of\s+(?=[A-Z£$€\d])", "", phrase)  # "the budget of EUR 80"
    number = _NUMBER.match(stated.strip())
    if number is not None:
        return number.group(1).replace(",", ""), (), []
    own = words_of(phrase) - {"the", "a", "an", "my", "our", "its", "their"}
    named = [s.index for s in before if s.kind not in (TASK, CODE) and own and own <= words_of(s.text)]
    if len(named) == 1:
        return "limit", (named[0],), []
    subject = f" ({context})" if context and not re.search(r"[A-Z]", phrase) else ""
    question = f"What is {phrase}{subject}?"
    return "limit", (index,), [PlanStep(index, LOOKUP, question.rstrip("?"), question)]


def _context(before: list[PlanStep]) -> str:
    """The proper names the earlier lookups ask about, for a bound looked up on its own."""
    names: list[str] = []
    for step in before:
        for m in re.finditer(r"\(([A-Z][^()]*)\)|\b([A-Z][\w&'-]+(?:\s+[A-Z][\w&'-]+)*)", step.text[1:]):
            name = (m.group(1) or m.group(2)).removesuffix("'s")
            if name not in names and name not in ("What", "How", "Which", "When"):
                names.append(name)
    return ", ".join(names[:3])


def check_steps(index: int, clause: str, before: list[PlanStep]) -> list[PlanStep] | None:
    """The steps a check asks for (see the module docstring), the last one printing yes or no; None when
    the clause asks for no check over earlier values."""
    text = clause.strip()
    enough = _ENOUGH.match(text)
    m = _CHECK_THAT.match(text) or _IS_IT.match(text) or _EXCEEDS.match(text) or enough
    values = [s for s in before if s.kind not in (TASK, CODE)]
    if m is None or not values:
        return None
    found = m.groupdict()
    subject = (found.get("subj") or found.get("subj2") or "it").lower()
    bound_phrase = found.get("bound") or found.get("bound2") or ""
    pending = [n for n in unused(before) if before[n - 1].kind not in (TASK, CODE)]
    total = _ALL.match(subject) is not None and len(pending) >= 2  # "both", "their total": the sum checked
    limit, reads, added = _bound(bound_phrase, index + int(total), before, _context(before))
    pending = [n for n in pending if n not in reads]  # "does it exceed the limit" after both lookups
    steps: list[PlanStep] = []
    if total and len(pending) >= 2:
        steps.append(PlanStep(index, CALC, "the total checked", " + ".join(f"v{n}" for n in pending),
                              tuple(pending), unit=before[pending[-1] - 1].unit))  # fmt: skip
        value = index
    else:
        others = pending or [s.index for s in values if s.index not in reads]
        if not others:
            return None
        value = others[-1]
    if added and not steps:
        added = [PlanStep(index, LOOKUP, added[0].text, added[0].template)]
        reads = (index,)
    steps.extend(added)
    # "is EUR 50 enough for both": the amount available covers the value
    test = f"{limit} >= value" if m is enough else f"value {_relation(m)} {limit}"
    bindings = (("value", value), *(("limit", n) for n in reads))
    code = f"print('yes' if {test} else 'no')"
    needs = tuple(dict.fromkeys(n for _, n in bindings))
    steps.append(PlanStep(index + len(steps), CODE, clause, code, needs, bindings))
    return steps


__all__ = ["check_steps"]
