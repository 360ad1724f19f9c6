// The dashboard: log in (one-time code from the URL fragment, or the token pasted), then route between the
// views by the URL fragment (#/network, #/directory, #/goal, #/chats, #/chats/<id>, #/node).
import { ApiError, get, login, logout, onLoggedOut, resumeSession } from "./api.js";
import { clear, short, toast } from "./dom.js";
import { showChat, showChats } from "./chats.js";
import { showDirectory } from "./directory.js";
import { showGoal } from "./goal.js";
import { showNetwork } from "./network.js";
import { showNode } from "./node.js";

const views = {
  network: showNetwork,
  directory: showDirectory,
  goal: showGoal,
  chats: showChats,
  node: showNode,
};

let current = null; // the view's cleanup function
let me = null;

function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  localStorage.setItem("ioa-theme", theme);
}

function toggleTheme() {
  const dark = document.documentElement.dataset.theme
    ? document.documentElement.dataset.theme === "dark"
    : matchMedia("(prefers-color-scheme: dark)").matches;
  setTheme(dark ? "light" : "dark");
}

function showLogin(message = "") {
  if (current) current();
  current = null;
  clear(document.getElementById("view"));
  document.getElementById("nav").hidden = true;
  document.getElementById("logout").hidden = true;
  document.getElementById("whoami").textContent = "";
  document.getElementById("login").hidden = false;
  document.getElementById("login-error").textContent = message;
  document.getElementById("login-secret").focus();
}

async function enter() {
  document.getElementById("login").hidden = true;
  // Who this node is first, the views after: while the nav is hidden a navigation (hashchange) renders
  // nothing, so the view the address names is rendered once, below, and never again under the user's
  // hands when /id answers late (it used to be, dropping what was typed into it meanwhile).
  try {
    me = await get("/id");
    const who = document.getElementById("whoami");
    who.textContent = `node ${short(me.peer_id)}`;
    who.title = me.peer_id;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return; // the session ended: the login form shows
    toast(String(err.message || err));
  }
  document.getElementById("nav").hidden = false;
  document.getElementById("logout").hidden = false;
  route();
}

function route() {
  if (document.getElementById("nav").hidden) return;
  const full = location.hash.replace(/^#\/?/, "") || "network";
  const [path, query] = full.split("?");
  const [name, ...rest] = path.split("/");
  for (const a of document.querySelectorAll("#nav a")) {
    if (a.dataset.view === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (current) current();
  const view = clear(document.getElementById("view"));
  const ctx = { me, query: new URLSearchParams(query || ""), navigate: (hash) => (location.hash = hash) };
  if (name === "chats" && rest.length) current = showChat(view, decodeURIComponent(rest.join("/")), ctx);
  else current = (views[name] || showNetwork)(view, ctx);
  document.title = `ioa-p2p · ${name}`;
}

async function boot() {
  const saved = localStorage.getItem("ioa-theme");
  if (saved) setTheme(saved);
  document.getElementById("theme").addEventListener("click", toggleTheme);
  document.getElementById("logout").addEventListener("click", async () => {
    await logout();
    showLogin("Logged out.");
  });
  onLoggedOut(() => showLogin("The session ended: log in again."));
  document.getElementById("login-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const input = document.getElementById("login-secret");
    const secret = input.value.trim();
    input.value = "";
    try {
      await login(secret.length > 40 ? "token" : "code", secret);
      await enter();
    } catch (err) {
      document.getElementById("login-error").textContent = err.message;
    }
  });
  window.addEventListener("hashchange", route);

  // A one-time code in the fragment (from `ioa ui`): take it out of the URL and the history at once.
  const match = location.hash.match(/^#code=([A-Za-z0-9_-]+)/);
  if (match) {
    history.replaceState(null, "", `${location.pathname}#/network`);
    try {
      await login("code", match[1]);
      return enter();
    } catch (err) {
      return showLogin(err.message);
    }
  }
  if (await resumeSession()) return enter();
  showLogin();
}

boot();
