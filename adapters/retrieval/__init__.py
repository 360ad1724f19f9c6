"""ioa_p2p.adapters.retrieval: the ``retrieval`` adapter: answers from a folder of documents.

- ``adapter.py``  options, the document index, the adapter (search, can_do, run)
- ``chunks.py``   documents cut into cited passages along their structure (pure)
- ``scope.py``   the document set a question names (its subject's name) weighs the others down
- ``superlative.py`` "the heaviest", "the cheapest": the table row with the extreme value of the attribute
- ``answer.py``   the answer span, its confidence and citation from the best passages (pure)
"""

from ioa_p2p.adapters.retrieval.adapter import Passage, RetrievalAdapter, RetrievalOptions, chunk_document

__all__ = ["Passage", "RetrievalAdapter", "RetrievalOptions", "chunk_document"]
