// Network view, live: connected peers (addresses, connection kinds, latency), routing table, gossip mesh.
import { LiveStream } from "./api.js";
import { badge, clear, h, liveBadge, short, table, when } from "./dom.js";

export function showNetwork(root) {
  const body = h("div", { class: "stack", id: "net-body" }, h("p", { class: "muted" }, "Loading…"));
  const state = liveBadge("net-live");
  root.append(h("section", { class: "panel", "aria-labelledby": "net-title" },
    h("div", { class: "row between" }, h("h1", { id: "net-title" }, "Network"), state.el), body));
  let updates = 0;
  // Live: the node sends the whole view again each time it changes (GET /network/events, resumable).
  const stream = new LiveStream("/network/events", {}, {
    onEvent: (ev) => {
      if (ev.event !== "network") return;
      render(ev.view);
      body.dataset.updates = String(++updates);
    },
    onState: state.set,
  });

  function render(net) {
    clear(body);
    const g = net.gossip;
    body.append(
      h("dl", { class: "facts" },
        h("dt", {}, "Connected peers"), h("dd", { id: "net-peers" }, String(net.peers.length)),
        h("dt", {}, "DHT routing table"), h("dd", { id: "net-routing" }, `${net.routing_table} peers`),
        h("dt", {}, "Card gossip mesh"),
        h("dd", {}, g ? `${g.mesh_peers} in mesh, ${g.topic_peers} on topic; ${g.published} published, ` +
          `${g.received} received, ${g.rejected} rejected` : "off"),
        h("dt", {}, "Measured"), h("dd", { id: "net-measured" }, when(net.measured_ms))),
    );
    if (!net.peers.length) {
      body.append(h("p", { class: "muted" }, "No peer is connected."));
      return;
    }
    const rows = net.peers.map((p) => [
      h("span", { title: p.peer_id }, p.name ? h("strong", {}, p.name) : "", " ", h("code", {}, short(p.peer_id))),
      kinds(p),
      p.latency_ms === null || p.latency_ms === undefined
        ? badge("no answer", "warn")
        : h("span", { class: "num" }, `${p.latency_ms.toFixed(2)} ms`),
      h("ul", { class: "plain" }, p.addrs.slice(0, 4).map((a) => h("li", {}, h("code", {}, a)))),
    ]);
    body.append(h("div", { class: "scroll" }, table(["Peer", "Connection", "Latency", "Addresses"], rows)));
  }

  return () => stream.close();
}

function kinds(peer) {
  const conns = peer.connections || [];
  if (!conns.length) {
    const relayed = peer.addrs.some((a) => a.includes("/p2p-circuit"));
    return badge(relayed ? "relayed" : "direct", relayed ? "warn" : "ok");
  }
  return h("span", {}, conns.map((c) => badge(c.kind || "direct", c.kind === "direct" ? "ok" : "info",
    [c.direction, c.addr].filter(Boolean).join(" "))));
}
