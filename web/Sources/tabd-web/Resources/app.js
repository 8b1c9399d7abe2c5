// tabd-web's page: draws what tabd-web's mirror sends over the WebSocket, and sends taps
// and the login through it. Plain JS, no build step; served with a CSP that allows only
// this file (no inline handlers: every listener is added here).
"use strict";

const views = new Map();      // controller name -> view (Session.view in tabd-web)
// Controllers of every kind (Tree.swift in tabd-web): `controllers`' entries (kind, parent,
// window), and the `state` of each navigation, drawer, custom and split controller.
const tree = { ready: false, entries: new Map(), states: new Map() };
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
    // The mirror's messages are the tab controllers' (tabd-web leaves the containers it
    // mirrors to the tree's messages, which are drawn and logged).
    case "controller":
      views.set(msg.view.name, msg.view);
      if (!isContainer(msg.view.name)) for (const e of msg.events) log(`${e.controller} #${e.seq} ${e.event} ${JSON.stringify(e.data)}`);
      renderAll();
      break;
    case "resynced":
      views.set(msg.view.name, msg.view);
      if (!isContainer(msg.view.name)) log(`${msg.view.name}: read its state again at seq ${msg.view.seq} (${msg.reason})`);
      renderAll();
      break;
    case "deleted":
      views.delete(msg.controller);
      log(`${msg.controller}: deleted`);
      renderAll();
      break;
    case "tree": {
      if (msg.full) tree.states.clear();
      tree.entries = new Map(msg.controllers.map((e) => [e.name, e]));
      for (const [name, st] of Object.entries(msg.states)) tree.states.set(name, st);
      for (const name of [...tree.states.keys()]) if (!tree.entries.has(name)) tree.states.delete(name);
      tree.ready = true;
      for (const e of msg.events || []) log(`${e.controller} #${e.seq} ${e.event} ${JSON.stringify(e.data)}`);
      renderAll();
      break;
    }
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

const isContainer = (name) => { const e = tree.entries.get(name); return Boolean(e && e.kind && e.kind !== "tab"); };

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

// A container's command (the back button: a user's pop; a drawer's handle), with what came of it.
async function act(controller, req, what) {
  const reply = await request({ ...req, controller });
  if (reply.ok) {
    notice("ok", `${controller}: ${what}`);
  } else {
    const e = reply.error;
    notice("refusal", e.plugin ? `${controller}: the plugin ${e.plugin} refused ${what}: ${e.message}`
      : `${controller}: ${what} refused (${e.code}): ${e.message}`, { plugin: e.plugin || "", code: e.code });
  }
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

// The controller a tab holds as its content (docs/protocol.md, "A tab whose content is a
// controller"): the entry whose `parent` is this tab controller and that tab.
function contentControllerOf(m, controller, tab) {
  if (!m) return null;
  for (const [name, e] of m.entries) if (e.parent && e.parent.controller === controller && e.parent.child === tab) return name;
  return null;
}

function content(v, m, depth = 0) {
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
    const held = contentControllerOf(m, v.name, leafId);
    if (held) {
      // The selected tab's content is a controller: drawn in the tab's place, with what is below it.
      parts.push(el("h3", { "data-shown": leafId }, label(leaf, leafId)));
      parts.push(el("div", { class: "slot holds", "data-slot": "content", "data-child": leafId, "data-child-controller": held },
        drawController(m, held, depth + 1)));
    } else {
      if (leaf && leaf.stack.length) {
        parts.push(el("div", { class: "navbar" }, "‹ " + [label(leaf, leafId), ...leaf.stack.map((s) => s.title || s.id)].join(" › ")));
      }
      parts.push(el("h3", { "data-shown": leafId }, leaf && leaf.stack.length ? (leaf.stack.at(-1).title || leaf.stack.at(-1).id) : label(leaf, leafId)));
      if (v.selected_path.length > 1) parts.push(el("div", { class: "path" }, "path: " + v.selected_path.join(" › ")));
      if (leaf && leaf.stack.length) {
        parts.push(el("ol", { class: "stack" }, leaf.stack.map((s) => el("li", {}, s.title ? `${s.title} (${s.id})` : s.id))));
      }
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

// A tab controller: a device of its idiom at the top level, or a panel in its container's
// slot (`nested`); `visible` false (not in a window, or not shown by its container) dims it.
function device(v, nested = false, visible = true, m = null, depth = 0) {
  const landscape = v.orientation.startsWith("landscape");
  const facts = [nested ? "tab" : null, v.idiom, v.size_class, v.orientation, v.mode ? `mode ${v.mode}` : null,
    visible ? null : "not visible"].filter(Boolean);
  const parts = [el("div", { class: "caption" },
    el("span", {}, el("b", {}, v.name), ` · ${facts.join(" · ")}`),
    el("span", { "data-seq": v.seq }, `seq ${v.seq}`))];
  const body = el("div", { class: "body" });
  const sb = v.sidebar;
  if (sb.available && sb.visible) body.append(sidebar(v));
  body.append(content(v, m, depth));
  if (v.bar.position === "top") parts.push(bar(v), body);
  else parts.push(body, bar(v));
  return el("section", {
    class: nested ? `node tab nested${visible ? "" : " dimmed"}`
      : `device ${v.idiom} ${v.size_class} ${landscape ? "landscape" : "portrait"}${visible ? "" : " dimmed"}`,
    "data-controller": v.name, "data-kind": "tab", "data-visible": String(visible),
    "data-selected": v.selected || "", "data-seq": v.seq, "data-orientation": v.orientation,
    "data-idiom": v.idiom, "data-size-class": v.size_class, "data-mode": v.mode || "automatic",
    "data-sidebar-state": sb.available ? (sb.visible ? "shown" : "hidden") : "none",
    "data-search": v.search ? (v.search.active ? "active" : "inactive") : null,
  }, parts);
}

// ---- containers beyond tabs (docs/protocol.md, "Containers beyond tabs") -----------------
// A pure function of a model: `entries` (`controllers`' entries by name: kind, parent,
// window), `states` (each container's `state`) and `views` (each tab controller's view),
// Maps all three; modelOf() makes one from plain objects (web/tests feed it fixtures).
// A child object with `controller` is drawn as that controller inside its slot, recursively;
// what it drew is said in data attributes, as for tab controllers: `data-kind`,
// `data-visible` (dimmed when false), `data-slot`/`data-child` on a slot, and each kind's own.

const SPLIT_COLUMNS = ["primary", "supplementary", "secondary", "compact"];

function modelOf(o) {
  const map = (x) => (x instanceof Map ? x : new Map(Object.entries(x || {})));
  const entries = Array.isArray(o.controllers) ? new Map(o.controllers.map((e) => [e.name, e])) : map(o.entries);
  return { entries, states: map(o.states), views: map(o.views) };
}

const kindOf = (m, name) => { const e = m.entries.get(name); return (e && e.kind) || (m.states.get(name) || {}).kind || "tab"; };
const parentOf = (m, name) => { const e = m.entries.get(name); return (e && e.parent) || null; };

// The ids of the children a container shows (R15.5): what makes a nested tab controller visible.
function shownIds(st) {
  switch (st.kind) {
    case "navigation": return [st.top];
    case "drawer": return [st.center && st.center.id, st.open_side !== "none" && st[st.open_side] ? st[st.open_side].id : null];
    case "custom": return st.shown || [];
    case "split": {
      const cols = st.collapsed ? [st.top_column] : st.visible_columns || [];
      return cols.map((c) => st.columns && st.columns[c] && st.columns[c].id);
    }
    default: return [];
  }
}

// A container says `visible` in its `state`; a tab controller's does not, so it is read from
// where it hangs: a root is visible when it is a window's root, a child when its container is
// visible and shows it.
function visibleOf(m, name, depth = 0) {
  const st = m.states.get(name);
  if (st && typeof st.visible === "boolean") return st.visible;
  const parent = parentOf(m, name);
  const entry = m.entries.get(name);
  if (!parent) return !(entry && entry.window === false);
  const pst = m.states.get(parent.controller);
  if (depth > 16 || !pst) return false;
  return visibleOf(m, parent.controller, depth + 1) && shownIds(pst).includes(parent.child);
}

// The roots, the default controller first.
function rootNames(m) {
  return [...m.entries.keys()].filter((n) => !parentOf(m, n))
    .sort((a, b) => (a === "main" ? -1 : b === "main" ? 1 : a.localeCompare(b)));
}

const childLabel = (c) => (c.title ? `${c.title}` : c.id);

// A child object in its slot: a screen (its title and id), or the controller it is.
function slot(m, child, depth, attrs, ...head) {
  const inner = child.controller ? drawController(m, child.controller, depth + 1)
    : el("div", { class: "screen", "data-screen": child.id }, el("b", {}, childLabel(child)), child.title ? ` (${child.id})` : null);
  return el("div", { class: `slot${child.controller ? " holds" : ""}`, "data-child": child.id,
    "data-child-controller": child.controller || null, ...attrs }, ...head, inner);
}

function caption(m, name, st, facts) {
  const visible = st.visible !== false;
  return el("div", { class: "caption" },
    el("span", {}, el("b", {}, name), " · " + [st.kind, ...facts, visible ? null : "not visible"].filter(Boolean).join(" · ")),
    el("span", { "data-seq": st.seq }, `seq ${st.seq}`));
}

function navigation(m, name, st, depth) {
  const stack = st.stack || [];
  const top = stack[stack.length - 1];
  const below = stack.length > 1 ? stack[stack.length - 2] : null;
  const bar = el("div", { class: "nav-bar", "data-navbar": name, "data-depth": stack.length, "data-top": top ? top.id : "" },
    below ? el("button", { class: "back", "data-back": below.id, title: "back (a user's pop)",
      onclick: () => act(name, { cmd: "pop", user: true }, `back to ${below.id}`) }, "\u2039 " + childLabel(below)) : el("span", { class: "back none" }),
    el("span", { class: "nav-title", "data-title": top ? childLabel(top) : "", title: top ? childLabel(top) : null }, top ? childLabel(top) : "(empty)"),
    el("span", { class: "depth", title: "stack depth" }, `depth ${stack.length}`));
  return [bar, top ? slot(m, top, depth, { "data-slot": "top" }) : null,
    el("ol", { class: "stack", "data-stack": stack.map((c) => c.id).join(" ") }, stack.map((c) => el("li", {}, c.title ? `${c.title} (${c.id})` : c.id)))];
}

function drawer(m, name, st, depth) {
  const side = (s) => {
    const child = st[s];
    if (!child) return null;
    if (st.open_side === s) {
      return el("aside", { class: `drawer-side open ${s}`, "data-drawer-side": s, "data-open": "true" },
        slot(m, child, depth, { "data-slot": s }, el("div", { class: "slot-head" }, `${s} drawer — open `,
          el("button", { class: "close", "data-close": s, onclick: () => act(name, { cmd: "close_drawer" }, `closed the ${s} drawer`) }, "close"))));
    }
    return el("button", { class: `drawer-handle ${s}`, "data-drawer-side": s, "data-open": "false", "data-child": child.id,
      title: `${s} drawer, closed: open it`, onclick: () => act(name, { cmd: "open_drawer", side: s }, `opened the ${s} drawer`) },
      (s === "left" ? "\u2630 " : "") + childLabel(child) + (s === "right" ? " \u2630" : ""));
  };
  const open = st.open_side !== "none";
  const center = el("div", { class: `drawer-center${open ? " beside-open" : ""}` },
    slot(m, st.center, depth, { "data-slot": "center" }));
  return [el("div", { class: `drawer-row open-${st.open_side}`, "data-open-side": st.open_side }, side("left"), center, side("right"))];
}

function custom(m, name, st, depth) {
  const shown = new Set(st.shown || []);
  return [el("div", { class: "custom-children", "data-shown": (st.shown || []).join(" ") },
    (st.children || []).map((c) => slot(m, c, depth, {
      class: `slot custom-child${shown.has(c.id) ? " shown" : ""}${c.controller ? " holds" : ""}`,
      "data-slot": "child", "data-shown": String(shown.has(c.id)), "data-status-bar": st.status_bar_child === c.id ? "true" : null,
    }, el("div", { class: "slot-head" }, shown.has(c.id) ? "shown" : "not shown", st.status_bar_child === c.id ? " · status bar" : ""))))];
}

function split(m, name, st, depth) {
  const cols = st.columns || {};
  const column = (c) => {
    const child = cols[c];
    if (!child) return el("div", { class: "split-column empty", "data-column": c }, el("div", { class: "slot-head" }, c), "(none)");
    return el("div", { class: `split-column ${c}`, "data-column": c },
      slot(m, child, depth, { "data-slot": c }, el("div", { class: "slot-head" }, c)));
  };
  const info = el("div", { class: "split-info" },
    `display mode ${st.display_mode} · behavior ${st.split_behavior} · ${st.style}` + (st.collapsed ? " · collapsed" : ""));
  if (st.collapsed) {
    const stack = st.collapsed_stack || [];
    const crumbs = el("nav", { class: "breadcrumb", "data-collapsed-stack": stack.join(" ") },
      stack.map((c, i) => el("span", { class: c === st.top_column ? "crumb top" : "crumb", "data-crumb": c },
        (i ? " \u203a " : "") + c + (cols[c] ? ` (${childLabel(cols[c])})` : ""))));
    return [info, crumbs, el("div", { class: "split-columns collapsed" }, st.top_column ? column(st.top_column) : null)];
  }
  const visible = (st.visible_columns || []).filter((c) => SPLIT_COLUMNS.includes(c));
  const hidden = SPLIT_COLUMNS.filter((c) => cols[c] && !visible.includes(c));
  return [info, el("div", { class: "split-columns", "data-visible-columns": visible.join(" ") }, visible.map(column)),
    hidden.length ? el("div", { class: "hidden-tabs", "data-hidden-columns": hidden.join(" ") }, "not shown: " + hidden.join(", ")) : null];
}

const DRAW = { navigation, drawer, custom, split };

// One controller, of any kind: a device frame at the top level (depth 0), else a panel. One
// whose view or state has not come yet is a placeholder with `data-pending`, not
// `data-controller`: what carries `data-controller` is drawn whole.
function drawController(m, name, depth = 0) {
  const kind = kindOf(m, name);
  const visible = visibleOf(m, name);
  if (depth > 12) return el("div", { class: "node pending", "data-pending": name }, `${name} (nested too deep to draw)`);
  if (kind === "tab") {
    const v = m.views.get(name);
    return v ? device(v, depth > 0, visible, m, depth) : el("div", { class: "node pending", "data-pending": name, "data-kind": "tab" }, `${name} …`);
  }
  const st = m.states.get(name);
  if (!st) return el("div", { class: "node pending", "data-pending": name, "data-kind": kind }, `${name} (${kind}) …`);
  const facts = [depth === 0 ? st.idiom : null, depth === 0 && st.size_class ? st.size_class : null,
    depth === 0 && st.orientation ? st.orientation : null, depth === 0 && st.window ? "window" : null];
  const body = (DRAW[kind] || (() => [el("pre", {}, JSON.stringify(st, null, 1))]))(m, name, st, depth);
  const landscape = String(st.orientation || "").startsWith("landscape");
  const attrs = {
    class: depth === 0 ? `device tree idiom-${st.idiom || "phone"} ${landscape ? "landscape" : "portrait"} node ${kind}${visible ? "" : " dimmed"}`
      : `node ${kind} nested${visible ? "" : " dimmed"}`,
    "data-controller": name, "data-kind": kind, "data-visible": String(visible), "data-seq": st.seq,
    "data-window": depth === 0 ? String(Boolean(st.window)) : null,
  };
  if (kind === "navigation") Object.assign(attrs, { "data-depth": (st.stack || []).length, "data-top": st.top });
  if (kind === "drawer") Object.assign(attrs, { "data-open-side": st.open_side });
  if (kind === "custom") Object.assign(attrs, { "data-shown": (st.shown || []).join(" ") });
  if (kind === "split") {
    Object.assign(attrs, {
      "data-style": st.style, "data-display-mode": st.display_mode, "data-split-behavior": st.split_behavior,
      "data-collapsed": String(Boolean(st.collapsed)), "data-top-column": st.top_column || null,
      "data-visible-columns": (st.visible_columns || []).join(" "),
    });
  }
  return el("section", attrs, caption(m, name, st, facts), el("div", { class: "node-body" }, body));
}

// Every root, drawn with what hangs below it.
function drawRoots(m) {
  return rootNames(m).map((n) => drawController(m, n, 0));
}

function renderAll() {
  const m = { entries: tree.entries, states: tree.states, views };
  $("devices").replaceChildren(...(tree.ready ? drawRoots(m) : []));
  const names = [...views.keys()].filter((n) => !tree.ready || (tree.entries.has(n) && kindOf(m, n) === "tab"))
    .sort((a, b) => (a === "main" ? -1 : b === "main" ? 1 : a.localeCompare(b)));
  const select = $("login-controller");
  const chosen = select.value;
  select.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
  if (names.includes(chosen)) select.value = chosen;
}

document.addEventListener("DOMContentLoaded", () => {
  $("login").addEventListener("submit", login);
  connect();
});
