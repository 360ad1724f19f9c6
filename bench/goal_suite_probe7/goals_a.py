"""Probe7 goals: the bouldering gym, the coworking plans, the school trip letter and the kennels."""

from goal_kinds import FS, GB, LW, PK, day, num, refused, text

GOALS_A = [
    # ------------------------------------------------------------------ a bouldering gym policy (YAML)
    (
        "single",
        "What does an off-peak adult day entry cost at Granite Hollow Bouldering?",
        num(11, "GBP"),
        "«adult_off_peak: 11.00 # Mon-Fri before 16:00» Check: 11",
        [GB],
    ),
    (
        "single",
        "granite hollow - how many months before a 5-visit junior punch card runs out?",
        num(6, "months"),
        "«- name: 5-visit junior price: 40.00 expires_after_months: 6» Check: 6",
        [GB],
    ),
    (
        "single",
        "Does Granite Hollow run a top-rope belay course, and what is its price?",
        refused("the price of a top-rope belay course"),
        "the gym lists bouldering courses only (Learn to Boulder, Kids Club). Absent: «top-rope» «belay»",
        [GB],
    ),
    (
        "chained",
        "Find the price of Granite Hollow's 10-visit adult punch card and the adult peak day entry. How much "
        "does the card save compared with paying for ten peak visits one by one?",
        num(17.5, "GBP"),
        "«adult_peak: 14.50» «- name: 10-visit adult price: 127.50» Check: 10 * 14.50 - 127.50",
        [GB],
    ),
    (
        "chained",
        "Look up Granite Hollow's 2025 price for an adult annual membership paid upfront, then work out what "
        "it came to per month.",
        refused("the 2025 annual adult membership price"),
        "the policy is valid 1 March 2026 to 28 February 2027; no earlier prices are given. Absent: «2025»",
        [GB],
    ),
    (
        "three_agent",
        "Get the adult monthly direct-debit price and the joining fee at Granite Hollow, total what the "
        "minimum term costs including the joining fee, and run `print(round(total / 3, 2))` with total set "
        "to that amount.",
        num(57.33),
        "«monthly_direct_debit: adult: 49.00 concession: 39.00 joining_fee: 25.00 minimum_term_months: 3» "
        "Check: run(total=3 * 49 + 25)",
        [GB],
    ),
    (
        "three_agent",
        "Subtract twelve adult monthly direct-debit payments from the adult annual upfront price and feed "
        "the difference d into this snippet:\n```python\nprint(abs(d) * 2)\n```",
        num(186),
        "«annual_upfront: adult: 495.00» «monthly_direct_debit: adult: 49.00» Check: run(d=495 - 12 * 49)",
        [GB],
    ),
    (
        "natural",
        "My partner and I live together and we both want adult monthly direct-debit memberships at Granite "
        "Hollow. What will the two of us pay each month, leaving the joining fees aside?",
        num(90.65, "GBP"),
        "«adult: 49.00» «discount_percent: 15 applies_to: monthly and annual memberships of the second and "
        "any further member at the same address» Check: 49 + 49 * (1 - 0.15)",
        [GB],
    ),
    (
        "natural",
        "I'm a member and I'm bringing two adult friends who have never climbed at Granite Hollow on "
        "Saturday. Neither has shoes, so both will hire a pair. What do I pay for them?",
        num(38, "GBP"),
        "«member_guest_pass: 7.00 # up to 2 guests per visit, members only» «shoe_hire: 4.00» "
        "«fee: 8.00 note: one-off, required for every new climber over 14» Check: 2 * (7 + 8 + 4)",
        [GB],
    ),
    (
        "natural",
        "I'm off travelling and want to freeze my monthly membership for 5 months. How much will that be?",
        refused("the charge for a 5-month freeze"),
        "a freeze is allowed for at most 3 months (max_months: 3); no charge is given for longer. "
        "Absent: «5 months» «max_months: 5»",
        [GB],
    ),
    # ------------------------------------------------------------------ a coworking plan comparison (HTML)
    (
        "single",
        "Loomhall Works: how many hours of meeting-room credit come with the Studio plan each month?",
        num(12, "h"),
        "«<tr><td>Meeting-room credits / month</td><td>4 h</td><td>8 h</td><td>12 h</td><td>20 h</td></tr>» "
        "Check: 12",
        [LW],
    ),
    (
        "single",
        "What is the hourly rate for Loomhall's Boardroom?",
        num(32, "EUR"),
        "«the Boardroom, up to 12 people: &euro;32 per hour» Check: 32",
        [LW],
    ),
    (
        "chained",
        "Find the monthly price of a Fixed Desk at Loomhall Works and the VAT rate that comes on top; what "
        "is one month including VAT?",
        num(337.59, "EUR"),
        "«<tr><td>Monthly price</td><td>&euro; 189</td><td>&euro; 279</td>» «excluding 21% VAT» "
        "Check: 279 * 1.21",
        [LW],
    ),
    (
        "chained",
        "Loomhall sells a day pass and a 10-day flex card. Look up both and tell me how much less one day "
        "costs on the flex card than on a day pass.",
        num(5.5, "EUR"),
        "«Day pass: &euro;25» «10-day flex card: &euro;195» Check: 25 - 195 / 10",
        [LW],
    ),
    (
        "chained",
        "Look up the monthly price of Loomhall's Team Suite for 8 people and divide it by 8 to get the cost "
        "per person.",
        refused("the Team Suite price"),
        "the plans are Hot Desk, Fixed Desk, Studio (2 people) and Private Office (4 people). "
        "Absent: «Team Suite» «8 people»",
        [LW],
    ),
    (
        "three_agent",
        "Look up the Private Office monthly price, add the security deposit Loomhall takes for it to the "
        "first month's fee, and run `print(f'{x:,.2f}')` with x bound to that sum.",
        num(2640, "EUR"),
        "«<td>&euro; 640</td><td>&euro; 1,320</td></tr>» «A security deposit of one month's plan price is "
        "taken for Studio and Private Office plans.» Check: run(x=1320 + 1320)",
        [LW],
    ),
    (
        "three_agent",
        "Add the Hot Desk monthly price and the business-address add-on, multiply by 12 months, and pass the "
        "yearly total as y to:\n```python\nprint(y // 100)\n```",
        num(26),
        "«<td>Monthly price</td><td>&euro; 189</td>» «<td>Business address</td><td>+ &euro; 35</td>» "
        "Check: run(y=(189 + 35) * 12)",
        [LW],
    ),
    (
        "three_agent",
        "Take the weekly price of a hot desk at Loomhall, multiply it by 52 and give the result to "
        "`print(round(w))`.",
        refused("a weekly hot desk price"),
        "prices are per month (and day, evening and flex passes); no weekly price is given. "
        "Absent: «weekly» «per week»",
        [LW],
    ),
    (
        "natural",
        "We're a registered non-profit and want two Fixed Desks at Loomhall, paying 12 months in advance. "
        "What do we pay for the year before VAT?",
        num(5356.8, "EUR"),
        "«<td>&euro; 279</td>» «Pay 12 months in advance and get <strong>10% off</strong> the monthly plan "
        "price» «Registered non-profits get 20% off Hot Desk and Fixed Desk plans. The two discounts do not "
        "combine; the larger one applies.» Check: 2 * 279 * 12 * (1 - 0.20)",
        [LW],
    ),
    (
        "natural",
        "I only need the courtyard parking at Loomhall now and then. What does one day of parking cost?",
        refused("a daily parking price"),
        "parking is let by the month (EUR 85 / month) only. Absent: «per day» «daily»",
        [LW],
    ),
    # ------------------------------------------------------------------ a school trip letter (plain text)
    (
        "single",
        "What time does the coach leave for the Year 5 Kestrelmere trip?",
        text("8:45 am", "08:45", "8:45"),
        "«The coach leaves the school gates at 8:45 am on the Monday» Check: '8:45 am'",
        [FS],
    ),
    (
        "single",
        "By when is the second instalment for the Fairholt Year 5 residential due?",
        day("2026-03-13"),
        "«second payment of £93 by Friday 13 March 2026» Check: date(2026, 3, 13)",
        [FS],
    ),
    (
        "single",
        "How much does the Year 6 trip to Kestrelmere cost per child?",
        refused("the cost of a Year 6 trip"),
        "the letter is about the Year 5 residential only. Absent: «Year 6»",
        [FS],
    ),
    (
        "chained",
        "How many nights is the Fairholt Year 5 residential, and what is the cost per child? Give me the "
        "cost per night.",
        num(78.67, "GBP"),
        "«Year 5 will spend three nights at Kestrelmere Outdoor Centre» «The total cost is £236 per child.» "
        "Check: 236 / 3",
        [FS],
    ),
    (
        "chained",
        "Find the price of the optional climbing wall session at Kestrelmere and add it to the trip cost "
        "per child.",
        refused("the price of a climbing wall session"),
        "the activities are canoeing, gorge walking, orienteering, a night walk, archery and high ropes, all "
        "included. Absent: «climbing wall»",
        [FS],
    ),
    (
        "three_agent",
        "Take the full trip cost and the most pocket money a child may bring, add them for one child, and "
        "pass the sum as s to `print(f'£{s:.2f}')`.",
        num(246, "GBP"),
        "«The total cost is £236 per child.» «Pocket money: no more than £10» Check: run(s=236 + 10)",
        [FS],
    ),
    (
        "three_agent",
        "86 pupils are going. Find how many children are in a group and how many adults go with each "
        "group, compute the number of groups (rounded up) and run this with g set to it:\n"
        "```python\nprint(g * 2)\n```",
        num(16),
        "«Groups are of 12 children with one centre instructor and one school adult.» "
        "Check: run(g=ceil(86 / 12))",
        [FS],
    ),
    (
        "natural",
        "Our daughter gets free school meals. What do we have to pay for her Year 5 residential?",
        num(118, "GBP"),
        "«The total cost is £236 per child.» «Pupils eligible for free school meals pay half the total "
        "cost» Check: 236 / 2",
        [FS],
    ),
    (
        "natural",
        "We paid the whole trip in full in January, then on 20 April 2026 told the school our son can't "
        "go after all. How much comes back to us?",
        num(186, "GBP"),
        "«The total cost is £236 per child.» «deposit of £50» «we refund the money paid except the "
        "deposit, as long as you tell us before 1 May 2026» Check: 236 - 50",
        [FS],
    ),
    (
        "natural",
        "Our twins (one in 5 Birch, one in 5 Rowan) are both going on the residential. If we pay in full, "
        "what's the total?",
        num(452, "GBP"),
        "«The total cost is £236 per child.» «Families with more than one child going pay £20 less for the "
        "second child.» Check: 236 + (236 - 20)",
        [FS],
    ),
    # ------------------------------------------------------------------ a kennels price export (JSON)
    (
        "single",
        "Pawsbury kennels: what's the nightly rate for a large dog in a deluxe suite?",
        num(43, "GBP"),
        '«{"species": "dog", "size": "large (over 25 kg)", "standard_run": 31.00, "deluxe_suite": 43.00}» '
        "Check: 43",
        [PK],
    ),
    (
        "single",
        "What's the shortest stay Pawsbury accepts in a peak period?",
        num(4, "nights"),
        '«"minimum_stay_nights": {"off_peak": 2, "peak": 4}» Check: 4',
        [PK],
    ),
    (
        "chained",
        "Look up Pawsbury's standard-run rate for a medium dog and the peak surcharge, then price a 7-night "
        "stay in mid-August.",
        num(227.5, "GBP"),
        '«"size": "medium (10-25 kg)", "standard_run": 27.50» '
        '«{"name": "Summer", "from": "2026-07-18", "to": "2026-09-01"}» '
        '«"peak_surcharge_per_night": 5.00» Check: 7 * (27.50 + 5.00)',
        [PK],
    ),
    (
        "chained",
        "How many days after its first date does Pawsbury's Summer peak period end?",
        num(45, "days"),
        '«{"name": "Summer", "from": "2026-07-18", "to": "2026-09-01"}» '
        "Check: (date(2026, 9, 1) - date(2026, 7, 18)).days",
        [PK],
    ),
    (
        "chained",
        "Find what Pawsbury charges a night to board a rabbit and double it for a weekend.",
        refused("a nightly rate for a rabbit"),
        "the kennels take dogs and cats only. Absent: «rabbit»",
        [PK],
    ),
    (
        "three_agent",
        "Fetch the standard nightly rate for a cat at Pawsbury, multiply by 10 nights, and pass the cost c "
        "to `print(round(c * 0.25, 2))` to see the deposit.",
        num(40, "GBP"),
        '«{"species": "cat", "size": "any", "standard_run": 16.00, "deluxe_suite": 22.00}» '
        '«"percent_of_booking": 25» Check: run(c=10 * 16.00)',
        [PK],
    ),
    (
        "three_agent",
        "Get the bath-and-brush price and the daily walk price; total the extras for a 5-night stay with a "
        'walk every day and one bath, and run this with e set to that total:\n```python\nprint(f"extras: '
        '{e:.2f} GBP")\n```',
        num(48, "GBP"),
        '«"daily_walk_30_min": 6.00» «"bath_and_brush": 18.00» Check: run(e=5 * 6.00 + 18.00)',
        [PK],
    ),
    (
        "three_agent",
        "Retrieve Pawsbury's 2025 standard-run rate for a small dog, subtract it from the current one, "
        "and run `print(diff * 100)` with diff set to the result.",
        refused("the 2025 small dog standard-run rate"),
        "only price list version 2026.2, effective 2026-04-01, is given. Absent: «2025»",
        [PK],
    ),
    (
        "natural",
        "Our two small dogs will share one standard run for 3 nights in May. What's the bill?",
        num(115.2, "GBP"),
        '«"size": "small (under 10 kg)", "standard_run": 24.00» «the second and each further pet sharing '
        "pays 60% of its own nightly rate.» Check: 3 * (24.00 + 24.00 * 0.60)",
        [PK],
    ),
    (
        "natural",
        "Our large dog is boarding for 20 nights in a standard run in October, no peak dates involved. What "
        "do the nights come to once the long-stay discount is taken off?",
        num(601.4, "GBP"),
        '«"size": "large (over 25 kg)", "standard_run": 31.00» '
        '«"long_stay_discount": {"from_night": 15, "percent": 10, "applies_to": "nightly rates of the 15th '
        'and later nights only"}» Check: 14 * 31.00 + 6 * 31.00 * 0.90',
        [PK],
    ),
]
