// Chats view: the chats this node takes part in, with the state of their latest goal round.
import { get } from "./api.js";
import { badge, clear, h, short, table, toast, when } from "./dom.js";
export { showChat } from "./chat.js";

export function showChats(root) {
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  root.append(h("section", { class: "panel", "aria-labelledby": "chats-title" },
    h("div", { class: "row between" }, h("h1", { id: "chats-title" }, "Chats"),
      h("button", { type: "button", onclick: () => load() }, "Refresh")), body));

  async function load() {
    try {
      const [chats, goals] = await Promise.all([get("/chats"), get("/goals")]);
      const latest = new Map();
      for (const g of goals) latest.set(g.chat_id, g); // oldest first: the last one wins
      clear(body);
      if (!chats.length) {
        body.append(h("p", { class: "muted" }, "No chat yet: launch a goal."));
        return;
      }
      chats.sort((a, b) => b.created_ms - a.created_ms);
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
    } catch (err) {
      toast(err.message);
    }
  }

  load();
  return () => {};
}
