// One chat message as the live view shows it: author, type, time, signature badge, and its content by kind.
import { badge, h, short, when } from "./dom.js";

const TURN = {
  "conv.discussion": "discussion",
  "conv.task.sync": "sync task",
  "conv.task.async": "async task",
  "conv.pause": "pause",
  "conv.conclusion": "conclusion",
};
const LONG = 700;

export function kindLabel(kind) {
  if (TURN[kind]) return TURN[kind];
  if (kind === "conv.start") return "start";
  if (kind === "conv.task.progress") return "progress";
  if (kind === "conv.task.result") return "result";
  if (kind === "conv.plan") return "plan";
  if (kind === "conv.cancel") return "cancel";
  return kind;
}

function text(value) {
  const s = String(value ?? "");
  if (s.length <= LONG) return h("p", { class: "text" }, s);
  return h("details", { class: "text" }, h("summary", {}, `${s.slice(0, 240)}… (${s.length} characters)`), h("p", {}, s));
}

function body(kind, c, name) {
  if (kind === "text") return text(c.text);
  if (kind === "member.add" || kind === "member.remove") return h("p", { class: "muted" }, `${kind === "member.add" ? "added" : "removed"} ${name(c.member)}`);
  if (kind === "member.leave") return h("p", { class: "muted" }, "left the chat");
  if (kind === "conv.start") {
    return h("div", {},
      h("p", { class: "goal" }, c.goal),
      h("p", { class: "muted" }, `members: ${(c.members || []).map(name).join(", ")}; up to ${c.max_turns} turns`));
  }
  if (TURN[kind]) {
    const parts = [text(c.text)];
    if (c.tasks && c.tasks.length) {
      parts.push(h("ul", { class: "assigned" }, c.tasks.map((t) =>
        h("li", {}, badge("task", "info"), ` ${t.title || t.description.slice(0, 80)} → `, h("strong", {}, name(t.assignee))))));
    }
    if (c.next && c.next.length) parts.push(h("p", { class: "next" }, "next: ", c.next.map(name).join(", ")));
    if (c.triggers && c.triggers.length) parts.push(h("p", { class: "muted" }, `waits for ${c.triggers.length} task(s)`));
    if (c.fail_tasks && c.fail_tasks.length) parts.push(h("p", { class: "muted" }, `declares ${c.fail_tasks.length} task(s) failed`));
    if (c.reason) parts.push(h("p", { class: "muted" }, `(${c.reason})`));
    return h("div", {}, parts);
  }
  if (kind === "conv.task.progress") {
    const pct = typeof c.fraction === "number" ? ` ${Math.round(c.fraction * 100)}%` : "";
    return h("p", {}, `task ${short(c.task_id, 6)}${pct}: `, c.text);
  }
  if (kind === "conv.task.result") {
    return h("div", {}, h("p", {}, badge(c.ok ? "completed" : c.failure || "failed", c.ok ? "ok" : "bad"), ` task ${short(c.task_id, 6)}`), text(c.text));
  }
  if (kind === "conv.plan") {
    return h("ol", { class: "plan" }, (c.steps || []).map((s) => h("li", {}, `${s.title} `, badge(s.status || "todo", "muted"))));
  }
  if (kind === "conv.cancel") return h("p", {}, "cancelled the round: ", c.reason || "");
  return h("pre", { class: "raw" }, JSON.stringify(c, null, 1).slice(0, 2000));
}

/** The element of a chat_message event (name: peer ID -> display name). */
export function messageItem(ev, name) {
  const m = ev.message;
  const signed = ev.signature === "valid"
    ? badge("✓ signed", "ok", "Ed25519 signature verified by this node")
    : badge("✗ bad signature", "bad", "the signature does not verify");
  return h("li", { class: `msg k-${kindLabel(m.kind).replace(/\W+/g, "-")}`, dataset: { index: ev.index, kind: m.kind, hash: m.hash } },
    h("div", { class: "meta" },
      h("strong", { class: "author", title: m.author }, name(m.author)),
      badge(kindLabel(m.kind), "info"),
      h("time", { datetime: new Date(m.ts).toISOString() }, when(m.ts)),
      h("span", { class: "sig" }, signed)),
    body(m.kind, m.content || {}, name));
}
