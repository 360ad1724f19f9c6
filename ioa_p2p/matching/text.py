"""Words, stems and content terms of English capability text (pure, deterministic).

Everything lexical in :mod:`ioa_p2p.matching` goes through :func:`terms`: lower-cased words (keeping
``c++``, ``c#``, ``node.js``, ``s3`` whole), minus a small stop list of function words, stemmed with the
Snowball English stemmer (so "translates", "translation" and "translating" meet). Language codes on cards
(``ja``, ``de``) are expanded to language names by :func:`language_names` so a goal saying "Japanese"
matches a card that lists ``ja``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
import sys
import threading
import types
from collections.abc import Iterable
from typing import Any

_WORD = re.compile(r"[a-z0-9]+(?:[.+#][a-z0-9]+)*[+#]*")

#: Function words that carry no capability (pronouns, auxiliaries, articles, question words, fillers).
STOP_WORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto over under about as is are
    was were be been being do does did doing done have has had having i me my mine we our ours us you your
    yours he him his she her it its they them their this that these those there here what which who whom
    whose when where why how can could should would will shall may might must not no nor so than too very
    just also any all each every some such only own same other another more most few both either neither
    up down out off again further once am get gets got let lets make makes made please want wants need
    needs like i'm it's we're don't doesn't isn't can't won't i've i'll you're they're there's what's
    via per etc ie eg""".split()  # noqa: SIM905
)

#: ISO 639-1 codes of common languages, for cards that list languages by code.
LANGUAGE_CODES = {
    "ar": "arabic", "bn": "bengali", "cs": "czech", "da": "danish", "de": "german", "el": "greek",
    "en": "english", "es": "spanish", "fa": "persian", "fi": "finnish", "fr": "french", "he": "hebrew",
    "hi": "hindi", "hu": "hungarian", "id": "indonesian", "it": "italian", "ja": "japanese",
    "ko": "korean", "ms": "malay", "nl": "dutch", "no": "norwegian", "pl": "polish", "pt": "portuguese",
    "ro": "romanian", "ru": "russian", "sv": "swedish", "sw": "swahili", "th": "thai", "tr": "turkish",
    "uk": "ukrainian", "ur": "urdu", "vi": "vietnamese", "zh": "chinese",
}  # fmt: skip

#: One Snowball stemmer per thread: a stemmer keeps the word it works on in itself, so the threads that
#: shared one (the nodes of one process embed cards in worker threads) raised IndexError or got each
#: other's stems, which :func:`stem`'s cache then kept for good.
_stemmers = threading.local()


def _stemmer() -> Any:
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = new_english_stemmer()
    return stemmer


#: The private name under which :func:`new_english_stemmer` imports snowballstemmer's English modules.
_SNOWBALL_EN = "_ioa_snowball_english"


def new_english_stemmer() -> Any:
    """A snowballstemmer ``EnglishStemmer``, without its 30 other languages: the package's ``__init__``
    imports every language's module (39 modules, ~2.3 MB resident in every agent, which stems its card's
    terms). The English module and the two it imports are loaded as a private package whose path is
    snowballstemmer's directory (its ``__init__`` is not run); the whole package where that fails."""
    with _import_lock:  # another thread's import puts the module in sys.modules before it is run
        return _import_english_stemmer()


_import_lock = threading.Lock()


def _import_english_stemmer() -> Any:
    held = sys.modules.get(f"{_SNOWBALL_EN}.english_stemmer")
    if held is not None:
        return held.EnglishStemmer()
    spec = importlib.util.find_spec("snowballstemmer")
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover - a broken install
        raise ImportError("snowballstemmer is not installed")
    package = types.ModuleType(_SNOWBALL_EN)
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules.setdefault(_SNOWBALL_EN, package)
    try:
        return importlib.import_module(f"{_SNOWBALL_EN}.english_stemmer").EnglishStemmer()
    except ImportError:  # pragma: no cover - another layout: the whole package
        import snowballstemmer

        return snowballstemmer.stemmer("english")


def words(text: str) -> list[str]:
    """Lower-cased word tokens of ``text``, in order (stop words included)."""
    return _WORD.findall(text.lower())


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of one lower-case word."""
    result: str = _stemmer().stemWord(word)
    return result


def is_content(word: str) -> bool:
    """True for a word that can carry meaning (not a stop word, not a single character)."""
    return len(word) >= 2 and word not in STOP_WORDS


def terms(text: str) -> list[str]:
    """The content words of ``text``, in order, with repeats; alphabetic words stemmed (not ``node.js``)."""
    return [stem(w) if w.isalpha() else w for w in words(text) if is_content(w)]


def language_names(values: Iterable[str]) -> list[str]:
    """Language entries with ISO 639-1 codes (``ja``, ``pt-BR``) replaced by their English names."""
    out = []
    for value in values:
        code = value.strip().lower().replace("_", "-").split("-")[0]
        out.append(LANGUAGE_CODES.get(code, value.strip()))
    return out


def media_words(values: Iterable[str]) -> list[str]:
    """Media types as words: ``image/png`` -> ``image png``, ``application/pdf`` -> ``pdf``."""
    out = []
    for value in values:
        kind, _, sub = value.strip().lower().partition("/")
        parts = [p for p in (kind, *re.split(r"[.+-]", sub)) if p and p not in ("application", "x", "vnd")]
        out.append(" ".join(parts))
    return out


__all__ = [
    "LANGUAGE_CODES",
    "STOP_WORDS",
    "is_content",
    "language_names",
    "media_words",
    "stem",
    "terms",
    "words",
]
