"""What kind of answer a question asks for (pure): its answer type, read from the question's own words.

========  ==============================================  =============================================
kind      asked by                                        the answer
========  ==============================================  =============================================
date      when (did / was / is), which date, the last day   a date
dates     "the dates", "both dates"                       several dates
time      what time, at what time, when does X leave      a clock time (09:40)
duration  how long, how many minutes / hours / days       a number with a unit of time
amount    how much (cost, pay, fee, price, charge)        a number with a currency
count     how many <things>, number of <things>           a bare number
name      who, whose, which person / <thing>              a name
reason    why, what caused, the reason, the root cause    the sentence that gives the reason
version   which version                                   a version (2.3.4)
passage   how do / how to / explain / describe            the passage that answers
number    anything else                                   a number (with the unit the attribute implies)
========  ==============================================  =============================================

``units`` are the units an answer may carry (``()``: any); ``per`` is the denominator a rate question
names ("the rate per square metre" -> ``square metre``), so that "18.00 per square metre" is preferred over
"45.00 per banner".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.expr import normalise
from ioa_p2p.planning.values import ALIASES, CURRENCIES, numbers_in

#: A request to look something up ("find ...", "tell me ...").
LOOKUP_VERB = re.compile(
    r"^(?:look up|find|get|search|check|retrieve|fetch|read|take(?= the | its | their )|determine|identify|"
    r"establish|confirm|obtain|pull up|(?:tell|give|show) (?:me|us)|state|name|quote|note)\b",
    re.I,
)
#: A clause that asks a question (its first words, or a condition then the question).
QUESTION_START = re.compile(
    r"^(?:(?:after|for|in|on|at|by|to|from|within|until|since|during) )?"
    r"(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|does|do|did|can|could|should|will|"
    r"would|may|must|has|have)\b"
    # "Once the keys are back, how soon must ...?": a question after a clause that sets its condition
    r"|^(?:once|if|when|after|before|since|as|given|assuming|now that|because)\b[^?]{3,200}?,\s*"
    r"(?:what|which|who|whose|when|where|why|how)\b[^?]*\?",
    re.I,
)
#: Words and symbols of arithmetic.
ARITH_WORD = re.compile(
    r"\b(times|plus|minus|multipl\w*|divid\w*|add|subtract|deduct|squared|cubed|square root|factorial|"
    r"percent\w*|sum|product|difference|power|total|double|half|take off)\b"
    r"|(?<![A-Za-z])[-+*/^%]\s*\d|\d\s*[-+*/^%]"
)

TIME_UNITS = ("s", "min", "h", "days", "weeks", "months", "years")
_LENGTH_UNITS = ("km", "m", "miles", "cm", "mm")
MONEY_UNITS = CURRENCIES  # every ISO currency, the euro first (planning/values.py)
#: attribute words -> the units a value of that attribute is given in
ATTRIBUTE_UNITS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("weight", "weigh", "weighs", "heavy", "heavier", "mass"), ("kg", "g", "lb")),
    (
        (
            "price",
            "cost",
            "costs",
            "pay",
            "fee",
            "fees",
            "charge",
            "charged",
            "budget",
            "revenue",
            "fare",
            "fares",
            "allowance",
            "reimburse",
            "claim",
            "spend",
            "worth",
            "value",
            "tariff",
            "rent",
            "salary",
            "penalty",
            "credit",
            "surcharge",
            "bill",
            "tax",
            "taxes",
            "charges",
            "prices",
        ),
        MONEY_UNITS,
    ),  # fmt: skip
    (("capacity", "energy"), ("kWh", "Wh")),
    (("power", "output"), ("kW", "W")),
    (("temperature", "hot", "warm", "cold"), ("°C",)),
    (("distance", "far", "length", "long", "range"), _LENGTH_UNITS),
    (("voltage",), ("V",)),
    (("efficiency", "discount", "vat", "share", "percentage", "percent", "margin", "growth"), ("%",)),
)


@dataclass(frozen=True, slots=True)
class AnswerType:
    kind: str
    units: tuple[str, ...] = ()
    per: str = ""

    @property
    def numeric(self) -> bool:
        return self.kind in ("duration", "amount", "count", "number")


_IN_TIME_UNIT = re.compile(r"\(?\b(?:in|into) (?:seconds|minutes|hours|days|weeks)\)?\W*$", re.I)


def answer_type(question: str) -> AnswerType:
    """The answer type of ``question`` (see the module docstring)."""
    q = " ".join(question.lower().split())
    per = _per(q)
    if re.match(r"\W*why\b", q):  # "why did they shorten the deadline": the reason, whatever it is about
        return AnswerType("reason")
    if re.search(r"\b(?:the|both|two) dates\b", q):
        return AnswerType("dates")
    if re.search(r"\bwhat time\b|\bat what time\b|\bthe (?:clock )?time (?:the|when|at which|that)\b|"
                 r"\bwhen (?:does|do|will) .* (?:leave|depart|arrive|"
                 r"open|close|sail)\w*\b|\b(?:departure|arrival) time\b|"
                 r"\b(?:first|last|next|earliest|latest) (?:departure|arrival|sailing|train|bus|ferry)\b|"
                 r"\b(?:start|starting|opening|closing|boarding|check-in|check-out|kick-off|pick-up) time\b|"
                 r"\bwhen (?:the |a |an )?[\w: ]*?\b(?:reach|arriv|leav|depart|sail)\w*\b|"
                 r"\b(?:earliest|latest) (?:i|we|you|they|he|she|one) (?:can|could|will|would|may) "
                 r"(?:be|get|arrive|reach)\b",
                 q):  # fmt: skip
        return AnswerType("time")
    if re.search(r"^\s*(?:on )?when\b|\b(?:what|which) (?:date|day)\b|\bon what day\b|\bwhen (?:was|is|did|"
                 r"does|will|were)\b|\bdate of\b|\b(?:last|first|latest|earliest|final) (?:possible )?(?:day|"
                 r"date)\b|\bdeadline\b|\b(?:by|until|till) when\b", q) or _DAY_ASKED.search(q):  # fmt: skip
        return AnswerType("date")
    if re.search(r"\bwhy\b|\bwhat caused\b|\bthe (?:root )?cause\b|\breason\b|\bcaused by\b", q):
        return AnswerType("reason")
    relative = re.search(r"\b(?:how many|number of) [\w-]+ who\b", q)  # "the number of customers who ..."
    if re.search(r"\bwho\b|\bwhose\b|\bwhich (?:person|employee|engineer|manager)\b|\bname of the\b", q) and (
        not relative
    ):
        return AnswerType("name")
    if re.search(r"^\W*what (?:does|do|did) .+ (?:mean|stand for|signify)\W*$", q):
        return AnswerType("name")  # "what does code E42 mean?": its meaning, in words
    if re.search(r"\bwhich version\b|\bversion\b", q):
        return AnswerType("version")
    many = re.search(r"\bhow many ((?:square |cubic |sq\.? )?[\w-]+)|\bnumber of ([\w-]+)", q)
    if many:
        word = (many.group(1) or many.group(2)).lower()
        unit = ALIASES.get(word, "") or area_or_volume(word)  # "how many square metres": m², no count
        if unit in TIME_UNITS:
            return AnswerType("duration", (unit,), per)
        if unit:
            return AnswerType("number", (unit,), per)
        return AnswerType("count", ("",), per)
    if re.search(
        r"\bhow long\b(?! is| are| was)|\bhow much time\b|\bduration\b|\bhow soon\b|\bwithin how\b", q
    ):
        return AnswerType("duration", TIME_UNITS, per)
    if re.search(r"\bhow long (?:is|are|was|were)\b", q):  # "how long is a game / the trail": whichever
        return AnswerType("number", (*_LENGTH_UNITS, *TIME_UNITS), per)  # the document states
    if _SHARE_ASKED.search(q):  # "what percentage is the surcharge": a share, whatever it is of
        return AnswerType("number", ("%",), per)
    measured = _MEASURE_ASKED.search(q)  # "which pool size", "which rate": a figure, not a name
    if (
        re.search(r"\bwhich\b(?! (?:date|day|time|version))", q)
        and not re.search(r"\bhow\b", q)
        and not measured
    ):
        return AnswerType("name")
    if re.search(r"^\s*(?:how (?:do|does|is|are|can|should|to)\b(?! much| many| long)|explain|describe|"
                 r"summari[sz]e)|\b(?:for|about|on|explain|describe) how (?:an? |the |to |do |does |is |are |"
                 r"can |should |new )", q):  # fmt: skip
        return AnswerType("passage")
    if _WHAT_IT_COSTS.search(q):  # "what will she pay?", "what will the room hire come to?"
        return AnswerType("amount", MONEY_UNITS, per)
    if _SPAN_TIME.search(question):  # "the run time of a midi gel": how long (never a name: "Deep Time")
        return AnswerType("duration", TIME_UNITS, per)
    if _IN_TIME_UNIT.search(q):  # "the half-way cut-off (in minutes)": a duration, in whatever unit
        return AnswerType("duration", TIME_UNITS, per)
    units = attribute_units(_LEFT_OUT.sub(" ", q))  # "..., leaving out VAT": no VAT rate is asked
    much = re.search(r"\bhow much (\w+)", q)
    substance = much is not None and much.group(1) not in _NOT_SUBSTANCE  # "how much sugar": a quantity
    if much and not substance and (not units or units == MONEY_UNITS):
        return AnswerType("amount", MONEY_UNITS, per)
    named = _IN_UNIT.search(q)  # "the capacity in mAh": the unit the request names, not the attribute's
    if named and ALIASES.get(named.group(1)) and ALIASES[named.group(1)] not in units:
        units = (ALIASES[named.group(1)],)
    return AnswerType("number", units, per)


def area_or_volume(words: str) -> str:
    """``square metres`` -> m², ``cubic metres`` -> m³, ``square feet`` -> ft²; "" for anything else."""
    power, _, base = words.partition(" ")
    base_unit = ALIASES.get(base, "")
    if not base_unit or base_unit not in ("m", "cm", "mm", "km", "ft", "feet", "in", "yd"):
        return ""
    return base_unit + ("²" if power.startswith(("square", "sq")) else "³")


_IN_UNIT = re.compile(r"\bin ([a-zµ°%³²]{2,})\b")


def hour_or_day(question: str) -> bool:
    """Whether a clock-time question may be answered by a day too: "when do entries close?" (an hour or a
    date, whichever the document gives), never "what time ...?"."""
    q = question.lower()
    return bool(re.match(r"\W*when\b", q)) and not re.search(r"\btime\b", q)


#: "the race day of the marathon", "the day of the fair": a day as the thing asked for (a date), not a day's
#: rate, pass or count ("the day rate", "per day", "how many days")
_DAY_ASKED = re.compile(
    r"^\W*(?:please )?(?:look up|find|get|give|tell me|check|what(?:'s| is| was| will be))\s+"
    r"the (?:[a-z-]+ )?day\b(?=\s+(?:of|for|in|at|when)\b|\s*[?.,;]|\s*$)"
)
#: "<activity> time" (run, setting, cooking, lead ...): a span; clock times ("opening time") are asked above
_SPAN_TIME = re.compile(
    r"\b(?!(?:what|the|a|an|local|summer|winter|any|same|each|every|first|last|next|this|that|one|its|their"
    r"|your|our|free|spare|part|full|real|peak|off|meal|tea|lunch|dinner|bed|play|closing|opening)\b)"
    r"[a-z]{3,} time\b(?! zone| slot| of day| (?:at|on|when)\b)"
)
_SHARE_ASKED = re.compile(r"\b(?:what|which) (?:percentage|share|proportion|per ?cent)\b|\bwhat %")
#: "which <attribute>" where the attribute is a measure: its answer is a figure
_MEASURE_ASKED = re.compile(
    r"\bwhich (?:[\w-]+ ){0,2}(?:size|rate|price|fee|amount|number|total|temperature|weight|length|height|"
    r"depth|speed|capacity|limit|level|value|figure|count|percentage|share|voltage|power|pressure)s?\b"
)
_WHAT_IT_COSTS = re.compile(
    r"\bwhat(?:'s| is| are| will| would| do| does| did| should| must| can)\b(?:(?!\?).){0,60}?"
    r"\b(?:pay|cost|costs|charge|charged|come to|comes to|bill|fare|price|fee|claim)\b"
    r"(?! (?:per|a|an|each) \w)"
)
_LEFT_OUT = re.compile(
    r"\b(?:leave out|leaving out|excluding|excl\.?|without|before|apart from|except|not counting|net of|"
    r"other than)\b[^.?;:)]*"
)
_NOT_SUBSTANCE = frozenset(
    """does do did is are was were will would can could should it money cash more less in for to of extra
    we i you they he she altogether overall in total""".split()  # noqa: SIM905
)


def attribute_units(question: str) -> tuple[str, ...]:
    """The units the attribute a question asks about is given in ("weight" -> kg, g, lb); () when unknown."""
    words = set(re.findall(r"[a-z]+", question.lower()))
    out: list[str] = []
    for names, units in ATTRIBUTE_UNITS:
        if words & set(names):
            out += [u for u in units if u not in out]
    return tuple(out)


_NOT_PER = frozenset("lot bit few little one".split())  # noqa: SIM905


def _per(q: str) -> str:
    m = re.search(r"\bper[- ]((?:square |cubic )?[a-z]+(?: [a-z]+)?)", q)
    if not m:  # "how many kilometres a day", "how much each month": a rate per day, per month
        every = re.search(r"\bhow (?:many|much) (?:[a-z-]+ )?(?:a|an|each|every) ([a-z]+)\b", q)
        return every.group(1) if every and every.group(1) not in _NOT_PER else ""
    return re.sub(r"\s+(?:for|of|in|on|at|to|from|with|is|are|does|do|the)\b.*$", "", m.group(1)).strip()


# --------------------------------------------------------------------------- what a request asks to be done

_POLITE = re.compile(
    r"^(?:(?:and |then |now |next |finally |first |also )*(?:please |kindly |could you |can you |"
    r"would you |i'd like you to |i want you to )?)+",
    re.I,
)
_LOOKUP_VERBS = frozenset(
    "find look search check get retrieve fetch read tell show list name quote cite".split()  # noqa: SIM905
)
_COMPUTE_VERBS = frozenset(
    """calculate compute work add subtract multiply divide convert turn round sum total double halve triple
    express scale deduct increase decrease reduce raise apply average estimate figure""".split()  # noqa: SIM905
)
_CODE_VERBS = frozenset({"run", "execute", "evaluate"})
_TRANSFORM_VERBS = frozenset(
    "translate encode decode count sort reverse summarise summarize rewrite format spell paraphrase".split()  # noqa: SIM905
)
_QUESTION_START = re.compile(r"^(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|does|do|did|"
                             r"can|could|will|would|should|has|have|had)\b", re.I)  # fmt: skip


def request_act(text: str) -> str:
    """What a request asks to be done: ``question`` (a question, or a request to look something up),
    ``compute`` (arithmetic on values), ``code`` (run code), ``transform`` (translate, encode, count, sort
    a given text) or ``other``. Read from the request's form: its leading verb, or its question word."""
    s = _POLITE.sub("", " ".join(text.strip().split())).strip(" ,;:")
    topic = re.match(r"^([A-Z][a-z']*)\s[^:?.\d]{1,60}:\s+(?=[a-z])", s)  # "Plum jam at Orvo: find ..."
    verbs = _COMPUTE_VERBS | _CODE_VERBS | _TRANSFORM_VERBS | _LOOKUP_VERBS
    s = s[topic.end() :] if topic and topic.group(1).lower() not in verbs and "```" not in text else s
    first = re.match(r"[A-Za-z']+", s)
    word = first.group(0).lower() if first else ""
    if "```" in text:
        return "code"
    if word in _COMPUTE_VERBS or re.match(r"use (?:it|that|this|them|the result|these)\b.*\bto\b", s, re.I):
        return "compute"
    if word in _CODE_VERBS:
        code = re.search(r"\b(?:code|python|script|program|snippet|print\()", s, re.I)
        return "code" if code else "compute"
    if word in _TRANSFORM_VERBS:
        return "transform"
    if word in (
        "take",
        "cost",
        "price",
        "budget",
    ):  # "cost three rooms for two nights"; "take the X from ..."
        rest = normalise(s[len(word) :])
        numbered = numbers_in(rest) or re.search(r"%|\b(?:it|that|this|them|the result)\b", rest)
        return "compute" if numbered else ("question" if word == "take" else "other")
    if word in ("give", "state", "tell", "show") and not re.search(r"[A-Z]\w*\d|[A-Z][a-z]+ [A-Z]", s[1:]):
        return "compute" if re.search(r"\d|\b(?:it|that|this|result)\b", s, re.I) else "question"
    if word in ("give", "state", "tell", "show") and re.match(r"\w+\s+(?:(?:me|us)\s+)?the\b", s, re.I):
        return "question"  # "give the Orvo K2's weight in pounds": a fact of a named thing
    if word in _LOOKUP_VERBS or _QUESTION_START.match(s) or s.endswith("?"):
        return "question"
    return "other"


__all__ = [
    "hour_or_day",
    "ARITH_WORD",
    "LOOKUP_VERB",
    "QUESTION_START",
    "ATTRIBUTE_UNITS",
    "MONEY_UNITS",
    "TIME_UNITS",
    "AnswerType",
    "answer_type",
    "area_or_volume",
    "attribute_units",
    "request_act",
]
