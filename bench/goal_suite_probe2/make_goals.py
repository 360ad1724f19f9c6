"""Writes heldout.json: the second probe set's goals (issue 23, p-probe2). Run: python make_goals.py

Each goal's ``why`` quotes its facts in «guillemets» (the facts hold double quotes: JSON, INI, YAML) and ends
with ``Check: <expression>``; a goal that must be refused lists ``Absent: «...»`` instead. check_answers.py
recomputes every answer from the documents.
"""

import json
import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

CQ, CP = "q-cobalt-queue/broker-reference.yaml", "q-cobalt-queue/cloud-plans.ini"
FP = "q-fairmoor-pool/faq.md"
HS = "q-harlow-storage/terms-2026.md"
NS = "q-nimbus-sync/CHANGELOG.md"
LC = "q-larchfield-cinema/tickets.html"
OC = "q-orrin-coffee/green-offers.json"
WF = "q-wrenbury-fete/setup-checklist.md"


GOALS = [
    # --- single: one lookup (YAML, INI, FAQ, numbered terms, changelog, HTML table, JSON, checklist),
    # one conversion
    (
        "single",
        "In Cobalt Queue, after how many failed deliveries does a message move to the dead-letter queue?",
        num(5),
        "«dead_letter_after: 5» Check: 5",
        [CQ],
    ),
    (
        "single",
        "What's the default client idle timeout of the Cobalt Queue broker?",
        num(90, "s"),
        "«idle_timeout: 90s» Check: 90",
        [CQ],
    ),
    (
        "single",
        "How many queues can a Cobalt Cloud team plan have at most?",
        num(100),
        "«[team]» then «max_queues = 100» Check: 100",
        [CP],
    ),
    (
        "single",
        "How deep is the learner pool at Fairmoor?",
        num(0.9, "m"),
        "«The learner pool is 0.9 m deep throughout.» Check: 0.9",
        [FP],
    ),
    (
        "single",
        "Why is the Fairmoor pool closed on the first Monday morning of each month?",
        text("water-quality and filter checks", "filter checks", "water quality"),
        "«closed for the water-quality and filter checks» Check: 'water-quality and filter checks'",
        [FP],
    ),
    (
        "single",
        "How long does a lane swimming session last at Fairmoor Leisure Pool?",
        num(45, "min"),
        "«lane swimming sessions last 45 minutes» Check: 45",
        [FP],
    ),
    (
        "single",
        "Under the Harlow Self Storage terms, how many days is one Storage Period?",
        num(28, "days"),
        "«a period of four weeks (28 days)» Check: 28",
        [HS],
    ),
    (
        "single",
        "How much deposit does Harlow Self Storage take for a 100 sq ft unit?",
        num(138, "EUR"),
        "cross-reference: «a deposit equal to one Fee (see clause 4.1)», «100 sq ft Unit: EUR 138.00» "
        "Check: 138",
        [HS],
    ),
    (
        "single",
        "What time does access to a Harlow storage unit end each day?",
        text("20:00", "8 pm", "8pm"),
        "«between 07:00 and 20:00 every day» Check: '20:00'",
        [HS],
    ),
    (
        "single",
        "When was nimbus-sync 3.3.2 released?",
        day("2025-10-14"),
        "«## [3.3.2] - 2025-10-14» Check: date(2025, 10, 14)",
        [NS],
    ),
    (
        "single",
        "Which CVE was fixed in nimbus-sync 3.4.1?",
        text("CVE-2026-0117"),
        "«Fixed CVE-2026-0117» Check: 'CVE-2026-0117'",
        [NS],
    ),
    (
        "single",
        "nimbus-sync: in which version was the sync-once command removed?",
        text("3.3.0"),
        "«## [3.3.0] - 2025-08-27» whose Removed section has «The `sync-once` command, deprecated since "
        "3.1.0» "
        "Check: '3.3.0'",
        [NS],
    ),
    (
        "single",
        "How much is a student evening ticket at the Larchfield Picturehouse?",
        num(8.90, "EUR"),
        "«<tr><td>Student</td><td>6.90</td><td>8.90</td><td>10.60</td></tr>» (Evening column) Check: 8.90",
        [LC],
    ),
    (
        "single",
        "Senior ticket for a weekend film at Larchfield: what's the price?",
        num(10.40, "EUR"),
        "«<tr><td>Senior (65+)</td><td>6.50</td><td>9.40</td><td>10.40</td></tr>» (Weekend column) "
        "Check: 10.40",
        [LC],
    ),
    (
        "single",
        "Which process was used for Orrin's coffee lot OR-2617?",
        text("pulped natural"),
        '«{"lot": "OR-2617", "origin": "Brazil", "region": "Cerrado Mineiro", "process": "pulped natural",» '
        "Check: 'pulped natural'",
        [OC],
    ),
    (
        "single",
        "Give me the price per kg of the Guatemala lot in Orrin Coffee's offer feed.",
        num(7.85, "EUR"),
        '«"origin": "Guatemala"» «"price_per_kg": 7.85» Check: 7.85',
        [OC],
    ),
    (
        "single",
        "Who is in charge of the raffle at the Wrenbury fete?",
        text("Mei"),
        "«- [ ] Raffle (Mei)» Check: 'Mei'",
        [WF],
    ),
    (
        "single",
        "How much is a stall pitch for a charity at the Wrenbury Summer Fete?",
        num(9, "EUR"),
        "«Pitch fee EUR 18; charities pay EUR 9» Check: 9",
        [WF],
    ),
    (
        "single",
        "Convert 26.2 miles to kilometres.",
        num(42.16, "km", 0.02),
        "1 mile = 1.609344 km Check: 26.2 * 1.609344",
        [],
    ),
    # --- chained: lookup then arithmetic or conversion, two lookups combined, calculation then code,
    # code then calculation
    (
        "chained",
        "Look up the Cobalt Queue storage retention in hours and convert it to days.",
        num(7, "days"),
        "«retention_hours: 168» Check: 168 / 24",
        [CQ],
    ),
    (
        "chained",
        "Find the monthly price of the Cobalt Cloud team plan, then work out what 12 months cost.",
        num(1788, "EUR"),
        "«[team]» «price_eur = 149» Check: 149 * 12",
        [CP],
    ),
    (
        "chained",
        "Get the price of an adult 10-swim card at Fairmoor and divide it by 10 to get the cost per swim.",
        num(4.40, "EUR"),
        "«A 10-swim card costs EUR 44.00 for adults» Check: 44.00 / 10",
        [FP],
    ),
    (
        "chained",
        "Look up the price of a private swimming lesson at Fairmoor and work out what it costs per minute.",
        num(0.80, "EUR"),
        "«A private lesson costs EUR 24.00 for 30 minutes.» Check: 24.00 / 30",
        [FP],
    ),
    (
        "chained",
        "Look up Harlow's Fee for a 50 sq ft unit, then compute what six Storage Periods paid in advance "
        "cost with the 12% discount.",
        num(417.12, "EUR"),
        "«50 sq ft Unit: EUR 79.00» «a discount of 12 % on the Fees for those six Storage Periods» "
        "Check: 79.00 * 6 * (1 - 0.12)",
        [HS],
    ),
    (
        "chained",
        "How many days were there between the nimbus-sync 3.4.0 and 3.4.1 releases?",
        num(48, "days"),
        "«## [3.4.1] - 2026-01-19» «## [3.4.0] - 2025-12-02» "
        "Check: (date(2026, 1, 19) - date(2025, 12, 2)).days",
        [NS],
    ),
    (
        "chained",
        "Find the old and the new maximum file size in nimbus-sync 3.4.0 and tell me by how many GiB the "
        "limit went up.",
        num(15, "GiB"),
        "«The maximum file size is now 20 GiB (was 5 GiB).» Check: 20 - 5",
        [NS],
    ),
    (
        "chained",
        "Look up Larchfield's child weekend ticket price and work out the cost of 4 such tickets.",
        num(31.60, "EUR"),
        "«<tr><td>Child (under 15)</td><td>5.90</td><td>7.20</td><td>7.90</td></tr>» Check: 7.90 * 4",
        [LC],
    ),
    (
        "chained",
        "Get the price per kg of Orrin's Colombia Huila lot and calculate the cost of a 60 kg bag.",
        num(444, "EUR"),
        '«"origin": "Colombia", "region": "Huila"» «"price_per_kg": 7.4» Check: 7.4 * 60',
        [OC],
    ),
    (
        "chained",
        "Look up the cup scores of the Kenya lot and the Brazil lot in the Orrin feed, then give the "
        "difference between them.",
        num(5.75),
        '«"cup_score": 88.0» «"cup_score": 82.25» Check: 88.0 - 82.25',
        [OC],
    ),
    (
        "chained",
        "Find the marquee hire price for the Wrenbury fete, then calculate the 25% deposit on it.",
        num(160, "EUR"),
        "«EUR 640 for the weekend» «Deposit of 25 % paid» Check: 640 * 0.25",
        [WF],
    ),
    (
        "chained",
        "Compute 15% of 860, then run `print(x * 4)` with x set to that result.",
        num(516),
        "0.15 * 860 = 129 Check: run(x=0.15 * 860)",
        [],
    ),
    (
        "chained",
        "Run `print(sum(range(1, 21)))` and divide what it prints by 14.",
        num(15),
        "sum 1..20 = 210 Check: run() / 14",
        [],
    ),
    # --- three agents: lookup, calculation, code with the variable the result is bound to
    (
        "three_agent",
        "Get the throughput of the Cobalt Cloud business plan in messages per second, multiply it by 3600, "
        "then run `print(f'{per_hour:,}')` with per_hour bound to the product.",
        num(72000000),
        "«[business]» «throughput_msgs_per_s = 20000» Check: run(per_hour=20000 * 3600)",
        [CP],
    ),
    (
        "three_agent",
        "What is the Cobalt Queue log segment size in MiB? Multiply it by 40, then run "
        "`print(total / 1024)` binding total to that.",
        num(10),
        "«segment_size: 256 MiB» Check: run(total=256 * 40)",
        [CQ],
    ),
    (
        "three_agent",
        "Look up Fairmoor's adult swim price, multiply it by 52, then run this with yearly bound to the "
        "product:\n```python\nprint(round(yearly - 12 * 38.50, 2))\n```",
        num(-191.6),
        "«An adult swim costs EUR 5.20» Check: run(yearly=5.20 * 52)",
        [FP],
    ),
    (
        "three_agent",
        "Find Harlow's Fee for a 200 sq ft unit, multiply it by 13, and execute "
        "`print(round(total / 365, 2))` where total is that product.",
        num(8.73),
        "«200 sq ft Unit: EUR 245.00» Check: run(total=245.00 * 13)",
        [HS],
    ),
    (
        "three_agent",
        "Look up the nimbus-sync resumable upload chunk size in MiB, multiply it by 96, then run "
        "`print(size / 1024)` with size set to the result.",
        num(1.5),
        "«files are sent in chunks of 16 MiB» Check: run(size=16 * 96)",
        [NS],
    ),
    (
        "three_agent",
        "Take the adult evening price at the Larchfield Picturehouse, multiply it by 0.8, and then run "
        "`print(round(p * 10, 2))` with p bound to the result.",
        num(95.2),
        "«<tr><td>Adult</td><td>8.50</td><td>11.90</td><td>12.90</td></tr>» Check: run(p=11.90 * 0.8)",
        [LC],
    ),
    (
        "three_agent",
        "Look up the price per kg of Orrin's Ethiopia Guji lot, multiply it by 60, then run "
        "`print(f'{bag:.2f}')` with bag set to the product.",
        num(537.00),
        '«"origin": "Ethiopia", "region": "Guji"» «"price_per_kg": 8.95» Check: run(bag=8.95 * 60)',
        [OC],
    ),
    (
        "three_agent",
        "How many bags of Orrin's Brazil lot are available? Multiply that by 60 and run\n```\n"
        "print(kg / 1000)\n```\nwith kg bound to the product.",
        num(7.2),
        '«"origin": "Brazil"» «"bags_available": 120» Check: run(kg=120 * 60)',
        [OC],
    ),
    (
        "three_agent",
        "Find how many raffle tickets are printed for the Wrenbury fete, divide that by 5, and run "
        "`print(books * 4)` with books set to the quotient.",
        num(1200),
        "«1,500 tickets printed in books of 5» Check: run(books=1500 / 5)",
        [WF],
    ),
    # --- natural: the steps are implied
    (
        "natural",
        "What would a Cobalt Cloud business customer pay for a month in which they store 1,300 GiB?",
        num(614, "EUR"),
        "«[business]» «price_eur = 590» «storage_gib = 1000» «extra_storage_eur_per_gib = 0.08» "
        "Check: 590 + (1300 - 1000) * 0.08",
        [CP],
    ),
    (
        "natural",
        "How much does the Cobalt Cloud starter plan cost for a whole year when paid annually?",
        num(295.80, "EUR"),
        "«[starter]» «price_eur = 29» «annual_discount_pct = 15» Check: 29 * 12 * (1 - 0.15)",
        [CP],
    ),
    (
        "natural",
        "How much do 2 adults and 2 juniors save at Fairmoor by buying a family swim instead of four "
        "separate tickets?",
        num(2.10, "EUR"),
        "«An adult swim costs EUR 5.20 and a junior swim (ages 4-15) EUR 3.10» «is EUR 14.50» "
        "Check: 2 * 5.20 + 2 * 3.10 - 14.50",
        [FP],
    ),
    (
        "natural",
        "What does a full block of children's group swimming lessons cost at Fairmoor?",
        num(74, "EUR"),
        "«blocks of 10 weekly lessons at EUR 7.40 per lesson» Check: 10 * 7.40",
        [FP],
    ),
    (
        "natural",
        "I'm declaring my stored goods at EUR 1,200 with Harlow. What does Goods Cover cost me per Storage "
        "Period?",
        num(3.80, "EUR"),
        "«EUR 1.90 per Storage Period for each EUR 1,000 of declared value» «never less than EUR 2,000» "
        "Check: max(1200, 2000) / 1000 * 1.90",
        [HS],
    ),
    (
        "natural",
        "A Harlow customer's fee is still unpaid three weeks after it was due. How much in late charges has "
        "been added by now?",
        num(30, "EUR"),
        "«a late charge of EUR 15.00» «the late charge in clause 5.1 is added a second time» "
        "Check: 2 * 15.00",
        [HS],
    ),
    (
        "natural",
        "What is the online booking fee at the Larchfield Picturehouse when you book 6 tickets?",
        num(3.00, "EUR"),
        "«EUR 0.75 per ticket, capped at EUR 3.00 per booking» Check: min(6 * 0.75, 3.00)",
        [LC],
    ),
    (
        "natural",
        "What would 3 standard bags of Orrin's Brazil Cerrado cost, shipping included?",
        num(1045.50, "EUR"),
        '«"standard": 60» «"price_per_kg": 5.65» «"per_bag_eur": 9.5, "free_from_bags": 10» '
        "Check: 3 * 60 * 5.65 + 3 * 9.5",
        [OC],
    ),
    (
        "natural",
        "How many volunteers does the Wrenbury fete need over the day, first-aiders included?",
        num(18),
        "«Two shifts: 09:00-13:00 and 13:00-18:00» «8 volunteers per shift, plus 2 first-aiders all day» "
        "Check: 2 * 8 + 2",
        [WF],
    ),
    # --- must be refused: the value is in no document (exit 3, the missing value named)
    (
        "single",
        "What is the Harlow Fee for a 150 sq ft unit?",
        refused("the Fee for a 150 sq ft unit"),
        "clause 4.1 lists 25, 50, 100 and 200 sq ft only. Absent: «150 sq ft»",
        [HS],
    ),
    (
        "single",
        "When was nimbus-sync 3.5.0 released?",
        refused("the release date of 3.5.0"),
        "the changelog ends at 3.4.1 and Unreleased. Absent: «3.5.0» «[3.5»",
        [NS],
    ),
    (
        "chained",
        "Look up the Larchfield family ticket price and work out the cost of two of them.",
        refused("the price of a family ticket"),
        "the table has Adult, Senior, Child and Student rows only. Absent: «family»",
        [LC],
    ),
    (
        "chained",
        "Find the price per kg of Orrin's Costa Rica lot and compute what 60 kg of it cost.",
        refused("the price per kg of a Costa Rica lot"),
        "no offer from Costa Rica. Absent: «Costa Rica»",
        [OC],
    ),
    (
        "three_agent",
        "Find the default max_retries of the Cobalt Queue broker, multiply it by 3, then run "
        "`print(n + 1)` with n bound to the product.",
        refused("a max_retries setting"),
        "the broker reference has no retry-count key. Absent: «max_retries» «retries»",
        [CQ],
    ),
    (
        "natural",
        "How much would a year of the Cobalt Cloud enterprise plan cost me?",
        refused("the price of an enterprise plan"),
        "plans are starter, team and business. Absent: «enterprise»",
        [CP],
    ),
]


def main() -> None:
    goals = [
        {"id": f"q-{i:03d}", "kind": k, "goal": g, "expected": e, "why": w, "sources": s}
        for i, (k, g, e, w, s) in enumerate(GOALS, 1)
    ]
    out = {
        "writer": "p-probe2 probe (written before reading or running the planner on it)",
        "docs": "docs",
        "goals": goals,
    }
    Path(__file__).with_name("heldout.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
