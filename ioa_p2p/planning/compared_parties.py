"""Two parties compared on what they pay for one thing (pure; issue 23, p-bind): "how much more does a
non-member pay than a member for Start Sailing?" is what each pays for it, then the difference."""

from __future__ import annotations

import re

from ioa_p2p.planning.relations import calc_step, lookup_step
from ioa_p2p.planning.types import PlanStep

_PAYS = r"pay|cost|charge|spend|earn|get|receive|owe"


def verb_comparison(q: str) -> tuple[PlanStep, ...] | None:
    """ "How much more does a non-member pay than a member for Start Sailing?": what each side pays (the
    rest of the sentence, "for Start Sailing", goes with both), then the first less the second."""
    m = re.search(
        rf"\bhow much (more|less) (?:(?:do|does|did|would|will) )?(.+?) ({_PAYS})(?:e?s)?\b(.*?) "
        r"than (.+?)\??$",
        q,
        re.I,
    )
    if not m:
        return None
    _, a, verb, middle, b = m.groups()
    tail = re.search(r"\s+((?:for|on|at|in|to)\s+.+)$", b)
    shared = middle.strip() or (tail.group(1) if tail else "")
    b = b[: tail.start()] if tail and not middle.strip() else b
    if not shared:  # "does A's express delivery to X cost than standard delivery": not two parties, one thing
        return None
    first, second = f"What does {a} {verb} {shared}".strip(), f"What does {b.strip()} {verb} {shared}".strip()
    less = m.group(1).lower() == "less"  # "how much less does A pay than B": B's less A's
    return (
        lookup_step(1, first),
        lookup_step(2, second),
        calc_step(3, q, "(v2 - v1)" if less else "(v1 - v2)", (1, 2)),
    )


__all__ = ["verb_comparison"]
