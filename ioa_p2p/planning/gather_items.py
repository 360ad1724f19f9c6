"""The values a request asks to gather, one description each (pure; issue 23, p-three).

- :func:`gather_object`: what a lookup verb asks for, without where to read it ("Read their gross weight
  and volume off the manifest" -> "their gross weight and volume");
- :func:`split_items`: a list of descriptions, one per value ("the day units, the night units and the
  number of days in the period"), words two of them share given to each: a qualifier ("the points for a
  win and for a draw" -> "the points for a draw") and a plural head after bare modifiers ("the
  brought-forward and carried-forward balances on X" -> "the brought-forward balance on X", "the
  carried-forward balance on X"; "Birch and Cedar totals");
- :func:`collective_items`: a phrase that counts values without describing them ("both totals", "the three
  prices", "Spindle's two prices", "the other values") described by the code inputs' names instead ("the
  Cedar total", "Spindle's premium price");
- :func:`listed_against`: inputs listed against descriptions, in the same order ("with open_ and close set
  to the A and B balances", "bind premium and basic to the two prices", "<code> - p and b being the A and
  B");
- :func:`declared_descriptions`: names declared one by one ("bind x = the A and y = the B", "Here x is the
  A", "x is what X charges for A", "past = pasteurising per bottle"; issue 23, p-words2);
- :func:`owners_given`: "its B" after "Acme's A" is "Acme's B", "the K-12's" after "the K-10's dry mass" is
  "the K-12's dry mass"; one wh-clause for two subjects is asked for each ("what adults and children pay").
"""

from __future__ import annotations

import re

from ioa_p2p.matching.grammar import lexicon
from ioa_p2p.planning.name_match import name_parts

#: A clause that gathers values: a lookup verb first.
GATHER_VERB = re.compile(
    r"^(?:(?:then|and|now|first|so|please|just)\s+)*(?:look up|find out|find|get|read|fetch|pull|take|grab|"
    r"check|obtain|collect|retrieve|extract|note down|note|dig out|fill in|use|using|with)\b\s*",
    re.I,
)
_SOURCE = re.compile(
    r"\s+(?:from|off|out of|according to)\s+(?:the|this|that|these|those|our|my|your|their|[A-Z]).*$", re.I
)
_SPLIT = re.compile(r"\s*,\s*(?:and\s+|&\s+)?|\s+(?:and|&)\s+(?:also\s+)?")
_PREPOSITION = re.compile(r"^(for|of|in|on|at|to|with|from|during|per)\s", re.I)
_QUALIFIER = re.compile(r"\s+(?:of|for|in|at|on|from|with|per|during|under|over|off|to)\s", re.I)
_CONSTANT = re.compile(r"^`?[A-Za-z_]\w*`?\s*(?:=|is|set to)\s*-?\d[\d,.]*$")
#: Nouns that name a value of their own: never a bare modifier of the next part's head.
_VALUE_NOUNS = frozenset(
    """price fee rate charge cost toll fare deposit tax premium amount total salary wage pay rent fine levy
    surcharge discount allowance limit balance weight length time duration distance number count height
    width depth capacity size age speed power volume area score result minimum maximum""".split()  # noqa: SIM905
)
_NUMBERS = {"both": 2, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_GENERIC = frozenset("values figures numbers amounts inputs quantities ones things".split())  # noqa: SIM905
_COLLECTIVE = re.compile(
    r"^(?:(?P<owner>(?:[A-Z][\w&.-]*\s+)*[A-Z][\w&.-]*'s)\s+)?(?:(?:the|all|these|those|its|their)\s+)?"
    r"(?:(?P<count>both|two|three|four|five|six|other|remaining|needed|missing|relevant|required|rest of the)"
    r"\s+(?:of\s+(?:the|them|these|those)\s*)?)?(?P<mods>(?:[\w-]+\s+){0,2}?)(?P<head>[a-z]+s)?$"
)


def gather_object(clause: str) -> str:
    """What a gathering clause asks for: after its lookup verb, without where to read it ("" when the
    clause has no lookup verb first)."""
    verb = GATHER_VERB.match(clause.strip())
    if verb is None:
        return ""
    rest = clause.strip()[verb.end() :].rstrip(" .!?,:")
    return _SOURCE.sub("", rest).strip()


def _mask(text: str) -> str:
    return re.sub(r"\([^()]*\)", lambda m: m.group(0).replace(",", "\ue000").replace(" ", "\ue001"), text)


def _unmask(text: str) -> str:
    return text.replace("\ue000", ",").replace("\ue001", " ")


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _modifier_only(part: str) -> bool:
    """ "the brought-forward", "Birch", "adult": words that stand before a head, no head of their own."""
    own = [w for w in part.split() if w.lower() not in ("the", "a", "an")]
    if not own or len(own) > 2:
        return False
    last = own[-1]
    if "-" in last or re.fullmatch(r"[A-Z][\w&.]*|[A-Z0-9]{2,}", last):
        return True
    low = last.lower()
    if low in _VALUE_NOUNS or (_singular(low) != low and low.endswith("s")):
        return False  # "the deposit", "the fees": a value of its own
    tags = lexicon()(low) if re.fullmatch(r"[a-z]{3,}", low) else set()
    return "ADJ" in tags or low.endswith(("ing", "ed")) or not tags


def _shared_head(parts: list[str]) -> list[str]:
    """Bare modifiers before a last part with a plural head: that head (made singular) and what follows
    it, given to each."""
    last = parts[-1]
    cut = _QUALIFIER.search(last)
    phrase, tail = (last[: cut.start()], last[cut.start() :]) if cut else (last, "")
    words = phrase.split()
    if len(words) < 2 or not re.fullmatch(r"[a-z]{3,}s", words[-1]) or _singular(words[-1]) == words[-1]:
        return parts
    if not all(_modifier_only(p) for p in parts[:-1]):
        return parts
    mods = [w for w in words[:-1] if w.lower() not in ("the", "a", "an")]
    shared = "".join(f" {w}" for w in mods[1:])  # "the opening" and "closing meter readings": meter too
    head = _singular(words[-1])
    the = "the " if any(re.match(r"(?i)the\s", p) for p in parts) else ""
    out = [p if re.match(r"(?i)(?:the|a|an)\s", p) or not the else f"{the}{p}" for p in parts[:-1]]
    out = [f"{p}{shared}" for p in out]
    own = " ".join(words[:-1])
    own = own if re.match(r"(?i)(?:the|a|an)\s", own) or not the else f"{the}{own}"
    return [*(f"{p} {head}{tail}" for p in out), f"{own} {head}{tail}"]


def split_items(obj: str) -> list[str]:
    """One description per value the object lists (see the module docstring)."""
    obj = re.sub(r"(?i)^(?:both|each)\s+(?:of\s+)?", "", obj.strip())
    parts = [_unmask(p).strip() for p in _SPLIT.split(_mask(obj)) if p.strip()]
    parts = [p for p in parts if not _CONSTANT.match(p)]  # "nights = 2": a number given, not a value to find
    if len(parts) < 2:
        return parts
    first = parts[0]
    for k in range(1, len(parts)):  # "the points for a win" and "for a draw"
        prep = _PREPOSITION.match(parts[k])
        if prep is not None:
            at = first.lower().rfind(f" {prep.group(1).lower()} ")
            if at > 0:
                parts[k] = f"{first[:at]} {parts[k]}"
    return [determined(p) for p in _shared_owner(_shared_tail(_shared_head(_shared_verb(parts))))]


def _shared_verb(parts: list[str]) -> list[str]:
    """ "what members and day-pass holders pay per gram on X": the subjects of one wh-clause, its verb and
    what follows given to each ("what members pay per gram on X")."""
    first = re.match(r"(?i)(what|how much|how many)\s+(.+)$", parts[0])
    if first is None or len(parts) < 2 or any(re.match(r"(?i)(?:what|how)\b", p) for p in parts[1:]):
        return parts
    look = lexicon()
    if any("VERB" in look(w.lower()) for w in first.group(2).split()):
        return parts  # "what X costs": a clause of its own
    last = parts[-1].split()
    at = next((k for k in range(1, len(last)) if "VERB" in look(last[k].lower())), None)
    if at is None:
        return parts
    tail = " ".join(last[at:])
    subjects = [first.group(2), *parts[1:-1], " ".join(last[:at])]
    return [f"{first.group(1)} {subject} {tail}" for subject in subjects]


def _shared_owner(parts: list[str]) -> list[str]:
    """ "their gross weight and volume": the owner of the first is the owner of the bare ones after it."""
    owner = re.match(r"(?i)(their|its|his|her|our|my|your)\s", parts[0])
    if owner is None:
        return parts
    bare = re.compile(r"(?i)(?:the|a|an|its|their|his|her|our|my|your|how|what|which)\b")
    return [
        parts[0],
        *(p if bare.match(p) or p[:1].isupper() else f"{owner.group(1)} {p}" for p in parts[1:]),
    ]


def _shared_tail(parts: list[str]) -> list[str]:
    """ "the width" and "length of the boathouse": what qualifies the last part qualifies a short bare one
    before it too ("the width of the boathouse")."""
    cut = _QUALIFIER.search(parts[-1])
    if cut is None or re.match(r"(?i)(?:how|what|which)\b", parts[-1]):
        return parts
    tail = parts[-1][cut.start() :]
    if not re.match(r"\s+(?:of|for|at|in|on)\s+(?:the|a|an|this|that|their|its|(?-i:[A-Z]))\b", tail, re.I):
        return parts  # "the number of days": the head's own words, no qualifier of the others
    return [
        f"{p}{tail}" if not _QUALIFIER.search(p) and len(p.split()) <= 3 and "'" not in p else p
        for p in parts[:-1]
    ] + [parts[-1]]


def determined(item: str) -> str:
    """ "VAT percentages" -> "the VAT percentages": a bare noun phrase given its article."""
    if re.match(r"(?i)(?:the|a|an|its|their|his|her|our|my|your|this|that|how|what|which|when|who)\b", item):
        return item
    if re.match(r"(?:[A-Z][\w&.-]*\s+(?:&\s+)?)*[A-Z][\w&.-]*'s\s", item) or re.match(r"\d", item):
        return item
    return f"the {item}"


def _worded(name: str, text: str) -> str:
    """A code name in words, each word capitalised as the request writes it ("cedar" -> "Cedar")."""
    out = []
    for part in name_parts(name):
        m = re.search(rf"\b({re.escape(part)})\b", text, re.I)
        out.append(m.group(1) if m is not None and m.group(1)[0].isupper() else part)
    return " ".join(out)


def collective_items(obj: str, names: list[str], text: str) -> list[str] | None:
    """One description per input for a phrase that counts values ("both totals", "the three prices",
    "Spindle's two prices", "the other values from the thread"), made of the input's name and the phrase's
    head; None when the phrase describes its values or counts another number of them."""
    m = _COLLECTIVE.match(obj.strip(" .,"))
    if m is None or not (m.group("count") or m.group("head") in _GENERIC):
        return None
    count = _NUMBERS.get(m.group("count") or "")
    if (count is not None and count != len(names)) or any(len(p) < 3 for n in names for p in name_parts(n)):
        return None  # another number of values, or a name too short to say what its value is
    head = m.group("head") or ""
    mods = m.group("mods").strip()
    if mods and not head:
        return None
    noun = "" if not head or head in _GENERIC else f" {mods} {_singular(head)}".replace("  ", " ")
    owner = m.group("owner")
    return [f"{owner or 'the'} {_worded(n, text)}{noun}" for n in names]


_LISTED = re.compile(
    r"(?:^|\b(?i:with|set|bind|assign|using|let|give|plug)\s+)(?P<names>`?[A-Za-z_]\w*`?(?:\s*,\s*`?[A-Za-z_]\w*`?)*"
    r",?\s+and\s+`?[A-Za-z_]\w*`?)\s+(?:set to|bound to|to|as|=|being|equal to|be|are)\s+(?P<desc>.+)$"
)
_DESC_END = re.compile(r"\s*(?:,|;|\band then\b|\bthen\b|\band (?:run|execute|print)\b|\brun\b|$)")


def listed_against(clause: str, inputs: list[str]) -> tuple[list[str], list[str]] | None:
    """(names, descriptions) for inputs listed against as many descriptions, in the same order ("with
    open_ and close set to the brought-forward and carried-forward balances"); None otherwise."""
    clause = re.sub(r"^\s*[-*\u2022\u2013\u2014]\s+", "", clause)  # "<code> - p and b being the A and B"
    for m in _LISTED.finditer(clause):
        names = [n.strip("` ") for n in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", m.group("names"))]
        names = [n for n in names if n]
        if len(names) < 2 or len(set(names)) != len(names) or not set(names) <= set(inputs):
            continue
        desc = m.group("desc")
        desc = desc[: _DESC_END.search(desc).start()].strip(" .")  # type: ignore[union-attr]
        items = collective_items(desc, names, clause) or split_items(desc)
        if len(items) == len(names):
            return names, items
    return None


_DET = (
    r"(?:the|a|an|its|their|our|my|your|this|that|how many|how much|what|"
    r"(?-i:[A-Z][\w&.-]*)(?: (?-i:[A-Z][\w&.-]*))*'s)"
)
_DECLARED = (
    r"(?:^|(?<=[,;:.])|\b(?:with|where|given|and|let|set|using|make|now|for|use|bind|here|assign|so)\s)\s*"
    r"`?(?P<name>{names})`?\s*,?\s*"
    r"(?:=|:|\bis\b|\bbe\b|\bbeing\b|\bas\b|\bset to\b|\bto\b|\bequal to\b|\bequals\b|\bholds?\b|"
    r"\buse\b|\btake\b|\bput in\b|\bplug in\b|\bfor\b)?\s*"
    rf"(?P<desc>{_DET}\s[^,;:\u27e6]+?)"
    r"(?=\s*(?:[,;:\u27e6]|\.\s|\.?$|\band\s+(?:let\s+|set\s+)?`?(?:{names})`?\b|\b(?:then|run|execute)\b))"
)


#: "name = words" with no article: a description all the same where "=" says so (no number, no operator).
_BARE = (
    r"(?:^|(?<=[,;:.])|\b(?:with|where|and|let|set|bind|assign)\s)\s*`?(?P<name>{names})`?\s*=\s*"
    r"(?P<desc>[A-Za-z][\w'&/-]*(?:\s+[\w'&/.-]+)*?)"
    r"(?=\s*(?:[,;:\u27e6]|\.\s|\.?$|\band\s+`?(?:{names})`?\b|\b(?:then|run|execute)\b))"
)


def declared_descriptions(text: str, inputs: list[str]) -> dict[str, str]:
    """Each input the text declares beside a description of its value, the verb of a second one left out
    or not: "let rate be the hourly rate and hours the minimum booking length", "fee is the weekly fee",
    "with d = the deposit"; name -> the description."""
    names = "|".join(re.escape(n) for n in sorted(inputs, key=len, reverse=True))
    if not names:
        return {}
    out: dict[str, str] = {}
    text = re.sub(r"^\s*(?:where|with)?\s*[-*\u2022]\s+", "", text)  # "where:" / "- a: the adult fare"
    for m in re.finditer(_DECLARED.format(names=names), text, re.I):
        out.setdefault(m.group("name"), m.group("desc").strip(" ."))
    for m in re.finditer(_BARE.format(names=names), text, re.I):  # "past = pasteurising per bottle"
        out.setdefault(m.group("name"), determined(m.group("desc").strip(" .")))
    for m in re.finditer(rf"(?<![\w.])`?(?P<name>{names})`?\s*\((?P<desc>[A-Za-z][^()]{{2,60}})\)", text):
        if m.group("desc").strip() not in inputs:  # "fill in a (adult fare) and c (child fare)"
            out.setdefault(m.group("name"), determined(m.group("desc").strip()))
    return out


def owners_given(items: list[str]) -> list[str]:
    """ "its per-child price" after "Pellwick's per-adult price": the owner of the description before it
    ("Pellwick's"), or its first qualifier ("what X charges for Hosta 'June' in a 3 litre pot" -> "for
    Hosta 'June'"); a description that names its own owner is left as it is."""
    out = list(items)
    for k in range(1, len(out)):
        bare = re.fullmatch(r"(?:the\s+)?[\w&. -]+'s", out[k].strip())
        head = re.search(r"'s\s+(.+)$", out[k - 1])
        if bare is not None and head is not None:  # "w24p = the DH-24P's": the head before it, its own owner
            out[k] = f"{out[k].strip()} {head.group(1)}"
            continue
        m = re.match(r"(?i)its\s+(.+)$", out[k].strip())  # "their": the thing the request is about
        if m is None:
            continue
        before = out[k - 1]
        owner = re.search(r"(?:the\s+)?(?:[A-Z][\w&.-]*\s+(?:&\s+)?)*[A-Z][\w&.-]*'s\s", before)
        if owner is not None:
            out[k] = f"{owner.group(0).strip()} {m.group(1)}"
            continue
        tail = re.search(
            r"\s(?:for|of)\s+(?:the\s+)?[A-Z].*?(?=\s+(?:in|at|on|for|with|from|per)\s|$)", before
        )
        if tail is not None:
            out[k] = f"the {m.group(1)} {tail.group(0).strip()}"
    return out


__all__ = [
    "GATHER_VERB",
    "collective_items",
    "declared_descriptions",
    "determined",
    "gather_object",
    "listed_against",
    "owners_given",
    "split_items",
]
