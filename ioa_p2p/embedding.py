"""Sentence embeddings behind one small :class:`Embedder` protocol.

Every vector carries the id of the model that made it (``Embedder.model_id``); vectors of different models
are never compared. All embedders return float32 rows, L2-normalised, so cosine similarity is a dot product.

Backends:

- :class:`WordLlamaEmbedder` (default): static embeddings shipped inside the ``wordllama`` wheel, no key, no
  download at run time; the model is loaded and cached once per process by
  :class:`~ioa_p2p.matching.encoders.WordLlamaEncoder`, which the matcher shares.
- :class:`OpenAIEmbedder`: any OpenAI-compatible ``/v1/embeddings`` endpoint (``base_url``, ``model``).
- :class:`HashingEmbedder`: numpy-only hashed word and character n-grams; deterministic, instant, weaker.
  Used by unit tests as the scripted fake and as a last resort when wordllama is unavailable.

The ``[embedding]`` table is read by the one section parser (:func:`~ioa_p2p.config.sections.parse_section`)
into the settings of its ``backend`` (:class:`WordLlamaSettings`, :class:`HashingSettings`,
:class:`OpenAISettings`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ioa_p2p.config.sections import key_name, parse_section, setting
from ioa_p2p.errors import ConfigError, PeerUnreachable, RemotePeerError
from ioa_p2p.matching import make_matcher  # loads no model until used
from ioa_p2p.matching.encoders import WordLlamaEncoder, unit_rows

Matrix = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Return an array of shape ``(len(texts), dim)``, float32, each row of unit length (or zero)."""
        ...


def normalise(rows: Any) -> Matrix:
    """``rows`` as float32, each row scaled to unit length (zero rows stay zero)."""
    return unit_rows(rows)


class WordLlamaEmbedder:
    """The embedded offline default (``wordllama`` l2_supercat, 256 dimensions, or a Matryoshka cut of it
    to 64 or 128). The model is the process's one wordllama model,
    :class:`~ioa_p2p.matching.encoders.WordLlamaEncoder` (loaded once, shared with the matcher)."""

    #: The wheel ships the 256-d l2_supercat weights; smaller sizes are Matryoshka truncations of them.
    DIMS = WordLlamaEncoder.DIMS

    def __init__(self, dim: int = 256) -> None:
        if dim not in self.DIMS:
            raise ConfigError(f"wordllama supports dim in {list(self.DIMS)}, got {dim!r}")
        self._dim = dim
        self._encoder = WordLlamaEncoder()

    @property
    def model_id(self) -> str:
        return f"wordllama/l2_supercat/{self._dim}"

    def load(self) -> None:
        """Load the weights now (about 0.4 s, no network) instead of on the first :meth:`embed`."""
        self._encoder.load()

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Matrix:
        return self._encoder.embed(texts, self._dim)


class HashingEmbedder:
    """Deterministic hashed bag of words and character trigrams (numpy only)."""

    def __init__(self, dim: int = 256) -> None:
        if dim < 8:
            raise ConfigError("HashingEmbedder needs at least 8 dimensions")
        self._dim = dim

    @property
    def model_id(self) -> str:
        return f"hashing/v1/{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Matrix:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self._dim
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, index] += sign * weight
        return normalise(out)


def _features(text: str) -> list[tuple[str, float]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    features = [("w:" + w, 1.0) for w in words]
    for word in words:
        padded = f"#{word}#"
        features += [("c:" + padded[i : i + 3], 0.3) for i in range(len(padded) - 2)]
    return features


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint, through the ``openai`` package."""

    def __init__(
        self, *, model: str, base_url: str | None = None, api_key: str | None = None, dim: int
    ) -> None:
        import openai

        self._model_name = model
        self._dim = dim
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=30.0)
        self._base_url = base_url or "openai"

    @property
    def model_id(self) -> str:
        return f"openai/{self._model_name}/{self._dim}"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Matrix:
        import openai

        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        try:
            reply = self._client.embeddings.create(model=self._model_name, input=list(texts))
        except openai.APIConnectionError as exc:
            raise PeerUnreachable(f"embedding server {self._base_url} unreachable: {exc}") from exc
        except openai.OpenAIError as exc:
            raise RemotePeerError(f"embedding server {self._base_url} failed: {exc}") from exc
        rows = [item.embedding for item in sorted(reply.data, key=lambda d: d.index)]
        matrix = normalise(rows)
        if matrix.shape != (len(texts), self._dim):
            raise RemotePeerError(
                f"embedding server returned shape {matrix.shape}, expected {(len(texts), self._dim)}; "
                "set the right `dim` for this model in the config"
            )
        return matrix


@dataclass(frozen=True, slots=True)
class WordLlamaSettings:
    """``[embedding]`` with ``backend = "wordllama"`` (the default)."""

    backend: Literal["wordllama"] = "wordllama"
    dim: Literal[64, 128, 256] = 256


@dataclass(frozen=True, slots=True)
class HashingSettings:
    """``[embedding]`` with ``backend = "hashing"``."""

    backend: Literal["hashing"] = "hashing"
    dim: int = setting(256, low=8)


@dataclass(frozen=True, slots=True)
class OpenAISettings:
    """``[embedding]`` with ``backend = "openai"``: the model and its dimension are required."""

    backend: Literal["openai"]
    model: str
    dim: int = setting(low=1)
    base_url: str | None = None
    api_key: str | None = None


EmbeddingSettings = WordLlamaSettings | HashingSettings | OpenAISettings
_BACKENDS: dict[str, type[EmbeddingSettings]] = {
    "wordllama": WordLlamaSettings,
    "openai": OpenAISettings,
    "hashing": HashingSettings,
}


def embedding_settings(
    settings: Mapping[str, Any] | None = None, where: str = "[embedding]"
) -> EmbeddingSettings:
    """The ``[embedding]`` table, parsed (its ``backend`` chooses which keys it takes); ConfigError."""
    table = dict(settings or {})
    backend = table.get("backend", "wordllama")
    kind = _BACKENDS.get(backend) if isinstance(backend, str) else None
    if kind is None:
        key = key_name(where, "backend")
        raise ConfigError(
            f"unknown embedding backend {backend!r} in {key}; use matcher, wordllama, openai or hashing"
        )
    return parse_section(kind, {"backend": backend, **table}, where)


def make_embedder(settings: Mapping[str, Any] | None = None, where: str = "[embedding]") -> Embedder:
    """Build the embedder a config section asks for: ``{"backend": "wordllama"|"matcher"|"openai"|"hashing",
    ...}`` (``where`` names the table in messages). ``matcher`` is the offline matcher's vector scheme
    (:func:`ioa_p2p.matching.make_matcher`; option ``matcher = "hybrid"|"lite"``)."""
    table = dict(settings or {})
    if table.get("backend") == "matcher":
        return make_matcher({k: v for k, v in table.items() if k != "backend"}, where)
    parsed = embedding_settings(settings, where)
    if isinstance(parsed, OpenAISettings):
        return OpenAIEmbedder(
            model=parsed.model, base_url=parsed.base_url, api_key=parsed.api_key, dim=parsed.dim
        )
    if isinstance(parsed, HashingSettings):
        return HashingEmbedder(parsed.dim)
    return WordLlamaEmbedder(parsed.dim)


__all__ = [
    "Embedder",
    "HashingEmbedder",
    "Matrix",
    "EmbeddingSettings",
    "HashingSettings",
    "OpenAIEmbedder",
    "OpenAISettings",
    "WordLlamaSettings",
    "embedding_settings",
    "WordLlamaEmbedder",
    "make_embedder",
    "normalise",
]
