"""Every test a document points at exists (docs/security.md backs each claim with a test name)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REF = re.compile(r"(?:tests/)?(test_[a-z0-9_]+\.py)(?:::([A-Za-z0-9_]+))?")


def test_every_test_named_in_the_docs_exists() -> None:
    missing = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        for match in REF.finditer(doc.read_text(encoding="utf-8")):
            path = ROOT / "tests" / match.group(1)
            name = match.group(2)
            if not path.exists():
                missing.append(f"{doc.name}: {match.group(0)} (no such file)")
            elif name and not re.search(rf"(def|class) {name}\b", path.read_text(encoding="utf-8")):
                missing.append(f"{doc.name}: {match.group(0)} (no such test)")
    assert not missing, "\n".join(missing)
