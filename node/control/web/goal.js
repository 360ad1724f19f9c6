// Goal view: a form (goal text, team, max turns, timeout); launch, follow the launch until its chat
// exists (then the chat's live view follows it), cancel.
import { launchStream, post } from "./api.js";
import { badge, h, short, toast } from "./dom.js";

export function showGoal(root, ctx) {
  const goal = h("textarea", { id: "goal-text", name: "goal", rows: 3, required: true,
    placeholder: "What should a team of agents work out?" });
  const team = h("input", { id: "goal-team", name: "team", value: ctx.query.get("team") || "",
    placeholder: "names or peer IDs, comma separated (empty: discover)" });
  const turns = h("input", { id: "goal-turns", name: "max_turns", type: "number", min: 1, max: 1000, placeholder: "node default" });
  const timeout = h("input", { id: "goal-timeout", name: "timeout", type: "number", min: 1, max: 86400, placeholder: "node default" });
  const launch = h("button", { id: "goal-launch", type: "submit" }, "Launch");
  const cancel = h("button", { id: "goal-cancel", type: "button", class: "danger", hidden: true }, "Cancel goal");
  const log = h("ol", { id: "goal-log", class: "events", role: "log", "aria-live": "polite" });
  const form = h("form", { id: "goal-form", class: "grid-form" },
    h("label", { for: "goal-text" }, "Goal"), goal,
    h("label", { for: "goal-team" }, "Team"), team,
    h("label", { for: "goal-turns" }, "Max turns"), turns,
    h("label", { for: "goal-timeout" }, "Timeout (s)"), timeout,
    h("div", { class: "row" }, launch, cancel));
  root.append(h("section", { class: "panel", "aria-labelledby": "goal-title" },
    h("h1", { id: "goal-title" }, "Launch a goal"), form, log));

  let abort = null;
  let launchId = null;
  let chatId = null;

  function note(...parts) {
    log.append(h("li", {}, ...parts));
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = { goal: goal.value.trim() };
    if (!body.goal) return;
    if (team.value.trim()) body.team = team.value.trim();
    if (turns.value) body.max_turns = Number(turns.value);
    if (timeout.value) body.timeout = Number(timeout.value);
    launch.disabled = true;
    cancel.hidden = false;
    log.replaceChildren();
    launchId = chatId = null;
    abort = new AbortController();
    try {
      await launchStream(body, onEvent, abort.signal);
    } catch (err) {
      if (err.name !== "AbortError") note(badge("error", "bad"), ` ${err.message}`);
    } finally {
      launch.disabled = false;
    }
  });

  function onEvent(ev) {
    if (ev.event === "searching") {
      launchId = ev.launch_id;
      note(badge("searching", "info"), ` for teammates (launch ${ev.launch_id})`);
    } else if (ev.event === "team_fallback") {
      note(badge("team", "warn"), ` chosen by similarity (${ev.reason})`);
    } else if (ev.event === "team") {
      chatId = ev.chat_id;
      note(badge("team", "ok"), " ", ev.team.map((t) => t.name || short(t.peer_id)).join(", ") || "(this node alone)",
        " — ", h("a", { href: `#/chats/${ev.chat_id}`, id: "goal-follow" }, "follow the chat live"));
      ctx.navigate(`#/chats/${ev.chat_id}`); // the chat view follows the round from here
    } else if (ev.event === "done") {
      note(badge(ev.result.status, ev.result.status === "concluded" ? "ok" : "warn"), ` ${ev.result.answer || ev.result.conclusion}`);
      cancel.hidden = true;
    } else if (ev.event === "error") {
      note(badge("error", "bad"), ` ${ev.error.message}`);
      cancel.hidden = true;
    }
  }

  cancel.addEventListener("click", async () => {
    try {
      const reply = await post("/cancel_goal", chatId ? { chat: chatId } : { launch: launchId });
      note(badge("cancelled", "warn"), ` ${reply.cancelled.length} round(s)`);
    } catch (err) {
      toast(err.message);
    }
  });

  goal.focus();
  return () => {
    if (abort) abort.abort(); // the goal goes on in the node; the chat view follows it
  };
}
