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
// Everything drawn comes from the view (what `state` reports, docs/protocol.md), and says
// what it drew in data attributes (web/tests/test_browser.py reads them): the bar's
// `data-position` (R13.11) and `data-hidden` (R14.3), the device's `data-size-class` and
// `data-mode` (R14.4, R14.5), the sidebar's items with `data-group`/`data-expanded`
// (R13.6, R13.12), `data-search` (R14.1), and `data-disabled` on what cannot be tapped
// (a tab with `enabled: false`, R14.2, or a tv item without room, `data-unreachable`).

function findTab(tabs, id) {
  for (const t of tabs) {
    if (t.id === id) return t;
    if (t.children) { const f = findTab(t.children, id); if (f) return f; }
  }
  return null;
}

const label = (t, id) => (t && (t.item_title || t.title)) || id;
const badge = (t) => (t && t.badge ? el("span", { class: "badge", "data-badge": t.badge }, t.badge) : null);
// A tab with `enabled: false` stays where it is, but a tap on it is refused (R14.2).
const disabledTab = (t) => Boolean(t && t.enabled === false);

function barItem(v, id, unreachable) {
  const t = id === "more" ? null : findTab(v.tabs, id);
  const selected = v.bar.selected === id;
  const disabled = unreachable || disabledTab(t);
  const search = Boolean(t && t.role === "search");
  return el("button", {
    class: `item${selected ? " selected" : ""}${disabled ? " disabled" : ""}${search ? " search" : ""}`,
    "data-tab": id, "data-selected": selected ? "true" : null, "data-disabled": disabled ? "true" : null,
    "data-unreachable": unreachable ? "true" : null, "data-search": search ? "true" : null,
    disabled, title: unreachable ? "no room on the bar (unreachable)" : disabled ? "disabled (enabled: false)" : null,
    onclick: disabled ? null : () => tap(v.name, id),
  }, el("span", { class: "icon" }), id === "more" ? "More" : label(t, id), badge(t));
}

// The bar where `bar.position` puts it; while `bar.hidden` it is kept (with what it holds,
// as `state` still lists it) but not shown, so nothing on it can be tapped.
function bar(v) {
  const items = v.bar.visible.map((id) => barItem(v, id, false));
  for (const id of v.bar.unreachable || []) items.push(barItem(v, id, true));
  return el("nav", {
    class: `bar ${v.bar.position}`, "data-bar": v.name, "data-position": v.bar.position,
    "data-hidden": v.bar.hidden ? "true" : "false", hidden: v.bar.hidden,
    "data-compact-tabs": v.compact_tabs ? v.compact_tabs.join(" ") : null,
  }, items);
}

function listRow(v, id, depth, selected, extra) {
  const t = findTab(v.tabs, id);
  const disabled = disabledTab(t);
  return el("button", {
    class: `${selected ? "selected" : ""}${disabled ? " disabled" : ""}`, "data-tab": id, "data-depth": depth,
    "data-disabled": disabled ? "true" : null, disabled, onclick: disabled ? null : () => tap(v.name, id),
    ...extra,
  }, "\u2003".repeat(depth) + label(t, id), badge(t));
}

function content(v) {
  const parts = [];
  if (v.search && v.search.active) {
    parts.push(el("div", { class: "search-field", "data-search-field": "active" }, "\u2315 Search"));
  }
  if (v.selected === "more") {
    parts.push(el("h3", {}, "More"));
    parts.push(el("ul", { class: "more-list", "data-more": v.name }, v.bar.more.map((id) => el("li", {}, listRow(v, id, 0, false)))));
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
  if (hidden.length) parts.push(el("div", { class: "hidden-tabs", "data-hidden-tabs": hidden.join(" ") }, "hidden: " + hidden.join(", ")));
  if (v.bar.hidden) parts.push(el("div", { class: "hidden-tabs" }, "the bar is hidden"));
  if (v.customizing) parts.push(el("div", { class: "hidden-tabs" }, "customizing…"));
  if (v.editing) parts.push(el("div", { class: "hidden-tabs", "data-editing": "true" }, "editing…"));
  return el("div", { class: "content" }, parts);
}

// The sidebar's items as `state` lists them: a group with a disclosure that expands or
// collapses it (`set_expanded`); a collapsed group's children are not drawn.
function sidebar(v) {
  const path = new Set(v.selected_path);
  const rows = [];
  (function walk(items, depth) {
    for (const item of items) {
      const group = Boolean(item.children);
      const row = listRow(v, item.id, depth, path.has(item.id), group ? { "data-group": "true", "data-expanded": String(item.expanded) } : {});
      const toggle = group ? el("button", {
        class: "disclosure", "data-expand": item.id, title: item.expanded ? "collapse" : "expand",
        onclick: () => request({ cmd: "set_expanded", controller: v.name, group: item.id, expanded: !item.expanded }),
      }, item.expanded ? "\u25be" : "\u25b8") : null;
      rows.push(el("li", { class: group ? "group" : null }, row, toggle));
      if (group && item.expanded) walk(item.children, depth + 1);
    }
  })(v.sidebar.items, 0);
  return el("ul", { class: "sidebar", "data-sidebar": v.name }, rows);
}

function device(v) {
  const landscape = v.orientation.startsWith("landscape");
  const facts = [v.idiom, v.size_class, v.orientation, v.mode ? `mode ${v.mode}` : null].filter(Boolean);
  const parts = [el("div", { class: "caption" },
    el("span", {}, el("b", {}, v.name), ` · ${facts.join(" · ")}`),
    el("span", { "data-seq": v.seq }, `seq ${v.seq}`))];
  const body = el("div", { class: "body" });
  const sb = v.sidebar;
  if (sb.available && sb.visible) body.append(sidebar(v));
  body.append(content(v));
  if (v.bar.position === "top") parts.push(bar(v), body);
  else parts.push(body, bar(v));
  return el("section", {
    class: `device ${v.idiom} ${v.size_class} ${landscape ? "landscape" : "portrait"}`,
    "data-controller": v.name, "data-selected": v.selected || "", "data-seq": v.seq, "data-orientation": v.orientation,
    "data-idiom": v.idiom, "data-size-class": v.size_class, "data-mode": v.mode || "automatic",
    "data-sidebar-state": sb.available ? (sb.visible ? "shown" : "hidden") : "none",
    "data-search": v.search ? (v.search.active ? "active" : "inactive") : null,
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
