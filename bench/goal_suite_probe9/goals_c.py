"""Probe9 goals over the café's price diff, the campervan club's forum thread and the bank statement."""

from goal_kinds import GC, TC, TV, num, refused, text

GOALS_C = [
    # ------------------------------------------------------------------ a unified diff of a till price file
    (
        "single",
        "What does a flat white cost at the Granary since the autumn price change?",
        num(5.50, "NZD"),
        "«+flat_white = 5.50» «+# effective 2026-10-05» Check: 5.50",
        [GC],
    ),
    (
        "single",
        "Did the Granary touch the mochaccino price this autumn? What is it now?",
        num(6.20, "NZD"),
        "«mochaccino = 6.20» Check: 6.20",
        [GC],
    ),
    (
        "chained",
        "A large flat white with an extra shot: what will the Granary till ring up from 5 October?",
        num(7.10, "NZD"),
        "«+flat_white = 5.50» «+large_upsize = 1.00» «extra_shot = 0.60» Check: 5.50 + 1.00 + 0.60",
        [GC],
    ),
    (
        "chained",
        "By what percentage has the Granary's bacon butty gone up? Give it to two decimal places.",
        num(10.53, "%"),
        "«-bacon_butty = 9.50» «+bacon_butty = 10.50» Check: round((10.50 - 9.50) / 9.50 * 100, 2)",
        [GC],
    ),
    (
        "three_agent",
        "How much does the coffee-and-scone deal save over buying a regular long black and a cheese scone "
        "separately at the new prices? Look up the three prices and run `print(round(c + s - deal, 2))`.",
        num(0.50, "NZD"),
        "«+long_black = 5.00» «cheese_scone = 5.50» «+coffee_and_scone = 10.00» Check: run(c=5.00, "
        "s=5.50, deal=10.00)",
        [GC],
    ),
    (
        "three_agent",
        "How many hours is the Granary open on a Saturday under the new hours? Read them and run "
        "print(close - open) with open and close bound to the opening and closing hour as whole numbers.",
        num(7, "h"),
        '«+saturday = "08:00-15:00"» Check: run(open=8, close=15)',
        [GC],
    ),
    (
        "natural",
        "I get a regular flat white with oat milk every weekday. Compared with before October, how much "
        "less does my week of five of them cost now?",
        num(2.00, "NZD"),
        "«-flat_white = 5.20» «-oat_milk = 0.70» «+flat_white = 5.50» «+oat_milk = 0.00» Check: "
        "round(5 * ((5.20 + 0.70) - (5.50 + 0.00)), 2)",
        [GC],
    ),
    (
        "natural",
        "A regular long black made with soy milk and a cheese scone, please - charge me whichever way is "
        "cheaper. What do I pay?",
        num(10.70, "NZD"),
        "«+long_black = 5.00» «soy_milk = 0.70» «cheese_scone = 5.50» «+coffee_and_scone = 10.00 # any "
        "regular coffee + a cheese scone; milk extras still charged» Check: min(10.00 + 0.70, 5.00 + "
        "0.70 + 5.50)",
        [GC],
    ),
    (
        "natural",
        "My ten-year-old only wants a small bowl of the pumpkin soup. How much is that at the Granary?",
        refused("the price of a small pumpkin soup"),
        "only a large pumpkin soup (16.00) and the soup of the day are priced. Absent: "
        "«pumpkin_soup_small» «pumpkin_soup_regular»",
        [GC],
    ),
    (
        "three_agent",
        "Look up the Granary's chai latte price and run `print(round(chai * 9, 2))` to see what nine of "
        "them cost.",
        refused("the price of a chai latte"),
        "no chai is on the till list. Absent: «chai»",
        [GC],
    ),
    # ------------------------------------------------------------------ a BBCode forum thread
    (
        "single",
        "What's the pitch fee per night at the Thistledown Easter rally?",
        num(18, "GBP"),
        "«Pitch: £18 per van per night, includes 2 adults» «it's £18 now (post edited)» Check: 18",
        [TV],
    ),
    (
        "single",
        "What amperage is the electric hook-up at Brackenside Farm for the rally?",
        num(16, "A"),
        "«16 amp. Showers yes» Check: 16",
        [TV],
    ),
    (
        "chained",
        "How many nights does the Thistledown Easter rally run for?",
        num(4, "nights"),
        "«Thursday 25 March to Monday 29 March 2027» Check: (date(2027, 3, 29) - date(2027, 3, 25)).days",
        [TV],
    ),
    (
        "chained",
        "Two of us in one van for three nights on electric: what's our rally bill, rally fee included?",
        num(79, "GBP"),
        "«Pitch: £18 per van per night, includes 2 adults» «Electric hook-up £5 per night» «Rally fee for "
        "club funds: £10 per van, paid once» Check: 18 * 3 + 5 * 3 + 10",
        [TV],
    ),
    (
        "three_agent",
        "How much has the club taken in rally fees so far? Find the fee per van and how many vans are "
        "booked, then run `print(vans * fee)`.",
        num(120, "GBP"),
        "«Rally fee for club funds: £10 per van, paid once» «that's 12 vans booked so far» Check: "
        "run(vans=12, fee=10)",
        [TV],
    ),
    (
        "three_agent",
        "We're two adults staying two nights with no extras. With nights = 2 and the other values from "
        "the thread, run this to see what's left to pay on site:\n```python\n"
        "total = pitch * nights + rally_fee\nprint(total - deposit)\n```",
        num(16, "GBP"),
        "«Pitch: £18 per van per night, includes 2 adults» «Rally fee for club funds: £10 per van, paid "
        "once» «A £30 deposit per van secures your place, the rest is paid on site.» Check: run(pitch=18, "
        "nights=2, rally_fee=10, deposit=30)",
        [TV],
    ),
    (
        "natural",
        "It'll be me, my wife, our 19-year-old son and the dog, in one van for all four nights, on "
        "electric. What's the rally going to cost us altogether?",
        num(104, "GBP"),
        "«Pitch: £18 per van per night, includes 2 adults» «Extra adults £4 each per night, children "
        "under 16 free» «Electric hook-up £5 per night» «£1 per dog per night» «Rally fee for club funds: "
        "£10 per van, paid once» «book all four nights and the fourth night's pitch fee is free. Extras "
        "are still charged for that night.» Check: 18 * 3 + 4 * 4 + 5 * 4 + 1 * 4 + 10",
        [TV],
    ),
    (
        "natural",
        "There are three of us going to the rally: we each want one shower and we're all doing the quiz. "
        "How much cash should we bring for that?",
        num(6.60, "GBP"),
        "«Showers yes - 20p a go» «Quiz night on the Saturday, £2 a head» Check: 3 * 0.20 + 3 * 2",
        [TV],
    ),
    (
        "chained",
        "What would a hardstanding pitch cost us for the four nights of the rally?",
        refused("the price of a hardstanding pitch"),
        "one pitch price is given, with no hardstanding option. Absent: «hardstanding» «hard standing»",
        [TV],
    ),
    (
        "natural",
        "We were at last year's Easter rally too. What did the electric hook-up cost per night back then?",
        refused("last year's hook-up price"),
        "only last year's pitch price (£16) is quoted. Absent: «last year's hook-up» «hook-up £4»",
        [TV],
    ),
    # ------------------------------------------------------------------ a bank statement
    (
        "single",
        "How much went out to Thornby Parish Council for the ground rent in September?",
        num(350, "GBP"),
        "«THORNBY PARISH CNCL GROUND RENT 350.00» Check: 350",
        [TC],
    ),
    (
        "single",
        "Which cheque number paid the cricket club's electricity in September?",
        text("000317"),
        "«CHQ 000317 (ELECTRICITY)» Check: '000317'",
        [TC],
    ),
    (
        "chained",
        "How much did Thornby CC take in subscriptions over September?",
        num(230, "GBP"),
        "«SUBS J ASHWORTH 95.00» «SUBS R PATEL 95.00» «SUBS M O'NEILL (JUNIOR) 40.00» Check: 95 + 95 + 40",
        [TC],
    ),
    (
        "chained",
        "What was paid out of the club's current account in total during September?",
        num(852.76, "GBP"),
        "«ECB PLAY-CRICKET INSURANCE 212.40» «GROUNDSHOP LTD MOWER PARTS 148.99» «GROUND RENT 350.00» "
        "«000317 (ELECTRICITY) 96.12» «WILCO LINE PAINT 36.75» «ACCOUNT FEE - SEE NOTE 2 8.50» Check: "
        "round(212.40 + 148.99 + 350.00 + 96.12 + 36.75 + 8.50, 2)",
        [TC],
    ),
    (
        "three_agent",
        "Run `print(round(close - open_, 2))` with open_ and close set to the brought-forward and "
        "carried-forward balances on Thornby's statement 112.",
        num(63.74, "GBP"),
        "«BALANCE BROUGHT FORWARD 4,316.27» «BALANCE CARRIED FORWARD 4,380.01» Check: run(open_=4316.27, "
        "close=4380.01)",
        [TC],
    ),
    (
        "three_agent",
        "How much could the club spend before it hits its overdraft limit? Take the closing balance and "
        "the arranged limit and run:\n```python\nprint(round(balance + limit, 2))\n```",
        num(4880.01, "GBP"),
        "«BALANCE CARRIED FORWARD 4,380.01» «Arranged overdraft limit: £500» Check: run(balance=4380.01, "
        "limit=500)",
        [TC],
    ),
    (
        "natural",
        "We're expecting 31 transactions through the club account next month. What will Northgate charge "
        "us as the account fee?",
        num(10.60, "GBP"),
        "«The monthly account fee is £8.50 and covers up to 25 transactions a month; each transaction "
        "above 25 costs 35p.» Check: round(8.50 + (31 - 25) * 0.35, 2)",
        [TC],
    ),
    (
        "natural",
        "The club is a registered CASC with a turnover of about £20,000 a year. What will our monthly "
        "account fee be in February 2027?",
        num(0, "GBP"),
        "«From 1 January 2027 community amateur sports clubs (CASCs) and charities with a yearly turnover "
        "under £100,000 pay no monthly fee.» Check: 0",
        [TC],
    ),
    (
        "three_agent",
        "Find the balance in the club's Business Saver and run `print(round(saver * 0.0135, 2))` to "
        "estimate a year's interest.",
        refused("the Business Saver balance"),
        "the saver account is named with its rate only; its balance is on its own statement. Absent: "
        "«71107741 balance» «saver balance»",
        [TC],
    ),
    (
        "single",
        "What was Thornby Cricket Club's balance at the end of October 2026?",
        refused("the balance at the end of October 2026"),
        "statement 112 covers September only. Absent: «Oct» «31 October»",
        [TC],
    ),
]
