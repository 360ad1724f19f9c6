"""ioa_p2p.adapters.retrieval: the ``retrieval`` adapter: answers from a folder of documents."""

from ioa_p2p.adapters.retrieval.adapter import Passage, RetrievalAdapter, RetrievalOptions, chunk_document

__all__ = ["Passage", "RetrievalAdapter", "RetrievalOptions", "chunk_document"]
