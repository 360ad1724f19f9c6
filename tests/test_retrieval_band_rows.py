"""Issue 23 (p-rule): a table row chosen by the band that holds a quantity the question states ("a 27 kg
dog" in the row "20 to 29.9 kg") answers with the row's value, never a bound of its band
(adapters/retrieval/number_span.holds_stated). Made-up document and questions."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.number_span import holds_stated

from .test_retrieval import ask, hashing_adapter

CHART = """# Furrowby Wormer Paste - dosing by body weight

| Dog's weight    | Age guide        | One dose |
|-----------------|------------------|---------:|
| 5 to 9.9 kg     | 2 to 6 months    |    1.5 g |
| 10 to 19.9 kg   | 6 to 12 months   |    3.0 g |
| 20 to 29.9 kg   | 1 to 8 years     |    4.5 g |
| 30 to 44.9 kg   | 1 to 8 years     |    6.0 g |

Give the paste once; repeat after 3 months.
"""


def test_a_band_cell_that_holds_the_stated_quantity() -> None:
    assert holds_stated("20 to 29.9 kg", "the dose for a 27 kg dog")
    assert not holds_stated("20 to 29.9 kg", "the dose for a 12 kg dog")
    assert not holds_stated("20 to 29.9 kg", "the dose for a dog of 27 lb")  # another unit
    assert not holds_stated("4.5 g", "the dose for a 27 kg dog")


async def test_the_row_of_the_band_answers_with_its_value(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "wormer.md").write_text(CHART)
    adapter = hashing_adapter(docs)
    for question, expected in (
        ("Find the Furrowby wormer dose for a 27 kg dog", 4.5),
        ("What Furrowby wormer dose does a 12 kg dog get?", 3.0),
    ):
        result = await ask(adapter, question)
        assert result.ok, result.text
        assert result.data["value"].get("value") == expected, (question, result.text)
