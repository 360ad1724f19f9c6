"""What the adapters of remote and third-party agents share (a2a, mcp, agent_protocol, http, smolagents,
open_interpreter).

- ``http_client.py``  bounded ``httpx`` clients, header secrets from the environment, httpx errors translated;
- ``scrub.py``        remote text made safe for results and messages (no secrets, no URL credentials);
- ``outputs.py``      bounded result files, text and data; the ``data["usage"]`` record;
- ``card.py``         a remote agent's self-description fitted into the signed card's limits;
- ``threads.py``      a blocking agent loop in a worker thread, bounded in time and abandoned on cancel.
"""

from .card import MAX_REMOTE_SKILLS, cut_utf8, fit_card, fit_skills
from .http_client import (
    bounded_transport,
    expand_env_refs,
    expand_headers,
    header_secrets,
    open_http_client,
    translate_http_error,
)
from .outputs import FileCollector, clip_text, fit_data, plain, safe_file_name, usage_record
from .scrub import REDACTED, hide_secrets, scrub, strip_userinfo

__all__ = [
    "MAX_REMOTE_SKILLS",
    "REDACTED",
    "FileCollector",
    "bounded_transport",
    "clip_text",
    "cut_utf8",
    "expand_env_refs",
    "expand_headers",
    "fit_card",
    "fit_data",
    "fit_skills",
    "header_secrets",
    "hide_secrets",
    "open_http_client",
    "plain",
    "safe_file_name",
    "scrub",
    "strip_userinfo",
    "translate_http_error",
    "usage_record",
]
