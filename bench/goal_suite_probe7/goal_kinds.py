"""Answer kinds and document paths shared by the probe7 goal lists (goals_a.py, goals_b.py, goals_c.py)."""

GB = "x-granite-hollow-bouldering/membership-and-prices-2026-27.yaml"
LW = "x-loomhall-coworking/plans-and-pricing.html"
FS = "x-fairholt-school-trip/Y5-residential-letter-and-consent.txt"
PK = "x-pawsbury-kennels/pawsbury-price-export-2026.2.json"
TS = "x-tipright-skip-hire/tipright-domestic-rates.ini"
VE = "x-voltway-ev-charging/Your-Voltway-tariff-from-1-May-2026.eml"
LE = "x-lanternlock-escape-rooms/booking-faq.txt"
HH = "x-hivewell-honey-show/schedule-2026.md"
SO = "x-starfold-observatory/public-programme-spring-2026.csv"


def num(value, unit="", tol=0.01):
    return {"type": "number", "value": value, "tol": tol, "unit": unit}


def text(value, *accept):
    return {"type": "text", "value": value, "accept": list(accept)}


def day(iso):
    return {"type": "date", "value": iso}


def refused(missing):
    """The documents do not answer: the planner must name the value missing (exit 3)."""
    return {"type": "refused", "missing": missing}
