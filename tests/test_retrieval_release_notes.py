"""Issue 23 (p-probe2): release notes answer "in which version was X removed / added / fixed" with the
release whose section (Removed, Added, Fixed, ...) lists X, not another version the line mentions
("deprecated since 1.2"): adapters/retrieval/picks.py ``section_version``. Made-up release notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioa_p2p.adapters.retrieval.picks import section_version

from .test_retrieval import ask, hashing_adapter

NOTES = """# Release notes -- quillpad

## 2.4.0 (2026-03-02)

### Removed
- The `export-pdf` plugin, deprecated since 2.1.0; use `quillpad print` instead.

### Added
- Spell checking for Welsh, first requested in 1.9.3.

## 2.1.0 (2025-09-14)

### Deprecated
- The `export-pdf` plugin.

### Fixed
- Autosave no longer loses the last 2 seconds of typing (reported against 2.0.7).
"""


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("quillpad: in which version was the export-pdf plugin removed?", "2.4.0"),
        ("Which quillpad version added Welsh spell checking?", "2.4.0"),
        ("In what version of quillpad was the autosave bug fixed?", "2.1.0"),
    ],
)
async def test_a_change_is_answered_with_the_release_that_lists_it(
    tmp_path: Path, question: str, want: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "quillpad-RELEASES.md").write_text(NOTES)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok and result.data["value"]["text"] == want, result.text


def test_only_a_change_the_question_asks_for_reads_the_heading() -> None:
    trail = "Release notes > 2.4.0 (2026-03-02) > Removed"
    assert section_version("When was the plugin removed?", trail) == "2.4.0"
    assert section_version("When was the plugin deprecated?", trail) is None  # another section
    assert section_version("Which version does the plugin need?", trail) is None  # no change asked
    assert section_version("When was it removed?", "Release notes > Removed") is None  # no version
