"""Probe9 goals over the futsal rulebook, the freight manifest, the subtitles and the auction catalogue."""

from goal_kinds import DF, MA, PF, SC, day, num, refused, text

GOALS_B = [
    # ------------------------------------------------------------------ a league rulebook, fines schedule
    (
        "single",
        "What's the fine for a yellow card in the Dunholm futsal league this season?",
        num(8, "GBP"),
        "«Caution (yellow card)» «£8 (2025/26: £6)» Check: 8",
        [DF],
    ),
    (
        "single",
        "How long does each half last in a Dunholm & District league futsal match?",
        num(20, "min"),
        "«A match is two halves of 20 minutes (stopped clock) with a 5-minute interval.» Check: 20",
        [DF],
    ),
    (
        "chained",
        "Our side has 22 league fixtures this season. What will we hand over in match fees over the year?",
        num(924, "GBP"),
        "«Each team pays a match fee of £42 per league match» Check: 42 * 22",
        [DF],
    ),
    (
        "chained",
        "Before a ball is kicked, how much does it cost a club to enter one team in the Dunholm league, "
        "counting the bond?",
        num(230, "GBP"),
        "«Each club pays a team entry fee of £180 per team per season, and a good-conduct bond of £50.» "
        "Check: 180 + 50",
        [DF],
    ),
    (
        "three_agent",
        "We ended the season with 11 wins and 4 draws and no walkovers. Look up the points for a win (W) "
        "and for a draw (D) and run `print(11 * W + 4 * D)`.",
        num(37, "points"),
        "«Three points for a win, one point for a draw, none for a defeat.» Check: run(W=3, D=1)",
        [DF],
    ),
    (
        "three_agent",
        "One of ours was sent off for violent conduct and our treasurer only paid the fine five weeks "
        "later. Look up that fine as f and run this with weeks = 5:\n```python\nfine = f\n"
        "print(fine * 2 if weeks * 7 > 28 else fine)\n```",
        num(50, "GBP"),
        "«Sending off, serious foul play or violent conduct ......... £25» «A fine still unpaid after 28 "
        "days is doubled.» Check: run(f=25, weeks=5)",
        [DF],
    ),
    (
        "natural",
        "Last Tuesday we picked up three yellow cards, and one of them went to our 17-year-old keeper. "
        "How much do we owe the league for those?",
        num(16, "GBP"),
        "«£8 (2025/26: £6)» «players under 18 are not fined for cautions» Check: 2 * 8",
        [DF],
    ),
    (
        "natural",
        "This season we won 9, drew 5 and lost 8, and one of those defeats was a walkover we gave away. "
        "How many points do we have?",
        num(31, "points"),
        "«Three points for a win, one point for a draw, none for a defeat.» «A team that concedes a match "
        "(a walkover) loses it 0-5 and has one further point deducted.» Check: 9 * 3 + 5 * 1 - 1",
        [DF],
    ),
    (
        "three_agent",
        "Find out how much of each £42 match fee goes to the referee, then run `print(ref * 22)` with ref "
        "bound to that amount.",
        refused("the referee's share of the match fee"),
        "the fee covers hall hire and the referee together; no split is given. Absent: «referee's fee» "
        "«referee fee» «paid to the referee»",
        [DF],
    ),
    (
        "natural",
        "Our winger was shown a blue card last week for dissent. What will the league fine us for that?",
        refused("a fine for a blue card"),
        "Schedule 1 has cautions and sendings-off only. Absent: «blue card» «blue»",
        [DF],
    ),
    # ------------------------------------------------------------------ a shipping manifest
    (
        "single",
        "Which HS code are the bicycle frames declared under on the Seraph Bay manifest?",
        text("8714.91", "HS 8714.91"),
        "«bicycle frames, HS 8714.91» Check: '8714.91'",
        [PF],
    ),
    (
        "single",
        "When is MV Seraph Bay due into Rotterdam on voyage 0447E?",
        day("2026-11-09"),
        "«ETA 2026-11-09» Check: date(2026, 11, 9)",
        [PF],
    ),
    (
        "chained",
        "Before any surcharges, what ocean freight will Hartfield Cycles' crates be charged on this sailing?",
        num(155.80, "EUR"),
        "«PMR-26-0812 Hartfield Cycles Rijwiel BV 3 crates 1,240.0 4.10» «EUR 38.00 per revenue tonne» "
        "«the CBM or the gross weight in tonnes (1,000 kg), whichever is greater» Check: max(4.10, "
        "1240.0 / 1000) * 38.00",
        [PF],
    ),
    (
        "chained",
        "What do the two Ellery Ceramics consignments in container PMCU 884120-3 weigh together, in kg?",
        num(698.5, "kg"),
        "«PMR-26-0811 Ellery Ceramics Van Dijk Interiors 12 cartons 486.0» «PMR-26-0814 Ellery Ceramics "
        "Atelier Noord 6 cartons 212.5» Check: 486.0 + 212.5",
        [PF],
    ),
    (
        "three_agent",
        "Work out the bunker surcharge on Saxby Audio's loudspeakers: find the freight rate, the BAF "
        "percentage for this sailing and their revenue tonnes, then run "
        "`print(round(rt * rate * pct / 100, 2))`.",
        num(12.77, "EUR"),
        "«PMR-26-0815 Saxby Audio Klankhuis NL 2 pallets 690.0 2.80» «EUR 38.00 per revenue tonne» «12% "
        "of the ocean freight, for sailings from 1 October 2026» «ETD 2026-11-06» Check: run(rt=2.80, "
        "rate=38.00, pct=12)",
        [PF],
    ),
    (
        "three_agent",
        "What is the stowage density of the milled oats? Read their gross weight and volume off the "
        "manifest and run:\n```python\nprint(round(kg / cbm, 1))\n```",
        num(833.3, "kg/m3"),
        "«20 bags 1,000.0 1.20 milled oats» Check: run(kg=1000.0, cbm=1.20)",
        [PF],
    ),
    (
        "natural",
        "I'm at Atelier Noord and waiting on our six cartons of stoneware. Leaving out surcharges and "
        "fees, what ocean freight are they charged?",
        num(38, "EUR"),
        "«PMR-26-0814 Ellery Ceramics Atelier Noord 6 cartons 212.5 0.95» «EUR 38.00 per revenue tonne» "
        "«minimum 1 revenue tonne per HBL» Check: max(0.95, 212.5 / 1000, 1) * 38.00",
        [PF],
    ),
    (
        "natural",
        "De Molen Bakkerij here. For our oats on this sailing, what do the ocean freight, the bunker "
        "surcharge and the documentation fee come to together? Leave out terminal handling.",
        num(86.07, "EUR"),
        "«PMR-26-0813 Cobb & Daughters De Molen Bakkerij 20 bags 1,000.0 1.20» «EUR 38.00 per revenue "
        "tonne» «12% of the ocean freight, for sailings from 1 October 2026» «Documentation EUR 35.00 "
        "per HBL.» Check: round(max(1.20, 1.0) * 38 * 1.12 + 35, 2)",
        [PF],
    ),
    (
        "single",
        "What's the tare weight of container PMCU 884120-3?",
        refused("the container's tare weight"),
        "only gross weights of the consignments are given. Absent: «tare»",
        [PF],
    ),
    (
        "three_agent",
        "Get the cargo insurance premium on Hartfield's crates and run `print(round(premium * 1.12, 2))`.",
        refused("the cargo insurance premium"),
        "the manifest charges freight, BAF, THC and documentation; no insurance. Absent: «insurance» "
        "«premium»",
        [PF],
    ),
    # ------------------------------------------------------------------ a subtitle file of a shop's video
    (
        "single",
        "How much does Spindle Cycles charge for a basic safety check?",
        num(25, "GBP"),
        "«The basic safety check is twenty-five pounds:» Check: 25",
        [SC],
    ),
    (
        "single",
        "How many working days should I expect Spindle to keep my bike for a premium service?",
        num(5, "days"),
        "«Turnaround is usually three working days; for a premium service, allow five.» Check: 5",
        [SC],
    ),
    (
        "chained",
        "What would a full service on my e-bike come to at Spindle?",
        num(100, "GBP"),
        "«A full service is eighty-five pounds,» «E-bikes add fifteen pounds to any service,» Check: 85 + 15",
        [SC],
    ),
    (
        "chained",
        "Both tyres on my bike are flat and the wheels are still on it. What will Spindle charge to fix "
        "the two punctures?",
        num(24, "GBP"),
        "«A puncture repair is twelve pounds a wheel,» Check: 2 * 12",
        [SC],
    ),
    (
        "three_agent",
        "I'm booking a full service under Spindle's winter deal and want two pairs of brake pads fitted. "
        "Look up the service price and the price of a pair of pads, then run "
        "`print(service * 0.9 + pads * 2)`.",
        num(92.5, "GBP"),
        "«A full service is eighty-five pounds,» «brake pads are eight pounds a pair» «take ten percent "
        "off the service price. Parts are not included.» Check: run(service=85, pads=8)",
        [SC],
    ),
    (
        "three_agent",
        "```python\nprint(premium // basic)\n```\nHow many basic safety checks could I buy for the price "
        "of one premium strip-down? Bind premium and basic to Spindle's two prices and run the code above.",
        num(5),
        "«The premium strip-down service is a hundred and forty pounds, parts extra.» «The basic safety "
        "check is twenty-five pounds:» Check: run(premium=140, basic=25)",
        [SC],
    ),
    (
        "natural",
        "I'm a student with my card and I want a full service on my ordinary (non-electric) bike. I'll "
        "book it for 12 November. What's the least I can get away with paying?",
        num(76.50, "GBP"),
        "«A full service is eighty-five pounds,» «book any service before the thirtieth of November and "
        "we take ten percent off the service price.» «Students with a valid card get five pounds off, but "
        "you can't have that on top of the winter deal.» Check: min(85 * 0.9, 85 - 5)",
        [SC],
    ),
    (
        "natural",
        "I'll drop my back wheel in on its own to get a puncture sorted, and buy a spare inner tube while "
        "I'm there. How much will that be?",
        num(15, "GBP"),
        "«or nine if you bring the wheel in off the bike.» «an inner tube is six.» Check: 9 + 6",
        [SC],
    ),
    (
        "chained",
        "Both my wheels are buckled. How much would Spindle charge to true the pair?",
        refused("the price of wheel truing"),
        "the video prices checks, services, punctures and some parts, not truing. Absent: «truing» «true»",
        [SC],
    ),
    (
        "natural",
        "I had a premium service at Spindle last winter and want to compare. What did the premium service "
        "cost back then?",
        refused("last winter's premium service price"),
        "only last winter's full service price (seventy-five) is given. Absent: «premium service was» "
        "«last winter's premium»",
        [SC],
    ),
    # ------------------------------------------------------------------ an auction catalogue
    (
        "single",
        "What's the low estimate on the Watson & Sons microscope in Millrace's sale 412?",
        num(350, "GBP"),
        "«A lacquered brass monocular microscope, Watson & Sons, c.1890, £350-450» Check: 350",
        [MA],
    ),
    (
        "single",
        "Who made the barograph in Millrace sale 412?",
        text("Short & Mason", "Short and Mason"),
        "«A barograph by Short & Mason, oak case» Check: 'Short & Mason'",
        [MA],
    ),
    (
        "chained",
        "If I win the walnut mantel clock in the saleroom with a hammer price of £200, what's my total bill?",
        num(260, "GBP"),
        "«Buyer's premium is 25% of the hammer price, plus VAT at 20% on the premium.» Check: 200 + 200 "
        "* 0.25 * 1.20",
        [MA],
    ),
    (
        "chained",
        "What's the midpoint of Millrace's estimate for the Kullberg chronometer?",
        num(2500, "GBP"),
        "«chronometer by Kullberg, £2,200-2,800 †» Check: (2200 + 2800) / 2",
        [MA],
    ),
    (
        "three_agent",
        "The Kullberg chronometer goes under the hammer at £2,500 in the room. Look up the buyer's premium "
        "and VAT percentages, then run with h = 2500:\n```python\n"
        "print(h + h * prem / 100 * (1 + vat / 100) + h * vat / 100)\n```",
        num(3750, "GBP"),
        "«Buyer's premium is 25% of the hammer price, plus VAT at 20% on the premium.» «Lots marked † "
        "carry VAT at 20% on the hammer price as well.» «£2,200-2,800 †» Check: run(h=2500, prem=25, "
        "vat=20)",
        [MA],
    ),
    (
        "three_agent",
        "'Harbour at Dusk' is knocked down to a room bidder at £1,500. Find the resale right percentage "
        "and run `print(h * (1 + arr / 100) + h * 0.30)` with h = 1500 and arr bound to it.",
        num(2010, "GBP"),
        "«Lots marked ‡ carry Artist's Resale Right: 4% of the hammer price is added.» «£1,200-1,800 ‡» "
        "Check: run(h=1500, arr=4)",
        [MA],
    ),
    (
        "natural",
        "I bid online and won the Georgian pocket globes at £700. What do I have to pay Millrace in all?",
        num(935.20, "GBP"),
        "«Buyer's premium is 25% of the hammer price, plus VAT at 20% on the premium.» «Bidding through "
        "our live internet platform adds a further 3% of the hammer price, plus VAT on that 3%.» «A pair "
        "of Georgian pocket globes, 7 cm diameter» Check: round(700 + 700 * 0.25 * 1.2 + 700 * 0.03 * "
        "1.2, 2)",
        [MA],
    ),
    (
        "natural",
        "I really want the Short & Mason barograph but I'm worried about the reserve. What's the highest "
        "it could possibly be set at?",
        num(450, "GBP"),
        "«Reserves are never higher than the low estimate.» «A barograph by Short & Mason, oak case with "
        "bevelled glass, £450-650» Check: 450",
        [MA],
    ),
    (
        "single",
        "What is the estimate for lot 104 in Millrace sale 412?",
        refused("an estimate for lot 104 (the lot is withdrawn)"),
        "lot 104 is marked WITHDRAWN, with no description or estimate. Absent: «estimate for lot 104» "
        "«104 A»",
        [MA],
    ),
    (
        "three_agent",
        "Find the price the Kullberg chronometer actually sold for and run `print(h * 1.3)` with h bound "
        "to it.",
        refused("the hammer price the chronometer sold for"),
        "the catalogue is for a sale not yet held; it gives estimates only, no results. Absent: «sold "
        "for» «realised»",
        [MA],
    ),
]
