"""Kind ``http``: any agent behind a JSON HTTP endpoint (an in-house service joins unchanged).

- ``adapter.py``  options, the request, the response and the failure mapping;
- ``mapping.py``  dotted paths into JSON request templates and responses.
"""

from ioa_p2p.adapters.http.adapter import HttpAdapter, HttpOptions

__all__ = ["HttpAdapter", "HttpOptions"]
