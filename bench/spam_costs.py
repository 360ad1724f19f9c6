"""What the spam defences cost an honest node and an attacker (``bench/bench_spam.py``): minting and checking
card stamps at 16..28 bits, a card's verification and breadth, the rate limits' admission of a flood, and
the page entries' stamps (sketch version 3): minting one, and the CPU a page holder spends per entry it
checks (signature, liveness, cell, stamp)."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import numpy as np
from spam_world import NOW, make_card

from ioa_p2p.card import issue_card, parse_card
from ioa_p2p.card.sketch import issue_sketch, sketch_stamp_bits
from ioa_p2p.card.stamp import MAX_BITS, mint, stamp_bits
from ioa_p2p.dht.admission import SOURCE_SHARE, CardAdmission
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.pages import check_entry, page_key, parse_page_key
from ioa_p2p.dht.ranking import card_profile
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.errors import InvalidCard
from ioa_p2p.identity import Identity
from ioa_p2p.matching import make_matcher
from ioa_p2p.matching.breadth import breadth, card_items


def costs(honest: list[tuple[str, str]], spam_count: int) -> dict[str, Any]:
    settings = DiscoverySettings()
    identity = Identity.generate()
    started = time.process_time()
    bits = settings.stamp_bits
    minted = [
        issue_card(identity, name="m", description=f"mint {i}", model="m", vector=[1.0], version=1,
                   now_ms=NOW, stamp_bits=bits)
        for i in range(8)
    ]  # fmt: skip
    mint_s = (time.process_time() - started) / len(minted)
    started = time.process_time()
    for _ in range(20):
        for card in minted:
            parse_card(card.encoded, now_ms=NOW + 1)
            assert card.stamp_bits >= settings.min_stamp_bits
    verify_ms = (time.process_time() - started) / (20 * len(minted)) * 1000
    matcher = make_matcher({"matcher": "hybrid"})
    profiles = [card_profile(make_card(identity, n, d).card) for n, d in honest[:50]]
    started = time.process_time()
    for profile in profiles:
        breadth(card_items(profile), matcher.embed_items)
    breadth_ms = (time.process_time() - started) / len(profiles) * 1000
    admission = CardAdmission(new_cards=settings.new_cards, updates=settings.updates)
    admitted = sum(admission.admit_card(f"s{i}", known=False, now=0.0) for i in range(spam_count))
    return {
        "stamp_bits": settings.stamp_bits,
        "mint_cpu_s_per_card": round(mint_s, 3),
        "spam_mint_cpu_s": round(mint_s * spam_count, 1),
        "verify_ms_per_card": round(verify_ms, 3),
        "breadth_ms_per_card": round(breadth_ms, 3),
        "spam_admitted_first_minute": admitted,
        "minutes_to_admit_all_spam": round(spam_count / settings.new_cards, 1),
    }


def stamp_costs(spam_count: int) -> list[dict[str, Any]]:
    """Minting against verifying a card stamp at 16..28 bits, from this machine's measured SHA-256 rate in
    :func:`~ioa_p2p.card.stamp.mint` (one core; expected ``2**bits`` hashes per card): the seconds an honest
    node spends once per card content, and what ``spam_count`` cards (``ratio`` x the honest ones, one per
    identity) cost an attacker with one core, against the node's cost to verify them all."""
    digest = bytes(32)
    started = time.process_time()
    tries = 200_000
    with contextlib.suppress(InvalidCard):
        mint(digest, MAX_BITS, tries=tries)
    rate = tries / (time.process_time() - started)
    started = time.process_time()
    for i in range(2000):
        stamp_bits(digest, i.to_bytes(8, "big"))
    verify_s = (time.process_time() - started) / 2000
    out = []
    for bits in (16, 18, 20, 22, 24, 26, 28):
        per_card = 2**bits / rate
        out.append({
            "bits": bits, "hashes_per_s": round(rate), "mint_s_per_card": round(per_card, 3),
            "attacker_core_hours": round(per_card * spam_count / 3600, 2),
            "stamp_check_us": round(verify_s * 1e6, 2),
            "node_stamp_checks_s": round(verify_s * spam_count, 3),
        })  # fmt: skip
    return out


def entry_costs(count: int = 8) -> dict[str, Any]:
    """A page entry's stamp: minting one at the default bits (once per card content), and what a page
    holder spends per entry it checks, with and without the stamp check (the signature dominates)."""
    settings = DiscoverySettings()
    model, dim = "wordllama/l2_supercat/256", 256
    rng = np.random.default_rng(25)
    forest = forest_for(model, dim)
    started = time.process_time()
    sketches = [
        issue_sketch(
            Identity.generate(), version=1, model=model, vector=rng.normal(size=dim), now_ms=NOW,
            expires_at=NOW + 1_800_000, scheme=model, terms=["plot", "chart"], stamp_bits=settings.stamp_bits,
        )
        for _ in range(count)
    ]  # fmt: skip
    mint_s = (time.process_time() - started) / count
    cells = [
        parse_page_key(page_key(next(c for c in forest.cells(s.vector(), (8,)) if c.table == 0), model, dim))
        for s in sketches
    ]
    out: dict[str, Any] = {"sketch_stamp_bits": settings.stamp_bits, "sketch_mint_cpu_s": round(mint_s, 3)}
    for label, bits in (
        ("check_entry_us_without_stamp", 0),
        ("check_entry_us_with_stamp", settings.min_stamp_bits),
    ):
        started = time.process_time()
        for _ in range(50):
            for sketch, cell in zip(sketches, cells, strict=True):
                check_entry(sketch.encoded, cell, NOW + 1, min_bits=bits)
        out[label] = round((time.process_time() - started) / (50 * count) * 1e6, 1)
    started = time.process_time()
    for _ in range(200):
        for sketch in sketches:
            sketch_stamp_bits(sketch)
    out["stamp_check_us"] = round((time.process_time() - started) / (200 * count) * 1e6, 2)
    out["source_share"] = SOURCE_SHARE
    out["new_cards_per_minute_one_source"] = int(settings.new_cards * SOURCE_SHARE)
    return out


__all__ = ["costs", "entry_costs", "stamp_costs"]


def arrival_costs(rounds: int = 3) -> dict[str, Any]:
    """The kept arrival record (``node/discovery/arrival_store.py``) when full (``CAPACITY`` identities over
    two weeks): opening and resuming it at start, a first save of all of it, a minute's save of 120 new
    identities (the admission limit), and the file's size; medians over ``rounds`` (a fresh file each)."""
    import statistics
    import tempfile
    from pathlib import Path

    from ioa_p2p.dht.arrival import CAPACITY, WINDOW_MS
    from ioa_p2p.identity import PeerId
    from ioa_p2p.node.discovery.arrival_store import ARRIVALS_FILE_NAME, open_arrivals

    peers = [PeerId.from_public_key(i.to_bytes(32, "big")) for i in range(CAPACITY + 120)]
    step, now = 14 * 24 * WINDOW_MS // CAPACITY, NOW + 14 * 24 * WINDOW_MS
    figures: dict[str, list[float]] = {"open_ms": [], "full_save_ms": [], "minute_save_ms": [], "file_mb": []}
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="ioa-bench-arrivals-") as folder:
            home = Path(folder)
            book, store = open_arrivals(home, NOW)
            assert store is not None
            for i, peer in enumerate(peers[:CAPACITY]):
                book.note(peer, NOW + i * step)
            started = time.perf_counter()
            store.save(book.drain(now))
            figures["full_save_ms"].append(1000 * (time.perf_counter() - started))
            for i, peer in enumerate(peers[CAPACITY:]):
                book.note(peer, now + i)
            started = time.perf_counter()
            store.save(book.drain(now + 60_000))
            figures["minute_save_ms"].append(1000 * (time.perf_counter() - started))
            store.close()
            files = [home / ARRIVALS_FILE_NAME, *home.glob(ARRIVALS_FILE_NAME + "-*")]
            figures["file_mb"].append(sum(f.stat().st_size for f in files) / 1e6)
            started = time.perf_counter()
            again, store = open_arrivals(home, now + 120_000)
            figures["open_ms"].append(1000 * (time.perf_counter() - started))
            assert store is not None and len(again) == CAPACITY
            store.close()
    return {"identities": CAPACITY, **{k: round(statistics.median(v), 1) for k, v in figures.items()}}
