// DOM helpers: every text from the node (names, messages, cards: written by remote peers) goes in as text,
// never as HTML.

/** An element: h("div", {class: "x", onclick: f}, "text", child, [more children]). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function short(id, n = 8) {
  const text = String(id || "");
  return text.length > n * 2 ? `${text.slice(0, n)}…${text.slice(-4)}` : text;
}

export function when(ms) {
  if (!ms) return "";
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400), hh = Math.floor((s % 86400) / 3600), mm = Math.floor((s % 3600) / 60);
  if (d) return `${d}d ${hh}h ${mm}m`;
  if (hh) return `${hh}h ${mm}m ${s % 60}s`;
  return `${mm}m ${s % 60}s`;
}

export function bytes(n) {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}

/** A badge: kind is ok, bad, warn, info or muted. */
export function badge(text, kind = "muted", title = "") {
  return h("span", { class: `badge ${kind}`, title: title || undefined }, text);
}

/** A table from rows of cells (each cell text or a node). */
export function table(headers, rows, caption) {
  return h(
    "table",
    {},
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, headers.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, c))))),
  );
}

export function toast(text) {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.classList.add("show");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => el.classList.remove("show"), 4000);
}

/** The state of a live stream as a badge: {el, set(state)} (live, reconnecting, closed...). */
export function liveBadge(id) {
  const el = badge("connecting", "muted");
  el.id = id;
  const set = (state) => {
    el.textContent = state;
    el.className = `badge ${state === "live" ? "ok" : state === "closed" ? "muted" : "warn"}`;
  };
  return { el, set };
}
