// The goal side of a chat: the latest round's state from the chat's goal events (team, turns, task cards
// with progress bars, the shared plan, the next speaker), and once it ends its result (answer, steps,
// citations, cost table).
import { get } from "./api.js";
import { append, badge, clear, h, short, table } from "./dom.js";

const TASK_STATE = { assigned: "info", running: "info", completed: "ok", failed: "bad", cancelled: "warn" };

export class GoalPanel {
  constructor(chatId, names) {
    this.chatId = chatId;
    this.names = names; // Map peer ID -> name, shared with the message list
    this.rounds = new Map();
    this.latest = null;
    this.el = h("aside", { class: "goal-panel", "aria-label": "Goal" });
    this.render();
  }

  name(id) {
    return this.names.get(id) || short(id);
  }

  reset() {
    this.rounds.clear();
    this.latest = null;
    this.render();
  }

  /** A goal event; returns true when it ends the latest round. */
  apply(ev) {
    if (ev.event === "team") {
      for (const t of ev.team) if (t.name) this.names.set(t.peer_id, t.name);
      return false;
    }
    if (ev.event === "start") {
      for (const m of ev.members) if (m.name) this.names.set(m.peer_id, m.name);
      this.latest = {
        id: ev.round_id, goal: ev.goal, initiator: ev.initiator, status: "running", next: [], turns: 0,
        tasks: new Map(), plan: [], conclusion: "", result: null, maxTurns: ev.max_turns,
      };
      this.rounds.set(ev.round_id, this.latest);
      this.render();
      return false;
    }
    const r = this.rounds.get(ev.round_id);
    if (!r) return false;
    if (ev.event === "turn") {
      r.turns += 1;
      r.next = ev.next;
      for (const t of ev.tasks) {
        r.tasks.set(t.task_id, { id: t.task_id, title: t.title || t.description, assignee: t.assignee_name || this.name(t.assignee),
          state: "assigned", fraction: null, text: "" });
      }
      for (const id of ev.fail_tasks) if (r.tasks.has(id)) r.tasks.get(id).state = "failed";
      if (ev.type === "conclusion") r.next = [];
    } else if (ev.event === "progress") {
      const t = r.tasks.get(ev.task_id);
      if (t) Object.assign(t, { state: "running", fraction: ev.fraction, text: ev.text });
    } else if (ev.event === "result") {
      const t = r.tasks.get(ev.task_id);
      if (t) Object.assign(t, { state: ev.ok ? "completed" : "failed", fraction: ev.ok ? 1 : t.fraction, text: ev.text.slice(0, 300) });
    } else if (ev.event === "plan") {
      r.plan = ev.steps;
    } else if (ev.event === "cancelled") {
      r.status = "cancelling";
    } else if (ev.event === "concluded" || ev.event === "aborted") {
      r.status = ev.event;
      r.conclusion = ev.text;
      r.next = [];
      for (const t of r.tasks.values()) if (t.state === "assigned" || t.state === "running") t.state = ev.event === "aborted" ? "cancelled" : t.state;
      this.render();
      this.fetchResult(r);
      return r === this.latest;
    }
    this.render();
    return false;
  }

  async fetchResult(r) {
    try {
      r.result = await get("/goals/result", { chat: this.chatId, round: r.id });
      this.render();
    } catch {
      /* the round's result is not known here (an old node): the conclusion text stays */
    }
  }

  render() {
    const el = clear(this.el);
    const r = this.latest;
    if (!r) {
      el.append(h("p", { class: "muted" }, "No goal round in this chat."));
      return;
    }
    const kind = r.status === "concluded" ? "ok" : r.status === "running" ? "info" : "warn";
    append(el, [
      h("h2", {}, "Goal ", badge(r.status, kind)),
      h("p", { class: "goal", id: "round-goal" }, r.goal),
      h("p", { class: "muted" }, `round ${short(r.id, 6)}; ${r.turns} turn(s) of ${r.maxTurns}`),
      r.next.length ? h("p", { class: "next", id: "next-speaker" }, "Next speaker: ", h("strong", {}, r.next.join(", "))) : null,
    ]);
    if (r.tasks.size) {
      el.append(h("h3", {}, "Tasks"), h("ul", { class: "tasks", id: "task-cards" }, [...r.tasks.values()].map(taskCard)));
    }
    if (r.plan.length) {
      el.append(h("h3", {}, "Shared plan"), h("ol", { class: "plan", id: "shared-plan" },
        r.plan.map((s) => h("li", {}, s.title, " ", badge(s.status, s.status === "done" ? "ok" : "muted"), s.owner_name ? ` (${s.owner_name})` : ""))));
    }
    if (r.status === "concluded" || r.status === "aborted") el.append(conclusion(r));
  }
}

function taskCard(t) {
  const pct = typeof t.fraction === "number" ? Math.round(t.fraction * 100) : null;
  return h("li", { class: `task ${t.state}`, dataset: { task: t.id, state: t.state } },
    h("div", { class: "row between" }, h("strong", {}, t.title), badge(t.state, TASK_STATE[t.state] || "muted")),
    h("div", { class: "muted" }, `assigned to ${t.assignee}`),
    h("progress", { max: 100, value: pct === null ? undefined : pct, "aria-label": `progress of ${t.title}` }, pct === null ? "" : `${pct}%`),
    t.text ? h("p", { class: "small" }, t.text) : null);
}

function conclusion(r) {
  const res = r.result;
  const box = h("section", { class: "conclusion", id: "conclusion", "aria-label": "Conclusion" }, h("h3", {}, "Conclusion"));
  if (!res) {
    box.append(h("p", {}, r.conclusion));
    return box;
  }
  if (res.answer) box.append(h("p", { class: "answer" }, h("strong", {}, "Answer: "), res.answer));
  if (res.steps.length) {
    box.append(h("h4", {}, "Steps"), h("ol", { class: "steps" }, res.steps.map((s) =>
      h("li", {}, s.what || s.kind || "", s.value ? h("strong", {}, ` = ${s.value.text}`) : "",
        s.who ? ` (${s.who}) ` : " ", s.status ? badge(s.status, s.status === "completed" ? "ok" : "muted") : ""))));
  }
  if (res.citations.length) {
    box.append(h("h4", {}, "Citations"), h("ul", { class: "citations" }, res.citations.map((c) =>
      h("li", {}, h("code", {}, `${c.path}${c.line ? `:${c.line}` : ""}`), c.text ? ` — ${c.text}` : ""))));
  }
  box.append(h("details", {}, h("summary", {}, "Full conclusion"), h("p", {}, res.conclusion)));
  const rows = [...res.costs.agents, { ...res.costs.total, name: "total" }].map((a) => [
    a.name || short(a.agent), String(a.tasks), String(a.ok), String(a.prompt_tokens), String(a.completion_tokens),
    String(a.tool_calls), `${(a.wall_ms / 1000).toFixed(2)} s`, (a.models || []).join(", "),
  ]);
  box.append(h("div", { class: "scroll" }, table(
    ["Agent", "Tasks", "OK", "Prompt tok.", "Completion tok.", "Tool calls", "Time", "Models"], rows, "Cost")));
  return box;
}
