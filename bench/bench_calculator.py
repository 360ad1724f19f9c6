"""How long the calculator takes to refuse expensive input, and its worst case on random soup.

Run: python bench/bench_calculator.py [--soup 2000]

The times ``tests/test_calculator.py`` checks the behaviour of but does not assert (speed targets live
here): refusing 200 huge fractions as "too much work" (target < 5 s), and the slowest of ``--soup``
random arithmetic-like texts of up to 40 atoms, the same alphabet as the test's (target < 2 s each).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ioa_p2p.adapters.calculator.adapter import calculate  # noqa: E402
from ioa_p2p.errors import TaskRejected  # noqa: E402
from tests.test_calculator import _SOUP  # noqa: E402


def timed(text: str) -> float:
    began = time.perf_counter()
    with contextlib.suppress(TaskRejected):
        calculate(text)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--soup", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    big = "(2^99990+1)/(3^63000)"
    print(f"200 huge fractions refused in {timed(' + '.join([big] * 200)):.3f} s (target < 5 s)")
    rng = random.Random(args.seed)
    atoms = _SOUP.split("|")
    times = sorted(
        (timed("".join(rng.choice(atoms) for _ in range(rng.randint(0, 40)))) for _ in range(args.soup)),
        reverse=True,
    )
    print(
        f"{args.soup} soup texts: slowest {times[0] * 1000:.1f} ms (target < 2000 ms), "
        f"median {times[len(times) // 2] * 1000:.2f} ms"
    )


if __name__ == "__main__":
    main()
