"""Probe12 goals over a backup tool's man page, an app's Markdown changelog with price changes, a dog's
vaccination record card with the clinic's fees and rules, and an agency worker's timesheet with the
client's rate card."""

from goal_kinds import PR, PT, SM, TC, VC, VF, day, num, refused, text

GOALS_C = [
    # ------------------------------------------------------------------ a man page
    (
        "single",
        "stashd exited with a status telling me another stashd process holds the repository lock. Which "
        "number is that?",
        num(5),
        "«5 Repository locked by another stashd process.» Check: 5",
        [SM],
    ),
    (
        "single",
        "What does an Enterprise plan for stashd cost per month?",
        refused("the price of a stashd Enterprise plan"),
        "The man page's PLANS AND QUOTAS table has «Basic», «Pro» and «Team» only. Absent: «Enterprise»",
        [SM],
    ),
    (
        "chained",
        "If I pay for stashd Pro a year at a time, what's the yearly bill?",
        num(70, "GBP"),
        "«Pro 1 TiB GBP 7.00 5» «Annual billing: 12 months for the price of 10, paid up front.» Check: "
        "7.00 * 10",
        [SM],
    ),
    (
        "chained",
        "Our office runs stashd Team on 32 laptops and stays under the 5 TiB. Monthly charge?",
        num(29.60, "GBP"),
        "«Team 5 TiB GBP 24.00 25, then GBP 0.80 per extra device» Check: round(24.00 + (32 - 25) * 0.80, 2)",
        [SM],
    ),
    (
        "chained",
        "By what percentage did the stashd Pro monthly price go up in version 4.0?",
        num(16.67, "%"),
        "«raised the Pro quota from 500 GiB to 1 TiB and its price from GBP 6.00 to GBP 7.00 per month» "
        "Check: round((7.00 - 6.00) / 6.00 * 100, 2)",
        [SM],
    ),
    (
        "three_agent",
        "How long does stashd sleep in total across its retries when the network is down and I leave "
        "--retries alone?\n\n"
        "```python\n"
        "def waits(retries, first=2, cap=60):\n"
        "    return sum(min(first * 2**i, cap) for i in range(retries))\n\n"
        "print(waits(n))\n"
        "```\n\n"
        "n is the default number of retries from the man page.",
        num(62, "s"),
        "«Retry a failed network operation N times (default 5, at most 20), waiting 2, 4, 8 ... seconds "
        "between tries (doubling, capped at 60 s).» Check: run(n=5)",
        [SM],
    ),
    (
        "three_agent",
        "Fill the dict in for the Pro plan from the stashd man page, then give me the printed monthly "
        "cost:\n\n"
        "```python\n"
        'plan = {"quota_gib": 0, "price": 0.0, "over_per_gib": 0.0}   # Pro\n'
        "stored = 1331   # GiB in my repository this month\n"
        'print(round(plan["price"] + max(0, stored - plan["quota_gib"]) * plan["over_per_gib"], 2))\n'
        "```",
        num(10.68, "GBP"),
        "«Pro 1 TiB GBP 7.00 5» «1 TiB = 1024 GiB.» «Storage above the quota is billed at GBP 0.012 per GiB "
        "per month on Pro and Team.» Check: round(7.00 + (1331 - 1024) * 0.012, 2)",
        [SM],
    ),
    (
        "three_agent",
        "run print(trial_days / 7) with trial_days the length of the stashd free trial in days",
        refused("the length of a stashd free trial"),
        "The man page prices Basic, Pro and Team per month and annual billing; it mentions no trial. "
        "Absent: «trial» «free for»",
        [SM],
    ),
    (
        "natural",
        "I'm on stashd Basic and put --keep 120 in my cron job. How many snapshots per path will it really "
        "keep?",
        num(90, "snapshots"),
        "«Default 14. At most 90 on the Basic plan and 365 on Pro and Team; a larger N is lowered to the "
        "plan's maximum with a warning.» Check: min(120, 90)",
        [SM],
    ),
    (
        "natural",
        "Rebuilt my NAS this month and pulled 1,100 GiB back out of stashd; I'm on Pro. What do those "
        "restores "
        "cost?",
        num(1.52, "GBP"),
        "«Restores (egress) are free up to the plan's storage quota per calendar month; beyond that GBP 0.02 "
        "per GiB.» «Pro 1 TiB» «1 TiB = 1024 GiB.» Check: round((1100 - 1024) * 0.02, 2)",
        [SM],
    ),
    # ------------------------------------------------------------------ a Markdown changelog
    (
        "single",
        "Per Tallybook's changelog, what does the Business plan cost a month now, before VAT?",
        num(21, "GBP"),
        "«Business plan price now £21 a month (was £19).» Check: 21",
        [TC],
    ),
    (
        "single",
        "how many receipts can Solo users scan each month since 5.2.0?",
        num(40, "receipts"),
        "«Solo: receipt scanning limit raised from 20 to 40 receipts a month.» Check: 40",
        [TC],
    ),
    (
        "single",
        "From which date can new customers no longer sign up to Tallybook's Starter plan?",
        day("2027-06-30"),
        "«The legacy **Starter** plan (£4 a month) closes to new customers on 2027-06-30.» "
        "Check: date(2027, 6, 30)",
        [TC],
    ),
    (
        "chained",
        "Tallybook Business with payroll for 7 staff - what's the monthly total including VAT?",
        num(32.40, "GBP"),
        "«Business plan price now £21 a month» «Payroll add-on: £1.50 per employee a month. The first 3 "
        "employees are free on the Business plan» «excluding VAT at 20%» Check: round((21 + (7 - 3) * 1.50) "
        "* 1.2, 2)",
        [TC],
    ),
    (
        "chained",
        "Three more users need logins on our Tallybook Business account. What do the extra seats add a month "
        "with VAT?",
        refused("a per-user or extra seat price on Tallybook"),
        "The changelog prices plans, payroll per employee, mileage, attachments storage and Practice per "
        "client; nothing per user or seat. Absent: «per user» «extra user» «seat»",
        [TC],
    ),
    (
        "three_agent",
        "```\n"
        "solo = 0\n"
        "business = 0\n"
        "print(round((solo + business) * 12 * 0.85, 2))\n"
        "```\n"
        "Swap the zeros for the monthly prices (ex VAT) of Tallybook Solo and Business as they stand today - "
        "not the announced future ones - then what's the printed yearly figure with the annual discount?",
        num(295.80, "GBP"),
        "«Solo plan to rise from £8 to £9 a month on 1 July 2027 (announced, not yet in effect).» «Business "
        "plan price now £21 a month» «15% off twelve monthly payments» Check: round((8 + 21) * 12 * 0.85, 2)",
        [TC],
    ),
    (
        "three_agent",
        "My mileage claim script for a 12,400-mile tax year:\n\n"
        "```python\n"
        "# first, after: the two per-mile rates of Tallybook's mileage tracker, in pounds\n"
        "miles = 12400\n"
        "claim = first * 10000 + after * (miles - 10000)\n"
        "print(round(claim, 2))\n"
        "```\n\n"
        "Set first and after from the changelog and run it.",
        num(5100.0, "GBP"),
        "«Mileage tracker (45p a mile for the first 10,000 business miles of a tax year, 25p after).» "
        "Check: run(first=0.45, after=0.25)",
        [TC],
    ),
    (
        "natural",
        "Our bookkeeping practice has just 7 clients on Tallybook's Practice plan. What's our monthly bill "
        "before VAT?",
        num(24.00, "GBP"),
        "«Practice plan (for accountants) now £2.40 per client a month, minimum 10 clients billed.» "
        "Check: round(max(7, 10) * 2.40, 2)",
        [TC],
    ),
    (
        "natural",
        "I've been on Tallybook Starter since 2025. What will I be paying a month in August 2027, ex VAT?",
        num(4, "GBP"),
        "«Existing Starter customers move to Solo on that date and pay £4 a month for 12 months from the "
        "move.» «closes to new customers on 2027-06-30» August 2027 is within 12 months. Check: 4",
        [TC],
    ),
    (
        "natural",
        "We're a registered charity looking at Tallybook Business. What charity discount would we get?",
        refused("a charity discount on Tallybook"),
        "The changelog names an annual billing discount only («15% off twelve monthly payments»). "
        "Absent: «charit» «non-profit»",
        [TC],
    ),
    # ------------------------------------------------------------------ a vaccination record card
    (
        "single",
        "Milo's card from Orchard Lane: what batch was his L4 annual booster in November 2026?",
        text("A611D03"),
        "«19/11/2026 VEXIVAC L4 annual booster A611D03 SP 19/11/2027» Check: 'A611D03'",
        [VC],
    ),
    (
        "single",
        "How much does Orchard Lane vets charge to vaccinate a rabbit against myxomatosis?",
        refused("a rabbit vaccination fee"),
        "The fees list «DOGS» and «CATS» only. Absent: «rabbit» «myxo»",
        [VF, VC],
    ),
    (
        "chained",
        "How much heavier was Milo at his 2026 booster than at his very first jab?",
        num(5.9, "kg"),
        "«06/11/25 3.9 kg» «19/11/26 9.8 kg» Check: round(9.8 - 3.9, 1)",
        [VC],
    ),
    (
        "chained",
        "What does a dog owner save at Orchard Lane by having the annual booster and kennel cough done in "
        "one "
        "visit rather than separately (2027 prices)?",
        num(10, "GBP"),
        "«Annual booster (L4; DHP every third year included) GBP 56.00» «Kennel cough (intranasal), on its "
        "own GBP 38.00» «Annual booster + kennel cough at the same visit GBP 84.00» Check: 56.00 + 38.00 - "
        "84.00",
        [VF],
    ),
    (
        "chained",
        "By what percentage did Orchard Lane put up the dog annual booster between 2026 and 2027?",
        num(7.69, "%"),
        "«Annual booster (L4; DHP every third year included) GBP 56.00 (2026: 52.00)» Check: round((56.00 - "
        "52.00) / 52.00 * 100, 2)",
        [VF],
    ),
    (
        "three_agent",
        "Is the Pet Health Club worth it for Milo? Run this\n\n"
        "```python\n"
        "club_year = 12 * monthly\n"
        "pay_as_you_go = booster_kc\n"
        "print(round(club_year - pay_as_you_go, 2))\n"
        "```\n\n"
        "where monthly is the club's monthly fee for a dog of Milo's weight at his last visit and booster_kc "
        "the 2027 price of a booster plus kennel cough at one visit.",
        num(102.0, "GBP"),
        "«19/11/26 9.8 kg» «Dog up to 10 kg GBP 15.50 a month» «Annual booster + kennel cough at the same "
        "visit GBP 84.00» Check: run(monthly=15.50, booster_kc=84.00)",
        [VC, VF],
    ),
    (
        "three_agent",
        "New puppy budget. My function:\n\n"
        "```python\n"
        "def puppy_total(primary, kc, missed, fee):\n"
        "    return primary + kc + missed * fee\n"
        "```\n\n"
        "What does it return with Orchard Lane's 2027 dog primary course for primary, kennel cough on its "
        "own "
        "for kc, missed = 1 and fee the charge for a missed appointment without notice?",
        num(136.0, "GBP"),
        "«Primary course (2 injections, 2 weeks apart, DHP + L4) GBP 78.00» «Kennel cough (intranasal), on "
        "its "
        "own GBP 38.00» «A missed appointment without 24 hours' notice is charged GBP 20.00.» Check: 78.00 + "
        "38.00 + 1 * 20.00",
        [VF],
    ),
    (
        "three_agent",
        "`print(cert + rabies + titre)` - cert and rabies from Orchard Lane's fee list, titre their fee "
        "for the "
        "rabies blood test. What's the total?",
        refused("a fee for a rabies blood (titre) test"),
        "The fee list has «Rabies (for travel) GBP 72.00» and «Animal Health Certificate (travel to the EU / "
        "NI) GBP 165.00» but no blood test. Absent: «titre» «blood test»",
        [VF],
    ),
    (
        "natural",
        "Milo's L4 booster falls due on 19/11/2027 but we won't manage to get him in until 2 March 2028. "
        "Assuming the 2027 fees still apply, what will Orchard Lane charge for his vaccination then?",
        num(78, "GBP"),
        "«19/11/2026 VEXIVAC L4 annual booster A611D03 SP 19/11/2027» «A booster given more than 3 months "
        "after its due date does not continue the course: the animal restarts the primary course (2 "
        "injections, charged at the primary course fee).» 2 March 2028 is after 19 February 2028. «Primary "
        "course (2 injections, 2 weeks apart, DHP + L4) GBP 78.00» Check: 78",
        [VC, VF],
    ),
    (
        "natural",
        "If Milo has his rabies jab at Orchard Lane on 1 June 2027, what's the first date he's allowed to "
        "travel?",
        day("2027-06-22"),
        "«It may travel 21 days after the day of vaccination (the day of vaccination is day 0).» "
        "Check: date(2027, 6, 1) + timedelta(days=21)",
        [VF],
    ),
    # ------------------------------------------------------------------ a timesheet and a rate card
    (
        "single",
        "Kojo Mensah's timesheet for week 13 - hours on Wednesday 31 March?",
        num(9.5, "h"),
        "«Wed 31/03 06:00 16:15 0:45 9.50» Check: 9.50",
        [PT],
    ),
    (
        "single",
        "What's the Grade 2 warehouse operative basic rate at Brindle Foods from 1 April 2027?",
        num(12.65, "GBP"),
        "«Grade 2 (warehouse operative) GBP 12.10 GBP 12.65» (to 31 March 2027, from 1 April 2027) "
        "Check: 12.65",
        [PR],
    ),
    (
        "single",
        "who at Brindle Foods signed off timesheet T-13-30881?",
        text("D. Achterberg", "Achterberg"),
        "«Client authorised: D. Achterberg (shift manager)» Check: 'D. Achterberg'",
        [PT],
    ),
    (
        "chained",
        "What is Kojo owed for his Easter Monday shift on the week 13 timesheet?",
        num(145.20, "GBP"),
        "«Mon 29/03 06:00 14:30 0:30 8.00 Easter Monday (bank holiday)» «Bank holidays time and a half (x "
        "1.5)» «Grade 2 (warehouse operative) GBP 12.10 GBP 12.65» «The rate is the one in force on the day "
        "the shift starts.» Check: round(8.00 * 12.10 * 1.5, 2)",
        [PT, PR],
    ),
    (
        "chained",
        "Kojo was off sick on Thursday 1 April. How much sick pay does Pitchford pay him for that day?",
        refused("a sick pay rate"),
        "The rate card's other payments are «Sent home with no work: 4 hours' pay at the basic rate.», "
        "holiday "
        "pay and a boots allowance; nothing for sickness. Absent: «sick pay» «SSP» «sickness»",
        [PT, PR],
    ),
    (
        "three_agent",
        "Fill in the two rates and tell me what this prints:\n\n"
        "```python\n"
        "# Grade 2 basic rates at Brindle Foods, from the rate card\n"
        "old_rate = 0.00   # to 31 March 2027\n"
        "new_rate = 0.00   # from 1 April 2027\n"
        "hours_old = 8.00 + 9.50   # Kojo's Tue and Wed, no enhancement\n"
        "hours_new = 7.50          # his Friday\n"
        "print(round(hours_old * old_rate + hours_new * new_rate, 2))\n"
        "```",
        num(306.625, "GBP"),
        "«Grade 2 (warehouse operative) GBP 12.10 GBP 12.65» Check: 17.5 * 12.10 + 7.50 * 12.65",
        [PR],
    ),
    (
        "three_agent",
        "Kojo's Saturday stock count: run print(hours * rate * 1.25) with hours his Saturday hours from the "
        "week 13 timesheet and rate the Grade 2 rate in force that day.",
        num(79.06, "GBP"),
        "«Sat 03/04 07:00 12:00 0:00 5.00 stock count» «Grade 2 (warehouse operative) GBP 12.10 GBP 12.65» "
        "«The rate is the one in force on the day the shift starts.» Check: run(hours=5.00, rate=12.65)",
        [PT, PR],
    ),
    (
        "three_agent",
        "Holiday hours Kojo earned in week 13:\n\n"
        "```python\n"
        "def holiday_hours(worked, pct):\n"
        "    return round(worked * pct / 100, 2)\n\n"
        "print(holiday_hours(worked, pct))\n"
        "```\n\n"
        "worked = the TOTAL HOURS on his timesheet, pct = the holiday accrual percentage on the rate card.",
        num(4.59, "h"),
        "«TOTAL HOURS 38.00» «Holiday pay accrues at 12.07% of hours worked» Check: run(worked=38.00, "
        "pct=12.07)",
        [PT, PR],
    ),
    (
        "natural",
        "Kojo's week 13 timesheet reached Pitchford by e-mail on Tuesday 6 April at 14:20. Which date is he "
        "paid for that week?",
        day("2027-04-16"),
        "«Received by Pitchford: 06/04/2027 14:20 (e-mail)» «Timesheets received by Tuesday 12:00 after the "
        "week ends are paid on the Friday of that week. Later timesheets are paid the Friday after.» "
        "Check: date(2027, 4, 9) + timedelta(days=7)",
        [PT, PR],
    ),
    (
        "natural",
        "I'm being made shift supervisor, Grade 4, on the Brindle Foods contract. What will my hourly rate "
        "be?",
        refused("a Grade 4 pay rate"),
        "The rate card has «Grade 1 (picker/packer)», «Grade 2 (warehouse operative)» and «Grade 3 (team "
        "leader)» only. Absent: «Grade 4» «supervisor»",
        [PR],
    ),
]
