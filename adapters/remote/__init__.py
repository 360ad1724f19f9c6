"""What the adapters of remote and third-party agents share (a2a, mcp, agent_protocol, http, smolagents,
open_interpreter).

- ``http_client.py``  bounded ``httpx`` clients, header secrets from the environment, httpx errors translated;
- ``scrub.py``        remote text made safe for results and messages (no secrets, no URL credentials);
- ``outputs.py``      bounded result files, text and data; the ``data["usage"]`` record and the usage a
  remote reports;
- ``card.py``         a remote agent's self-description fitted into the signed card's limits;
- ``threads.py``      a blocking agent loop in a worker thread, interrupted and abandoned on cancel;
- ``endpoint.py``     the OpenAI-compatible endpoint settings a third-party agent library is given;
- ``prompt.py``       a task and its chat context as one prompt.
"""

from ioa_p2p.adapters.remote.card import MAX_REMOTE_SKILLS, cut_utf8, fit_card, fit_skills
from ioa_p2p.adapters.remote.endpoint import Endpoint, endpoint_from_settings
from ioa_p2p.adapters.remote.http_client import (
    bounded_transport,
    check_http_url,
    expand_env_refs,
    expand_headers,
    header_secrets,
    open_http_client,
    translate_http_error,
)
from ioa_p2p.adapters.remote.outputs import (
    FileCollector,
    clip_text,
    fit_data,
    plain,
    reported_usage,
    safe_file_name,
    usage_record,
)
from ioa_p2p.adapters.remote.prompt import context_lines, task_prompt
from ioa_p2p.adapters.remote.scrub import REDACTED, hide_secrets, scrub, strip_userinfo
from ioa_p2p.adapters.remote.threads import Report, run_blocking

__all__ = [
    "MAX_REMOTE_SKILLS",
    "REDACTED",
    "Endpoint",
    "FileCollector",
    "Report",
    "bounded_transport",
    "check_http_url",
    "clip_text",
    "context_lines",
    "cut_utf8",
    "endpoint_from_settings",
    "expand_env_refs",
    "expand_headers",
    "fit_card",
    "fit_data",
    "fit_skills",
    "header_secrets",
    "hide_secrets",
    "open_http_client",
    "plain",
    "reported_usage",
    "run_blocking",
    "safe_file_name",
    "scrub",
    "strip_userinfo",
    "task_prompt",
    "translate_http_error",
    "usage_record",
]
