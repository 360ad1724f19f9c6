"""Issue 23 (p-probe2): "which CVE was fixed", "what RFC defines ...": the answer is the code of that kind
the line names (CVE-2025-1234, RFC-7231), though the question's own word ("CVE") is part of it
(adapters/retrieval/extract.py). Made-up documents and wordings."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_retrieval import ask, hashing_adapter

ADVISORIES = """# Brackenfield router firmware -- security advisories

## Firmware 5.2.1

- Patched CVE-2025-41877: the web console accepted a session cookie after logout.
- The guest network now isolates clients by default.

## Firmware 5.1.0

- Patched CVE-2024-9921: a long SSID could crash the setup wizard.
- Follows RFC-8415 for DHCPv6 prefix delegation.
"""


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("Which CVE was patched in Brackenfield firmware 5.2.1?", "CVE-2025-41877"),
        (
            "Which CVE did Brackenfield patch in firmware 5.1.0?",
            "CVE-2024-9921",
        ),
        ("Which RFC does Brackenfield firmware follow for DHCPv6 prefix delegation?", "RFC-8415"),
    ],
)
async def test_a_code_of_the_kind_asked_is_the_answer(tmp_path: Path, question: str, want: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "brackenfield-advisories.md").write_text(ADVISORIES)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok and result.data["value"]["text"] == want, result.text
