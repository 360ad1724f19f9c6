"""Where a find's time goes and A/B runs of its design, for ``bench_find.py`` (bench only).

- :func:`step_medians`: the median over a run's finds of each figure of one step's timing summary
  (``Discovery.last_find["listing_t"]`` / ``["fetch_t"]``: :mod:`ioa_p2p.dht.timing`);
- :func:`set_arm` / :func:`split_arms`: ``--ab PART`` alternates the finds between the code as it is and
  the code without that part of the design (set in the asking node's process, which the benchmark runs),
  so both arms see the same network and the same load; the row's ``ab`` gives each arm's figures.
"""

from __future__ import annotations

import statistics
from typing import Any

import numpy as np


def _pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p))


def _numbers(phases: list[dict[str, Any]], key: str) -> list[float]:
    values = [p.get(key) for p in phases]
    return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def set_arm(ab: str, first: bool) -> str:
    """Set the find's design for the next query of an A/B run (``--ab``): the first arm is the code as it
    is (with ``prefetch``: with the prefetch, which is off by default); the second turns off ``ab``'s part:
    ``prefetch`` (card fetches started while pages arrive), ``grace`` (a listing round ends when every
    page has a copy, the fetch when the best answered; off: no listing grace, the fetch waits up to 1 s
    for the rest), ``fallback`` (after the adaptive wait only the best unanswered owners are looked up
    and the fetch ends once the best answered; off: every unanswered owner is looked up and the fetch
    waits for the lookup's end) or ``all`` (grace and fallback; the prefetch is off in both arms)."""
    from ioa_p2p.node.discovery import fetching, pages

    on = first or not ab
    # the first arm of --ab prefetch runs with it (it is off by default)
    pages.PREFETCH = ab == "prefetch" and first
    grace = on or ab not in ("grace", "all")
    pages.LISTING_GRACE = 0.25 if grace else 0.0
    fetching.FETCH_GRACE = 0.25 if grace else 100.0
    fetching.BEST_ONLY = on or ab not in ("fallback", "all")
    return "on" if on else "off"


def split_arms(
    arms: list[str], latencies: list[float], recalls: list[float], phases: list[dict[str, Any]]
) -> dict[str, Any]:
    out = {}
    for arm in ("on", "off"):
        picked = [i for i, a in enumerate(arms) if a == arm]
        if picked:
            out[arm] = {
                "finds": len(picked),
                "p50_ms": round(_pct([latencies[i] for i in picked], 50), 1),
                "p95_ms": round(_pct([latencies[i] for i in picked], 95), 1),
                "recall@5": round(statistics.mean(recalls[i] for i in picked), 3),
                "providers_s": round(
                    statistics.median(_numbers([phases[i] for i in picked], "providers_s") or [0]), 3
                ),
                "fetch_s": round(
                    statistics.median(_numbers([phases[i] for i in picked], "fetch_s") or [0]), 3
                ),
            }
    return out


def step_medians(phases: list[dict[str, Any]], step: str) -> dict[str, float]:
    """The median over the finds of each figure of one step's timing summary (``last_find[step]``)."""
    steps = [p[step] for p in phases if isinstance(p.get(step), dict)]
    keys = sorted({key for s in steps for key in s})
    return {key: round(statistics.median(float(s.get(key, 0.0)) for s in steps), 3) for key in keys}


__all__ = ["set_arm", "split_arms", "step_medians"]
