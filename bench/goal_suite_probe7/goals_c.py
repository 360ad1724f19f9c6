"""Probe7 goals: the observatory's public programme (a comma CSV with comment lines)."""

from goal_kinds import SO, num, refused, text

GOALS_C = [
    (
        "single",
        "What time does Starfold Observatory's Saturn at opposition evening begin?",
        text("20:00", "8 pm", "8:00 pm", "8pm"),
        "«2026-09-12,Sat,Saturn at opposition,20:00,120» Check: '20:00'",
        [SO],
    ),
    (
        "single",
        "How many places does Starfold have on its astrophotography workshop?",
        num(12, "places"),
        "«Astrophotography workshop,19:30,180,140.00,,120.00,,12,» Check: 12",
        [SO],
    ),
    (
        "single",
        "What is the adult price of the Starfold guided night-sky tour on 14 November 2026?",
        refused("a night-sky tour on 14 November 2026"),
        "the spring programme's last tour is on 2026-11-07; nothing is listed for 14 November. "
        "Absent: «2026-11-14»",
        [SO],
    ),
    (
        "chained",
        "The astrophotography workshop at Starfold: at what time does it finish?",
        text("22:30", "10:30 pm", "10.30 pm"),
        "«2026-09-26,Sat,Astrophotography workshop,19:30,180» Check: clock('19:30', 180)",
        [SO],
    ),
    (
        "chained",
        "Find the adult, child and family (2 adults + 2 children) prices for a Starfold night-sky tour. How "
        "much does a family of four save by buying the family ticket?",
        num(14, "NZD"),
        "«Guided night-sky tour,20:30,90,45.00,22.00,38.00,120.00,40» Check: 2 * 45 + 2 * 22 - 120",
        [SO],
    ),
    (
        "three_agent",
        "For the astrophotography workshop, take the adult price, add camera hire, and run "
        "`print(f'NZD {c:.2f}')` with c that cost.",
        num(175, "NZD"),
        "«Astrophotography workshop,19:30,180,140.00» «camera hire 35.00» Check: run(c=140 + 35)",
        [SO],
    ),
    (
        "three_agent",
        "Look up what Starfold charges for a private telescope session, multiply it by four guests and "
        "pass the result as q to `print(round(q))`.",
        refused("the price of a private telescope session"),
        "the programme lists public events only. Absent: «private»",
        [SO],
    ),
    (
        "natural",
        "Two adults and our 3-year-old want to go to the solar viewing on 31 October, booking online. What "
        "do we pay?",
        num(42.5, "NZD"),
        "«2026-10-31,Sat,Solar viewing (daytime),11:00,60,20.00» «Children under 5 go free to every event "
        "except the astrophotography workshop (16+).» «Booking fee: 2.50 per booking online» "
        "Check: 2 * 20 + 0 + 2.50",
        [SO],
    ),
    (
        "natural",
        "Our walking club, 12 adults, will buy tickets at the door for the 19 September night-sky tour. "
        "What is the total?",
        num(486, "NZD"),
        "«2026-09-19,Sat,Guided night-sky tour,20:30,90,45.00» «Groups of 10 or more paying adults: 10% off "
        "adult tickets (night-sky tours only).» «none at the door» Check: 12 * 45 * (1 - 0.10)",
        [SO],
    ),
    (
        "natural",
        "We'll drive up for the meteor watch. How much is parking at Starfold for the night?",
        refused("the parking charge"),
        "the programme says nothing about parking. Absent: «parking» «car park»",
        [SO],
    ),
]
