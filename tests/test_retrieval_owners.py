"""Issue 23 (p-probe2): a "who" question about a thing a list names with a person in brackets after it
("Catering (Tomasz Reyes)", the checklist and task-list way of naming an owner) is answered with that name,
never with another name on a line below it (adapters/retrieval/extract.py). Made-up documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_retrieval import ask, hashing_adapter

PLAN = """# Hollins Street block party -- who does what

- [ ] Catering (Tomasz Reyes)
  - [ ] Barbecue borrowed from Greenway Scouts
  - [ ] 40 vegetarian portions
- [x] Music (Ines)
  - [x] Sound system lent by Harbour Audio
- [ ] Clean-up crew (Mon-Fri volunteers)
"""


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("Who is responsible for the catering at the Hollins Street block party?", "Tomasz Reyes"),
        ("Who looks after the music for the Hollins Street party?", "Ines"),
    ],
)
async def test_the_owner_in_brackets_answers_who(tmp_path: Path, question: str, want: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "hollins-party.md").write_text(PLAN)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok and result.data["value"]["text"] == want, result.text
