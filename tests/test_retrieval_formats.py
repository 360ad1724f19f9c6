"""Issue 23 (p-probe2): configuration files, data feeds and web pages are served and answer like the formats
read natively: YAML and INI/TOML line for line (keys as words, comments kept, glued units spaced), JSON
(objects as headings, arrays of objects as tables) and HTML (headings, lists, tables), over made-up
documents."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.formats import readable, unit_of_key, words_of

from .test_retrieval import ask, hashing_adapter

BACKUP_YAML = """# Tallis Backup 2.1 -- agent settings
# Durations take s, m or h.

schedule:
  full_backup_day: sunday     # weekday of the weekly full backup
  incremental_every: 6h       # time between two incremental backups
upload:
  max_bandwidth: 40 MiB       # per agent
  retry_wait: 45s             # wait before a failed upload is tried again
  keep_versions: 12           # versions kept per file before the oldest is pruned
"""

PRINT_INI = """; Ferrow print server -- queue limits
; Prices per page in EUR.

[draft]
max_pages = 400
price_per_page_eur = 0.03
colour = no

[photo]
max_pages = 60
price_per_page_eur = 0.45
colour = yes
"""

BAKERY_JSON = """{
  "shop": "Marlow Street Bakery",
  "currency": "EUR",
  "opening": {"weekdays": "07:00-18:00", "saturday": "08:00-14:00"},
  "loaves": [
    {"name": "Rye sourdough", "weight_g": 900, "price": 5.2, "baked_on": "Tue, Fri"},
    {"name": "Spelt tin", "weight_g": 750, "price": 4.6, "baked_on": "daily"},
    {"name": "Seeded batch", "weight_g": 800, "price": 4.9, "baked_on": "Mon, Thu"}
  ]
}
"""

TIDES_HTML = """<!doctype html><html><head><title>Penlow Harbour</title>
<style>td { color: blue }</style></head><body>
<h1>Penlow Harbour mooring fees</h1>
<p>Fees per night in EUR &amp; VAT included.</p>
<table>
<tr><th>Boat length</th><th>Low season</th><th>High season</th></tr>
<tr><td>Up to 8 m</td><td>18.00</td><td>26.00</td></tr>
<tr><td>8 to 12 m</td><td>24.00</td><td>35.00</td></tr>
<tr><td>Over 12 m</td><td>32.00</td><td>48.00</td></tr>
</table>
<ul><li>Showers: EUR 1.50 per token.</li><li>Harbour master: Ines Kowal.</li></ul>
<script>var fee = 999;</script>
</body></html>
"""


def test_yaml_and_ini_keep_their_lines_and_read_keys_as_words() -> None:
    yaml = readable("agent.yaml", BACKUP_YAML).splitlines()
    assert len(yaml) == len(BACKUP_YAML.splitlines())  # citations keep the file's line numbers
    assert yaml[0] == "# Tallis Backup 2.1 -- agent settings" and yaml[1] == "Durations take s, m or h."
    assert yaml[3] == "## schedule"
    assert yaml[5] == "- incremental every: 6 h (incremental_every; time between two incremental backups)"
    assert yaml[8].startswith("- retry wait: 45 s (retry_wait;")
    ini = readable("queues.ini", PRINT_INI).splitlines()
    assert len(ini) == len(PRINT_INI.splitlines())
    assert ini[3] == "## draft" and ini[5] == "- price per page eur: 0.03 EUR (price_per_page_eur)"
    assert ini[0] == "# Ferrow print server -- queue limits"


def test_json_objects_become_headings_and_arrays_of_objects_tables() -> None:
    text = readable("feeds/bakery.json", BAKERY_JSON)
    assert "- shop: Marlow Street Bakery" in text
    assert "## opening" in text and "- saturday: 08:00-14:00" in text
    assert "| name | weight g | price | baked on |" in text
    assert "| Spelt tin | 750 | 4.6 | daily |" in text
    assert readable("broken.json", "{not json") == "{not json"
    deep = "[" * 100_000 + "]" * 100_000  # past the recursion limit: read as it is, never a crash
    assert readable("deep.json", deep) == deep
    nested = '{"a": ' * 5000 + "1" + "}" * 5000  # nests deeper than the parser and renderer recurse
    assert readable("nested.json", nested) == nested
    assert readable("feed.json", '{"a": ' * 300 + "1" + "}" * 300).startswith("# feed\n")  # deep, rendered


def test_html_tables_lists_and_headings_without_scripts_or_styles() -> None:
    text = readable("harbour.html", TIDES_HTML)
    assert text.startswith("# Penlow Harbour\n") and "# Penlow Harbour mooring fees" in text
    assert "Fees per night in EUR & VAT included." in text
    assert "| Boat length | Low season | High season |" in text and "| 8 to 12 m | 24.00 | 35.00 |" in text
    assert "- Harbour master: Ines Kowal." in text
    assert "999" not in text and "color" not in text


def test_key_words_and_the_unit_a_key_names() -> None:
    assert (
        words_of("maxRetryCount") == "max retry count"
        and words_of("keep-alive.timeout") == "keep alive timeout"
    )
    assert unit_of_key("fee_eur") == "EUR" and unit_of_key("timeout_seconds") == "s"
    assert unit_of_key("price_per_kg") == "" and unit_of_key("colour") == ""
    assert "- deposit eur: 250 EUR (deposit_eur)" in readable("hire.ini", "[van]\ndeposit_eur = 250\n")


async def _answer(docs: Path, question: str) -> tuple[str, str]:
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    value = result.data["value"]
    assert isinstance(value, dict)
    return str(value.get("text", "")), result.text


async def test_structured_files_are_served_and_answer_by_key_row_and_column(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tallis-agent.yaml").write_text(BACKUP_YAML)
    (docs / "ferrow-queues.ini").write_text(PRINT_INI)
    (docs / "marlow-bakery.json").write_text(BAKERY_JSON)
    (docs / "penlow-harbour.html").write_text(TIDES_HTML)
    text, shown = await _answer(
        docs, "How long does a Tallis backup agent wait before retrying a failed upload?"
    )
    assert "45" in text and "tallis-agent.yaml:9" in shown
    assert "12" in (await _answer(docs, "How many versions of a file does Tallis Backup keep?"))[0]
    assert "0.45" in (await _answer(docs, "What is the Ferrow photo queue's price per page?"))[0]
    assert "750" in (await _answer(docs, "What does the Marlow Street Bakery's Spelt tin weigh in grams?"))[0]
    assert "35" in (await _answer(docs, "Penlow Harbour: high season fee for a boat of 8 to 12 m?"))[0]
