"""ioa_p2p.adapters.retrieval: the ``retrieval`` adapter: answers from a folder of documents.

- ``adapter.py``  the adapter (search, can_do, run)
- ``index.py``    its options; the document index: passages and vectors per file, answers read from them
- ``formats.py``  YAML, INI, TOML, JSON and HTML files read as the text the rest understands (pure)
- ``mail.py``     saved e-mail messages (.eml, .mbox): subject, sender, date and the decoded body (pure)
- ``markup.py``   AsciiDoc, Org, MediaWiki, recfile and XML documents rendered as that text (pure)
- ``sql_dump.py`` SQL dumps: CREATE TABLE / INSERT rows as pipe tables, comments as prose (pure)
- ``calendar_ics.py`` iCalendar events: date, time, duration, repetition and last date as fields (pure)
- ``ruled_tables.py`` fixed-width reports: columns a rule line of dash runs marks, as pipe tables (pure)
- ``latex.py``    LaTeX sources: sections, tabulars as pipe tables, list items, comments dropped (pure)
- ``conversation.py`` call transcripts and chat exports: a list item per turn, spoken money signed, a chat's
  year-less dates given their year (pure)
- ``text_sniff.py`` a file of an unlisted suffix read when its first bytes are UTF-8 text
- ``subtitles.py`` SRT / WebVTT subtitles: what was said, a paragraph per cue, numbers said in words as
  digits, money signed (pure)
- ``bbcode.py``  forum threads in BBCode: ``[*]`` items as list items, quotes as ``>`` lines (pure)
- ``quoting.py`` a thread's ``>`` quote levels: markers off, each line's depth kept (a quoted fact weighs
  less); a saved message's title; attribution lines and sign-offs (pure)
- ``corrections.py`` amounts a document says were replaced ("not GBP 6.90", "up from GBP 12") (pure)
- ``closeness.py`` how near a question's word is to a fact's (the shipped wordllama token vectors): the
  paraphrase a question uses earns part of its weight
- ``chunks.py``   documents cut into cited passages along their structure (pure)
- ``passage_scores.py`` a passage's score for a query: cosine blended with keyword overlap (pure)
- ``scope.py``   the document set a question names (its subject's name) weighs the others down
- ``superlative.py`` "the heaviest", "the cheapest": the table row with the extreme value of the attribute
- ``qualifiers.py`` a question's year, version, code, name or calendar date the answer's document must name
- ``agreement.py`` the answering fact must agree with the question's month, log day, band, designator and
  specification (a near miss otherwise); ``near_misses`` joins it with qualifiers.py (pure)
- ``validity.py`` a fact's dated validity ("until 30 April 2026") against the month a question asks (pure)
- ``brackets.py`` which side of a bracket a question is about ("EUR 18 (the Boardroom: EUR 32)") (pure)
- ``subject.py``  a content word of the question the answering document never uses ("a hot shower" over a
  price list of beds and meals): a near miss the adapter adds (pure)
- ``evidence_scope.py`` the answering fact must be evidence for the thing asked: no label read as an amount
  ("14 Wren Close"), no amount the question gives read back, no past value for a question about now, the
  thing a situated question asks about named in the document: near misses the adapter adds (pure)
- ``rowkeys.py``  a table row keyed by a length the question does not ask ("1 day" for "a 3-day pass"), a
  season the document is not for: near misses agreement.py adds (pure)
- ``focus.py``    a situated question asked again by its subject in the documents' words (after a near miss)
- ``described.py`` a class the question describes ("a 2-axle lorry over 3.5 t") and the document defines
  ("Class 3  Goods vehicles over 3.5 t with 2 axles"): the question is asked again with it named (pure)
- ``answer.py``   the answer span, its confidence and citation from the best passages (pure)
- ``facts.py``    sentences, list items and table rows as facts; the IDF scorer (pure)
- ``terms.py``    the terms of a text: stems, stop words, codes, units, weekdays; a question's terms (pure)
- ``tables.py``   markdown (outer pipes or none), RST grid, space-aligned (a stub column, a two-part row key)
  and comma-separated tables as a header and rows of cells
- ``extract.py``  the value a fact states, by the question's answer type (pure)
- ``clock_value.py`` the clock time (or the day) a fact states for a "what time" / "when" question (pure)
- ``keyed.py``    values read by what the question names: a listing's key ("Zone 2: ..., Serbia"), a clock
  time a column's header states, the column of the extreme asked ("Tmin"), a ratio cell ("15/9") (pure)
- ``number_span.py`` the number a sentence states for a question: unit, labels, enumerations, nearness
- ``enumeration.py`` the item of a list of labelled values the question names ("dogs EUR 14.50, cats EUR
  11.00"; "check-in from 15:00, check-out by 11:00") (pure)
- ``ordinals.py`` the value an ordinal labels ("1st £150  2nd £80", "£40 for the first child, £20 for each
  further child") for the ordinal the question names (pure)
- ``labelled.py`` the value whose bracketed label the question names or its asker fits ("£265 (members) or
  £320 (non-members)", "£420 (local) or £560 (others)" for "we don't live in the parish") (pure)
- ``measures.py`` a size, rating or strength the question names a thing by ("a 16 A hook-up", "a 150 sq ft
  unit"): a row of another size weighed down, a size no line of a document listing sizes states refused
- ``fit.py``      a value that is not of the kind asked ("5 credits" for "how many sessions", "every 20
  minutes" for "how long") is no answer; "in which month" answered by the month's name (pure)
- ``picks.py``    a fact's numbers that are not the value (a date's day, a count) or the end of a change asked
- ``tariff.py``   what an amount is charged per and on which terms (pure)
- ``capacity.py`` "which room seats 150": the rows whose named column holds the stated amount (pure)
- ``bill.py``     the several charges a question's situation incurs, each on its own terms (pure)
- ``docmodel/``   documents read once into typed records; questions answered with typed values (pure)
- ``typed.py``    when the typed model's answer replaces the fact scorer's (pure)
"""

from ioa_p2p.adapters.retrieval.adapter import Passage, RetrievalAdapter, RetrievalOptions, chunk_document

__all__ = ["Passage", "RetrievalAdapter", "RetrievalOptions", "chunk_document"]
