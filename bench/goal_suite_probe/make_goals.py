"""Writes heldout.json: the probe set's goals (issue 23, p-chain3). Run: python make_goals.py"""

import json
from pathlib import Path

B, Q, W, L = (
    "p-tarnby-buses/",
    "p-quillon-soldering/sx-series.rst",
    "p-hollow-creek-water/IR-2026-031-fenwick-street.md",
    "p-brightwell-laundry/price-list.txt",
)


def num(value, unit="", tol=0.01):
    return {"type": "number", "value": value, "tol": tol, "unit": unit}


def text(value, *accept):
    return {"type": "text", "value": value, "accept": list(accept)}


GOALS = [
    # single: one lookup, one calculation or one run
    (
        "single",
        "What time does trip 1405 leave Harbour Gate on Tarnby's route 14?",
        text("08:27", "8:27"),
        "timetable row Harbour Gate, column trip 1405",
        [B + "route14-timetable.csv"],
    ),
    (
        "single",
        "How much is a child Day Rider ticket on Tarnby buses?",
        num(3.40, "EUR"),
        "fares row Day Rider, column child",
        [B + "fares.csv"],
    ),
    (
        "single",
        "Quillon SX-65: heat-up time?",
        num(30, "s"),
        "spec table, heat-up time row, SX-65 column",
        [Q],
    ),
    ("single", "Which shape is the Quillon QT-K6 tip?", text("knife"), "tips table row QT-K6", [Q]),
    (
        "single",
        "After how many minutes without use does a Quillon SX station go into standby?",
        num(10, "min"),
        "sleep mode: after 10 minutes without use",
        [Q],
    ),
    (
        "single",
        "Who reported the Hollow Creek Water burst on Fenwick Street?",
        text("Dana Okafor"),
        "reported by",
        [W],
    ),
    (
        "single",
        "Why did the Fenwick Street water main fail?",
        text("graphitic corrosion", "corrosion of the cast iron"),
        "cause section",
        [W],
    ),
    (
        "single",
        "How much water did Hollow Creek lose in the Fenwick Street burst?",
        num(410, "m³"),
        "impact: water lost 410 m³",
        [W],
    ),
    (
        "single",
        "Tell me what Brightwell Laundry charges to dry-clean a winter coat.",
        num(19, "EUR"),
        "dry cleaning, winter coat EUR 19.00",
        [L],
    ),
    (
        "single",
        "How long does Brightwell take to clean a duvet?",
        num(72, "h"),
        "turnaround: duvets 72 hours",
        [L],
    ),
    ("single", "What is 17.5% of 2,480?", num(434), "0.175 * 2480", []),
    (
        "single",
        "Run this Python and tell me what it prints: `print(sum(x * x for x in range(1, 8)))`",
        num(140),
        "1+4+9+16+25+36+49",
        [],
    ),
    # chained: two steps
    (
        "chained",
        "Look up the adult Weekly Rider fare on Tarnby buses, then work out what 6 weeks of them cost.",
        num(144, "EUR"),
        "24.00 * 6",
        [B + "fares.csv"],
    ),
    (
        "chained",
        "Find the price of the Quillon SX-90 Pro and add 19% VAT to it.",
        num(254.66, "EUR"),
        "214 * 1.19",
        [Q],
    ),
    (
        "chained",
        "Get the price of the Quillon QT-C4 tip and calculate what 12 of them cost.",
        num(86.40, "EUR"),
        "7.20 * 12",
        [Q],
    ),
    (
        "chained",
        "Compute 24 * 6.80, then run `print(round(x / 7, 2))` with x set to that result.",
        num(23.31),
        "163.2 / 7 = 23.314",
        [],
    ),
    (
        "chained",
        "Run `print(len('Coldwell Park & Ride'))` and then multiply what it prints by 3.",
        num(60),
        "len = 20, * 3",
        [],
    ),
    (
        "chained",
        "What does Brightwell charge per kg for a service wash over 12 kg? Multiply that by 15.",
        num(36, "EUR"),
        "2.40 * 15",
        [L],
    ),
    (
        "chained",
        "Look up the Quillon SX-40's weight and convert it to grams.",
        num(1100, "g"),
        "1.1 kg = 1100 g",
        [Q],
    ),
    (
        "chained",
        "Look up how many households and how many businesses qualified for compensation after the "
        "Fenwick Street burst, then add the two numbers.",
        num(1058),
        "1020 + 38",
        [W],
    ),
    (
        "chained",
        "Find the concession Single fare on Tarnby buses and the adult Single fare, then give the "
        "difference between them.",
        num(0.80, "EUR"),
        "2.40 - 1.60",
        [B + "fares.csv"],
    ),
    # three agents: lookup, calculation, code with a bound variable
    (
        "three_agent",
        "Look up the concession price of a Carnet of 10 singles on Tarnby buses, divide it by 10, "
        "then run `print(f'{per_trip:.2f}')` with per_trip set to the result.",
        num(1.30),
        "13.00 / 10 = 1.3",
        [B + "fares.csv"],
    ),
    (
        "three_agent",
        "Find the compensation per household for the Fenwick Street burst, multiply it by 1,020, "
        "then run this code with amount bound to the product:\n```\nprint(amount / 1000)\n```",
        num(35.7),
        "35 * 1020 = 35700, / 1000",
        [W],
    ),
    (
        "three_agent",
        "Get the power of the Quillon SX-90 Pro in watts, multiply it by 2.5, and run "
        "`print(wh / 1000)` where wh is that product.",
        num(0.225),
        "90 * 2.5 = 225, / 1000",
        [Q],
    ),
    (
        "three_agent",
        "Look up Brightwell's ironing-only price per item, compute the cost of 14 items, then "
        "execute `print(round(cost * 1.4, 2))` with cost set to it.",
        num(35.28),
        "1.80 * 14 = 25.2, * 1.4",
        [L],
    ),
    (
        "three_agent",
        "How many metres of cast-iron main will be replaced on Fenwick Street? Divide that by 12, "
        "then run `import math; print(math.ceil(days))` binding days to the quotient.",
        num(71),
        "850 / 12 = 70.83, ceil 71",
        [W],
    ),
    (
        "three_agent",
        "What is the adult Single fare on Tarnby buses? Multiply it by 22, then execute "
        "`print(round(monthly / 6.80, 1))` with monthly set to that.",
        num(7.8),
        "2.40 * 22 = 52.8, / 6.80 = 7.76",
        [B + "fares.csv"],
    ),
    (
        "three_agent",
        "Look up the heat-up time of the Quillon SX-40 in seconds, multiply it by 4, and with t "
        "set to that run `print(t / 60)`.",
        num(3),
        "45 * 4 = 180, / 60",
        [Q],
    ),
    # natural: the steps are implied
    (
        "natural",
        "What would Brightwell charge for an 8 kg service wash?",
        num(22.40, "EUR"),
        "band 5.1-12 kg: 2.80 * 8",
        [L],
    ),
    (
        "natural",
        "How many minutes does trip 1401 take from Tarnby Interchange to St Aldric Hospital?",
        num(26, "min"),
        "06:40 -> 07:06",
        [B + "route14-timetable.csv"],
    ),
    (
        "natural",
        "How much compensation did Hollow Creek Water pay out for the Fenwick Street burst in total?",
        num(38360, "EUR"),
        "1020 * 35 + 38 * 70",
        [W],
    ),
    (
        "natural",
        "What does a 2 kg service wash cost at Brightwell?",
        num(9.00, "EUR"),
        "2 * 3.20 = 6.40, minimum charge 9.00",
        [L],
    ),
]


def main() -> None:
    goals = [
        {"id": f"p-{i:03d}", "kind": k, "goal": g, "expected": e, "why": w, "sources": s}
        for i, (k, g, e, w, s) in enumerate(GOALS, 1)
    ]
    out = {
        "writer": "p-chain3 probe (written before running the planner on it)",
        "docs": "docs",
        "goals": goals,
    }
    Path(__file__).with_name("heldout.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
