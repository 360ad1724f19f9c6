"""Answer kinds and document paths shared by the probe6 goal lists (goals_a.py, goals_b.py, goals_c.py)."""

DS = "w-tamsin-driving-school/tamsin-lessons-and-packages-2026.adoc"
TR = "w-orlo-translation-rates/orlo-rate-card-2026-27.xml"
KH = "w-kestle-scaffold-hire/kestle-hire-rates-2026.csv"
ML = "w-mossgiel-livery-yard/letter-to-liveries-april-2026.txt"
PC = "w-pennock-campsite/pennock-sands-tariff-2026.org"
CH = "w-cairnbeg-mountain-hut/cairnbeg-hut-booking-summer-2026.rec"
HC = "w-haddow-chess-congress/haddow-congress-2026-entry-form.txt"
FP = "w-felgate-pest-control/agreement-schedule-2-charges-rev-c.txt"
BD = "w-brisa-dive-centre/brisa-prices-2026.wiki"
QP = "w-quarrel-piano-services/quarrel-rates-2026.tsv"
AS = "w-ambersley-photo-studio/invoice-AS-2026-0147-and-terms.txt"


def num(value, unit="", tol=0.01):
    return {"type": "number", "value": value, "tol": tol, "unit": unit}


def text(value, *accept):
    return {"type": "text", "value": value, "accept": list(accept)}


def day(iso):
    return {"type": "date", "value": iso}


def refused(missing):
    """The documents do not answer: the planner must name the value missing (exit 3)."""
    return {"type": "refused", "missing": missing}
