"""adapters.retrieval.docmodel: documents read once into typed records; questions answered with typed values.

- ``quantity.py``    quantities with units, rates ("EUR 12 per hour", "300 g per 4 jars"), ranges, dimensions
- ``conditions.py``  conditions and exceptions ("except", "unless", "only with", "otherwise", minimums, caps)
- ``records.py``     the records (sentence, item, field, row, term, FAQ answer), :class:`TypedAnswer`
- ``reader.py``      a document's text -> :class:`Document` (headings, tables, fields, definitions, sentences)
- ``question.py``    a question -> :class:`Query` (answer type, dimensions, terms, stated quantities, per)
- ``spans.py``       clauses, clock times, names, causes, the branch a situation meets
- ``answerer.py``    :func:`ask` / :func:`ranked`: the best typed answers from the records

The API other layers use is small: ``read_document(path, text) -> Document`` (once, at load) and
``ask(question, documents, weights) -> TypedAnswer | None``; a :class:`TypedAnswer` has ``value`` (a
:class:`~ioa_p2p.planning.values.Value`: number + unit, or text / date), ``kind`` (the answer type), ``span``
(path, line, text), ``per``/``per_amount`` for a rate, ``conditions`` and ``confidence``; ``to_dict()`` is
what the retrieval adapter puts in a result's ``data["typed"]``.
"""

from ioa_p2p.adapters.retrieval.docmodel.answerer import ask, fits, ranked
from ioa_p2p.adapters.retrieval.docmodel.quantity import Quantity, convert, dimension, quantities_in
from ioa_p2p.adapters.retrieval.docmodel.question import Query, read_question
from ioa_p2p.adapters.retrieval.docmodel.reader import read_document
from ioa_p2p.adapters.retrieval.docmodel.records import Condition, Document, Record, Span, TypedAnswer

__all__ = [
    "Condition",
    "Document",
    "Quantity",
    "Query",
    "Record",
    "Span",
    "TypedAnswer",
    "ask",
    "convert",
    "dimension",
    "fits",
    "quantities_in",
    "ranked",
    "read_document",
    "read_question",
]
