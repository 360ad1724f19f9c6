// One chat, live: its messages in causal order as they arrive (GET /chats/events, resumed from the last
// cursor after a dropped connection), the goal panel fed by the chat's goal events, the audit badge for the
// whole history, export, cancel, continue. New messages are rendered in batches, one per animation frame.
import { LiveStream, get, launchStream, post } from "./api.js";
import { badge, clear, h, short, toast } from "./dom.js";
import { GoalPanel } from "./goalpanel.js";
import { messageItem } from "./messages.js";

const AUDIT_QUIET_MS = 700;

export function showChat(root, chatId, ctx) {
  const names = new Map();
  const name = (id) => names.get(id) || short(id);
  const state = badge("connecting", "muted");
  state.id = "chat-live";
  const audit = h("button", { type: "button", id: "audit-badge", class: "badge muted", title: "Audit the whole history again" }, "audit: not checked");
  const exportBtn = h("button", { type: "button", id: "chat-export" }, "Export history");
  const cancelBtn = h("button", { type: "button", id: "chat-cancel", class: "danger", hidden: true }, "Cancel round");
  const title = h("h1", { id: "chat-title" }, "Chat");
  const info = h("p", { class: "muted", id: "chat-info" });
  const log = h("ol", { id: "chat-log", class: "messages", role: "log", "aria-live": "polite", "aria-label": "Messages" });
  const panel = new GoalPanel(chatId, names);
  const input = h("input", { id: "chat-input", autocomplete: "off", placeholder: "A new request for this team, or a message" });
  const send = h("button", { type: "submit", id: "chat-send" }, "Send");
  const form = h("form", { id: "chat-form", class: "row" }, h("label", { for: "chat-input", class: "sr-only" }, "Message"), input, send);
  root.append(h("section", { class: "panel chat", "aria-labelledby": "chat-title" },
    h("div", { class: "row between wrap" }, title, h("div", { class: "row wrap" }, state, audit, exportBtn, cancelBtn)),
    info,
    h("div", { class: "chat-grid" }, h("div", { class: "log-wrap" }, log, form), panel.el)));

  let chat = null;
  let queue = [];
  let frame = 0;
  let count = 0;
  let auditTimer = null;
  let goalStream = null;
  let isGoalChat = false;
  let continuing = null;

  // --- messages -----------------------------------------------------------------------------------------
  function flush() {
    frame = 0;
    const stick = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
    const batch = document.createDocumentFragment();
    for (const ev of queue) batch.append(messageItem(ev, name));
    queue = [];
    log.append(batch);
    info.textContent = `${count} messages · ${chat ? chat.members.length : "?"} members · chat ${chatId}`;
    if (stick) log.scrollTop = log.scrollHeight;
  }

  function onMessage(ev) {
    if (ev.event !== "chat_message") return;
    count = ev.index;
    queue.push(ev);
    if (!frame) frame = requestAnimationFrame(flush);
    const kind = ev.message.kind;
    if (kind === "conv.start") openGoalStream();
    scheduleAudit();
  }

  let messages = null;
  function follow() {
    messages = new LiveStream("/chats/events", { chat: chatId }, {
      onEvent: onMessage,
      onReset: () => {
        clear(log);
        queue = [];
        count = 0;
      },
      onState: (s) => {
        state.textContent = s;
        state.className = `badge ${s === "live" ? "ok" : s === "closed" ? "muted" : "warn"}`;
      },
    });
  }

  // --- the goal side ------------------------------------------------------------------------------------
  function openGoalStream() {
    isGoalChat = true;
    if (goalStream && !goalStream.closed) return;
    if (goalStream) {
      goalStream.closed = false;
      goalStream.reopen();
      return;
    }
    goalStream = new LiveStream("/goal_events", { chat: chatId }, {
      onEvent: (ev) => {
        const ended = panel.apply(ev);
        cancelBtn.hidden = !(panel.latest && panel.latest.status === "running" && ctx.me && panel.latest.initiator === ctx.me.peer_id);
        if (ended) goalStream.close(); // the node ends the stream with the round: reopened by the next start
      },
      onReset: () => panel.reset(),
    });
  }

  // --- audit --------------------------------------------------------------------------------------------
  function scheduleAudit() {
    clearTimeout(auditTimer);
    auditTimer = setTimeout(runAudit, AUDIT_QUIET_MS);
  }

  async function runAudit() {
    audit.textContent = "audit: checking…";
    audit.className = "badge muted";
    try {
      const a = await get("/chats/audit", { chat: chatId });
      const authors = Object.keys(a.authors).length;
      if (a.valid) {
        audit.textContent = `audit: valid ✓ (${a.messages} messages, ${authors} authors)`;
        audit.className = "badge ok";
        audit.dataset.valid = "true";
      } else {
        audit.textContent = `audit: INVALID (${a.findings.length} findings)`;
        audit.className = "badge bad";
        audit.dataset.valid = "false";
        audit.title = a.findings.map((f) => `[${f.code}] ${f.message}`).join("\n");
      }
    } catch (err) {
      audit.textContent = `audit: ${err.message}`;
      audit.className = "badge warn";
    }
  }
  audit.addEventListener("click", runAudit);

  // --- actions ------------------------------------------------------------------------------------------
  exportBtn.addEventListener("click", async () => {
    try {
      const x = await get("/chats/export", { chat: chatId });
      const raw = Uint8Array.from(atob(x.data), (c) => c.charCodeAt(0));
      const url = URL.createObjectURL(new Blob([raw], { type: "application/octet-stream" }));
      const a = h("a", { href: url, download: `chat-${chatId.slice(0, 16)}.history` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      toast(`Exported ${x.messages} messages (check it offline with: ioa audit FILE)`);
    } catch (err) {
      toast(err.message);
    }
  });

  cancelBtn.addEventListener("click", async () => {
    try {
      await post("/cancel_goal", { chat: chatId });
      toast("Cancel sent: the round ends with a signed conv.cancel");
    } catch (err) {
      toast(err.message);
    }
  });

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    try {
      if (isGoalChat) {
        continuing = new AbortController(); // a new round of this team; the panel follows it from its start
        launchStream({ goal: text, comm_id: chatId, cont_input: text }, () => {}, continuing.signal).catch((err) => {
          if (err.name !== "AbortError") toast(err.message);
        });
      } else {
        await post("/chats/post", { chat: chatId, text });
      }
    } catch (err) {
      toast(err.message);
    }
  });

  // --- the chat itself ------------------------------------------------------------------------------------
  (async () => {
    try {
      const [chats, cards] = await Promise.all([get("/chats"), get("/cards").catch(() => ({ cards: [] }))]);
      for (const c of cards.cards) names.set(c.peer_id, c.name);
      chat = chats.find((c) => c.chat_id === chatId || c.chat_id.startsWith(chatId));
      title.textContent = chat ? chat.topic || `Chat ${short(chatId)}` : `Chat ${short(chatId)}`;
      send.textContent = chat && chat.topic.startsWith("goal:") ? "Continue" : "Send";
      if (chat && chat.topic.startsWith("goal:")) isGoalChat = true;
    } catch (err) {
      toast(err.message);
    }
    if (!left) follow(); // the names are known before the first message is shown
  })();

  let left = false;
  return () => {
    left = true;
    if (messages) messages.close();
    if (goalStream) goalStream.close();
    if (continuing) continuing.abort();
    clearTimeout(auditTimer);
    if (frame) cancelAnimationFrame(frame);
  };
}
