"""tabd-web draws every kind of container (docs/protocol.md, "Containers beyond tabs"):
navigation, drawer and custom controllers end to end against a real tabd, nested in one
another and around a tab controller, live from events; split view controllers here from
`state` fixtures fed to the page's drawing code, a pure function of them (every mode and
collapse at once), and end to end, driven by commands (below)."""

from __future__ import annotations

import base64
import copy
import re
from typing import Any, Dict, List, Optional

from test_browser import ARTIFACTS, Tabd, Web, browser, click, tabd, wait  # noqa: F401  (the fixtures)

import tabd_client  # noqa: E402  (test_browser put clients/python on the path)
from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

# What the page drew of a controller, read in one script (it redraws after every message).
DRAWN = """
    const d = document.querySelector(`[data-controller="${arguments[0]}"]`);
    if (!d) return null;
    const a = (sel, attr) => { const e = d.querySelector(sel); return e ? e.getAttribute(attr) : null; };
    return {
        kind: d.dataset.kind, visible: d.dataset.visible, seq: d.dataset.seq ? Number(d.dataset.seq) : null,
        dimmed: d.classList.contains("dimmed"), top_level: d.parentElement.id === "devices",
        open_side: d.dataset.openSide || null, shown: d.dataset.shown === undefined ? null : d.dataset.shown,
        depth: d.dataset.depth ? Number(d.dataset.depth) : null, top: d.dataset.top || null,
        nav_title: a(":scope > .node-body > .nav-bar .nav-title", "data-title"),
        back: a(":scope > .node-body > .nav-bar [data-back]", "data-back"),
        back_text: (d.querySelector(":scope > .node-body > .nav-bar [data-back]") || {}).textContent || null,
        parent_slot: (d.closest("[data-slot]") || {dataset: {}}).dataset.slot || null,
        in_controller: ((d.parentElement && d.parentElement.closest("[data-controller]")) || {dataset: {}}).dataset.controller || null,
    };
"""


def drawn(driver: webdriver.Chrome, name: str) -> Optional[Dict[str, Any]]:
    return driver.execute_script(DRAWN, name)


def roots(driver: webdriver.Chrome) -> List[str]:
    return driver.execute_script("return [...document.querySelectorAll('#devices > [data-controller]')].map((e) => e.dataset.controller);")


def at_seq(driver: webdriver.Chrome, c: tabd_client.Client, name: str, what: str) -> Dict[str, Any]:
    """Waits until the page drew `name` at the seq `state` reports now; returns that state."""
    st = c.container_state(name)
    wait(driver, lambda d: (drawn(d, name) or {}).get("seq") == st["seq"], what="%s at seq %d (%s)" % (name, st["seq"], what))
    return st


def test_a_drawer_around_a_tab_controller_and_a_navigation_controller(tabd: Tabd, browser: webdriver.Chrome) -> None:
    """A drawer root whose center is a tab controller created out of a window, and whose
    left drawer is a navigation controller: opening the drawer and pushing onto the
    navigation controller through the socket show on the page; its back button pops."""
    with tabd_client.Client(tabd.socket) as c:
        c.controller_create("tabs", window=False)
        c.set_tabs([{"id": "login", "title": "Login"}, {"id": "mail", "title": "Mail"}, {"id": "news", "title": "News"}],
                   controller="tabs")
        c.select("mail", controller="tabs")
        c.create_navigation("menu", [{"id": "places", "title": "Places"}])
        c.create_drawer("shell", {"id": "main", "controller": "tabs"}, left={"id": "nav", "controller": "menu"}, window=True)
    web = Web(tabd.socket)
    try:
        browser.get(web.url)
        wait(browser, lambda d: d.find_element(By.ID, "status").get_attribute("data-state") == "live", what="live")
        with tabd_client.Client(tabd.socket) as c:
            at_seq(browser, c, "shell", "created")
            # Only the roots are drawn at the top level; `tabs` is drawn in the center slot, with its bar.
            assert roots(browser) == ["main", "shell"]
            tabs = drawn(browser, "tabs")
            assert tabs is not None and tabs["kind"] == "tab" and tabs["visible"] == "true" and not tabs["top_level"]
            assert tabs["in_controller"] == "shell" and tabs["parent_slot"] == "center"
            bar = c.state("tabs")["bar"]
            items = browser.execute_script("""return [...document.querySelectorAll('[data-controller="shell"] [data-bar="tabs"] .item')]
                .map((i) => [i.dataset.tab, Boolean(i.dataset.selected)]);""")
            assert items == [[t, t == bar["selected"]] for t in bar["visible"]]
            # The left drawer is closed: a handle, not the navigation controller.
            assert drawn(browser, "shell")["open_side"] == "none"
            assert browser.find_element(By.CSS_SELECTOR, '[data-controller="shell"] [data-drawer-side="left"]').get_attribute("data-open") == "false"
            assert drawn(browser, "menu") is None

            # Open it through the socket (an app action): drawn open, the navigation bar in it.
            c.open_drawer("left", controller="shell")
            at_seq(browser, c, "shell", "open_drawer")
            assert drawn(browser, "shell")["open_side"] == "left"
            wait(browser, lambda d: (drawn(d, "menu") or {}).get("visible") == "true", what="menu drawn, visible")
            menu = drawn(browser, "menu")
            assert menu["kind"] == "navigation" and menu["parent_slot"] == "left" and menu["in_controller"] == "shell"
            assert (menu["nav_title"], menu["depth"], menu["top"], menu["back"]) == ("Places", 1, "places", None)
            assert drawn(browser, "tabs")["visible"] == "true"  # the center stays visible (R15.24)
            # The log has the drawer's event (tabd-web's tree connection sends the containers' events).
            wait(browser, lambda d: re.search(r'shell #\d+ drawer_changed \{"center":"main","left":"nav","right":null,"open_side":"left"',
                                              d.find_element(By.ID, "log").text), what="drawer_changed in the log")

            # Push onto the navigation controller: the bar says the new top, a way back, depth 2.
            c.push_screen({"id": "detail", "title": "Detail"}, controller="menu")
            at_seq(browser, c, "menu", "push")
            menu = drawn(browser, "menu")
            assert (menu["nav_title"], menu["depth"], menu["top"], menu["back"]) == ("Detail", 2, "detail", "places")
            assert "Places" in menu["back_text"]
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            browser.find_element(By.CSS_SELECTOR, '[data-controller="shell"]').screenshot(str(ARTIFACTS / "drawer.png"))

            # The back button is a user's pop: the page sends it, tabd pops, the bar follows.
            click(browser, '[data-navbar="menu"] [data-back]')
            notice = browser.find_element(By.ID, "notice")
            wait(browser, lambda d: notice.get_attribute("data-kind") in ("ok", "refusal"), what="the pop's answer")
            assert notice.get_attribute("data-kind") == "ok", notice.text
            st = at_seq(browser, c, "menu", "the back button")
            assert [s["id"] for s in st["stack"]] == ["places"]
            assert (drawn(browser, "menu")["depth"], drawn(browser, "menu")["back"]) == (1, None)

            # The tab controller in the center follows its own events.
            c.select("news", controller="tabs")
            wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, '[data-controller="tabs"]').get_attribute("data-selected") == "news",
                 what="news in the center")

            # Closed again: the handle is back; out of the window, the whole tree is dimmed.
            c.close_drawer(controller="shell")
            at_seq(browser, c, "shell", "close_drawer")
            assert drawn(browser, "menu") is None
            c.set_window(False, controller="shell")
            at_seq(browser, c, "shell", "set_window false")
            assert drawn(browser, "shell")["visible"] == "false" and drawn(browser, "shell")["dimmed"]
            assert drawn(browser, "tabs")["visible"] == "false"
    finally:
        web.stop()


def test_a_custom_container_and_nesting(tabd: Tabd, browser: webdriver.Chrome) -> None:
    """A custom root with a screen and a navigation controller as children: its shown ones
    highlighted, the rest drawn dimmed; a root outside a window dimmed; a controller created
    later, attached later and detached again moves between the top level and its slot."""
    web = Web(tabd.socket)
    try:
        browser.get(web.url)
        wait(browser, lambda d: d.find_element(By.ID, "status").get_attribute("data-state") == "live", what="live")
        with tabd_client.Client(tabd.socket) as c:
            c.create_navigation("reader", [{"id": "article", "title": "Article"}])
            c.create_custom("panes", [{"id": "toc", "title": "Contents"}, {"id": "page", "controller": "reader"}], shown=["page"])
            st = at_seq(browser, c, "panes", "created")
            assert not st["visible"] and drawn(browser, "panes")["dimmed"] and drawn(browser, "panes")["top_level"]
            assert drawn(browser, "reader")["visible"] == "false" and not drawn(browser, "reader")["top_level"]
            shown = browser.execute_script("""return [...document.querySelectorAll('[data-controller="panes"] .custom-child')]
                .map((e) => [e.dataset.child, e.dataset.shown, e.classList.contains("shown")]);""")
            assert shown == [["toc", "false", False], ["page", "true", True]]

            c.set_window(True, controller="panes")
            at_seq(browser, c, "panes", "set_window true")
            assert drawn(browser, "panes")["visible"] == "true" and not drawn(browser, "panes")["dimmed"]
            assert drawn(browser, "reader")["visible"] == "true"

            c.set_shown(["toc"], controller="panes")
            at_seq(browser, c, "panes", "set_shown")
            assert drawn(browser, "panes")["shown"] == "toc"
            assert drawn(browser, "reader")["visible"] == "false" and drawn(browser, "reader")["dimmed"]

            # Detached, the navigation controller is a root of its own again, drawn at the top level.
            c.set_children([{"id": "toc", "title": "Contents"}], controller="panes")
            at_seq(browser, c, "panes", "set_children")
            wait(browser, lambda d: (drawn(d, "reader") or {}).get("top_level") is True, what="reader at the top level")
            assert sorted(roots(browser)) == ["main", "panes", "reader"]
            assert drawn(browser, "reader")["visible"] == "false"
    finally:
        web.stop()


# ---- split view controllers, from `state` fixtures (driven by commands: below) -----------

CHILD = {"title": None, "restoration_id": None, "controller": None}


def child(id: str, controller: Optional[str] = None, title: Optional[str] = None) -> Dict[str, Any]:
    return dict(CHILD, id=id, controller=controller, title=title)


# A split's `state` as PROTOCOL.md, "Containers beyond tabs", gives its members.
SPLIT = {
    "controller": "cols", "kind": "split", "parent": None, "window": True, "visible": True,
    "idiom": "pad", "size_class": "regular", "orientation": "landscape_left",
    "style": "triple",
    "columns": {"primary": child("boxes", "boxes"), "supplementary": child("list", title="Messages"),
                "secondary": child("detail", "tabs"), "compact": None},
    "display_mode": "two_beside", "split_behavior": "tile", "collapsed": False, "top_column": None,
    "collapsed_stack": None, "visible_columns": ["primary", "supplementary", "secondary"],
    "preferred_display_mode": "automatic", "preferred_split_behavior": "automatic", "presents_with_gesture": True,
    "status_bar_child": "detail", "status_bar_path": ["detail"], "seq": 7,
}
BOXES = {
    "controller": "boxes", "kind": "navigation", "parent": {"controller": "cols", "child": "boxes"}, "window": False,
    "visible": True, "idiom": "pad", "size_class": "regular", "orientation": "landscape_left",
    "stack": [child("inbox", title="Inbox"), child("archive", title="Archive")], "top": "archive",
    "status_bar_child": "archive", "seq": 4,
}
CONTROLLERS = [
    {"name": "cols", "kind": "split", "idiom": "pad", "parent": None, "window": True},
    {"name": "boxes", "kind": "navigation", "idiom": "pad", "parent": {"controller": "cols", "child": "boxes"}, "window": False},
    {"name": "tabs", "idiom": "pad", "max_visible": 5, "tabs": 2, "parent": {"controller": "cols", "child": "detail"}, "window": False},
]

# Draws `cols` from the fixture with the page's own functions (the tab controller's view is
# the page's live one), twice to see it is a pure function of what it is given, and says
# what it drew.
DRAW_SPLIT = """
    const fixture = arguments[0];
    const m = modelOf({controllers: fixture.controllers, states: fixture.states, views: views});
    const e = drawController(m, "cols", 0), again = drawController(m, "cols", 0);
    const q = (sel) => [...e.querySelectorAll(sel)];
    const tabs = e.querySelector('[data-controller="tabs"]');
    return {
        same: e.outerHTML === again.outerHTML,
        kind: e.dataset.kind, style: e.dataset.style, display_mode: e.dataset.displayMode,
        behavior: e.dataset.splitBehavior, collapsed: e.dataset.collapsed, top_column: e.dataset.topColumn || null,
        columns: q(".split-column").map((c) => [c.dataset.column, (c.querySelector("[data-child]") || {dataset: {}}).dataset.child || null]),
        crumbs: (e.querySelector("[data-collapsed-stack]") || {dataset: {}}).dataset.collapsedStack ?? null,
        hidden_columns: (e.querySelector("[data-hidden-columns]") || {dataset: {}}).dataset.hiddenColumns || null,
        info: e.querySelector(".split-info").textContent,
        boxes: (() => { const b = e.querySelector('[data-controller="boxes"]');
            return b && [b.dataset.kind, b.dataset.top, b.querySelector("[data-back]") && b.querySelector("[data-back]").dataset.back,
                         b.dataset.visible]; })(),
        tabs: tabs && [tabs.dataset.kind, tabs.dataset.visible, [...tabs.querySelectorAll("[data-bar] .item")].map((i) => i.dataset.tab)],
    };
"""


def draw_split(driver: webdriver.Chrome, split: Dict[str, Any], boxes: Dict[str, Any] = BOXES) -> Dict[str, Any]:
    return driver.execute_script(DRAW_SPLIT, {"controllers": CONTROLLERS, "states": {"cols": split, "boxes": boxes}})


def test_split_view_controllers_from_state_fixtures(tabd: Tabd, browser: webdriver.Chrome) -> None:
    with tabd_client.Client(tabd.socket) as c:
        c.controller_create("tabs", idiom="pad", window=False)
        c.set_tabs([{"id": "read", "title": "Read"}, {"id": "reply", "title": "Reply"}], controller="tabs")
    web = Web(tabd.socket)
    try:
        browser.get(web.url)
        wait(browser, lambda d: d.execute_script("return views.has('tabs') && tree.ready"), what="the tab controller's view")

        # Expanded, triple, two_beside: three columns side by side; a navigation controller
        # and a tab controller drawn in theirs.
        got = draw_split(browser, SPLIT)
        assert got["same"] and got["kind"] == "split" and got["style"] == "triple"
        assert (got["display_mode"], got["behavior"], got["collapsed"], got["top_column"]) == ("two_beside", "tile", "false", None)
        assert got["columns"] == [["primary", "boxes"], ["supplementary", "list"], ["secondary", "detail"]]
        assert got["crumbs"] is None and got["hidden_columns"] is None
        assert "two_beside" in got["info"] and "tile" in got["info"]
        assert got["boxes"] == ["navigation", "archive", "inbox", "true"]
        assert got["tabs"] == ["tab", "true", ["read", "reply"]]

        # secondary_only: the secondary alone; the others said to be not shown, and a tab
        # controller in an unshown column would be dimmed.
        st = copy.deepcopy(SPLIT)
        st.update(display_mode="secondary_only", split_behavior="overlay", visible_columns=["secondary"])
        got = draw_split(browser, st, dict(BOXES, visible=False))
        assert got["columns"] == [["secondary", "detail"]] and got["hidden_columns"] == "primary supplementary"
        assert got["boxes"] is None and got["tabs"][1] == "true"

        # one_over on a double split: primary over the secondary, both drawn.
        st = copy.deepcopy(SPLIT)
        st.update(style="double", display_mode="one_over", split_behavior="overlay", visible_columns=["primary", "secondary"])
        st["columns"]["supplementary"] = None
        got = draw_split(browser, st)
        assert got["columns"] == [["primary", "boxes"], ["secondary", "detail"]] and got["display_mode"] == "one_over"

        # Collapsed: only the top column's child, the collapsed stack as a breadcrumb; the
        # tab controller in a column not on top is not visible.
        st = copy.deepcopy(SPLIT)
        st.update(collapsed=True, top_column="supplementary", collapsed_stack=["primary", "supplementary"], visible_columns=[],
                  size_class="compact")
        got = draw_split(browser, st, dict(BOXES, visible=False))
        assert (got["collapsed"], got["top_column"], got["crumbs"]) == ("true", "supplementary", "primary supplementary")
        assert got["columns"] == [["supplementary", "list"]] and got["tabs"] is None and got["boxes"] is None
        assert "collapsed" in got["info"] and "two_beside" in got["info"]  # the mode it keeps

        # Collapsed onto a compact child: that one alone.
        st["columns"]["compact"] = child("phone-ui")
        st.update(top_column="compact", collapsed_stack=["compact"])
        got = draw_split(browser, st, dict(BOXES, visible=False))
        assert got["columns"] == [["compact", "phone-ui"]] and got["crumbs"] == "compact"

        # Not visible (no window): dimmed, and so is everything in it.
        st = dict(SPLIT, window=False, visible=False)
        dimmed = browser.execute_script("""
            const m = modelOf({controllers: arguments[0], states: {cols: arguments[1], boxes: arguments[2]}, views: views});
            const e = drawController(m, "cols", 0);
            return [e.classList.contains("dimmed"), e.querySelector('[data-controller="tabs"]').dataset.visible];
        """, CONTROLLERS, st, dict(BOXES, visible=False))
        assert dimmed == [True, "false"]

        # Fed to the page as tabd-web would send it, it is drawn at the top level like any root.
        browser.execute_script("""
            const entries = new Map([...tree.entries, ...arguments[0].map((e) => [e.name, e])]);
            receive({type: "tree", full: false, controllers: [...entries.values()], states: {cols: arguments[1], boxes: arguments[2]}});""",
                               CONTROLLERS, SPLIT, BOXES)
        wait(browser, lambda d: "cols" in roots(d), what="the split at the top level")
        assert "tabs" not in roots(browser)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        browser.find_element(By.CSS_SELECTOR, '#devices > [data-controller="cols"]').screenshot(str(ARTIFACTS / "split.png"))
    finally:
        web.stop()


# ---- split view controllers, end to end: driven by commands, followed live ----------------
# A real tabd driven by real commands (`controller.create` of kind split, `set_column`,
# `show_column`, `hide_column`, `show_detail`, `rotate` and `set_size_class` on a pad root,
# a split as a tab's content through `update_tab`'s `content_controller`), the page following
# over its event subscription alone, never reloaded: after each command the test waits until
# the page drew the split at the seq `state` reports, then compares what it drew (columns
# shown and hidden, display mode, collapse, the collapsed stack) with that `state`.

# What the page drew of a split, read in one script (it redraws after every message).
DRAWN_SPLIT = """
    const e = document.querySelector(`[data-controller="${arguments[0]}"]`);
    if (!e || e.dataset.kind !== "split") return null;
    const body = e.querySelector(":scope > .node-body");
    const columns = body.querySelector(":scope > .split-columns");
    const crumbs = body.querySelector(":scope > [data-collapsed-stack]");
    const hidden = body.querySelector(":scope > [data-hidden-columns]");
    return {
        seq: Number(e.dataset.seq), visible: e.dataset.visible, dimmed: e.classList.contains("dimmed"),
        display_mode: e.dataset.displayMode, split_behavior: e.dataset.splitBehavior, collapsed: e.dataset.collapsed,
        top_column: e.dataset.topColumn || null, style: e.dataset.style,
        columns: columns ? [...columns.querySelectorAll(":scope > .split-column")].map((c) =>
            [c.dataset.column, (c.querySelector(":scope > [data-child]") || {dataset: {}}).dataset.child || null]) : null,
        crumbs: crumbs ? crumbs.dataset.collapsedStack : null,
        hidden_columns: hidden ? hidden.dataset.hiddenColumns : null,
        info: (body.querySelector(":scope > .split-info") || {}).textContent || "",
        in_controller: ((e.parentElement && e.parentElement.closest("[data-controller]")) || {dataset: {}}).dataset.controller || null,
        slot: (e.closest("[data-slot]") || {dataset: {}}).dataset.slot || null,
    };
"""

COLUMNS = ["primary", "supplementary", "secondary", "compact"]


def drawn_split(driver: webdriver.Chrome, name: str) -> Optional[Dict[str, Any]]:
    return driver.execute_script(DRAWN_SPLIT, name)


def expected(st: Dict[str, Any]) -> Dict[str, Any]:
    """What the page should draw of a split's `state`: expanded, its visible columns in
    order and the others that hold a child said to be not shown; collapsed, the top column
    alone under the collapsed stack."""
    cols = st["columns"]
    if st["collapsed"]:
        shown = [st["top_column"]]
        hidden = None
        crumbs = " ".join(st["collapsed_stack"])
    else:
        shown = [c for c in COLUMNS if c in st["visible_columns"]]
        rest = [c for c in COLUMNS if cols.get(c) and c not in st["visible_columns"]]
        hidden = " ".join(rest) or None
        crumbs = None
    return {
        "display_mode": st["display_mode"], "split_behavior": st["split_behavior"], "collapsed": str(st["collapsed"]).lower(),
        "top_column": st["top_column"], "style": st["style"], "visible": str(st["visible"]).lower(), "dimmed": not st["visible"],
        "columns": [[c, cols[c]["id"] if cols.get(c) else None] for c in shown], "crumbs": crumbs, "hidden_columns": hidden,
    }


def follows(driver: webdriver.Chrome, c: tabd_client.Client, name: str, step: str) -> Dict[str, Any]:
    """Waits until the page drew split `name` at the seq `state` reports now (the page only
    hears of it through its subscription), then holds the drawing to that state; returns
    the state."""
    st = c.container_state(name)
    wait(driver, lambda d: (drawn_split(d, name) or {}).get("seq") == st["seq"], what="%s at seq %d (%s)" % (name, st["seq"], step))
    got = drawn_split(driver, name)
    want = expected(st)
    assert {k: got[k] for k in want} == want, "%s: drawn %r, state %r" % (step, got, st)
    assert st["display_mode"] in got["info"] and st["split_behavior"] in got["info"], step
    return st


def open_page(driver: webdriver.Chrome, web: Web) -> None:
    driver.get(web.url)
    wait(driver, lambda d: d.find_element(By.ID, "status").get_attribute("data-state") == "live"
         and d.execute_script("return tree.ready"), what="live, with the tree")


def logged(driver: webdriver.Chrome, pattern: str) -> bool:
    return pattern in driver.find_element(By.ID, "log").text


def test_a_split_root_driven_by_commands(tabd: Tabd, browser: webdriver.Chrome) -> None:
    """A triple pad split, a window's root, created while the page is open, its primary a
    navigation controller: rotated, columns shown and hidden, a new detail, a column
    replaced, collapsed by a compact size class and expanded again, a compact child."""
    web = Web(tabd.socket)
    try:
        open_page(browser, web)
        syncs = browser.find_element(By.TAG_NAME, "body").get_attribute("data-syncs")
        with tabd_client.Client(tabd.socket) as c:
            c.create_navigation("boxes", [{"id": "inbox", "title": "Inbox"}], idiom="pad")
            c.controller_create("cols", kind="split", style="triple", idiom="pad", window=True,
                                primary={"id": "folders", "controller": "boxes"},
                                supplementary={"id": "list", "title": "Messages"}, secondary={"id": "message"})
            # Portrait: the automatic behavior overlays, the secondary alone.
            st = follows(browser, c, "cols", "created")
            assert st["display_mode"] == "secondary_only" and st["visible_columns"] == ["secondary"]
            assert "cols" in roots(browser) and "boxes" not in roots(browser)
            assert drawn_split(browser, "cols")["hidden_columns"] == "primary supplementary"
            assert drawn(browser, "boxes") is None  # in a column not shown

            # Landscape tiles: one_beside, the supplementary beside the secondary.
            c.rotate("landscape_left", controller="cols")
            st = follows(browser, c, "cols", "rotate landscape")
            assert (st["display_mode"], st["split_behavior"]) == ("one_beside", "tile")

            # show_column primary on a triple: two_beside, all three; the navigation controller
            # drawn in its column, visible.
            c.show_column("primary", controller="cols")
            st = follows(browser, c, "cols", "show_column primary")
            assert st["display_mode"] == "two_beside" and st["visible_columns"] == ["primary", "supplementary", "secondary"]
            wait(browser, lambda d: (drawn(d, "boxes") or {}).get("visible") == "true", what="boxes drawn, visible")
            boxes = drawn(browser, "boxes")
            assert (boxes["in_controller"], boxes["parent_slot"], boxes["top"]) == ("cols", "primary", "inbox")
            # The page's log has the split's events (tabd-web's tree connection sends them).
            wait(browser, lambda d: logged(d, "display_mode_will_change") and logged(d, '"display_mode":"two_beside"'),
                 what="the split's events in the log")

            # A push onto the navigation controller in the primary column shows there.
            c.push_screen({"id": "sent", "title": "Sent"}, controller="boxes")
            wait(browser, lambda d: (drawn(d, "boxes") or {}).get("top") == "sent", what="boxes' new top")

            # hide_column primary: back to one_beside; the navigation controller is gone from the page.
            c.hide_column("primary", controller="cols")
            st = follows(browser, c, "cols", "hide_column primary")
            assert st["display_mode"] == "one_beside"
            assert drawn(browser, "boxes") is None
            # hide_column supplementary: secondary_only.
            c.hide_column("supplementary", controller="cols")
            st = follows(browser, c, "cols", "hide_column supplementary")
            assert st["display_mode"] == "secondary_only" and drawn_split(browser, "cols")["hidden_columns"] == "primary supplementary"
            # show_column supplementary: one_beside again.
            c.show_column("supplementary", controller="cols")
            st = follows(browser, c, "cols", "show_column supplementary")
            assert st["display_mode"] == "one_beside"

            # show_detail: a new secondary, shown.
            c.show_detail({"id": "draft", "title": "Draft"}, controller="cols")
            st = follows(browser, c, "cols", "show_detail")
            assert st["columns"]["secondary"]["id"] == "draft"
            # set_column: another child in the supplementary column.
            c.set_column("supplementary", {"id": "threads", "title": "Threads"}, controller="cols")
            st = follows(browser, c, "cols", "set_column supplementary")
            assert drawn_split(browser, "cols")["columns"] == [["supplementary", "threads"], ["secondary", "draft"]]

            # Compact: collapsed onto the secondary, the collapsed stack as a breadcrumb.
            c.set_size_class("compact", controller="cols")
            st = follows(browser, c, "cols", "set_size_class compact")
            assert st["collapsed"] and st["top_column"] == "secondary"
            wait(browser, lambda d: logged(d, "split_collapsed"), what="split_collapsed in the log")
            # Collapsed, hide_column pops the column stack and show_column pushes it.
            c.hide_column("secondary", controller="cols")
            st = follows(browser, c, "cols", "hide_column secondary, collapsed")
            assert st["top_column"] != "secondary"
            c.show_column("primary", controller="cols")
            st = follows(browser, c, "cols", "show_column primary, collapsed")
            assert st["top_column"] == "primary" and st["collapsed_stack"] == ["primary"]
            wait(browser, lambda d: (drawn(d, "boxes") or {}).get("visible") == "true", what="boxes on top of the collapsed split")
            # A compact child: the collapsed split shows it alone.
            c.set_column("compact", {"id": "phone-ui", "title": "Phone"}, controller="cols")
            st = follows(browser, c, "cols", "set_column compact")
            assert st["top_column"] == "compact" and st["collapsed_stack"] == ["compact"]
            assert drawn(browser, "boxes") is None

            # Regular again: expanded, in the mode the display-mode-for-expanding hook answered.
            c.set_size_class("regular", controller="cols")
            st = follows(browser, c, "cols", "set_size_class regular")
            assert not st["collapsed"] and drawn_split(browser, "cols")["crumbs"] is None
            wait(browser, lambda d: logged(d, "split_expanded"), what="split_expanded in the log")
            # Taken out of its window: dimmed, with what is in it.
            c.set_window(False, controller="cols")
            follows(browser, c, "cols", "set_window false")
        # All of it live: the page never synced again.
        assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-syncs") == syncs
    finally:
        web.stop()


def test_a_split_as_a_tabs_content(tabd: Tabd, browser: webdriver.Chrome) -> None:
    """A double pad split attached as a tab's content (`update_tab` `content_controller`)
    in a pad tab controller, a window's root: drawn in the tab's place while the tab is
    selected, its columns shown, collapsed and expanded by the tab root's `set_size_class`,
    gone while another tab is selected, and a root again when detached."""
    web = Web(tabd.socket)
    try:
        open_page(browser, web)
        with tabd_client.Client(tabd.socket) as c:
            c.controller_create("pad", idiom="pad", max_visible=5)
            c.set_tabs([{"id": "home", "title": "Home"}, {"id": "mail", "title": "Mail"}], controller="pad")
            c.create_navigation("folders", [{"id": "inbox", "title": "Inbox"}], idiom="pad")
            c.create_split("mailbox", "double", {"id": "boxes", "controller": "folders"}, {"id": "message", "title": "Message"},
                           idiom="pad")
            st = follows(browser, c, "mailbox", "created, a root out of a window")
            assert "mailbox" in roots(browser) and drawn_split(browser, "mailbox")["dimmed"]

            c.update_tab("mail", controller="pad", content_controller="mailbox")
            st = c.container_state("mailbox")
            assert st["parent"] == {"controller": "pad", "child": "mail"} and not st["visible"]
            # Not selected: the tab controller does not draw it, and it is no root any more.
            wait(browser, lambda d: "mailbox" not in roots(d) and drawn_split(d, "mailbox") is None, what="mailbox in pad, hidden")

            c.select("mail", controller="pad")
            st = follows(browser, c, "mailbox", "mail selected")
            assert st["visible"]
            got = drawn_split(browser, "mailbox")
            assert (got["in_controller"], got["slot"]) == ("pad", "content")
            assert browser.find_element(By.CSS_SELECTOR, '[data-controller="pad"]').get_attribute("data-selected") == "mail"

            # The primary shown over the secondary (portrait overlays; the orientation rules
            # keep this tab in portrait).
            c.show_column("primary", controller="mailbox")
            st = follows(browser, c, "mailbox", "show_column primary in the tab")
            assert st["display_mode"] == "one_over" and st["visible_columns"] == ["primary", "secondary"]
            wait(browser, lambda d: (drawn(d, "folders") or {}).get("visible") == "true", what="folders drawn in the split in the tab")

            # The tab root compact: the split collapses with it.
            c.set_size_class("compact", controller="pad")
            st = follows(browser, c, "mailbox", "the root compact")
            assert st["collapsed"] and st["size_class"] == "compact"
            c.show_detail({"id": "draft"}, controller="mailbox")
            st = follows(browser, c, "mailbox", "show_detail, collapsed")
            assert st["top_column"] == "secondary" and st["columns"]["secondary"]["id"] == "draft"
            c.set_size_class("regular", controller="pad")
            st = follows(browser, c, "mailbox", "the root regular")
            assert not st["collapsed"]

            # Another tab: the split is not drawn; back to mail, drawn again.
            c.select("home", controller="pad")
            wait(browser, lambda d: drawn_split(d, "mailbox") is None, what="mailbox gone with its tab")
            c.select("mail", controller="pad")
            follows(browser, c, "mailbox", "mail selected again")

            # Detached: a root again, out of a window, at the top level.
            c.update_tab("mail", controller="pad", content_controller=None)
            st = follows(browser, c, "mailbox", "detached")
            assert st["parent"] is None
            wait(browser, lambda d: "mailbox" in roots(d), what="mailbox a root again")
    finally:
        web.stop()


def test_a_split_and_a_drawer_around_tab_bars(tabd: Tabd, browser: webdriver.Chrome) -> None:
    """A pad split whose secondary column is a tab controller, and a drawer around another
    tab controller, both built with commands: the tab bars drawn in their slots follow
    their own events; the screenshot it takes (artifacts/containers.png) is the source of docs/images/tabd-web-containers.png."""
    web = Web(tabd.socket)
    try:
        with tabd_client.Client(tabd.socket) as c:
            c.controller_create("reader", idiom="pad", window=False, max_visible=5)
            c.set_tabs([{"id": "read", "title": "Read"}, {"id": "reply", "title": "Reply"}, {"id": "notes", "title": "Notes"}],
                       controller="reader")
            c.create_navigation("folders", [{"id": "inbox", "title": "Inbox"}, {"id": "work", "title": "Work"}], idiom="pad")
            c.controller_create("desk", kind="split", style="double", idiom="pad", window=True,
                                primary={"id": "boxes", "controller": "folders"}, secondary={"id": "detail", "controller": "reader"})
            c.rotate("landscape_left", controller="desk")
            c.controller_create("tabs", window=False)
            c.set_tabs([{"id": "feed", "title": "Feed"}, {"id": "chat", "title": "Chat"}, {"id": "me", "title": "Me"}], controller="tabs")
            c.create_navigation("menu", [{"id": "places", "title": "Places"}])
            c.create_drawer("shell", {"id": "main-ui", "controller": "tabs"}, left={"id": "nav", "controller": "menu"}, window=True)
            c.open_drawer("left", controller="shell")
        open_page(browser, web)
        with tabd_client.Client(tabd.socket) as c:
            st = follows(browser, c, "desk", "drawn at the first sync")
            assert st["visible_columns"] == ["primary", "secondary"]
            wait(browser, lambda d: (drawn(d, "reader") or {}).get("visible") == "true", what="the tab controller in the secondary")
            reader = drawn(browser, "reader")
            assert (reader["kind"], reader["in_controller"], reader["parent_slot"]) == ("tab", "desk", "secondary")
            c.select("reply", controller="reader")
            wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, '[data-controller="reader"]').get_attribute("data-selected") == "reply",
                 what="reply selected in the split's tab bar")
            # Hiding the primary leaves the tab bar alone on screen; showing it brings the folders back.
            c.hide_column("primary", controller="desk")
            follows(browser, c, "desk", "hide_column primary")
            assert drawn(browser, "folders") is None and drawn(browser, "reader")["visible"] == "true"
            c.show_column("primary", controller="desk")
            follows(browser, c, "desk", "show_column primary")
            wait(browser, lambda d: (drawn(d, "folders") or {}).get("visible") == "true"
                 and (drawn(d, "menu") or {}).get("visible") == "true"
                 and (drawn(d, "tabs") or {}).get("visible") == "true", what="the split and the drawer drawn whole")

            # The picture for docs/: the split and the drawer, at 80 % (a small PNG).
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            box = browser.execute_script("""
                const r = [...document.querySelectorAll('#devices > [data-controller="desk"], #devices > [data-controller="shell"]')]
                    .map((e) => e.getBoundingClientRect());
                const x = Math.min(...r.map((b) => b.left)), y = Math.min(...r.map((b) => b.top));
                return {x: x + window.scrollX, y: y + window.scrollY, width: Math.max(...r.map((b) => b.right)) - x,
                        height: Math.max(...r.map((b) => b.bottom)) - y};""")
            shot = browser.execute_cdp_cmd("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True, "clip": dict(box, scale=0.8)})
            (ARTIFACTS / "containers.png").write_bytes(base64.b64decode(shot["data"]))
    finally:
        web.stop()
