"""Vector indexes: exact numpy search, and the annoy snapshot + exact delta with removal filtering."""

from __future__ import annotations

import numpy as np
import pytest
import trio

from ioa_p2p.dht.index import (
    AnnoyIndex,
    ExactIndex,
    VectorIndex,
    make_index,
    unit_row,
)
from ioa_p2p.errors import ConfigError, UsageError

DIM = 32


def data(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, DIM))


def brute(vectors: dict[str, np.ndarray], query: np.ndarray, k: int) -> list[str]:
    keys = sorted(vectors)
    m = np.array([v / np.linalg.norm(v) for v in (vectors[key] for key in keys)])
    scores = m @ (query / np.linalg.norm(query))
    order = sorted(range(len(keys)), key=lambda i: (-scores[i], keys[i]))
    return [keys[i] for i in order[:k]]


def test_exact_index_matches_brute_force_through_updates_and_removals() -> None:
    index = ExactIndex(DIM, capacity=2)
    vectors = {f"k{i}": v for i, v in enumerate(data(300))}
    for key, v in vectors.items():
        index.upsert(key, v)
    for key in ("k3", "k299", "k0", "k150"):
        assert index.remove(key)
        del vectors[key]
    assert not index.remove("k3")
    replacement = data(10, seed=5)
    for i, v in enumerate(replacement):
        vectors[f"k{10 + i}"] = v
        index.upsert(f"k{10 + i}", v)
    assert len(index) == len(vectors) == 296
    assert "k3" not in index and "k4" in index
    for q in data(20, seed=9):
        got = index.search(q, 10)
        assert [k for k, _ in got] == brute(vectors, q, 10)
        assert all(a[1] >= b[1] for a, b in zip(got, got[1:], strict=False))


def test_scores_are_cosines() -> None:
    index = ExactIndex(2)
    index.upsert("x", [2.0, 0.0])
    index.upsert("diag", [1.0, 1.0])
    index.upsert("zero", [0.0, 0.0])
    got = dict(index.search([5.0, 0.0], 3))
    assert got["x"] == pytest.approx(1.0)
    assert got["diag"] == pytest.approx(2**-0.5)
    assert got["zero"] == 0.0
    assert index.search([1.0, 0.0], 0) == []
    assert len(index.search([1.0, 0.0], 50)) == 3


def test_huge_finite_values_do_not_overflow() -> None:
    row = unit_row([3.0e38, 3.0e38], 2)
    assert np.allclose(row, [2**-0.5, 2**-0.5])


def test_bad_vectors_are_usage_errors() -> None:
    index = ExactIndex(DIM)
    with pytest.raises(UsageError):
        index.upsert("a", np.ones(DIM + 1))
    with pytest.raises(UsageError):
        index.search(np.full(DIM, np.nan), 3)
    with pytest.raises(UsageError):
        ExactIndex(0)


def test_annoy_below_min_size_is_exact() -> None:
    index = AnnoyIndex(DIM, min_size=1000)
    for i, v in enumerate(data(100)):
        index.upsert(str(i), v)
    assert not index.needs_rebuild()
    assert not index.uses_snapshot()
    exact = ExactIndex(DIM)
    for i, v in enumerate(data(100)):
        exact.upsert(str(i), v)
    q = data(1, seed=4)[0]
    assert index.search(q, 5) == exact.search(q, 5)


def build(index: AnnoyIndex) -> None:
    assert index.needs_rebuild()
    index.install(index.prepare_rebuild().build())


def test_fresh_snapshot_gives_exact_order() -> None:
    n = 1500
    index = AnnoyIndex(DIM, min_size=100, n_trees=20, search_k=20_000)
    exact = ExactIndex(DIM)
    for i, v in enumerate(data(n)):
        index.upsert(str(i), v)
        exact.upsert(str(i), v)
    build(index)
    assert index.uses_snapshot() and index.snapshot_size == n and index.delta_size == 0
    for q in data(25, seed=11):
        assert index.search(q, 10) == exact.search(q, 10)


def test_delta_and_removals_are_honoured_before_a_rebuild() -> None:
    index = AnnoyIndex(DIM, min_size=100, n_trees=20, search_k=20_000, min_rebuild=10_000)
    exact = ExactIndex(DIM)
    for i, v in enumerate(data(800)):
        index.upsert(str(i), v)
        exact.upsert(str(i), v)
    build(index)
    q = data(1, seed=21)[0]
    best = [k for k, _ in index.search(q, 5)]
    # Remove the current best two, move the third far away, add a brand-new exact match.
    for key in best[:2]:
        index.remove(key)
        exact.remove(key)
    index.upsert(best[2], -q)
    exact.upsert(best[2], -q)
    index.upsert("new", q * 2)
    exact.upsert("new", q * 2)
    assert index.delta_size == 4 and not index.needs_rebuild()
    got = index.search(q, 10)
    assert got == exact.search(q, 10)
    keys = [k for k, _ in got]
    assert keys[0] == "new"
    assert best[0] not in keys and best[1] not in keys and best[2] not in keys


def test_changes_during_a_rebuild_stay_in_the_delta() -> None:
    index = AnnoyIndex(DIM, min_size=100, n_trees=10, search_k=20_000)
    for i, v in enumerate(data(500)):
        index.upsert(str(i), v)
    job = index.prepare_rebuild()
    assert not index.needs_rebuild()  # one rebuild at a time
    q = data(1, seed=3)[0]
    index.upsert("late", q)  # arrives while the job runs elsewhere
    index.remove("0")
    index.install(job.build())
    assert index.delta_size == 2
    assert index.search(q, 1)[0][0] == "late"
    assert "0" not in [k for k, _ in index.search(data(500)[0], 5)]


def test_rebuild_threshold() -> None:
    index = AnnoyIndex(DIM, min_size=50, n_trees=5, min_rebuild=20, rebuild_fraction=0.0)
    for i, v in enumerate(data(60)):
        index.upsert(str(i), v)
    build(index)
    assert not index.needs_rebuild()
    for i, v in enumerate(data(21, seed=8)):
        index.upsert(f"n{i}", v)
    assert index.needs_rebuild()
    job = index.prepare_rebuild()
    index.abandon_rebuild()
    assert index.needs_rebuild()
    index.install(job.build())
    assert not index.needs_rebuild()


async def test_rebuild_runs_in_a_worker_thread() -> None:
    index = AnnoyIndex(DIM, min_size=100, n_trees=10)
    for i, v in enumerate(data(2000)):
        index.upsert(str(i), v)
    with trio.fail_after(30):
        job = index.prepare_rebuild()
        built = await trio.to_thread.run_sync(job.build)
    index.install(built)
    assert index.uses_snapshot()


def test_make_index() -> None:
    assert isinstance(make_index({"kind": "exact"}, 4), ExactIndex)
    annoy = make_index({"min_size": 10}, 4)
    assert isinstance(annoy, AnnoyIndex) and annoy.min_size == 10
    assert isinstance(annoy, VectorIndex)
    with pytest.raises(ConfigError):
        make_index({"kind": "faiss"}, 4)
    with pytest.raises(ConfigError):
        make_index({"kind": "annoy", "trees": 3}, 4)
