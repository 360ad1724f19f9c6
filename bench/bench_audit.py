"""Audit speed as a ratio to the raw Ed25519 verify rate, measured in the same run.

Run: python bench/bench_audit.py [--messages N] [--authors K] [--repeat R]

Builds a real signed history (K authors, some concurrency), exports it, then times:
  1. raw Ed25519 verification of exactly the history's signatures (tight loop, one thread, cached
     public keys, signed bytes prepared beforehand): the ceiling for one core;
  2. ``audit_history`` with 0 worker threads (decode, verify and DAG checks inline, one thread),
     1 worker (signatures verified while the next records decode) and 2 workers;
each the best of R repeats. Prints messages/s and the ratio to (1).
"""

from __future__ import annotations

import argparse
import os
import random
import time

from ioa_p2p.history.audit import audit_history, verify_batch
from ioa_p2p.history.bodies import make_genesis, make_message
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.history.file import export_history, parse_history
from ioa_p2p.identity import Identity
from ioa_p2p.wire.envelope import Envelope


def build(messages: int, authors: int, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    people = [Identity(bytes([i + 1]) * 32) for i in range(authors)]
    h = ChatHistory(
        make_genesis(people[0], [p.peer_id for p in people[1:]], "bench", now_ms=1, nonce=bytes(16))
    )
    while len(h) < messages:
        if rng.random() < 0.1 and len(h) + 2 <= messages:  # two concurrent messages
            base = h.heads()
            for who in rng.sample(people, 2):
                h.add(
                    make_message(
                        who,
                        h.chat_id,
                        base,
                        "text",
                        {"text": "concurrent " * 4},
                        seq=h.next_seq(who.peer_id),
                        now_ms=len(h),
                    )
                )
        else:
            who = rng.choice(people)
            h.add(h.compose(who, "text", {"text": f"message {len(h)} " * 6}, now_ms=len(h)))
    return export_history(h)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--authors", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = build(args.messages, args.authors)
    records = [r.raw for r in parse_history(data).records]
    items = []
    for raw in records:
        env = Envelope.from_cbor(raw)
        items.append((env.author.public_key, env.sig, env.signing_bytes()))
    n = len(records)
    print(f"history: {n} records ({n - 1} messages, {args.authors} authors), {len(data)} bytes")
    print(f"cpus: {os.cpu_count()}")
    raw_s = best(lambda: verify_batch(items, workers=1), args.repeat)
    raw_rate = n / raw_s
    print(f"raw Ed25519 verify (1 thread):     {raw_rate:9.0f} sig/s")
    for workers in (0, 1, 2):
        report = audit_history(data, workers=workers)
        assert report.valid, report.findings[:3]
        seconds = best(lambda w=workers: audit_history(data, workers=w), args.repeat)
        rate = n / seconds
        print(
            f"audit, {workers} verify worker(s):      {rate:9.0f} msg/s   "
            f"ratio to raw verify {rate / raw_rate:.2f}"
        )
    report = audit_history(data, workers=1)
    print("phase timings (1 worker):", {k: round(v, 3) for k, v in report.timings.items()})


if __name__ == "__main__":
    main()
