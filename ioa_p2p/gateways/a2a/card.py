"""The A2A agent card of a node: derived from its signed capability card, signed with its Ed25519 key.

The card (A2A v1.0 ``AgentCard``) carries the node's name and description, its two skills (``run_task``: the
node's own adapter; ``team_goal``: a team from the network), the JSON-RPC interface, the bearer security
scheme, and an extension ``urn:ioa-p2p:node-card:1`` whose params repeat the capability card it comes from
(peer ID, card version, issue and expiry times, addresses).

It is signed as A2A v1 allows (``signatures``: a JWS with detached payload, RFC 7515 / RFC 8037):

- protected header ``{"alg": "EdDSA", "kid": <peer ID>, "typ": "JOSE"}`` (base64url, no padding);
- payload: the card's JSON (the proto3 JSON mapping, as served) without ``signatures``, with every empty
  string, list and object removed (recursively), in the JSON Canonicalization Scheme (RFC 8785);
- signature: Ed25519 over ``ASCII(protected || "." || base64url(payload))`` with the node's key.

The ``kid`` is the peer ID (``12D3KooW...``), the identity multihash of the Ed25519 public key: a verifier
needs no other trust root (:func:`verify_agent_card`, docs/protocol.md §11).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentCardSignature,
    AgentExtension,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from google.protobuf.json_format import MessageToDict

from ioa_p2p.api.discovery import CardSummary
from ioa_p2p.errors import InvalidCard, InvalidPeerId, SignatureError
from ioa_p2p.identity import Identity, PeerId

EXTENSION = "urn:ioa-p2p:node-card:1"
RUN_TASK = "run_task"
TEAM_GOAL = "team_goal"
SKILLS = (RUN_TASK, TEAM_GOAL)
ALGORITHM = "EdDSA"
SOFTWARE_VERSION = "0.1.0"


def agent_card(own: CardSummary, url: str) -> AgentCard:
    """The (unsigned) A2A card of the node whose capability card is ``own``, served at ``url``."""
    tags = list(dict.fromkeys([*own.skills, *own.task_types]))[:32]
    adapter = own.adapter or "none"
    run = AgentSkill(
        id=RUN_TASK,
        name="Run a task on this agent",
        description=(
            f"{own.name} does the task itself, with its own adapter ({adapter}), in a signed chat of its "
            f"own: {own.description}"
        )[:2000],
        tags=tags or ["task"],
        examples=["Calculate 17 * 23"] if "calculator" in adapter else [],
        input_modes=["text/plain"],
        output_modes=["text/plain", "application/json"],
    )
    team = AgentSkill(
        id=TEAM_GOAL,
        name="Work out a goal with a team from the network",
        description=(
            "Finds agents on the ioa-p2p peer-to-peer network by their signed capability cards, invites a "
            "team into a signed group chat, works the goal out, and answers with the steps, the citations, "
            "the chat ID and the audit verdict of the signed history. Status updates stream the goal's "
            "events (team formed, turns, task progress, plan)."
        ),
        tags=["team", "multi-agent", "peer-to-peer", "audited"],
        examples=["Convert 26.2 miles to kilometres, then round to one decimal"],
        input_modes=["text/plain"],
        output_modes=["text/plain", "application/json"],
    )
    extension = AgentExtension(
        uri=EXTENSION,
        description="The ioa-p2p node behind this agent: its signed capability card (find it by peer ID)",
        required=False,
        params={
            "peer_id": own.peer_id,
            "card_version": str(own.version),
            "issued_at": str(own.issued_at),
            "expires_at": str(own.expires_at),
            "adapter": own.adapter,
            "addrs": list(own.addrs),
        },
    )
    return AgentCard(
        name=own.name,
        description=own.description or f"ioa-p2p agent {own.peer_id}",
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        version=SOFTWARE_VERSION,
        capabilities=AgentCapabilities(streaming=True, push_notifications=False, extensions=[extension]),
        security_schemes={
            "bearer": SecurityScheme(
                http_auth_security_scheme=HTTPAuthSecurityScheme(
                    scheme="bearer",
                    description="the gateway's token (its operator gives it: $IOA_HOME/a2a.token)",
                )
            )
        },
        security_requirements=[SecurityRequirement(schemes={"bearer": StringList()})],
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        skills=[run, team],
    )


# --------------------------------------------------------------------------- signing and verifying


def card_json(card: AgentCard) -> dict[str, Any]:
    """The card as served: the proto3 JSON mapping (camelCase keys, default values left out)."""
    return MessageToDict(card)


def sign_agent_card(card: AgentCard, identity: Identity) -> AgentCard:
    """A copy of ``card`` with one more signature: EdDSA by ``identity``, ``kid`` its peer ID."""
    signed = AgentCard()
    signed.CopyFrom(card)
    header = {"alg": ALGORITHM, "kid": str(identity.peer_id), "typ": "JOSE"}
    protected = _b64(json.dumps(header, separators=(",", ":")).encode())
    payload = canonical_payload(card_json(card))
    signature = identity.sign(f"{protected}.{_b64(payload)}".encode("ascii"))
    signed.signatures.append(AgentCardSignature(protected=protected, signature=_b64(signature)))
    return signed


def verify_agent_card(data: Mapping[str, Any], expected: str | None = None) -> PeerId:
    """The peer ID that signed the card JSON ``data`` (as served); SignatureError when no signature is
    an EdDSA signature whose ``kid`` (a peer ID) verifies, or when ``expected`` (a peer ID) did not sign."""
    signatures = data.get("signatures")
    if not isinstance(signatures, list) or not signatures:
        raise SignatureError("the agent card has no signatures")
    payload = _b64(canonical_payload(data))
    problems = []
    for entry in signatures:
        try:
            peer = _verify_one(entry, payload)
        except (SignatureError, InvalidPeerId, InvalidCard) as exc:
            problems.append(str(exc))
            continue
        if expected is None or str(peer) == expected:
            return peer
        problems.append(f"signed by {peer}, not by {expected}")
    raise SignatureError("no valid signature on the agent card: " + "; ".join(problems))


def _verify_one(entry: Any, payload: str) -> PeerId:
    if not isinstance(entry, dict) or not isinstance(entry.get("protected"), str):
        raise InvalidCard("a signature without a protected header")
    protected, signature = entry["protected"], entry.get("signature")
    try:
        header = json.loads(_unb64(protected))
        raw = _unb64(signature if isinstance(signature, str) else "")
    except (ValueError, UnicodeDecodeError):
        raise InvalidCard("a signature whose header or value is not base64url JSON") from None
    if (
        not isinstance(header, dict)
        or header.get("alg") != ALGORITHM
        or not isinstance(header.get("kid"), str)
    ):
        raise InvalidCard(f"a signature that is not {ALGORITHM} with a peer ID as kid")
    peer = PeerId.from_string(header["kid"])
    if not peer.verify(raw, f"{protected}.{payload}".encode("ascii")):
        raise SignatureError(f"the signature of {peer} does not verify")
    return peer


def canonical_payload(data: Mapping[str, Any]) -> bytes:
    """What a card signature covers: ``data`` without ``signatures``, empty values removed, RFC 8785."""
    cleaned = _clean({k: v for k, v in data.items() if k != "signatures"})
    return _jcs(cleaned if cleaned is not None else {}).encode("utf-8")


def _clean(value: Any) -> Any:
    """Empty strings, lists and objects removed, recursively (None when ``value`` itself is empty)."""
    if isinstance(value, dict):
        out = {k: c for k, v in value.items() if (c := _clean(v)) is not None}
        return out or None
    if isinstance(value, list):
        items = [c for v in value if (c := _clean(v)) is not None]
        return items or None
    if value == "" or value is None:
        return None
    return value


def _jcs(value: Any) -> str:
    """RFC 8785 for the values a card holds: objects, arrays, text, booleans, integers (a float is
    refused: cards carry none, and JCS number formatting is not needed for them)."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(f"{_jcs(str(k))}:{_jcs(value[k])}" for k in keys) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_jcs(v) for v in value) + "]"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        if abs(value) > 2**53 - 1:
            raise InvalidCard(f"a number outside the range JSON keeps exact: {value}")
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53 - 1:
        return str(int(value))
    raise InvalidCard(f"a card value this verifier cannot canonicalize: {value!r}")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


__all__ = [
    "EXTENSION",
    "RUN_TASK",
    "SKILLS",
    "TEAM_GOAL",
    "agent_card",
    "canonical_payload",
    "card_json",
    "sign_agent_card",
    "verify_agent_card",
]
