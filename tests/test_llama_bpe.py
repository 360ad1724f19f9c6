"""wordllama's tokenizer in plain Python (:mod:`ioa_p2p.matching.llama_bpe`): the same ids as the
``tokenizers`` package for the same file, tables built in a child process or here, bad files refused."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from ioa_p2p.errors import ConfigError
from ioa_p2p.matching.llama_bpe import LlamaBpe, Tables, build_in_child, read_tables
from ioa_p2p.matching.static_model import TOKENIZER, wordllama_folder

PATH = wordllama_folder() / TOKENIZER

FIXED = [
    "",
    " ",
    "  two  spaces ",
    "Draws charts from CSV data",
    "Calculate 17 * 23, then plot the result as a bar chart",
    "naïve café — 日本語のテキスト 🎉🎉 emoji",
    "<s>hello</s> world<unk><s>",
    "a<s>",
    "<s>",
    "x</s >",
    "tabs\tand\nnewlines\r\n",
    "\u2581already \u2581spaced",
    "a" * 40,
    "Ünïcödé ß ΩΣ \u200b\u00a0",
    "def f(x):\n    return {'k': [x, x ** 2]}  # code",
]


def _corpus(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz ABC.,;:!?'\"-_/()<>s0123456789éüñ日本🎉\t\n\u2581"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80))) for _ in range(count)]
    for _ in range(count // 2):  # any code point but surrogates (which ``tokenizers`` refuses)
        texts.append(
            "".join(
                chr(rng.choice([rng.randint(1, 0xD7FF), rng.randint(0xE000, 0x2FFFF)]))
                for _ in range(rng.randint(0, 30))
            )
        )
    return texts


@pytest.fixture(scope="module")
def ours() -> LlamaBpe:
    return LlamaBpe.from_file(PATH)


def test_the_same_ids_as_the_tokenizers_package(ours: LlamaBpe) -> None:
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(PATH))
    texts = FIXED + _corpus(1500, seed=26)
    different = [t for t in texts if ours.encode(t) != reference.encode(t, add_special_tokens=False).ids]
    assert different == []
    assert ours.encode("<s>hi") == [1, *reference.encode("hi", add_special_tokens=False).ids]
    assert ours.encode_batch(["a b", ""]) == [ours.encode("a b"), []]


def test_a_lone_surrogate_is_byte_fallback_not_a_crash(ours: LlamaBpe) -> None:
    ids = ours.encode("ab\ud800c")
    assert ids and all(isinstance(i, int) for i in ids)


def test_the_child_builds_the_same_tables_as_this_process() -> None:
    child = build_in_child(PATH)
    assert child is not None
    here = read_tables(PATH)
    assert child == here
    assert Tables.from_bytes(here.to_bytes()) == here
    assert len(here.merge_keys) > 60_000 and len(here.byte_ids) == 256 and here.unk == 0


def test_a_failing_child_falls_back_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    assert build_in_child(PATH) is None
    assert LlamaBpe.from_file(PATH).encode("hello world") == LlamaBpe(read_tables(PATH)).encode("hello world")


def test_bad_tokenizer_files_are_config_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    wordpiece = tmp_path / "wordpiece.json"
    data = json.loads(PATH.read_text(encoding="utf-8"))
    data["model"]["type"] = "WordPiece"
    wordpiece.write_text(json.dumps(data))
    for path in (missing, broken, wordpiece):
        with pytest.raises(ConfigError, match="cannot read the tokenizer"):
            LlamaBpe.from_file(path)
    assert build_in_child(broken) is None  # the child says why on stderr; the caller reads it here
