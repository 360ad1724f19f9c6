// The control API from the page: the session cookie authenticates (the token never reaches the page's
// URLs or storage); requests that change state carry the session's CSRF token.

let csrf = "";
const listeners = new Set();
/** The open live streams (window.ioaLive: a drop() of each simulates a network failure). */
const live = new Set();
window.ioaLive = live;

export class ApiError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

/** Called with no argument when the session is gone (a 401): the page shows the login form. */
export function onLoggedOut(fn) {
  listeners.add(fn);
}

function loggedOut() {
  csrf = "";
  for (const fn of listeners) fn();
}

async function parse(res) {
  let data = null;
  const text = await res.text();
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = (data && data.error) || {};
    if (res.status === 401) loggedOut();
    throw new ApiError(res.status, err.type || "Error", err.message || `HTTP ${res.status}`);
  }
  return data;
}

/** The session, if this browser holds one (a reload): true when logged in. */
export async function resumeSession() {
  const res = await fetch("session", { headers: { Accept: "application/json" } });
  if (!res.ok) return false;
  csrf = (await res.json()).csrf;
  return true;
}

/** Exchange a one-time code (or the token) for the session cookie. */
export async function login(kind, secret) {
  const res = await fetch("session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ [kind]: secret }),
  });
  const data = await parse(res);
  csrf = data.csrf;
}

export async function logout() {
  await fetch("logout", { method: "POST", headers: { "X-IoA-CSRF": csrf } });
  loggedOut();
}

function url(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== "") q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export async function get(path, params) {
  return parse(await fetch(url(path, params), { headers: { Accept: "application/json" } }));
}

export async function post(path, body, signal) {
  const res = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-IoA-CSRF": csrf },
    body: JSON.stringify(body || {}),
    signal,
  });
  return parse(res);
}

/**
 * A live stream of server-sent events (GET path?params), resumed after a dropped connection from the last
 * cursor it delivered: each logged event is given once, in order. The browser's EventSource reconnects by
 * itself sending Last-Event-ID; when it gives up (an error status), we reopen with after=<cursor>. A `reset`
 * event (the node restarted) calls onReset before the log is given again from its start.
 */
export class LiveStream {
  constructor(path, params, { onEvent, onReset, onState } = {}) {
    this.path = path;
    this.params = params || {};
    this.onEvent = onEvent || (() => {});
    this.onReset = onReset || (() => {});
    this.onState = onState || (() => {});
    this.cursor = null; // {epoch, seq} of the last logged event delivered
    this.delivered = []; // the cursors delivered lately ("epoch.seq", the last 200: diagnostics, tests)
    this.closed = false;
    this.retry = 500;
    this.open();
  }

  open() {
    if (this.closed) return;
    live.add(this);
    const params = { ...this.params };
    if (this.cursor) params.after = `${this.cursor.epoch}.${this.cursor.seq}`;
    const es = (this.es = new EventSource(url(this.path, params)));
    es.onopen = () => {
      this.retry = 500;
      this.onState("live");
    };
    es.onmessage = (msg) => this.deliver(msg);
    es.onerror = () => {
      if (this.closed) return;
      this.onState("reconnecting");
      if (es.readyState === EventSource.CLOSED) {
        // the browser gave up (an error answer): reopen from our cursor after a pause
        setTimeout(() => this.open(), this.retry);
        this.retry = Math.min(this.retry * 2, 15000);
      }
    };
  }

  deliver(msg) {
    let data;
    try {
      data = JSON.parse(msg.data);
    } catch {
      return;
    }
    if (data.error && !data.event) {
      this.onState("error", data.error.message);
      return;
    }
    if (data.event === "reset") {
      this.cursor = null;
      this.onReset(data);
      return;
    }
    if (msg.lastEventId) {
      const dot = msg.lastEventId.lastIndexOf(".");
      const epoch = msg.lastEventId.slice(0, dot);
      const seq = Number(msg.lastEventId.slice(dot + 1));
      if (this.cursor && this.cursor.epoch === epoch && seq <= this.cursor.seq) return; // seen already
      this.cursor = { epoch, seq };
      this.delivered.push(msg.lastEventId);
      if (this.delivered.length > 200) this.delivered.shift();
    }
    this.onEvent(data);
  }

  /** Drop the connection as a network failure would, and resume from the cursor (tests, diagnostics). */
  drop() {
    if (this.es) this.es.close();
    this.onState("reconnecting");
    setTimeout(() => this.open(), 200);
  }

  /** Resume now (after the server ended the stream on purpose, e.g. a new round began). */
  reopen() {
    if (this.es) this.es.close();
    this.open();
  }

  close() {
    live.delete(this);
    this.closed = true;
    if (this.es) this.es.close();
    this.onState("closed");
  }
}

/** POST /launch_goal as a stream of events read with fetch (the goal goes on if the page goes away). */
export async function launchStream(body, onEvent, signal) {
  const res = await fetch("/launch_goal", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream", "X-IoA-CSRF": csrf },
    body: JSON.stringify({ ...body, stream: true }),
    signal,
  });
  if (!res.ok) return parse(res);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data) onEvent(JSON.parse(data));
    }
  }
  return null;
}
