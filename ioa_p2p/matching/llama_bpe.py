"""wordllama's tokenizer without the ``tokenizers`` package: the Llama byte-fallback BPE of its
``tokenizer.json``, in plain Python over compact arrays (issue 26: an idle agent's memory).

An agent embeds its own card with wordllama's static weights at start (:mod:`.static_model`). Doing it with
``tokenizers`` left its Rust extension imported for good (~4.4 MB resident in every agent process, though
the tokenizer object itself was dropped a minute later) and held ~13 MB while loaded. This module reads the
same file and tokenizes exactly as ``tokenizers`` does for this model family (``tests/test_llama_bpe.py``
compares ids on card texts, Unicode, byte fallback and special tokens); what it keeps is ~1 MB of flat
arrays (:class:`Tables`: the one-character tokens, the 256 byte tokens, the merges sorted for bisection),
no Python object per token. The file is parsed in a child process that sends the arrays back
(:func:`build_in_child`): parsed here, its ~100,000 short-lived objects were pinned by what the event loop
allocated meanwhile, and an agent kept ~12 MB of freed heap for good.

The pipeline of that ``tokenizer.json`` (checked when it is read: a file of another shape is a
:class:`~ioa_p2p.errors.ConfigError`, never a silent mis-tokenization):

1. the special tokens (``<unk>``, ``<s>``, ``</s>``: added, not normalized) are split out of the raw text,
   leftmost-longest, each becoming its id;
2. every other piece is normalized on its own: ``"▁"`` prepended when it is not empty, each ``" "``
   replaced by ``"▁"`` (no pre-tokenizer: the whole piece is one BPE word);
3. BPE: one symbol per character (a character outside the vocabulary becomes its UTF-8 bytes' ``<0xXX>``
   tokens, else one ``<unk>`` for a run of them), then merges applied lowest rank first, leftmost first
   among equal ranks, one occurrence at a time (``tokenizers``' ``Word::merge_all`` queue).
"""

from __future__ import annotations

import bisect
import heapq
import json
import logging
import os
import re
import subprocess
import sys
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ioa_p2p.errors import ConfigError

#: The normalizer of the Llama tokenizer files this module reads (anything else is refused).
NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
    ],
}
SPACE = "\u2581"


#: Seconds the child process that reads the tokenizer file may take.
CHILD_TIMEOUT = 60.0

log = logging.getLogger("ioa_p2p.matching")


@dataclass(frozen=True, slots=True)
class Tables:
    """The tokenizer as a few flat arrays (no Python object per token: see :func:`build_in_child`)."""

    char_keys: array[int]  # code points of the one-character tokens, sorted
    char_ids: array[int]  # their ids
    byte_ids: array[int]  # the ids of <0x00>..<0xFF> (empty: no byte fallback)
    unk: int  # the <unk> id, -1 if none
    merge_keys: array[int]  # left << 32 | right, sorted
    merge_values: array[int]  # rank << 32 | merged id
    specials: dict[str, int]  # special token text -> id

    def to_bytes(self) -> bytes:
        arrays = (self.char_keys, self.char_ids, self.byte_ids, self.merge_keys, self.merge_values)
        head = json.dumps({"unk": self.unk, "specials": self.specials, "sizes": [len(a) for a in arrays]})
        return b"".join([head.encode() + b"\n", *(a.tobytes() for a in arrays)])

    @classmethod
    def from_bytes(cls, data: bytes) -> Tables:
        line, _, rest = data.partition(b"\n")
        head = json.loads(line)
        arrays = []
        for code, size in zip(("I", "I", "I", "Q", "Q"), head["sizes"], strict=True):
            part = array(code)
            part.frombytes(rest[: size * part.itemsize])
            if len(part) != size:
                raise ValueError("truncated tables")
            rest = rest[size * part.itemsize :]
            arrays.append(part)
        specials = {str(k): int(v) for k, v in head["specials"].items()}
        return cls(arrays[0], arrays[1], arrays[2], int(head["unk"]), arrays[3], arrays[4], specials)


def read_tables(path: Path) -> Tables:
    """The tables of the Llama ``tokenizer.json`` at ``path``, read in this process."""
    try:
        return tables_of(json.loads(path.read_bytes()))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"cannot read the tokenizer {path}: {exc}; reinstall wordllama") from exc


def tables_of(data: dict[str, Any]) -> Tables:
    """The tables of a parsed Llama ``tokenizer.json`` (ValueError for a file of another shape)."""
    model = data["model"]
    shape = (
        model.get("type"),
        data.get("normalizer"),
        data.get("pre_tokenizer"),
        model.get("continuing_subword_prefix"),
        model.get("end_of_word_suffix"),
        model.get("dropout"),
        bool(model.get("ignore_merges")),
    )
    if shape != ("BPE", NORMALIZER, None, None, None, None, False):
        raise ValueError(f"not a Llama byte-fallback BPE tokenizer: {shape}")
    added = data.get("added_tokens") or []
    flags = ("normalized", "single_word", "lstrip", "rstrip")
    if any(t.get(flag) for t in added for flag in flags):
        raise ValueError("added tokens that are normalized or stripped are not supported")
    vocab: dict[str, int] = model["vocab"]
    if not all(0 <= i < 1 << 32 for i in vocab.values()):
        raise ValueError("token ids out of range")
    merges = []
    for rank, merge in enumerate(model["merges"]):
        left, right = merge.split(" ") if isinstance(merge, str) else merge
        merges.append((vocab[left] << 32 | vocab[right], rank << 32 | vocab[left + right]))
    merges.sort()
    found = [vocab.get(f"<0x{b:02X}>") for b in range(256)] if model.get("byte_fallback") else [None]
    byte_ids = [i for i in found if i is not None]
    unk_token = model.get("unk_token")
    unk = vocab.get(unk_token, -1) if unk_token is not None else -1
    if not model.get("fuse_unk") and unk >= 0:
        raise ValueError("unk tokens that are not fused are not supported")
    chars = sorted((ord(token), i) for token, i in vocab.items() if len(token) == 1)
    return Tables(
        char_keys=array("I", (c for c, _ in chars)),
        char_ids=array("I", (i for _, i in chars)),
        byte_ids=array("I", byte_ids if len(byte_ids) == 256 else ()),
        unk=unk,
        merge_keys=array("Q", (k for k, _ in merges)),
        merge_values=array("Q", (v for _, v in merges)),
        specials={str(t["content"]): int(t["id"]) for t in added},
    )


def build_in_child(path: Path) -> Tables | None:
    """:func:`read_tables` in a child process, the tables sent back as bytes (None where the child failed;
    the caller reads the file itself then). Parsing the file makes ~100,000 short-lived Python objects;
    made here, the long-lived objects other threads allocate meanwhile land among them and pin their memory
    arenas after they are freed (measured: an agent kept ~12 MB more), so they are made in a process that
    then exits."""
    try:  # this file as a script (-P: its folder not on sys.path): nothing of the matcher, nor numpy
        argv = [sys.executable, "-P", __file__, str(path)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("IOA_")}  # no node's home or parent
        done = subprocess.run(argv, capture_output=True, timeout=CHILD_TIMEOUT, check=False, env=env)
        if done.returncode == 0:
            return Tables.from_bytes(done.stdout)
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        log.warning("reading the tokenizer in a child process failed (%s); reading it here", lines[-1:])
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError) as exc:
        log.warning("reading the tokenizer in a child process failed (%s); reading it here", exc)
    return None


def child_main(path: str) -> None:
    """The child of :func:`build_in_child`: the tables of ``path`` on stdout (a ConfigError on stderr)."""
    sys.stdout.buffer.write(read_tables(Path(path)).to_bytes())


class LlamaBpe:
    """Token ids of texts, as ``tokenizers.Tokenizer.encode(text, add_special_tokens=False).ids``."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        specials = tables.specials
        by_length = sorted(specials, key=len, reverse=True)  # leftmost match, the longest at one place
        self._split = re.compile("|".join(map(re.escape, by_length))) if specials else None

    @classmethod
    def from_file(cls, path: Path) -> LlamaBpe:
        """Read a Llama ``tokenizer.json`` (see the module docstring for the shape accepted): its tables
        are built in a child process (:func:`build_in_child`), else here."""
        tables = build_in_child(path)
        if tables is None:
            tables = read_tables(path)
        return cls(tables)

    def _char(self, ch: str) -> int | None:
        keys = self.tables.char_keys
        code = ord(ch)
        at = bisect.bisect_left(keys, code)
        return self.tables.char_ids[at] if at < len(keys) and keys[at] == code else None

    def _merge(self, left: int, right: int) -> tuple[int, int] | None:
        """(rank, merged id) of the pair, or None."""
        keys = self.tables.merge_keys
        key = left << 32 | right
        at = bisect.bisect_left(keys, key)
        if at < len(keys) and keys[at] == key:
            value = self.tables.merge_values[at]
            return value >> 32, value & 0xFFFFFFFF
        return None

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        start = 0
        if self._split is not None:
            for match in self._split.finditer(text):
                ids += self._word(text[start : match.start()])
                ids.append(self.tables.specials[match.group()])
                start = match.end()
        ids += self._word(text[start:])
        return ids

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return [self.encode(text) for text in texts]

    def _symbols(self, word: str) -> list[int]:
        symbols: list[int] = []
        last_unk = False
        for ch in word:
            token = self._char(ch)
            if token is not None:
                symbols.append(token)
                last_unk = False
            elif self.tables.byte_ids:
                symbols += (self.tables.byte_ids[b] for b in ch.encode("utf-8", "surrogatepass"))
                last_unk = False
            elif self.tables.unk >= 0:
                if not last_unk:  # fuse_unk: a run of unknown characters is one <unk>
                    symbols.append(self.tables.unk)
                last_unk = True
        return symbols

    def _word(self, piece: str) -> list[int]:
        if not piece:
            return []
        c = self._symbols(SPACE + piece.replace(" ", SPACE))
        n = len(c)
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n + 1))
        alive = [True] * n
        queue = []
        for pos in range(n - 1):
            merge = self._merge(c[pos], c[pos + 1])
            if merge is not None:
                queue.append((merge[0], pos, merge[1]))
        heapq.heapify(queue)
        while queue:
            _, pos, new = heapq.heappop(queue)
            if not alive[pos] or nxt[pos] >= n:
                continue
            right = nxt[pos]
            current = self._merge(c[pos], c[right])
            if current is None or current[1] != new:  # an expired entry
                continue
            c[pos] = new
            alive[right] = False
            nxt[pos] = nxt[right]
            if nxt[pos] < n:
                prev[nxt[pos]] = pos
            if prev[pos] >= 0:
                merge = self._merge(c[prev[pos]], new)
                if merge is not None:
                    heapq.heappush(queue, (merge[0], prev[pos], merge[1]))
            if nxt[pos] < n:
                merge = self._merge(new, c[nxt[pos]])
                if merge is not None:
                    heapq.heappush(queue, (merge[0], pos, merge[1]))
        return [c[i] for i in range(n) if alive[i]]


__all__ = ["LlamaBpe", "Tables", "build_in_child", "read_tables", "tables_of"]

if __name__ == "__main__":
    child_main(sys.argv[1])
