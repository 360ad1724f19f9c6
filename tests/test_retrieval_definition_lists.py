"""Issue 23 (p-chain5): an indented description belongs to the term above it (a man page's options, a
definition list): its "Default: N." line is read with the option it describes, and a sentence wrapped onto
the next indented line is one fact (adapters/retrieval/facts.py). Made-up manual page."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.facts import facts_of, term_of

from .test_retrieval import ask, hashing_adapter

MANUAL = """FERNLOG(1)                       User Commands                       FERNLOG(1)

NAME
       fernlog - ship rotated log files to an archive host

OPTIONS
       -w, --workers=N
              Number of files compressed at the same time. Default: 6.
              Maximum: 24.

       -a, --attempts=N
              How many times a failed transfer is tried again before fernlog
              gives up on that file. Default: 5.

       --keep-days=DAYS
              Days a shipped file stays on the local disk before it is
              removed. Default: 12.
"""


def test_the_term_above_an_indented_description() -> None:
    lines = MANUAL.splitlines()
    at = next(i for i, line in enumerate(lines) if "gives up" in line)
    assert term_of(lines, at) == " -a, --attempts=N"
    assert term_of(lines, lines.index("OPTIONS")) == ""  # not indented: no term
    facts = facts_of("fernlog.1.txt", 1, "", MANUAL)
    wrapped = next(f for f in facts if "gives up on that file" in f.text)
    assert wrapped.text.startswith("How many times a failed transfer")  # one sentence over two lines
    default = next(f for f in facts if f.text == "Default: 5.")
    assert "--attempts=N" in default.context


async def test_a_default_is_read_with_its_option(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fernlog.1.txt").write_text(MANUAL)
    adapter = hashing_adapter(docs)
    for question, expected in (
        ("What is fernlog's default number of attempts?", 5.0),
        ("What is the default of fernlog's keep-days option?", 12.0),
        ("What is the default number of fernlog workers?", 6.0),
    ):
        result = await ask(adapter, question)
        assert result.ok, result.text
        assert result.data["value"].get("value") == expected, (question, result.text)
