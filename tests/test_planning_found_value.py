"""A lookup that found the value a question asks for is its answer: a derivation that states nothing the
question gives and leaves the value found out (a labour rate times a part's lead time in hours) never
replaces it (planning/derive.py, p-chain5). Made-up parts list."""

from __future__ import annotations

from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.values import Value

PARTS = """BRAVA ROBOTICS - PARTS LIST
Assembly:      R2 sorting arm
Currency:      EUR, unit prices excluding VAT

Item  Part number   Description               Qty  Unit cost  Supplier         Lead time
----  ------------  ------------------------  ---  ---------  ---------------  ---------
1     GX-20-PL      Gearbox, planetary          1      54.00  Holm Supply      14 days
2     SV-11-25      Servo, 25 kg                4      18.50  Tarrant Motion    9 days

Notes
- Assembly labour: 2 hours per arm at EUR 30 per hour.
"""


def test_the_value_found_answers_when_the_derivation_leaves_it_out() -> None:
    found = Value.of_number(54.0, "").with_evidence((PARTS,))
    assert derive_expression("What is the unit cost of the Brava R2's gearbox?", found) is None


def test_a_derivation_from_the_question_s_own_quantity_still_stands() -> None:
    found = Value.of_number(30.0, "EUR").with_evidence((PARTS,))
    derived = derive_expression("What does the labour for 5 Brava R2 arms cost?", found)
    assert derived is not None and derived[1] == "EUR"
    assert eval(derived[0].replace("ceil", "int")) == 300  # 5 arms x 2 hours x EUR 30
