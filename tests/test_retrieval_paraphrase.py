"""Issue 23 (p-prose): a question in other words than its document's — a near word's credit from the shipped
word vectors (closeness.py), accents folded (terms.folded), the substance "how much water ... per day" asks
for (planning/dimensions.py). Made-up wording."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ioa_p2p.adapters.retrieval.closeness import FLOOR, SHARE, WORDS, Vectors, near_credit, plain
from ioa_p2p.adapters.retrieval.facts import Fact, Scorer
from ioa_p2p.adapters.retrieval.terms import folded, terms
from ioa_p2p.planning.dimensions import mismatch
from ioa_p2p.planning.values import Value


class _Axes:
    """Made-up word vectors: each word a unit vector along its listed axis mix."""

    def __init__(self, table: dict[str, tuple[float, float, float]]) -> None:
        self.table = table

    def vectors(self, words: Sequence[str]) -> Vectors:
        rows = np.array([self.table.get(w, (0.0, 0.0, 0.0)) for w in words], dtype=np.float32)
        norms = np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
        out: Vectors = (rows / norms).astype(np.float32)
        return out


_SOURCE = _Axes({"tutor": (1, 0, 0), "teacher": (0.9, 0.3, 0), "kettle": (0, 0, 1), "fee": (0, 1, 0)})


def test_a_word_the_fact_lacks_earns_part_of_its_weight_from_a_near_word() -> None:
    credit = near_credit({"teacher", "kettle"}, {"tutor", "fee"}, _SOURCE)
    assert set(credit) == {"teacher"}  # no word of the fact is near "kettle"
    assert 0.5 < credit["teacher"] <= SHARE
    assert near_credit({"tutor"}, {"tutor"}, _SOURCE) == {}  # a word the fact holds earns its full weight
    assert near_credit({"tutor"}, set(), _SOURCE) == {}


def test_names_figures_units_and_designators_are_never_paraphrased() -> None:
    assert plain("price")
    assert not any(plain(t) for t in ("x7", "u_kg", "zone#b", "12"))
    assert near_credit({"x7", "u_kg", "2027"}, {"x5", "u_lb"}, _SOURCE) == {}


def test_the_shipped_vectors_know_a_synonym_from_a_neighbour() -> None:
    start = near_credit({"begin"}, {"start"}, WORDS)
    assert start and start["begin"] >= SHARE * FLOOR
    assert near_credit({"dog"}, {"cat"}, WORDS) == {}  # 0.14 apart: another thing, not another word for it


def test_a_sentence_in_other_words_outranks_one_that_shares_none() -> None:
    question = "Who is the teacher of the Thursday pottery class at Brindle Studio?"
    said = Fact("brindle/classes.md", 3, "Thursday pottery: tutor Maren Holt.", "brindle classes")
    other = Fact("brindle/classes.md", 4, "Thursday pottery: kiln firing extra.", "brindle classes")
    near = Scorer(question, [said, other], words=_SOURCE)
    plain_scorer = Scorer(question, [said, other], words=None)
    assert near.score(said) > plain_scorer.score(said)
    assert near.score(other) == plain_scorer.score(other)


def test_accents_are_folded() -> None:
    assert folded("Crème brûlée, canapé") == "Creme brulee, canape"
    assert {"canape", "creme", "brulee"} <= terms("Crème brûlée and a canapé")
    assert "warranty" in terms("Warranty⁵ 2 years")  # a footnote's superscript is no part of the word


def test_how_much_of_a_substance_per_day_is_no_power() -> None:
    question = "How much water does the Vellum D12 dehumidifier pull out per day in a damp flat?"
    assert mismatch(question, Value.of_number(480, "W"))
    assert not mismatch(question, Value.of_number(10.5, "L"))
    assert not mismatch("How much power does the Vellum D12 draw?", Value.of_number(480, "W"))
