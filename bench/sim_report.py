"""What ``bench_sim.py`` prints and writes: a stage's row as it grows, the rows as one Markdown table
at the end, each row as a JSON line (``--json``), and the process's peak memory."""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
from typing import Any


def settle_gc() -> None:
    """Move what exists now (the formed network: millions of long-lived objects) out of the cyclic
    collector's reach and make its young generation larger: a full collection walked every table, record
    and card of 10,000 nodes again and again (a fifth of a 2,000-node revocation run's CPU; the
    simulation itself is the same, object for object)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def report(stage: str, row: dict[str, Any]) -> None:
    print(f"  [{stage}] " + " ".join(f"{k}={v}" for k, v in row.items()), flush=True)


def write_row(args: argparse.Namespace, row: dict[str, Any]) -> None:
    if args.json:
        with open(args.json, "a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")


def print_table(rows: list[dict[str, Any]]) -> None:
    print()
    keys = [k for k in dict.fromkeys(k for row in rows for k in row) if not k.endswith("_by_min")]
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row.get(k, "")) for k in keys if not k.endswith("_by_min")) + " |")
    sys.stdout.flush()
