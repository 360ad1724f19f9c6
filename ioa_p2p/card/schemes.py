"""The model IDs of the two card vector schemes the matcher produces (constants only, no imports).

Kept apart from :mod:`ioa_p2p.matching` (which defines them for its encoders and re-exports them) so
that the DHT's bucket code (:mod:`ioa_p2p.dht.lsh`), which a bootstrap node runs to check the bucket
pages it stores, can name the schemes without importing the matcher and its text tools (~4.5 MB per
process: docs/performance.md, "Light nodes").
"""

from __future__ import annotations

#: The hybrid matcher's 640-d vectors: wordllama 256-d then MiniLM int8 384-d (each times 1/sqrt 2).
HYBRID_MODEL_ID = "wordllama-256+minilm-int8-384/2"
#: The default card scheme's vectors (wordllama 256-d): its cards need no re-embedding.
LITE_MODEL_ID = "wordllama/l2_supercat/256"

__all__ = ["HYBRID_MODEL_ID", "LITE_MODEL_ID"]
