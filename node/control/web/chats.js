// Chats view, live: the chats this node takes part in, with the state of their latest goal round.
import { LiveStream } from "./api.js";
import { badge, clear, h, liveBadge, short, table, when } from "./dom.js";
export { showChat } from "./chat.js";

export function showChats(root) {
  const body = h("div", { id: "chats-body" }, h("p", { class: "muted" }, "Loading…"));
  const state = liveBadge("chats-live");
  root.append(h("section", { class: "panel", "aria-labelledby": "chats-title" },
    h("div", { class: "row between" }, h("h1", { id: "chats-title" }, "Chats"), state.el), body));
  // Live: the node sends the list again each time a chat or a round changes (GET /chats/list/events).
  const stream = new LiveStream("/chats/list/events", {}, {
    onEvent: (ev) => {
      if (ev.event !== "chats") return;
      const focused = body.contains(document.activeElement) ? document.activeElement.dataset.chat : undefined;
      render(ev.chats, ev.goals);
      if (focused) body.querySelector(`a.chat-link[data-chat="${CSS.escape(focused)}"]`)?.focus(); // keep the place
    },
    onState: state.set,
  });

  function render(chats, goals) {
    const latest = new Map();
    for (const g of goals) latest.set(g.chat_id, g); // oldest first: the last one wins
    clear(body);
    if (!chats.length) {
      body.append(h("p", { class: "muted" }, "No chat yet: launch a goal."));
      return;
    }
    chats = [...chats].sort((a, b) => b.created_ms - a.created_ms);
    const rows = chats.map((c) => {
      const g = latest.get(c.chat_id);
      return [
        h("a", { href: `#/chats/${c.chat_id}`, class: "chat-link", dataset: { chat: c.chat_id } }, c.topic || short(c.chat_id)),
        g ? badge(g.status, g.status === "concluded" ? "ok" : g.status === "running" ? "info" : "warn") : badge("chat", "muted"),
        String(c.members.length),
        String(c.messages),
        c.status === "member" ? "" : badge(c.status, "muted"),
        when(c.created_ms),
      ];
    });
    body.append(h("div", { class: "scroll" }, table(["Topic", "Goal", "Members", "Messages", "", "Created"], rows)));
  }

  return () => stream.close();
}
