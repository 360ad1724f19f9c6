"""Issue 23 (p-compose3): "each of the ten usual monthly instalments" and "split it into 4 equal payments"
after looking up a total are the total over the number of parts, never the total times it
(planning/shares.py). Made-up requests."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, plan_request


@pytest.mark.parametrize(
    ("goal", "template"),
    [
        ("Get the Tollan Band C charge and work out each of the ten usual monthly instalments.", "(v1/10)"),
        ("Look up the Tollan annual mooring fee and work out each of the 12 monthly payments.", "(v1/12)"),
        ("Look up the Tollan annual mooring fee and split it into 4 equal payments.", "(v1/4)"),
    ],
)  # fmt: skip
def test_a_total_in_equal_parts_is_divided(goal: str, template: str) -> None:
    last = plan_request(goal).steps[-1]
    assert last.kind == CALC and last.template.replace(" ", "") == template
