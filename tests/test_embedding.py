"""Embedders: the wordllama default works with networking disabled; hashing; OpenAI-compatible."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ioa_p2p.embedding import (
    Embedder,
    HashingEmbedder,
    OpenAIEmbedder,
    WordLlamaEmbedder,
    make_embedder,
    normalise,
)
from ioa_p2p.errors import ConfigError, PeerUnreachable, RemotePeerError

from .openai_server import serve

# Runs in a fresh interpreter: any attempt to open a socket fails loudly, and the result is printed.
_OFFLINE_SCRIPT = textwrap.dedent(
    """
    import socket

    class NoNetwork(socket.socket):
        def __init__(self, *args, **kwargs):
            raise OSError("networking is disabled in this test")

    socket.socket = NoNetwork
    socket.create_connection = lambda *a, **k: (_ for _ in ()).throw(OSError("networking is disabled"))

    import numpy as np
    from ioa_p2p.embedding import make_embedder

    embedder = make_embedder()
    rows = embedder.embed(["plot a chart of revenue", "draw charts and plots", "translate French"])
    sims = rows @ rows.T
    assert rows.shape == (3, 256) and rows.dtype == np.float32, rows.shape
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert sims[0, 1] > sims[0, 2], sims
    print("OK", embedder.model_id)
    """
)


def _offline_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HOME=str(tmp_path),  # no user cache to fall back on
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        http_proxy="http://127.0.0.1:9",
        https_proxy="http://127.0.0.1:9",
    )
    return env


def _network_namespace_available() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10)
    return probe.returncode == 0


def test_wordllama_default_works_with_sockets_disabled(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _OFFLINE_SCRIPT],
        env=_offline_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "OK wordllama/l2_supercat/256"


@pytest.mark.skipif(not _network_namespace_available(), reason="unshare -n is not permitted here")
def test_wordllama_default_works_in_a_network_namespace_without_interfaces(tmp_path: Path) -> None:
    result = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", _OFFLINE_SCRIPT],
        env=_offline_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("OK wordllama/")


def test_wordllama_in_process() -> None:
    embedder = WordLlamaEmbedder(dim=128)
    embedder.load()
    rows = embedder.embed(["a", "b"])
    assert rows.shape == (2, 128)
    assert embedder.model_id == "wordllama/l2_supercat/128"
    assert isinstance(embedder, Embedder)
    assert embedder.embed([]).shape == (0, 128)
    with pytest.raises(ConfigError, match="dim"):
        WordLlamaEmbedder(dim=100)


def test_one_wordllama_model_serves_every_size_and_the_matcher() -> None:
    """The embedder (every size) and the matcher share the process's one wordllama model; a smaller size
    is the same as wordllama's own Matryoshka truncation (``trunc_dim``) of the shipped weights."""
    import wordllama
    from wordllama import WordLlama

    from ioa_p2p.matching import lite_matcher
    from ioa_p2p.matching.encoders import WordLlamaEncoder

    texts = ["plot a chart of revenue", "translate French", ""]
    small, full = WordLlamaEmbedder(64), WordLlamaEmbedder()
    small.load()
    model = WordLlamaEncoder._model
    assert model is not None and WordLlamaEncoder.loaded()
    assert np.allclose(lite_matcher().embed(texts[:2]), full.embed(texts[:2]), atol=1e-6)
    assert WordLlamaEncoder._model is model  # nothing loaded a second copy
    folder = Path(wordllama.__file__).parent
    own = WordLlama.load(cache_dir=folder, disable_download=True, dim=256, trunc_dim=64)
    assert np.allclose(small.embed(texts), normalise(own.embed(texts, norm=False, return_np=True)), atol=1e-6)
    assert np.allclose(small.embed(texts[:2]), normalise(full.embed(texts[:2])[:, :64]), atol=1e-6)
    with pytest.raises(ConfigError, match="dim"):
        WordLlamaEmbedder(100)


def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    a, b = HashingEmbedder(64), HashingEmbedder(64)
    rows = a.embed(["chart plotting", "chart plotting", "translate text", ""])
    assert np.array_equal(rows, b.embed(["chart plotting", "chart plotting", "translate text", ""]))
    assert np.allclose(np.linalg.norm(rows[:3], axis=1), 1.0, atol=1e-6)
    assert not rows[3].any()  # empty text: zero vector, not NaN
    assert rows[0] @ rows[1] == pytest.approx(1.0)
    assert a.model_id == "hashing/v1/64" and a.dim == 64
    with pytest.raises(ConfigError):
        HashingEmbedder(4)


def test_normalise_keeps_zero_rows() -> None:
    out = normalise([[3.0, 4.0], [0.0, 0.0]])
    assert np.allclose(out, [[0.6, 0.8], [0.0, 0.0]])
    assert normalise([1.0, 0.0]).shape == (1, 2)


def test_make_embedder_backends_and_errors() -> None:
    assert isinstance(make_embedder(None), WordLlamaEmbedder)
    assert make_embedder({"backend": "hashing", "dim": 32}).dim == 32
    with pytest.raises(ConfigError, match="unknown embedding backend"):
        make_embedder({"backend": "word2vec"})
    with pytest.raises(ConfigError, match=r"unknown keys in \[embedding\]: \['size'\]"):
        make_embedder({"backend": "hashing", "size": 3})


def test_openai_compatible_backend() -> None:
    with serve(embedding_dim=16) as server:
        embedder = make_embedder(
            {"backend": "openai", "model": "emb-test", "base_url": server.base_url, "dim": 16}
        )
        assert isinstance(embedder, OpenAIEmbedder)
        rows = embedder.embed(["one", "two", "one"])
        assert rows.shape == (3, 16) and rows.dtype == np.float32
        assert np.array_equal(rows[0], rows[2])
        assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
        assert embedder.model_id == "openai/emb-test/16"
        assert embedder.embed([]).shape == (0, 16)
        wrong = OpenAIEmbedder(model="emb-test", base_url=server.base_url, dim=8)
        with pytest.raises(RemotePeerError, match="dim"):
            wrong.embed(["x"])
        wrong.close()
        embedder.close()


def test_openai_backend_unreachable_is_a_typed_error() -> None:
    embedder = OpenAIEmbedder(model="m", base_url="http://127.0.0.1:9/v1", dim=4)
    embedder._client = embedder._client.with_options(max_retries=0, timeout=5.0)
    with pytest.raises(PeerUnreachable, match="unreachable"):
        embedder.embed(["x"])
    embedder.close()
