"""The endpoint of model-using adapter kinds (smolagents, open_interpreter) accepts the node's whole
``[model]`` table, brain-only keys included, and still refuses keys nobody knows."""

from __future__ import annotations

import pytest

from ioa_p2p.adapters.remote.endpoint import endpoint_from_settings
from ioa_p2p.errors import IoAError

NODE_MODEL_TABLE = {
    "model": "m", "base_url": "http://127.0.0.1:9/v1", "api_key": "k", "timeout": 30, "max_retries": 1,
    "temperature": 0.2, "json_mode": True, "max_tokens": 512, "context_tokens": 4096,
    "max_response_bytes": 1 << 20,
}  # fmt: skip


def test_the_node_model_table_is_accepted_whole() -> None:
    endpoint = endpoint_from_settings(NODE_MODEL_TABLE, kind="smolagents", env={})
    assert endpoint.base_url == "http://127.0.0.1:9/v1"


def test_an_unknown_key_is_refused_with_its_name() -> None:
    said = r"unknown keys in \[agent\.options\.model\] of adapter 'smolagents': \['temprature'\]"
    with pytest.raises(IoAError, match=said):
        endpoint_from_settings({**NODE_MODEL_TABLE, "temprature": 1}, kind="smolagents", env={})
