"""Traces of one goal across node processes, and tracing off costing nothing.

- Two agent processes with the JSON-lines file exporter: the spans of one goal, on both nodes, share one
  trace ID; the member's task span descends from the launcher's goal span through the trace context
  carried in the signed ``conv.start`` and task turn (its parent is the launcher's turn span, whose
  parent is the goal span).
- A node without ``[telemetry]`` imports nothing of OpenTelemetry, even while running a goal; asked to
  trace without the ``otel`` extra, it is a configuration error saying what to install.
- ``[telemetry] otlp_endpoint``: spans reach a real OTLP/HTTP collector (protobuf to ``/v1/traces``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.bootstrap.testnet import NodeSpec, open_testnet
from ioa_p2p.conversation.messages import ConvStart, TaskAssignment, Turn
from ioa_p2p.telemetry import TelemetrySettings, parse_traceparent

from .test_goals_process import wait_cards

FAST_CHATS = {"sync_interval": 2.0, "retry_initial": 0.1, "retry_max": 1.0, "invite_timeout": 5.0}
TRACE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def spec(name: str, agent: dict[str, Any]) -> NodeSpec:
    return NodeSpec(
        name,
        {
            "agent": {"name": name, **agent},
            "chats": FAST_CHATS,
            "goals": {"brain": "offline", "speaker_timeout": 10.0, "invite_timeout": 20.0},
            "telemetry": {"file": "spans.jsonl", "service_name": f"ioa-{name}"},
        },
    )


def spans_of(home: Path) -> list[dict[str, Any]]:
    path = home / "spans.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.slow
async def test_one_goal_is_one_trace_across_the_launcher_and_its_member(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")
    specs = [
        spec("coordinator", {"description": "Coordinates agents: launches goals and plans them."}),
        spec("calculator", {"adapter": "calculator", "description": "Exact arithmetic: sums, products."}),
    ]
    with trio.fail_after(240):
        async with open_testnet(tmp_path / "net", specs) as net:
            await net.wait_mesh()
            # Connected is not known: the goal names its team, so the calculator's card (its latest
            # version) must be at the coordinator before the goal starts.
            await wait_cards(net, net["coordinator"], 1)
            result = await net["coordinator"].call(
                "POST", "/launch_goal", {"goal": "Calculate 17 * 23", "team": "calculator", "timeout": 90}
            )
            assert result["status"] == "concluded" and "391" in result["answer"]
            homes = {n.name: n.home for n in net.agents}
        # the nodes stopped: every span is flushed to the files
    launcher, member = spans_of(homes["coordinator"]), spans_of(homes["calculator"])
    goal = next(s for s in launcher if s["name"] == "ioa.goal")
    assert (
        goal["parent_span_id"] is None and goal["attributes"]["gen_ai.conversation.id"] == result["chat_id"]
    )
    trace_id = goal["trace_id"]
    assert {s["trace_id"] for s in launcher} == {trace_id}
    assert {s["trace_id"] for s in member} == {trace_id}  # one goal, one trace, across both processes
    names = {s["name"] for s in launcher}
    assert {"ioa.goal", "ioa.team_formation", "ioa.turn"} <= names
    task = next(s for s in member if s["name"] == "ioa.task")
    assert task["parent_remote"] and task["service"] == "ioa-calculator"
    by_id = {s["span_id"]: s for s in launcher + member}
    chain, span = [], task
    while span["parent_span_id"] is not None:
        span = by_id[span["parent_span_id"]]
        chain.append(span["name"])
    assert chain == ["ioa.turn", "ioa.goal"]  # the turn that assigned the task, then the goal
    run = next(s for s in member if s["name"] == "ioa.adapter.run")
    assert run["parent_span_id"] == task["span_id"] and run["attributes"]["ioa.adapter"] == "calculator"


def test_the_trace_field_is_optional_and_absent_by_default() -> None:
    plain = ConvStart.create("g", initiator="a", members=["a", "b"], now=1000.0)
    assert "trace" not in plain.to_content()  # the bytes of version 1, which older peers read
    traced = ConvStart.create("g", initiator="a", members=["a", "b"], now=1000.0, trace=TRACE)
    assert ConvStart.from_content(traced.to_content()).trace == TRACE
    turn = Turn("conv.task.sync", "p", 0, "x", tasks=(TaskAssignment("b", "t", "d"),)).to_content()
    assert "trace" not in turn
    assert Turn.from_content("conv.task.sync", {**turn, "trace": TRACE}).tasks[0].assignee == "b"
    with pytest.raises(Exception, match="never null"):
        ConvStart.from_content({**plain.to_content(), "trace": None})
    with pytest.raises(Exception, match="unexpected fields"):
        Turn.from_content("conv.discussion", {**turn, "next": (), "trace": TRACE})
    assert parse_traceparent(TRACE) == ("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1)
    assert parse_traceparent("00-" + "0" * 32 + "-b7ad6b7169203331-01") is None


def test_tracing_is_off_unless_asked() -> None:
    off = TelemetrySettings.from_section({})
    assert not off.wanted({})
    assert off.wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    assert off.wanted({"OTEL_TRACES_EXPORTER": "console"})
    assert not off.wanted({"OTEL_TRACES_EXPORTER": "none"})
    assert not TelemetrySettings.from_section({"file": "x"}).wanted({"OTEL_SDK_DISABLED": "true"})
    assert not TelemetrySettings.from_section({"file": "x", "enabled": False}).wanted({})


@pytest.mark.slow
def test_a_node_without_telemetry_imports_no_opentelemetry(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys, trio
        from pathlib import Path
        from ioa_p2p import LaunchRequest
        from ioa_p2p.config.node_config import NodeConfig
        from ioa_p2p.identity import Identity
        from ioa_p2p.node import open_node

        async def main():
            config = NodeConfig(home=Path(sys.argv[1]), listen=("/ip4/127.0.0.1/tcp/0",))
            async with open_node(config, identity=Identity.generate(), write_info=False) as node:
                try:
                    with trio.fail_after(60):
                        await node.launch_goal(LaunchRequest("Calculate 2 + 2", timeout=5))
                except Exception as exc:  # alone, no team: the goal fails; the code paths ran
                    print("goal:", type(exc).__name__)
                print("tracer:", node.tracer.describe())
            loaded = sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry")
            print("loaded:", loaded)

        trio.run(main)
        """
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    assert "tracer: off" in out.stdout, out.stderr[-2000:]
    assert "loaded: []" in out.stdout, out.stdout


def test_tracing_asked_without_the_otel_extra_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ioa_p2p.errors import ConfigError
    from ioa_p2p.node.telemetry import open_tracer

    monkeypatch.delitem(sys.modules, "ioa_p2p.node.telemetry.otel", raising=False)
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # as if the extra were not installed
    with pytest.raises(ConfigError, match=r"pip install 'ioa-p2p\[otel\]'"):
        open_tracer({"file": "spans.jsonl"}, tmp_path, "peer", {})
    assert open_tracer({}, tmp_path, "peer", {}).describe() == "off"  # not asked: nothing needed


def test_spans_go_to_an_otlp_http_collector(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the otel extra is not installed")
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    from ioa_p2p.node.telemetry import open_tracer

    received: list[tuple[str, str, bytes]] = []

    class Collector(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            received.append((self.path, self.headers.get("Content-Type", ""), body))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        endpoint = f"http://127.0.0.1:{httpd.server_address[1]}"
        tracer = open_tracer({"otlp_endpoint": endpoint, "service_name": "ioa-test"}, tmp_path, "peer-1", {})
        assert tracer.describe() == f"on: OTLP {endpoint}/v1/traces"
        with tracer.span("ioa.goal", attributes={"ioa.goal": "g"}), tracer.span("chat m", kind="client"):
            pass
        tracer.shutdown()  # type: ignore[attr-defined] # flushes the batch to the collector
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
    assert [(path, kind) for path, kind, _ in received] == [("/v1/traces", "application/x-protobuf")]
    request = ExportTraceServiceRequest.FromString(received[0][2])
    resource = request.resource_spans[0]
    attributes = {a.key: a.value.string_value for a in resource.resource.attributes}
    assert attributes["service.name"] == "ioa-test" and attributes["ioa.peer_id"] == "peer-1"
    names = sorted(s.name for scope in resource.scope_spans for s in scope.spans)
    assert names == ["chat m", "ioa.goal"]
