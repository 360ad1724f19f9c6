"""A question's thing named otherwise by the document (synonyms.py, through subject.py): made-up wording."""

from __future__ import annotations

from ioa_p2p.adapters.retrieval.subject import unmentioned_subjects
from ioa_p2p.adapters.retrieval.synonyms import SYNONYM_COSINE, document_words, nearest_word

PIER = "Harbour dues at Quayside Pier: boats pay EUR 2.80 per metre a night. Bicycles stay free on the quay."


def test_a_synonym_in_the_document_counts_as_the_subject() -> None:
    assert unmentioned_subjects("What does a 9 m yacht pay at Quayside Pier per night?", PIER) == []
    assert unmentioned_subjects("What is the charge for a bike on the quay?", PIER) == []


def test_a_different_thing_is_still_refused() -> None:
    missing = unmentioned_subjects("What does a jet ski pay at Quayside Pier per night?", PIER)
    assert [q.shown for q in missing] == ["jet", "ski"]
    refused = unmentioned_subjects("What does the harpsichord hire cost?", "Piano hire: GBP 40 a day.")
    assert [q.shown for q in refused] == ["harpsichord"]


def test_sub_word_echoes_are_not_synonyms() -> None:
    words = document_words("Termly fees. Term one costs GBP 90.", ["one"])
    word, cosine = nearest_word("termite", words)
    assert word not in {"term", "termly"}  # shares the first letters: judged as a form, not as a synonym
    assert cosine < SYNONYM_COSINE
    assert nearest_word("yacht", []) == ("", 0.0)
