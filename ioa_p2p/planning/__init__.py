"""ioa_p2p.planning: requests as plans of typed steps with data dependencies (pure, no I/O).

- ``types.py``    :class:`Plan`, :class:`PlanStep`, step kinds and the abilities they need
- ``values.py``   :class:`Value` (numbers with units, dates, text, lists), reading values from text
- ``clock.py``    clock times as values (minutes since midnight, shown HH:MM, day roll-over stated) and
  the arithmetic that produces a time (a time plus or minus durations, a duration the documents state)
- ``expr.py``     arithmetic instructions in words -> expressions over earlier values
- ``natural.py``  naturally worded questions -> lookups + a computation (comparisons, totals, VAT)
- ``compared_parties.py`` what two parties pay for one thing, and the difference ("how much more does a
  non-member pay than a member for Start Sailing?")
- ``relations.py`` sums, differences in a unit, changes, containers, repetitions, averages, shares
- ``changed.py``  how much one thing went up or down, neither end given ("by what percentage does the day
  pass go up on 1 March?"): a lookup, then ``change(v1)`` read from its document (both ends in one
  sentence, or the old value's sentence and the thing's own row or column), else the old value named missing
- ``basket.py``   an order's total: the things a request lists (with counts) each looked up with the
  scene's proper names, the counted sum
- ``options.py``  two ways of buying one thing compared, one counted ("a tray rather than six pots one at a
  time"): each looked up, the counted difference
- ``taxed.py``    a price with the documents' VAT added in the wordings natural.py misses ("once VAT is
  added", "plus VAT")
- ``first_further.py`` ``(vA + vB) * N`` reworked when one price is a first item's and the other each
  further one's (``vA + (N - 1) * vB``), or one is a fee charged once (``vA * N + vB``)
- ``parse.py``    :func:`plan_request`: whole-request plans first, then each clause a step of its own
- ``clauses.py``  a request's text -> clauses (code blocks cut out, sentences and sequencing words split)
- ``clause_step.py`` one clause -> one step (code, a date moved, a calculation, a lookup or a task)
- ``scene.py``    statements that set the scene join their question; deadlines (a period added to a date);
  a calculation after a lead phrase that names its value ("Using the rate of X, estimate Y as rate x 5"): the
  value looked up first
- ``counted.py``  counts of kinds each priced by an earlier lookup ("2 adults plus 3 children" after the
  adult's and the child's fares): ``2 * v1 + 3 * v2``
- ``segment.py``  code pasted after a colon without a fence
- ``tasked.py``  a scene's task sentences as the questions they ask ("Total the tickets" after the scene:
  what the tickets cost in total), planned like a question of their own
- ``code_names.py`` the inputs of a piece of Python: the names it reads but never sets
- ``binding.py``  which earlier value each code input holds when the clause does not say it outright
  (issue 23, p-bind): names listed in the sentence's order ("take a and c", "using the values above as a
  and b"), the step's own words (``fee_per_kg``, "chip" of "microchip"), comments naming a value, a
  quantity the request states ("nights" for "3 nights"), a description ("with a set to the deposit")
- ``gathered.py`` a request planned again when a code input is left unbound (issue 23, p-three): one lookup
  per input, each bound to the value the request describes that its name fits, then the code
- ``gather_items.py`` the values a request asks to gather, one description each ("find A, B and C", "both
  totals", "with x and y set to the A and B balances")
- ``worded.py`` arithmetic asked in words over the values found before it (issue 23, p-words2): "average
  them", "compute the percentage" (the whole the base), "the larger of the two", "add all three up", "the
  mean X per Y": a calculation bound to the values found and not used yet; where a clause was a task, an
  operation by a fact named in words ("multiply by the grams in a packet"): the fact looked up first
- ``checked.py`` a check the user asks for ("check that it is within the limit", "is EUR 50 enough for
  both?"): code that prints yes or no, the bound stated, found before, or looked up (missing: named, exit 3)
- ``name_match.py`` how well a code name fits a description (words, word starts, initials, units) and the
  best one-to-one fit
- ``scene_context.py`` statements before the lookups of a request that runs code: the lookups' context,
  no task of their own
- ``literal.py``  self-contained calculations, percentage relations, conversions, rounding instructions
- ``lookups.py``  a lookup of two values as two lookups; values named by what they are in a calculation
- ``lookups_added.py`` lookups a calculation implies ("add the A and the B", "add the X7's weight to it")
  and a lookup asked for a period when a later step converts its value to a unit of time
- ``applied.py``  calculations over earlier values asked for in words (rates, periods, shares on top)
- ``rates.py``    natural questions that apply a rate from the documents to the request's quantity
- ``savings.py``  what one option saves over another after two lookups of prices ("how much does the card
  save compared with paying for ten single visits"): the difference of two costs, the counted one scaled
- ``on_top.py``   a percentage looked up (VAT, a discount) applied to an amount looked up: "what is one month
  including VAT?" after the price and the VAT rate
- ``followups.py`` requests over earlier values they do not name: containers for a number of things
  (rounded up), repeated batches, two values combined by what the result is called, a rate just found
  applied to a follow-up question's quantity
- ``operands.py`` operands a calculation names that are facts (looked up), amounts at a rate, two
  questions in one sentence, "X charges a rate. Find it", statements with a quantity before a calculation
- ``shares.py``   percentages (stated or found) applied to earlier values, prices per unit of a pack,
  date shifts after a date question
- ``ruled.py``    a charge or a count worked out from a document's typed rules: the base rate, other
  charges the question names, percentages and surcharges whose condition it meets, VAT; counts from a
  capacity or a pack size
- ``rule_apply.py`` one rate applied to a question's quantities: operands (converted, rounded, started
  blocks, free amounts, minimum quantities, capacities), per-item and whole bounds, bands, seasons, tiers
- ``rule_fit.py`` the question read against the rules: its words and how telling each is, its quantities
  (rounded as the rules say) and ages
- ``anchored.py`` a charge from the price the lookup found and the rules around it: its own cap, its
  section's "per day, at most N days", the column whose period holds, every N-th unit free, fixed amounts
  and percentages whose condition the question meets, a count of what it is for, an exemption
- ``persons.py``  a party of several kinds of people ("a senior and a student"), each at its own row's
  price plus the supplements asked for
- ``banded.py``   a percentage chosen by the band a question's quantity falls in (uptime, days of notice,
  days late, a count), applied to the amount it is of
- ``allowance.py`` the units beyond an allowance ("250 km per day included; each further km costs ...")
  at their rate, for the class a label names
- ``periods.py``  periods a document's labels state ("until 31 Dec 2026", "Apr-Oct") and the day or month
  a question names
- ``tariffs.py``  a price applied on the documents' terms (per-unit, steps, minimums, caps; a bill's items)
- ``doc_facts.py`` quantities and rates read from document text (what each is per, the words around it)
  and the quantities a request states
- ``derive_plan.py`` which questions a derivation answers (a quantity, a time moved by a duration the
  documents define, an arrival, a connection) and their plan: a lookup and ``derive(v1)``
- ``derive.py``   a question answered by how the documents define what it asks for: backwards from the
  unit asked for through the rates that define it, each operand given, stated or derived
- ``kept_lookup.py`` a right lookup kept (issue 23, p-derive): a derivation or a charge whose value looked up
  answers its question as asked (every quantity one or stated by the value's own row or sentence, every
  telling word its own or naming nothing else, the rate's unit its own) gives that value, nothing applied
- ``typed_charge.py`` a charge from the answer document's typed rules (situated, composed, compared,
  an allowance, ruled or anchored on the price looked up) and which of two readings wins
- ``chains.py``   the search behind it: chains of rates from the unit asked for back to the quantities
  given or stated, scored by how well their facts fit the question
- ``closed.py``   derivations whose form the documents state outright (a formula, phases summed), tried
  before chains of rates and the only ones a lookup that found no single answer may feed
- ``formula.py``  a formula of the documents ("RCF = 1.118 x 10^-5 x r x N^2, where ...") solved for the
  variable the question asks for, the others from the question or the table row it names
- ``summed.py``   the whole duration of one item's phases the documents list ("to maximum speed in 30
  seconds; braking in 35 seconds"), plus the durations the question states ("a 10-minute run")
- ``category.py`` the one row of a table of bands ("Child (4-17)", "2 to 10 kg") that holds the age or
  measure a question states, and its price: where a refused lookup's charge starts
- ``prorata.py``  a yearly charge for the whole months left of the year the documents define, from the
  day the question starts, where they state that rule
- ``rulebook.py`` a document's typed rules with what their words say, read once per document: the quantity
  a rate is stated over ("per 45 minutes"), first and further periods, started periods in full, a
  percentage's threshold and ages, what it is not off, its minimum, exemptions by age, "charged per started
  hour", a longer period's price capping a shorter one's charge
- ``party.py``    the people a question is about: counts and the ages it states (never a count a price is
  multiplied by: "I'm 70 and ..."; "two adults and our
  9-year-old", "a couple", "alone", "I'm 67")
- ``rule_part.py`` one rate of a document applied on its own terms (a part of a composed charge): its band
  or its tiers (each tier's part of the quantity),
  its measure over the quantity it is stated over, first and further periods, people by age, its bounds
- ``composer.py`` a charge composed of several rules (a base, the other charges the question names, the
  percentages whose condition holds, VAT), every given quantity used, or none (issue 23, class 7)
- ``valued.py``   a charge on an amount of money the question gives: cover per block of a declared value
  (a free first amount, a floor, a cap), a percentage of a price, a value plus a fee, the VAT on a bill
- ``yearly.py``   a year of a monthly price paid at once, on the document's rule for it ("11 monthly fees
  instead of 12", an annual discount)
- ``season.py``   a month, day or weekday outside every period the document states, one of them a sentence
  saying what it covers ("this season (1 April to 31 October)", "Mondays to Saturdays only"): refused
- ``accounted.py`` every quantity a question gives is accounted for by the answer worked out for it (used,
  converted, or selecting a band; a room's price counts no people): else refused, the quantity named
- ``relative.py`` a value the documents state relative to another quantity ("20 °C lower than the
  conventional temperature") is never the level asked for: the base is named missing
- ``subject.py``  a derivation never works from a document that names none of the question's proper
  names or item codes (refused, the facts named as missing)
- ``rule_reader.py`` one sentence of the documents read into a typed rule (issue 23, p-rule): a factor
  ("1.6 times the single"), a discount ("one third off"), a surcharge ("adds EUR 20"), a charge over a
  quantity (a base fee, a grace or free allowance, started steps, a minimum quantity, a cap, a floor), a
  share per unit with a floor, the classes exempt; applied to an amount or a quantity as an expression
- ``rule_bands.py`` the range a band row holds ("11 to 15.9 kg", "over 20") and the one threshold a rule's
  sentence states for where it applies ("Upland gardens (above 200 m)")
- ``own_clause.py`` the clause of a rule's sentence that states its own percentage: a concession table read
  as one sentence gives each row's percentage the words of its row, not every row's (the condition checked)
- ``rule_step.py`` a step that applies a rule the documents name to an earlier value ("take the Valley
  Railcard discount off it": ``rule(v1)``, read from the value's own document or refused by name); a
  charge on the terms its own sentence states; a rule whose condition the question's quantity meets
- ``situated.py`` a natural question's charge from the rules of its value's document that its situation
  selects (issue 23, p-chain): the value on its own sentence's terms (two tiers ...), a first item's price
  plus each further one's for the count given, other charges the question adds by name, the factors and
  discounts its words or quantities select; an amount stated for a quantity scaled to the given one; a
  charge solved for the quantity that reaches an amount, its cap or its floor ("after how many days ...")
- ``situation_words.py`` the words of a situated question and of the rule subjects it selects (stems,
  the telling words of a document)
- ``operand_rules.py`` a rule the situation selects applied to the fact it names in words ("half the
  adult day price": a table cell) times the count given; a share of an amount the question gives; the
  price in the column of the class the asker's age falls in ("Concession: aged 65 and over") times the
  periods counted
- ``situation_values.py`` the quantities a question's situation states, typed by what they count or
  measure: units, things counted, a stay's nights between two dates, the party's persons and each kind
- ``rate_operand.py`` a rate the lookup found times the situation's quantity its unit takes (per night x
  nights, per child x children), or refused naming the quantity no value fits, never the bare rate
- ``unit_offers.py`` free units a document grants on a count ("stay 7 nights, pay for 6", "every fourth
  wash free") taken off the count a charge's expression multiplies
- ``paragraph_bounds.py`` a minimum or maximum charge stated in the rate's own paragraph ("Minimum charge
  ... EUR 9.00 per load") bounding the charge worked out with that rate
- ``fees.py``     fixed fees a rate brings in its own clause ("per litre plus a service fee of EUR 15")
- ``table_terms.py`` terms stated once for many charges (issue 23, p-natural5): a table caption's minimum
  quantity for every row under it (the alternative whose condition the question meets: "3 hours on
  Saturdays"), a charge whose own sentence frees what the question names ("the Small Hall is heated at no
  extra charge") left out of the sum
- ``covered.py``  a fee covering a first number of units plus a price for each unit beyond them ("£8.50
  and covers up to 25 transactions; each transaction above 25 costs 35p") read as one typed charge
- ``rounded.py``  the rounding a rule's own sentence states ("one third off, rounded down to the nearest
  5p") applied to the amount it gives
- ``own_minimum.py`` a minimum number of units in a rate's own line ("per key ... minimum 12 keys") raising
  the count the rate is charged for
- ``whichever.py`` the greater or lesser of a fixed sum and a multiple of the price looked up ("EUR 25 or
  twice the single, whichever is greater") for a question that names what the rule is for
- ``salvage.py``  a lookup that found no single answer still feeds the derivation its typed records close
  (:func:`accepted_value`: what every driver asks of an attempt's result)
- ``allowances.py`` a trip's daily allowance: its days, travel days and meals provided, on a handbook's rules
- ``described.py`` values described in words where code or a calculation needs them (planned first, bound);
  inputs named where they are looked up ("the A (a) and the B (b)"), a leading question code answers
- ``operations.py`` operations whose operands are named in words ("multiply the X of A by 3": looked up
  first), clauses that restate an earlier value, "the one in ...", conversions of an earlier value
- ``records.py``  a document's typed records and rules as the retrieval sends them (``data["records"]``, v1)
- ``coordinated.py`` one request about two things ("the A and B prices", "between the X of A and the X of
  B", "the P-1 and P-2 ... together"): a lookup each and the relation asked for
- ``shared.py``   two coordinated phrases with the words they share spelt out in each ("the 3.4.0 and
  3.4.1 releases", "the scores of the Kenya lot and the Brazil lot in the feed")
- ``measured.py`` a quantity counted in a unit a stated rate or an earlier value defines ("38.5 hours to
  days at 7.7 hours per day": divided; "how many weeks are 150 hours" after the week's length)
- ``scaled.py``   a value looked up scaled to a later step's amount: by the ratio to the amount the lookup
  states ("a EUR 5 voucher" -> "EUR 40 of vouchers"), things counted in an amount (ceil(amount / size)),
  a percentage applied to an amount (added or taken off, as its name says)
- ``ordered.py``  two earlier values in the order a relation names them ("A as a percentage of B", "what
  share of B is A", "how many times as heavy as B", "the X per Y")
- ``connections.py`` timetable connections: trips read from a timetable, the change time, the next departure
- ``compared.py`` two values of one document compared; durations read from a timetable's clock times
- ``refs.py``     references to earlier values ("it", "that price", "both", "the second")
- ``code.py``     code steps: the block, its variables and the values bound to them; blocks cut out of a
  request and given to the clause that asks to run them
- ``answer_types.py`` what a question asks for (duration, amount, count, date, time, name, reason, ...)
  and what a request asks to be done (a question, a calculation, code, a transformation)
- ``units.py``    units as values: conversions between units of one kind, rates
- ``dimensions.py`` what a unit measures and what a question asks to be measured; a value of another
  dimension than asked is refused (never an answer)
- ``structured.py`` values from adapters' structured results (the field asked for, never a rendering)
- ``routing.py``  which members can do a step (abilities first, wording second)
- ``missing.py``  :class:`Missing`: a value a step needs and nobody gave (what, unit, why); when a value
  looked up applies to none of the request's quantities; item codes that tell another item's passage
- ``refusal.py``  steps refused before they are assigned, the missing value named (status ``missing``,
  exit 3), never guessed
- ``compose.py``  task texts with the values of earlier steps bound (expressions, derivations, charges,
  date shifts, code inputs)
- ``results.py``  :class:`StepOutcome`; a result's value (data, structured, text) and whether it answers
  its step
- ``concluding.py`` the conclusion: the answer in its unit, one line per step, citations, missing values
"""

from typing import TYPE_CHECKING

from ioa_p2p.lazy import lazy_exports

if TYPE_CHECKING:
    from ioa_p2p.planning.compose import describe
    from ioa_p2p.planning.concluding import conclusion
    from ioa_p2p.planning.parse import plan_request
    from ioa_p2p.planning.results import StepOutcome, answers, value_of
    from ioa_p2p.planning.types import ABILITIES, CALC, CODE, DATE, KINDS, LOOKUP, TASK, Plan, PlanStep
    from ioa_p2p.planning.values import Value, parse_value

#: Where each public name lives: imported on first use (:func:`__getattr__`), so that importing one module
#: of the package (the calculator adapter's dates read :mod:`.values`) does not load the whole planner
#: (issue 26: an idle agent with a calculator imported ~45 planning modules, ~2.4 MB, at start).
_LAZY = {
    "describe": "compose",
    "conclusion": "concluding",
    **dict.fromkeys(("StepOutcome", "answers", "value_of"), "results"),
    "plan_request": "parse",
    **dict.fromkeys(
        ("ABILITIES", "CALC", "CODE", "DATE", "KINDS", "LOOKUP", "TASK", "Plan", "PlanStep"), "types"
    ),
    **dict.fromkeys(("Value", "parse_value"), "values"),
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "ABILITIES",
    "CALC",
    "CODE",
    "DATE",
    "KINDS",
    "LOOKUP",
    "TASK",
    "Plan",
    "PlanStep",
    "StepOutcome",
    "Value",
    "answers",
    "conclusion",
    "describe",
    "parse_value",
    "plan_request",
    "value_of",
]
