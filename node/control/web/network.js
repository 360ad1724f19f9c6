// Network view: connected peers (addresses, connection kinds, latency), routing table, gossip mesh.
import { get } from "./api.js";
import { badge, clear, h, short, table, toast, when } from "./dom.js";

export function showNetwork(root) {
  const body = h("div", { class: "stack" }, h("p", { class: "muted" }, "Loading…"));
  const refresh = h("button", { type: "button", onclick: () => load() }, "Measure again");
  root.append(h("section", { class: "panel", "aria-labelledby": "net-title" },
    h("div", { class: "row between" }, h("h1", { id: "net-title" }, "Network"), refresh), body));
  let alive = true;

  async function load() {
    refresh.disabled = true;
    try {
      const net = await get("/network");
      if (!alive) return;
      render(net);
    } catch (err) {
      toast(err.message);
    } finally {
      refresh.disabled = false;
    }
  }

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
        h("dt", {}, "Measured"), h("dd", {}, when(net.measured_ms))),
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

  load();
  return () => {
    alive = false;
  };
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
