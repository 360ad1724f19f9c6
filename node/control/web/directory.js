// Directory view: the agent cards this node holds; a search box ranks them live with `find` scores.
import { get, post } from "./api.js";
import { badge, clear, h, short, toast, when } from "./dom.js";

export function showDirectory(root, ctx) {
  const input = h("input", {
    id: "dir-search", type: "search", placeholder: "What should an agent be able to do?",
    "aria-describedby": "dir-status", autocomplete: "off",
  });
  const status = h("p", { id: "dir-status", class: "muted", "aria-live": "polite" });
  const list = h("ol", { id: "dir-results", class: "cards" });
  root.append(h("section", { class: "panel", "aria-labelledby": "dir-title" },
    h("h1", { id: "dir-title" }, "Directory"),
    h("label", { for: "dir-search" }, "Search agents by capability"), input, status, list));

  let seq = 0;
  let timer = null;

  async function search() {
    const text = input.value.trim();
    const mine = ++seq;
    try {
      if (!text) {
        const reply = await get("/cards");
        if (mine !== seq) return;
        status.textContent = `${reply.cards.length} cards held (model ${reply.model})`;
        render(reply.cards.map((c) => ({ ...c, score: null })));
        return;
      }
      const reply = await post("/find", { text, k: 20 });
      if (mine !== seq) return; // a newer search answered first
      status.textContent = `${reply.results.length} matches in ${reply.took_ms} ms (${reply.model})`;
      render(reply.results);
    } catch (err) {
      if (mine === seq) toast(err.message);
    }
  }

  function render(cards) {
    clear(list);
    for (const card of cards) list.append(cardItem(card, ctx));
  }

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  search();
  input.focus();
  return () => clearTimeout(timer);
}

function signature(card) {
  if (card.signature === "invalid") return badge("signature invalid", "bad");
  if (card.signature === "expired") return badge("expired", "warn");
  return badge("signed ✓", "ok", "Ed25519 signature of the card's own peer, verified by this node");
}

function cardItem(card, ctx) {
  const score = card.score === null || card.score === undefined ? null : Number(card.score);
  const tags = (label, items) =>
    items && items.length ? h("div", { class: "tags" }, h("span", { class: "muted" }, `${label}: `),
      items.map((s) => h("span", { class: "chip" }, s))) : null;
  return h("li", { class: "card", dataset: { peer: card.peer_id } },
    h("div", { class: "row between" },
      h("h2", {}, card.name, card.self ? badge("this node", "info") : ""),
      score === null ? null : h("span", { class: "score", title: "find score" },
        h("meter", { min: 0, max: 1, value: Math.max(0, Math.min(1, score)) }), ` ${score.toFixed(3)}`)),
    h("div", { class: "row" }, card.adapter ? badge(card.adapter, "info", "adapter kind") : null, signature(card),
      h("code", { title: card.peer_id }, short(card.peer_id))),
    h("p", {}, card.description),
    tags("skills", card.skills),
    h("details", {},
      h("summary", {}, "Card details"),
      h("dl", { class: "facts" },
        h("dt", {}, "Peer ID"), h("dd", {}, h("code", {}, card.peer_id)),
        h("dt", {}, "Model"), h("dd", {}, card.model),
        h("dt", {}, "Version"), h("dd", {}, `${card.version} (issued ${when(card.issued_at)}, expires ${when(card.expires_at)})`),
        h("dt", {}, "Learned from"), h("dd", {}, card.source || ""),
        h("dt", {}, "Addresses"), h("dd", {}, h("ul", { class: "plain" }, (card.addrs || []).map((a) => h("li", {}, h("code", {}, a))))),
      ),
      tags("task types", card.task_types), tags("languages", card.languages), tags("tools", card.tools),
      tags("input", card.input_types), tags("output", card.output_types),
      h("button", { type: "button", onclick: () => ctx.navigate(`#/goal?team=${encodeURIComponent(card.name)}`) },
        `Launch a goal with ${card.name}`)),
  );
}
