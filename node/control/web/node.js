// Node view, live: identity, agent, software, uptime, memory, config summary, faults.
import { LiveStream } from "./api.js";
import { append, badge, bytes, clear, duration, h, liveBadge, table } from "./dom.js";

export function showNode(root) {
  const body = h("div", { class: "stack", id: "node-body" }, h("p", { class: "muted" }, "Loading…"));
  const state = liveBadge("node-live");
  root.append(h("section", { class: "panel", "aria-labelledby": "node-title" },
    h("div", { class: "row between" }, h("h1", { id: "node-title" }, "This node"), state.el), body));
  let timer = null;
  let updates = 0;
  // Live: the node sends its status again each time it changes (GET /node/events, resumable).
  const stream = new LiveStream("/node/events", {}, {
    onEvent: (ev) => {
      if (ev.event !== "node") return;
      const open = body.querySelector("details.config")?.open;
      const focused = body.contains(document.activeElement) && document.activeElement.tagName === "SUMMARY";
      render(ev.view);
      if (open) body.querySelector("details.config").open = true;
      if (focused) body.querySelector("details.config summary").focus(); // keyboard users keep their place
      body.dataset.updates = String(++updates);
    },
    onState: state.set,
  });

  function render(n) {
    clear(body);
    const uptime = h("dd", { id: "node-uptime" });
    const tick = () => (uptime.textContent = duration(Date.now() / 1000 - n.started_ms / 1000));
    tick();
    clearInterval(timer);
    timer = setInterval(tick, 1000); // the clock runs here; nothing is fetched
    const faults = Object.entries(n.faults.counts);
    append(body, [
      h("dl", { class: "facts" },
        h("dt", {}, "Peer ID"), h("dd", {}, h("code", { id: "node-peer" }, n.peer_id)),
        h("dt", {}, "Agent"), h("dd", {}, n.name || "(no card yet)", " ", n.adapter ? badge(n.adapter, "info") : ""),
        h("dt", {}, "Software"), h("dd", {}, `ioa-p2p ${n.version}, Python ${n.python}, pid ${n.pid}`),
        h("dt", {}, "Uptime"), uptime,
        h("dt", {}, "Memory"), h("dd", {}, `${bytes(n.memory.rss)} resident (peak ${bytes(n.memory.peak_rss)})`),
        h("dt", {}, "Services"), h("dd", {}, n.services.map((s) => badge(s, "muted"))),
        h("dt", {}, "Traces"), h("dd", {}, n.telemetry),
        h("dt", {}, "Control API"), h("dd", {}, `127.0.0.1:${n.control_port}`),
        h("dt", {}, "Listening on"), h("dd", {}, h("ul", { class: "plain" }, n.addrs.map((a) => h("li", {}, h("code", {}, a))))),
        h("dt", {}, "Faults"), h("dd", { id: "node-faults" },
          n.faults.total ? badge(`${n.faults.total} stopped`, "warn") : badge("none", "ok")),
      ),
      faults.length ? table(["Where : exception", "Count"], faults.map(([k, v]) => [h("code", {}, k), String(v)]),
        "What the node's task boundaries stopped (ioa faults)") : null,
      h("details", { class: "config" }, h("summary", {}, "Configuration (secrets redacted)"),
        h("pre", {}, JSON.stringify(n.config, null, 2))),
    ]);
  }

  return () => {
    clearInterval(timer);
    stream.close();
  };
}
