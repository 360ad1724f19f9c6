"""A derivation never works from a document about another subject than the question's
(planning/subject.py): the question's proper names and item codes must appear in the answer document's
text or path, else the derivation is refused with the missing facts named.

The documents and questions are made up for these tests (a community orchard's fees, a ski school's
prices) and differ from every benchmark document.
"""

from __future__ import annotations

import pytest

from ioa_p2p.planning.derive import derive_expression, derive_missing
from ioa_p2p.planning.subject import subject_names, unnamed_subject
from ioa_p2p.planning.values import Value

ORCHARD = """\
Hollins Community Orchard - tree adoption
Adopting a tree costs EUR 35 per season. Harvest baskets cost EUR 4 each.
"""

SKI = """\
Alder Peak Ski School - prices
A group lesson costs EUR 48 per day. Private lessons cost EUR 70 per hour.
"""


def found(amount: float, text: str) -> Value:
    return Value.of_number(amount, "EUR").with_evidence((text,))


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("What do 3 days of group lessons at Alder Peak cost?", {"alder", "peak"}),
        ("I adopt two trees at Hollins for 2 seasons. What do I pay?", {"hollins"}),
        ("What does the K-12 cost in March on a Monday in EUR?", {"k-12"}),
        ("What does it cost per day?", set()),
    ],
)
def test_the_names_a_question_gives_its_subject(question: str, names: set[str]) -> None:
    assert subject_names(question) == names


@pytest.mark.parametrize(
    ("question", "text", "amount"),
    [
        ("What do 3 days of group lessons at Alder Peak cost?", ORCHARD, 35),  # the orchard's document
        ("I adopt two trees at Hollins for 2 seasons. What do I pay?", SKI, 48),  # the ski school's
    ],
)
def test_a_derivation_from_another_subject_s_document_is_refused(
    question: str, text: str, amount: float
) -> None:
    value = found(amount, text)
    lacking = derive_missing(question, value)
    assert lacking is not None and "facts about" in lacking.what
    assert derive_expression(question, value) is None


@pytest.mark.parametrize(
    ("question", "text", "amount", "expected"),
    [
        ("What do 3 days of group lessons at Alder Peak cost?", SKI, 48, "48 * 3"),
        ("I adopt two trees at Hollins for 2 seasons. What do I pay?", ORCHARD, 35, "35"),
    ],
)
def test_the_subject_s_own_document_derives_as_before(
    question: str, text: str, amount: float, expected: str
) -> None:
    assert unnamed_subject(question, found(amount, text)) is None
    derived = derive_expression(question, found(amount, text))
    assert derived is not None and expected in derived[0]


def test_nothing_refused_without_a_document_or_without_names() -> None:
    assert unnamed_subject("What do 3 days at Alder Peak cost?", Value.of_number(48, "EUR")) is None
    assert unnamed_subject("What do 3 days of lessons cost?", found(35, ORCHARD)) is None
