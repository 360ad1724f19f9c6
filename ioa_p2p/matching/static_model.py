"""wordllama's l2_supercat model without a copy of its weights in each process: the shipped safetensors file
memory-mapped, rows gathered on use.

``WordLlama.load()`` converts the 32,000 x 256 float16 matrix into a float32 copy (32 MB) and imports
wordllama's training and configuration code (pydantic among it): ~47 MB of resident memory in every node
process, though a node embeds a few short texts (its card, a query). :class:`StaticModel` maps the same file
read-only instead: only the pages of the tokens a text uses become resident, they are file-backed (the
kernel may drop them and shares them between every process on the machine), and nothing of wordllama's
Python code is imported, nor ``tokenizers``: its tokenizer file is read by :mod:`.llama_bpe` (the same
ids in plain Python; ~1 MB instead of the extension's ~4.4 MB, which stayed imported). The vectors are
exactly wordllama's (``WordLlamaInference.embed(norm=False)``): the same padded batch, the same float32
pooling expression, and float16 -> float32 is exact (``tests/test_embedding.py`` compares them).

Trap (the field notes): the wheel ships ``tokenizers/`` and ``weights/`` beside the package; nothing is
ever downloaded here. A missing or malformed file raises :class:`~ioa_p2p.errors.ConfigError`.
"""

from __future__ import annotations

import importlib.util
import json
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ioa_p2p.errors import ConfigError

from .llama_bpe import LlamaBpe

CONFIG = "l2_supercat"
WEIGHTS = f"weights/{CONFIG}_256.safetensors"
TOKENIZER = f"tokenizers/{CONFIG}_tokenizer_config.json"
TENSOR = "embedding.weight"
_DTYPES = {"F16": "<f2", "F32": "<f4"}
#: Texts per padded batch (wordllama's default ``batch_size``).
BATCH = 64


def wordllama_folder() -> Path:
    """The installed wordllama package's folder (found without importing it)."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the wordllama package is missing: pip install wordllama")
    return Path(next(iter(spec.submodule_search_locations)))


def map_tensor(path: Path, key: str = TENSOR) -> npt.NDArray[Any]:
    """The tensor ``key`` of the safetensors file ``path``, memory-mapped read-only (no copy)."""
    try:
        with path.open("rb") as f:
            (size,) = struct.unpack("<Q", f.read(8))
            if not 0 < size <= 1 << 20:
                raise ValueError(f"header size {size}")
            header = json.loads(f.read(size))
        meta = header[key]
        dtype = _DTYPES[meta["dtype"]]
        start, end = (int(x) for x in meta["data_offsets"])
        shape = tuple(int(x) for x in meta["shape"])
        if len(shape) != 2 or end - start != shape[0] * shape[1] * np.dtype(dtype).itemsize:
            raise ValueError(f"shape {shape} does not match {end - start} bytes")
        return np.memmap(path, dtype=dtype, mode="r", offset=8 + size + start, shape=shape)
    except (OSError, ValueError, KeyError, TypeError, struct.error) as exc:
        raise ConfigError(f"cannot map the weights {key!r} in {path}: {exc}; reinstall wordllama") from exc


class StaticModel:
    """Mean-pooled static token embeddings over memory-mapped weights (see the module docstring)."""

    def __init__(self, weights: npt.NDArray[Any], tokenizer: LlamaBpe) -> None:
        self.weights = weights
        self.tokenizer = tokenizer

    @classmethod
    def open(cls, folder: Path | None = None) -> StaticModel:
        """The l2_supercat model shipped in the wordllama wheel (``folder``: its package folder)."""
        folder = folder or wordllama_folder()
        return cls(map_tensor(folder / WEIGHTS), LlamaBpe.from_file(folder / TOKENIZER))

    @property
    def dim(self) -> int:
        return int(self.weights.shape[1])

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Pooled (not normalised) float32 rows ``(len(texts), dim)``."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i in range(0, len(texts), BATCH):
            chunk = list(texts[i : i + BATCH])
            encoded = self.tokenizer.encode_batch(chunk)
            width = max(len(e) for e in encoded)  # padded to the longest (id 0, masked), as wordllama's
            ids = np.array([e + [0] * (width - len(e)) for e in encoded], dtype=np.int32)
            mask = np.array([[1] * len(e) + [0] * (width - len(e)) for e in encoded], dtype=np.float32)
            np.clip(ids, 0, self.weights.shape[0] - 1, out=ids)
            rows = np.asarray(self.weights[ids], dtype=np.float32)
            mask_sum = np.maximum(mask.sum(axis=1, keepdims=True), 1.0).astype(np.float32)
            pooled = np.sum(rows * mask[..., np.newaxis], axis=1, dtype=np.float32)
            out[i : i + len(chunk)] = pooled / mask_sum
        return out


__all__ = ["StaticModel", "map_tensor", "wordllama_folder"]
