"""LSH buckets: deterministic from the model id, spec-conformant, locality-sensitive, multi-probe."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from ioa_p2p.dht.lsh import (
    BITS,
    TABLES,
    Hyperplanes,
    bucket_key,
    bucket_name,
    hyperplanes_for,
    seed_bytes,
)
from ioa_p2p.errors import UsageError


def unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    x = rng.normal(size=(n, dim))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_planes_follow_the_written_spec() -> None:
    """Recompute the planes bit by bit, as another implementation would from the docs."""
    model, dim = "hashing/v1/16", 16
    h = Hyperplanes(model, dim)
    count = TABLES * BITS * dim
    stream = hashlib.shake_256(
        b"ioa-p2p/lsh/v1\x00" + model.encode() + b"\x00" + dim.to_bytes(4, "big") + bytes([TABLES, BITS])
    ).digest((count + 7) // 8)
    assert seed_bytes(model, dim) == b"ioa-p2p/lsh/v1\x00" + model.encode() + b"\x00" + dim.to_bytes(
        4, "big"
    ) + bytes([TABLES, BITS])
    for k in (0, 1, 7, 8, 100, count - 1):
        bit = (stream[k // 8] >> (k % 8)) & 1
        table_bit, component = divmod(k, dim)
        assert h.planes[table_bit, component] == (1.0 if bit else -1.0)
    v = np.arange(dim, dtype=np.float64) - 7.5
    expected = []
    for t in range(TABLES):
        code = 0
        for i in range(BITS):
            if float(np.dot(h.planes[t * BITS + i], v)) > 0:
                code |= 1 << i
        expected.append(code)
    assert h.codes(v) == tuple(expected)


def test_bucket_key_is_a_sha256_multihash_of_the_name() -> None:
    name = bucket_name("m", 4, 2, 33)
    assert name == f"/ioa/lsh/1/m/4/{TABLES}x{BITS}/2/33"
    key = bucket_key(name)
    assert key[:2] == b"\x12\x20" and key[2:] == hashlib.sha256(name.encode()).digest()
    assert len(key) == 34


def test_same_model_same_buckets_different_model_different_planes() -> None:
    a = hyperplanes_for("model-a/8", 8)
    assert a is hyperplanes_for("model-a/8", 8)
    b = Hyperplanes("model-b/8", 8)
    assert not np.array_equal(a.planes, b.planes)
    v = np.linspace(-1, 1, 8)
    assert a.codes(v) == Hyperplanes("model-a/8", 8).codes(v)
    assert all(x.key != y.key for x, y in zip(a.buckets(v), b.buckets(v), strict=True))


def test_codes_are_scale_invariant_and_in_range() -> None:
    h = hyperplanes_for("m/32", 32)
    rng = np.random.default_rng(1)
    for v in unit(rng, 50, 32):
        codes = h.codes(v)
        assert len(codes) == TABLES
        assert all(0 <= c < 2**BITS for c in codes)
        assert h.codes(v * 3.7) == codes


def test_similar_vectors_collide_more_than_dissimilar() -> None:
    dim = 256
    h = hyperplanes_for("m/256", dim)
    rng = np.random.default_rng(7)
    a = unit(rng, 400, dim)
    near = a + 0.3 * unit(rng, 400, dim)
    far = unit(rng, 400, dim)
    ca = np.array([h.codes(x) for x in a])
    agree_near = (ca == np.array([h.codes(x) for x in near])).mean()
    agree_far = (ca == np.array([h.codes(x) for x in far])).mean()
    # cos(a, near) ~ 0.96: theory (1 - acos(.96)/pi)^6 ~ 0.59; random pairs: 2^-6 ~ 0.016
    assert agree_near > 0.45
    assert agree_far < 0.05


def test_multi_probe_finds_neighbours_missed_by_exact_buckets() -> None:
    dim = 256
    h = hyperplanes_for("m/256", dim)
    rng = np.random.default_rng(3)
    base = unit(rng, 200, dim)
    query = base + 0.9 * unit(rng, 200, dim)  # cosine ~ 0.74
    hit_exact = hit_probe = 0
    for v, q in zip(base, query, strict=True):
        mine = {b.key for b in h.buckets(v)}
        exact = h.probes(q, 0)
        probes = h.probes(q, 24)
        assert [b.key for b in probes[:TABLES]] == [b.key for b in exact]
        assert len({b.key for b in probes}) == TABLES + 24
        hit_exact += bool(mine & {b.key for b in exact})
        hit_probe += bool(mine & {b.key for b in probes})
    assert hit_probe > hit_exact
    assert hit_probe / len(base) > 0.9


def test_bad_vectors_are_usage_errors() -> None:
    h = hyperplanes_for("m/8", 8)
    with pytest.raises(UsageError, match="dimensions"):
        h.codes(np.ones(9))
    with pytest.raises(UsageError, match="NaN"):
        h.codes(np.array([np.nan] + [1.0] * 7))
    with pytest.raises(UsageError):
        Hyperplanes("m", 0)
    with pytest.raises(UsageError):
        Hyperplanes("m", 8, tables=0)


def test_documented_test_vector() -> None:
    """The example in docs/protocol.md §9 (other implementations check against it)."""
    h = hyperplanes_for("example/4", 4)
    v = [1.0, -2.0, 3.0, -4.0]
    assert (
        seed_bytes("example/4", 4).hex() == "696f612d7032702f6c73682f7631006578616d706c652f3400000000040805"
    )
    assert h.planes[:2].astype(int).tolist() == [[1, -1, -1, -1], [-1, -1, -1, 1]]
    assert h.codes(v) == (13, 2, 6, 7, 20, 30, 23, 0)
    first = h.buckets(v)[0]
    assert first.name == "/ioa/lsh/1/example/4/4/8x5/0/13"
    assert first.key.hex() == "1220a687d276c131441107a37a358e88a8364b237de93a15bcce589077a9afb48f80"
