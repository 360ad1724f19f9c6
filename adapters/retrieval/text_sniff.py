"""Whether a file of a suffix the retrieval does not list is a text document it can read.

People keep documents under many names: ``.adoc``, ``.org``, ``.wiki``, ``.log``, ``.text``, ``README``
with no suffix at all. The retrieval reads the suffixes it knows (``RetrievalOptions.extensions``) and, with
``sniff_text`` on (the default), any other file whose first bytes are UTF-8 text: they decode (a
character cut at the end of the sample is allowed), hold no NUL byte and at most one control character in a
hundred (tab, newline, carriage return and form feed are text). Files of well-known binary suffixes
(images, archives, office and PDF files, executables) are never opened, nor source code (``.py``, ``.js``,
...): the code beside a folder's documents is not one of them.
"""

from __future__ import annotations

from pathlib import Path

SAMPLE_BYTES = 4_096
MAX_CONTROL_SHARE = 0.01
_BINARY_TEXT = """
    .png .jpg .jpeg .gif .webp .bmp .ico .tif .tiff .svgz .heic .mp3 .mp4 .m4a .wav .ogg .flac .mov .avi .mkv
    .webm .zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .jar .whl .pdf .doc .docx .xls .xlsx .ppt .pptx .odt .ods
    .odp .epub .exe .dll .so .dylib .o .a .pyc .class .bin .dat .db .sqlite .sqlite3 .woff .woff2 .ttf .otf
    .iso .dmg .npy .npz .pkl .parquet .onnx .pt .safetensors
    """
BINARY_SUFFIXES = frozenset(_BINARY_TEXT.split())
_CODE_TEXT = """
    .py .pyi .js .mjs .cjs .ts .tsx .jsx .c .h .cc .cpp .hpp .java .go .rs .rb .sh .bash .zsh .pl .php .cs
    .swift .kt .kts .scala .lua .r .m .mm .sql .css .scss .lock .map .min .patch .diff .ipynb
    """
#: source code and build files: text, but the code beside a folder's documents, not documents
CODE_SUFFIXES = frozenset(_CODE_TEXT.split())
_TEXT_CONTROLS = frozenset("\t\n\r\f")


def is_text(sample: bytes) -> bool:
    """Whether ``sample`` (a file's first bytes) reads as UTF-8 text."""
    if not sample or b"\0" in sample:
        return False
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(sample) - 3:  # not a character cut at the sample's end
            return False
        text = sample[: e.start].decode("utf-8", "ignore")
    controls = sum(1 for c in text if ord(c) < 32 and c not in _TEXT_CONTROLS)
    return controls <= MAX_CONTROL_SHARE * max(1, len(text))


def looks_like_text(path: Path) -> bool:
    """Whether the file at ``path`` is a text document (never one of :data:`BINARY_SUFFIXES`)."""
    if path.suffix.lower() in BINARY_SUFFIXES | CODE_SUFFIXES:
        return False
    try:
        with path.open("rb") as f:
            return is_text(f.read(SAMPLE_BYTES))
    except OSError:
        return False


__all__ = ["BINARY_SUFFIXES", "CODE_SUFFIXES", "is_text", "looks_like_text"]
