"""Whether the fact an answer is read from is evidence for the thing asked (pure).

qualifiers.py, agreement.py and subject.py refuse an answer whose document never names a year, a version, a
name or a content word of the question, or whose fact disagrees with a month, a band or a designator. This
module checks what the **value and its fact** say about the question, by class, never by wording:

- a **label read as an amount**: the question asks what something costs (or a balance, a fine, an
  estimate), the value is a bare number, and its document states amounts of money with a currency, never
  this number: a house number ("14 Wren Close"), a lot number ("104 WITHDRAWN 105 ..."), an account number
  ("Business Saver account (71107741)"), a year group ("Year 5") answer another question;
- an **amount the question gives, read back**: the lookup's value is an amount of money that its own
  question states ("how much of each £42 match fee goes to the referee" answered "GBP 42", from the line
  that states the match fee): the search found the question's words, not the thing asked;
- a **share for a price**: the question asks what something costs, with no word of a share ("percent",
  "discount", "off", "surcharge", "VAT", "interest", ...) and no amount it could be a share of, and the value
  is a percentage ("Groups of 4 get
  10 % off" for "the daily drysuit rental"): a rule about the price, not the price;
- a **superseded fact**: the fact marks its value as past ("Your previous tariff ... charged 14.95p",
  "Last winter's price was ...", "the old rate", "no longer") while the question asks about no past time
  (no "last year", "before", "previous", "back then", "did", "was"): a value of another period;
- a **current fact for a past question**: the question asks what something cost at a past time it names
  ("last year's", "back then", "the previous ...", "before the change") and the fact states its value
  with no mark of a past ("Electric hook-up £5 per night": no "was", "last year", "previous", "until"):
  today's value answers another question;
- the **thing asked** ("a private telescope session", "What would a hardstanding pitch cost us ...?"):
  subject.py's check of the question's noun phrases, made for every number answered to a question that
  asks an amount of money (the adapter makes it only when the value reads as a price: a bare "55" from a
  CSV row passed), and for a question about the asker's situation, whose words subject.py leaves out as
  givens, on the noun phrases of its **asking sentence** alone.

Each is a :class:`~ioa_p2p.adapters.retrieval.qualifiers.Qualifier` the retrieval abstains on (the task fails
as ``absent``, the planner names the value missing, exit 3), like every other near miss.
"""

from __future__ import annotations

import re

from ioa_p2p.adapters.retrieval.qualifiers import Qualifier
from ioa_p2p.adapters.retrieval.subject import unmentioned_subjects
from ioa_p2p.planning.values import CURRENCIES, NUMBER, Value, is_money, numbers_in

#: words that ask what something costs: the thing asked is checked for these only (a balance or an
#: estimate is asked of an account or a lot the question names otherwise: "the garden's bank balance")
_PRICE_ASKED = re.compile(
    r"\b(?:cost|costs|price|prices|fare|fares|fee|fees|charge|charges|charged|pay|paying|rent|rental|hire|"
    r"fine|fined|(?:hourly|daily|nightly|weekly|monthly|yearly|annual) rates?)\b",
    re.IGNORECASE,
)
#: words that ask for an amount of money (besides subject.py's and tariff.py's price words)
_MONEY_ASKED = re.compile(
    r"\b(?:cost|costs|price|prices|fee|fees|fare|fares|charge|charges|charged|pay|paying|paid|owe|owed|"
    r"balance|fine|fined|fines|estimate|estimates|premium|deposit|refund|rent|rental|hire|how much|"
    r"(?:hourly|daily|nightly|weekly|monthly|yearly|annual) rates?)\b",
    re.IGNORECASE,
)
#: a capitalised word inside a sentence: a name's part ("Car Hire", "Fee Schedule")
_NAME_WORD = re.compile(r"(?<=[\w,;:'’)]\s)[A-Z][\w'’-]*")
#: a document named by what it is about ("the rent review notice", "the fee schedule"): no price asked
_NAMED_DOC = re.compile(
    r"\b(?:rent|fee|fees|price|prices|charge|charges|hire|rental)\s+(?:review|notice|schedule|list|sheet|card|"
    r"guide|leaflet|letter|terms|table|policy|agreement|page|document|file)\b",
    re.IGNORECASE,
)
#: a question that asks for a label: a number, code or reference of something
_LABEL_ASKED = re.compile(r"\b(?:which|what)\b[^?.]*\b(?:number|no|reference|ref|code|id)\b", re.IGNORECASE)
#: words by which a question about money may be answered with a percentage
_SHARE_WORDS = re.compile(
    r"%|\b(?:per ?cent|percentage|percent|share|proportion|discount|discounted|off|reduction|reduced|"
    r"surcharge|supplement|uplift|markup|mark-up|increase|increased|rise|raised|vat|tax|taxes|interest|"
    r"commission|deduction|deducted|premium|apr|aer|ear|tip|service charge|rate of)\b",
    re.IGNORECASE,
)
#: amounts a document must state with a currency before a bare number of it is taken for a label
MIN_MONEY_AMOUNTS = 2
_CURRENCY = r"(?:[£€$]|\b(?:" + "|".join(CURRENCIES) + r")\b)"
_AMOUNT = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_MONEY_BEFORE = re.compile(_CURRENCY + r"\s*" + _AMOUNT)
_MONEY_AFTER = re.compile(r"(?<![\w.,])" + _AMOUNT + r"\s?(?:" + _CURRENCY + r"|p\b|pence\b|cents?\b|c\b)")
_MONTH = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.IGNORECASE)
#: a fact that marks its value as past or replaced ("the previous tariff", "last winter's price"; never a
#: relative period: "in the previous 12 months", "the same month last year")
_PRICE_NOUN = r"(?:price|prices|rate|rates|tariff|tariffs|fee|fees|fare|fares|charge|charges|cost|costs)"
_PAST_FACT = re.compile(
    rf"\b(?:previously|formerly|superseded|no longer|used to|(?:previous|former|old) {_PRICE_NOUN}|"
    r"last (?:year|season|winter|summer|spring|autumn|month|week|term|time)(?:'s|’s))",
    re.IGNORECASE,
)
#: a question about a past time or a comparison with one
_PAST_ASKED = re.compile(
    r"\b(?:previous|previously|former|formerly|old|older|before|earlier|used to|back then|ago|compared|"
    r"compare|comparison|was|were|did|had|last (?:year|season|winter|summer|spring|autumn|month|week|term|"
    r"time)|(?:19|20)\d{2})\b",
    re.IGNORECASE,
)


def scope_misses(question: str, document: str, path: str, fact: str, value: Value) -> list[Qualifier]:
    """What the fact ``fact`` (of ``document`` at ``path``) and its ``value`` leave unanswered of
    ``question`` (see the module docstring); empty when it is evidence for the thing asked."""
    return [
        *label_as_amount(question, document, value),
        *amount_read_back(question, value),
        *share_for_price(question, value),
        *superseded_fact(question, fact, value),
        *current_for_past(question, fact, value, path),
        *asked_subjects(question, document, path, value),
    ]


def asks_money(question: str) -> bool:
    """Whether ``question`` asks for an amount of money (not for a number, code or reference that names
    one: "which cheque number paid the bill")."""
    plain = _NAME_WORD.sub(" ", question)  # "Lumen Car Hire", "the rent review notice": names, no price
    return (
        bool(_MONEY_ASKED.search(plain)) and not _LABEL_ASKED.search(plain) and not _NAMED_DOC.search(plain)
    )


def label_as_amount(question: str, document: str, value: Value) -> list[Qualifier]:
    """An amount of money asked, answered with a whole number its document never states as money although
    it states other amounts with a currency, and writes only as a label: next to a name ("14 Wren Close",
    "Year 5"), in brackets ("account (71107741)") or opening a numbered entry ("105   A lacquered ...")."""
    if value.kind != NUMBER or value.unit or value.number is None or not asks_money(question):
        return []
    if value.number != int(value.number) or value.number < 0:
        return []
    money = money_numbers(document)
    if len(money) < MIN_MONEY_AMOUNTS or value.number in money:
        return []
    spots = list(re.finditer(rf"(?<![\w.,£€$]){int(value.number)}(?![\w£€$]|[.,]\d)", document))
    if not spots or not all(_label_at(document, m.start(), m.end()) for m in spots):
        return []
    return [Qualifier(f"an amount of money ({value.shown()} is no amount it states)", "amount", ())]


def money_numbers(text: str) -> set[float]:
    """The numbers ``text`` states as amounts of money: after or before a currency code or symbol (any
    spacing: "GBP   12.40"), or in pence or cents ("27.41p")."""
    found = {float(m.group(1).replace(",", "")) for m in _MONEY_BEFORE.finditer(text)}
    return found | {float(m.group(1).replace(",", "")) for m in _MONEY_AFTER.finditer(text)}


def _label_at(text: str, start: int, end: int) -> bool:
    before, after = text[max(0, start - 24) : start], text[end : end + 24]
    if before.endswith(("(", "#", "No ", "No. ", "no. ")) or after.startswith(")"):
        return True
    if re.search(r"(?:^|[^\w])[A-Z][A-Za-z]* $", before) and not _MONTH.match(before.split()[-1]):
        return True  # "Year 5", "Lot 12"
    if re.match(r" [A-Z][a-z]+\b", after) and not _MONTH.match(after.split()[0]):
        return True  # "14 Wren Close"
    return bool(re.search(r"(?:^|\n)\s*$", before) and re.match(r"\s+[A-Z]", after))  # "105   A lacquered"


def amount_read_back(question: str, value: Value) -> list[Qualifier]:
    """A value that is an amount of money ``question`` itself states: no lookup's answer."""
    if value.kind != NUMBER or value.number is None or not is_money(value.unit):
        return []
    given = [f for f in numbers_in(question) if is_money(f.unit)]
    if not any(f.number == value.number and f.unit == value.unit for f in given):
        return []
    return [Qualifier(f"the amount asked ({value.shown()} is given in the question)", "restated", ())]


def share_for_price(question: str, value: Value) -> list[Qualifier]:
    """A percentage answered to a question that asks what something costs and names no share."""
    if value.kind != NUMBER or value.unit != "%" or not asks_money(question) or _SHARE_WORDS.search(question):
        return []
    if any(is_money(f.unit) for f in numbers_in(question)):  # "an invoice of EUR 2,400 ... the late fee?":
        return []  # a share of the amount the question gives is how the price is stated
    return [Qualifier(f"an amount of money ({value.shown()} is a share of one)", "share", ())]


def superseded_fact(question: str, fact: str, value: Value) -> list[Qualifier]:
    """A fact that marks its value as past or replaced, for a question about what something costs at no
    past time (a fact that compares with last year, "we estimate from the same month last year", is no
    price's)."""
    marked = _PAST_FACT.search(fact.split("\0")[0])
    if (
        marked is None
        or _PAST_ASKED.search(question)
        or not _money_or_bare(value)
        or not asks_money(question)
    ):
        return []
    return [Qualifier(f"the current value (the fact states a {marked.group(0).lower()} one)", "period", ())]


#: a question that names a past time outright (not "did" / "was": "what did I pay" asks about now too)
_PAST_NAMED = re.compile(
    r"\b(?:back then|used to|previous(?:ly)?|former(?:ly)?|old (?:price|rate|fee|fare|charge|tariff)s?|"
    r"last (?:year|season|winter|summer|spring|autumn|month|week|term|time)(?:'s|’s)?|"
    r"(?:a|one|two|three) (?:years?|months?) ago)\b",
    re.IGNORECASE,
)
#: a fact that speaks of a past value or of a change (it may hold the past value asked)
_PAST_SAID = re.compile(
    r"\b(?:was|were|had been|used to|previous(?:ly)?|former(?:ly)?|old|until|before|went up|rose|now|"
    r"rais\w*|increas\w*|decreas\w*|reduc\w*|lower\w*|cut|chang\w*|replac\w*|compared?|instead of|ago|"
    r"earlier|from \S*\d[^.;]{0,24}\bto\b|"
    r"last (?:year|season|winter|summer|spring|autumn|month|week|term|time))\b",
    re.IGNORECASE,
)


_PERIOD_NAMED = re.compile(
    r"(?:^|[-_./])(?:old|previous|superseded|obsolete|outdated|archived?)(?:[-_./]|$)", re.I
)


def current_for_past(question: str, fact: str, value: Value, path: str = "") -> list[Qualifier]:
    """An amount asked for a past time the question names, answered from a sentence that states its value
    with no mark of any past or change (today's value: another period's). A table row is not judged (its
    period is its table's heading's), nor a document named for a period ("tickets-2025-old.md")."""
    asking = [x for x in re.split(r"(?<=[.?!])\s+", question) if x.rstrip().endswith("?")]
    asked = _PAST_NAMED.search(" ".join(asking) or question)  # (not a given: "it was up 98.7 % last month")
    text = fact.split("\0")[0]
    if asked is None or _PAST_SAID.search(text) or not _money_or_bare(value) or not asks_money(question):
        return []
    if "\0" in fact or " | " in text or _PERIOD_NAMED.search(path):
        return []
    return [Qualifier(f"the value of {asked.group(0).lower()} (the fact states no past one)", "period", ())]


def asks_past(question: str) -> bool:
    """Whether ``question`` asks about a past time or compares with one ("did", "in 2025", "before")."""
    return bool(_PAST_ASKED.search(question))


def _money_or_bare(value: Value) -> bool:
    return value.kind == NUMBER and (not value.unit or is_money(value.unit))


def asked_subjects(question: str, document: str, path: str, value: Value) -> list[Qualifier]:
    """The content words of the thing an amount of money is asked for that ``document`` uses in no form:
    subject.py's noun phrases for any number answered (the adapter asks subject.py itself only when the
    value reads as a price), and a situated question's asking sentence."""
    if (
        not _money_or_bare(value)
        or not asks_money(question)
        or not _PRICE_ASKED.search(_NAME_WORD.sub(" ", question))
    ):
        return []
    plain = unmentioned_subjects(question, document, path)
    return plain or unmentioned_subjects(question, document, path, situated=True)


__all__ = [
    "amount_read_back",
    "asked_subjects",
    "asks_money",
    "asks_past",
    "current_for_past",
    "label_as_amount",
    "money_numbers",
    "scope_misses",
    "share_for_price",
    "superseded_fact",
]
