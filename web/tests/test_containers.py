"""tabd-web draws every kind of container (docs/protocol.md, "Containers beyond tabs"):
navigation, drawer and custom controllers end to end against a real tabd, nested in one
another and around a tab controller, live from events; split view controllers (not in this
tabd yet) from `state` fixtures fed to the page's drawing code, a pure function of them."""

from __future__ import annotations

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


# ---- split view controllers, from `state` fixtures (tabd does not build them yet) ----------

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
