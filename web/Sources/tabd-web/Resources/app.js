// tabd-web's page: draws what tabd-web's mirror sends over the WebSocket, and sends taps
// and the login through it. Plain JS, no build step; served with a CSP that allows only
// this file (no inline handlers: every listener is added here).
"use strict";

const views = new Map();      // controller name -> view (Session.view in tabd-web)
const pending = new Map();    // request id -> resolve
let nextId = 1;
let socket = null;
let instance = null;

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// ---- the connection -------------------------------------------------------------------

function connect() {
  setStatus("connecting", "connecting…");
  socket = new WebSocket(`ws://${location.host}/ws`);
  socket.addEventListener("message", (m) => receive(JSON.parse(m.data)));
  socket.addEventListener("close", (e) => {
    // A refusal says why (e.g. 1013, --max-sessions); a connection lost says nothing.
    setStatus("down", e.reason ? `${e.reason} — trying again` : "tabd-web unreachable — reconnecting");
    for (const resolve of pending.values()) resolve({ ok: false, error: { code: "unavailable", message: "the page lost tabd-web" } });
    pending.clear();
    setTimeout(connect, 1000);
  });
}

function request(req) {
  return new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    socket.send(JSON.stringify({ id, request: req }));
  });
}

function receive(msg) {
  switch (msg.type) {
    case "sync": {
      const was = instance;
      instance = msg.instance;
      views.clear();
      for (const [name, v] of Object.entries(msg.controllers)) views.set(name, v);
      setStatus("live", `live — tabd instance ${msg.instance}`);
      document.body.dataset.instance = msg.instance;
      document.body.dataset.syncs = String(Number(document.body.dataset.syncs || 0) + 1);
      if (!msg.initial) {
        notice("info", msg.instance_changed
          ? `tabd restarted (instance ${was} → ${msg.instance}); resynced${msg.nothing_missed ? ", nothing missed" : " from its state"}`
          : `reconnected to the same tabd; resynced${msg.nothing_missed ? ", nothing missed" : ""}`);
      }
      log(`sync ${msg.initial ? "initial" : "again"}: instance ${msg.instance}, ${views.size} controller(s)`);
      renderAll();
      break;
    }
    case "controller":
      views.set(msg.view.name, msg.view);
      for (const e of msg.events) log(`${e.controller} #${e.seq} ${e.event} ${JSON.stringify(e.data)}`);
      renderAll();
      break;
    case "resynced":
      views.set(msg.view.name, msg.view);
      log(`${msg.view.name}: read its state again at seq ${msg.view.seq} (${msg.reason})`);
      renderAll();
      break;
    case "deleted":
      views.delete(msg.controller);
      log(`${msg.controller}: deleted`);
      renderAll();
      break;
    case "disconnected":
      setStatus("down", "tabd unreachable — reconnecting");
      log(`connection to tabd lost (${msg.reason}); reconnecting`);
      break;
    case "reply": {
      const resolve = pending.get(msg.id);
      pending.delete(msg.id);
      if (resolve) resolve(msg.reply);
      break;
    }
  }
}

function setStatus(kind, text) {
  const s = $("status");
  s.className = `status ${kind}`;
  s.textContent = text;
  s.dataset.state = kind;
}

function notice(kind, text, attrs) {
  const n = $("notice");
  n.hidden = false;
  n.className = `notice ${kind}`;
  n.textContent = text;
  n.dataset.kind = kind;
  delete n.dataset.plugin;
  for (const [k, v] of Object.entries(attrs || {})) n.dataset[k] = v;
}

function log(text) {
  const list = $("log");
  list.prepend(el("li", {}, text));
  while (list.children.length > 200) list.lastChild.remove();
}

// ---- actions ----------------------------------------------------------------------------

async function tap(controller, tab) {
  const req = tab === "more" ? { cmd: "tap", controller, more: true } : { cmd: "tap", controller, tab };
  const reply = await request(req);
  if (reply.ok) {
    notice("ok", `${controller}: tapped ${tab} — selected ${reply.result.selected}`);
  } else {
    const e = reply.error;
    notice("refusal", e.plugin
      ? `${controller}: the plugin ${e.plugin} refused ${tab}: ${e.message}`
      : `${controller}: ${tab} refused (${e.code}): ${e.message}`, { plugin: e.plugin || "", code: e.code });
  }
}

async function login(ev) {
  ev.preventDefault();
  const controller = $("login-controller").value || "main";
  const reply = await request({
    cmd: "plugin.call", controller, plugin: "login-gate", method: "login",
    args: { user: $("login-user").value, password: $("login-password").value },
  });
  $("login-password").value = "";
  if (reply.ok) notice("ok", `${controller}: logged in as ${$("login-user").value}`, { login: "ok" });
  else notice("refusal", `${controller}: login refused (${reply.error.code}): ${reply.error.message}`,
              { plugin: reply.error.plugin || "", code: reply.error.code });
}

// ---- drawing ----------------------------------------------------------------------------

function findTab(tabs, id) {
  for (const t of tabs) {
    if (t.id === id) return t;
    if (t.children) { const f = findTab(t.children, id); if (f) return f; }
  }
  return null;
}

const label = (t, id) => (t && (t.item_title || t.title)) || id;

function barItem(v, id, disabled) {
  const t = id === "more" ? null : findTab(v.tabs, id);
  const selected = v.bar.selected === id;
  return el("button", {
    class: `item${selected ? " selected" : ""}${disabled ? " disabled" : ""}`,
    "data-tab": id, "data-selected": selected ? "true" : null, "data-disabled": disabled ? "true" : null,
    disabled: disabled, title: disabled ? "no room on the bar (unreachable)" : null,
    onclick: disabled ? null : () => tap(v.name, id),
  }, el("span", { class: "icon" }), id === "more" ? "More" : label(t, id),
     t && t.badge ? el("span", { class: "badge", "data-badge": t.badge }, t.badge) : null);
}

function bar(v) {
  const items = v.bar.visible.map((id) => barItem(v, id, false));
  for (const id of v.bar.unreachable || []) items.push(barItem(v, id, true));
  return el("nav", { class: "bar", "data-bar": v.name }, items);
}

function listRow(v, id, depth, selected, group) {
  const t = findTab(v.tabs, id);
  return el("li", { class: group ? "group" : null },
    el("button", {
      class: selected ? "selected" : null, "data-tab": id, style: null,
      onclick: () => tap(v.name, id),
    }, "\u2003".repeat(depth) + label(t, id), t && t.badge ? el("span", { class: "badge" }, t.badge) : null));
}

function content(v) {
  const parts = [];
  if (v.selected === "more") {
    parts.push(el("h3", {}, "More"));
    parts.push(el("ul", { class: "more-list", "data-more": v.name }, v.bar.more.map((id) => listRow(v, id, 0, false, false))));
  } else if (v.selected) {
    const leafId = v.selected_path.length ? v.selected_path[v.selected_path.length - 1] : v.selected;
    const leaf = findTab(v.tabs, leafId);
    if (leaf && leaf.stack.length) {
      parts.push(el("div", { class: "navbar" }, "‹ " + [label(leaf, leafId), ...leaf.stack.map((s) => s.title || s.id)].join(" › ")));
    }
    parts.push(el("h3", { "data-shown": leafId }, leaf && leaf.stack.length ? (leaf.stack.at(-1).title || leaf.stack.at(-1).id) : label(leaf, leafId)));
    if (v.selected_path.length > 1) parts.push(el("div", { class: "path" }, "path: " + v.selected_path.join(" › ")));
    if (leaf && leaf.stack.length) {
      parts.push(el("ol", { class: "stack" }, leaf.stack.map((s) => el("li", {}, s.title ? `${s.title} (${s.id})` : s.id))));
    }
  } else {
    parts.push(el("h3", {}, "nothing selected"));
  }
  const hidden = [];
  (function walk(tabs) { for (const t of tabs) { if (t.hidden) hidden.push(t.id); if (t.children) walk(t.children); } })(v.tabs);
  if (hidden.length) parts.push(el("div", { class: "hidden-tabs", "data-hidden": hidden.join(" ") }, "hidden: " + hidden.join(", ")));
  if (v.customizing) parts.push(el("div", { class: "hidden-tabs" }, "customizing…"));
  return el("div", { class: "content" }, parts);
}

function sidebar(v) {
  const path = new Set(v.selected_path);
  return el("ul", { class: "sidebar", "data-sidebar": v.name },
    v.sidebar.rows.map((r) => {
      const t = findTab(v.tabs, r.id);
      return listRow(v, r.id, r.depth, path.has(r.id), t && t.children);
    }));
}

function device(v) {
  const landscape = v.orientation.startsWith("landscape");
  const parts = [el("div", { class: "caption" },
    el("span", {}, el("b", {}, v.name), ` · ${v.idiom} · ${v.orientation}`),
    el("span", { "data-seq": v.seq }, `seq ${v.seq}`))];
  const body = el("div", { class: "body" });
  if (v.idiom === "pad" && v.sidebar && v.sidebar.visible) body.append(sidebar(v));
  body.append(content(v));
  if (v.idiom === "tv") parts.push(bar(v), body);
  else parts.push(body, bar(v));
  return el("section", {
    class: `device ${v.idiom} ${landscape ? "landscape" : "portrait"}`,
    "data-controller": v.name, "data-selected": v.selected || "", "data-seq": v.seq, "data-orientation": v.orientation,
  }, parts);
}

function renderAll() {
  const names = [...views.keys()].sort((a, b) => (a === "main" ? -1 : b === "main" ? 1 : a.localeCompare(b)));
  $("devices").replaceChildren(...names.map((n) => device(views.get(n))));
  const select = $("login-controller");
  const chosen = select.value;
  select.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
  if (names.includes(chosen)) select.value = chosen;
}

document.addEventListener("DOMContentLoaded", () => {
  $("login").addEventListener("submit", login);
  connect();
});
