"""tabd-web in a real browser: headless Chromium (Debian's chromium and
chromium-driver) driven by selenium, against a real tabd with both reference
plugins. `make test-web` (part of `make test`) installs what is missing.

Screenshots of the phone, the pad and the tv go to $TABD_WEB_ARTIFACTS
(default web/artifacts)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python" / "tests"))
from conftest import Tabd, tabd  # noqa: E402,F401  (the fixture)

import tabd_client  # noqa: E402  (conftest put clients/python on the path)
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WEB = Path(os.environ.get("TABD_WEB_BIN", ROOT / "web" / ".build" / "debug" / "tabd-web"))
ARTIFACTS = Path(os.environ.get("TABD_WEB_ARTIFACTS", ROOT / "web" / "artifacts"))


class Web:
    """tabd-web on a free port; `url` is the address it printed (with the token)."""

    def __init__(self, tabd_socket: str, *extra: str) -> None:
        self.process = subprocess.Popen([str(WEB), "--socket", tabd_socket, "--port", "0", *extra],
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:(\d+))/\?token=([0-9a-f]+)", line)
        assert found, "tabd-web printed %r" % line
        self.url, self.base, self.port, self.token = found.group(0), found.group(1), int(found.group(2)), found.group(3)
        # The token's cookie is named for the port (docs/operations.md, "The web console").
        self.cookie_name = "tabd_web_token_%d" % self.port
        self.cookie = "%s=%s" % (self.cookie_name, self.token)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,1300"]:
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def setup_controllers(c: tabd_client.Client) -> None:
    c.set_tabs([{"id": "login", "title": "Login"}, {"id": "home", "title": "Home", "navigation": True},
                {"id": "music", "item": {"title": "Music", "badge": "3"}}, {"id": "video", "title": "Video"},
                {"id": "news", "title": "News"}, {"id": "settings", "title": "Settings"}])
    c.push("home", {"id": "inbox", "title": "Inbox"})
    c.controller_create("pad", idiom="pad", max_visible=5)
    c.set_tabs([{"id": "login", "title": "Login"}, {"id": "home", "title": "Home"},
                {"id": "library", "title": "Library", "children": [{"id": "albums", "title": "Albums"}, {"id": "songs", "title": "Songs"}]},
                {"id": "radio", "title": "Radio", "allows_hiding": True, "hidden_by_default": True},
                {"id": "search", "title": "Search"}], controller="pad")
    c.badge("search", "9", controller="pad")
    c.controller_create("tv", idiom="tv", max_visible=3)
    c.set_tabs([{"id": t, "title": t.capitalize()} for t in ["login", "home", "movies", "shows", "kids", "settings"]], controller="tv")


def drawn_bar(driver: webdriver.Chrome, controller: str):
    """The bar as drawn: its items, the tv's unreachable ones, the highlight. Read in one
    script (the page redraws after every event, so elements found earlier may be gone)."""
    return tuple(driver.execute_script("""
        const items = [...document.querySelectorAll(`[data-controller="${arguments[0]}"] [data-bar] .item`)];
        const shown = items.filter((i) => !i.hasAttribute("data-unreachable")).map((i) => i.dataset.tab);
        const unreachable = items.filter((i) => i.hasAttribute("data-unreachable")).map((i) => i.dataset.tab);
        const selected = items.filter((i) => i.dataset.selected).map((i) => i.dataset.tab);
        return [shown, unreachable, selected.length ? selected[0] : null];
    """, controller))


def tabs_in(driver: webdriver.Chrome, selector: str):
    return driver.execute_script("return [...document.querySelectorAll(arguments[0])].map((e) => e.dataset.tab);", selector)


def wait(driver: webdriver.Chrome, condition, timeout: float = 60, what: str = ""):
    """Until `condition` holds; `timeout` is a give-up bound, far above what the page takes
    even on a loaded machine."""
    return WebDriverWait(driver, timeout, poll_frequency=0.02, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: condition(d), what)


def click(driver: webdriver.Chrome, css: str) -> None:
    """Clicks what `css` finds, finding it again if the page redrew in between."""
    for _ in range(20):
        try:
            driver.find_element(By.CSS_SELECTOR, css).click()
            return
        except StaleElementReferenceException:
            time.sleep(0.02)
    raise AssertionError("%s kept being redrawn" % css)


def test_the_console_in_a_browser(tabd: Tabd, browser: webdriver.Chrome) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with tabd_client.Client(tabd.socket) as c:
        setup_controllers(c)
    web = Web(tabd.socket)
    try:
        browser.get(web.url)
        # The token went into a cookie and out of the address bar.
        assert browser.current_url == web.base + "/"
        wait(browser, lambda d: d.find_element(By.ID, "status").get_attribute("data-state") == "live", what="live")
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-controller]")) == 3, what="three devices")

        # Every drawn bar is what `state` says: visible items, unreachable (disabled) ones, the highlight.
        with tabd_client.Client(tabd.socket) as c:
            for name in ["main", "pad", "tv"]:
                bar = c.state(name)["bar"]
                assert drawn_bar(browser, name) == (bar["visible"], bar.get("unreachable", []), bar["selected"]), name
        assert browser.find_element(By.CSS_SELECTOR, '[data-controller="main"] [data-tab="more"]').text == "More"
        assert browser.find_element(By.CSS_SELECTOR, '[data-controller="main"] [data-tab="music"] .badge').text == "3"
        assert browser.find_element(By.CSS_SELECTOR, '[data-controller="pad"] [data-hidden-tabs]').get_attribute("data-hidden-tabs") == "radio"
        assert len(browser.find_elements(By.CSS_SELECTOR, '[data-sidebar="pad"] [data-tab="songs"]')) == 1
        assert len(browser.find_elements(By.CSS_SELECTOR, '[data-controller="tv"] [data-disabled]')) == 3

        # A tap the login gate refuses: the refusal is shown with its plugin and message.
        click(browser, '[data-controller="main"] [data-tab="music"]')
        notice = browser.find_element(By.ID, "notice")
        wait(browser, lambda d: notice.get_attribute("data-kind") == "refusal", what="refusal")
        assert notice.get_attribute("data-plugin") == "login-gate"
        assert "login-gate" in notice.text and "login required" in notice.text

        # Log in through the form, tap again: selected.
        browser.find_element(By.ID, "login-user").send_keys("demo")
        browser.find_element(By.ID, "login-password").send_keys("demo")
        browser.find_element(By.ID, "login-button").click()
        wait(browser, lambda d: notice.get_attribute("data-login") == "ok", what="login")
        click(browser, '[data-controller="main"] [data-tab="music"]')
        main = '[data-controller="main"]'
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, main).get_attribute("data-selected") == "music", what="music")
        assert drawn_bar(browser, "main")[2] == "music"

        # More: the list of the tabs the bar has no room for, as `state` says.
        click(browser, '[data-controller="main"] [data-tab="more"]')
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, main).get_attribute("data-selected") == "more", what="more")
        with tabd_client.Client(tabd.socket) as c:
            more = c.state()["bar"]["more"]
            wait(browser, lambda d: tabs_in(d, '[data-more="main"] [data-tab]') == more, what="the More list")

        # Another client selects: the page shows it (within a second on an idle machine: the
        # figure printed; the bound, 10 s, leaves room for a loaded one and still tells a page
        # that follows events from one that does not).
        with tabd_client.Client(tabd.socket) as c:
            c.select("home")
            started = time.monotonic()
            wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, main).get_attribute("data-selected") == "home",
                 timeout=10, what="home, shown from the event")
            print("figure: another client's select shown after %.0f ms" % ((time.monotonic() - started) * 1000))
            assert drawn_bar(browser, "main")[2] == "home"
            assert "Inbox" in browser.find_element(By.CSS_SELECTOR, main + " .content").text  # the stack
            c.select("library", controller="pad")

        # Screenshots of the three idioms (test artifacts; the README shows one).
        wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, '[data-controller="pad"]').get_attribute("data-selected") == "library")
        for name, idiom in [("main", "phone"), ("pad", "pad"), ("tv", "tv")]:
            browser.find_element(By.CSS_SELECTOR, '[data-controller="%s"]' % name).screenshot(str(ARTIFACTS / ("%s.png" % idiom)))
        browser.save_screenshot(str(ARTIFACTS / "console.png"))

        # tabd is killed and started again: the page says so and resyncs, then follows on.
        first = browser.find_element(By.TAG_NAME, "body").get_attribute("data-instance")
        tabd.restart(signal.SIGKILL)
        wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-syncs") not in ("1", None), what="resync")
        assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-instance") != first
        assert "resynced" in browser.find_element(By.ID, "notice").text
        with tabd_client.Client(tabd.socket) as c:
            c.select("video")
            wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, main).get_attribute("data-selected") == "video",
                 timeout=10, what="video after the restart")
            assert drawn_bar(browser, "main") == (c.state()["bar"]["visible"], [], "video")

        # Admin commands are refused unless tabd-web was started with --allow-admin.
        reply = browser.execute_async_script("const done = arguments[0]; request({cmd: 'reload'}).then(done);")
        assert reply["ok"] is False and reply["error"]["code"] == "forbidden" and "--allow-admin" in reply["error"]["message"]
    finally:
        web.stop()


# ---- what the page draws of R13/R14, against `state` -------------------------------------

DRAWN = """
    const d = document.querySelector(`[data-controller="${arguments[0]}"]`);
    if (!d) return null;
    const bar = d.querySelector("[data-bar]");
    const items = [...bar.querySelectorAll(".item")];
    const ids = (list) => list.map((i) => i.dataset.tab);
    const b = bar.getBoundingClientRect(), body = d.querySelector(".body").getBoundingClientRect();
    const side = d.querySelector("[data-sidebar]");
    return {
        seq: Number(d.dataset.seq), idiom: d.dataset.idiom, size_class: d.dataset.sizeClass, mode: d.dataset.mode,
        position: bar.dataset.position, hidden: bar.dataset.hidden === "true",
        placed: b.height === 0 ? null : b.bottom <= body.top + 0.5 ? "top" : b.top >= body.bottom - 0.5 ? "bottom" : "overlapping",
        bar: ids(items.filter((i) => !i.hasAttribute("data-unreachable"))),
        unreachable: ids(items.filter((i) => i.hasAttribute("data-unreachable"))),
        disabled: ids(items.filter((i) => i.disabled && !i.hasAttribute("data-unreachable"))),
        selected: ids(items.filter((i) => i.dataset.selected))[0] || null,
        compact_tabs: bar.hasAttribute("data-compact-tabs") ? bar.dataset.compactTabs.split(" ").filter(Boolean) : null,
        sidebar: d.dataset.sidebarState,
        sidebar_rows: side && [...side.querySelectorAll("[data-depth]")].map((r) =>
            [r.dataset.tab, Number(r.dataset.depth), r.dataset.expanded || null, r.disabled]),
        search: d.dataset.search || null,
        search_field: d.querySelector("[data-search-field]") !== null,
        editing: d.querySelector("[data-editing]") !== null,
    };
"""


def drawn(driver: webdriver.Chrome, controller: str):
    """What the page drew of a controller (data attributes and geometry), in one script."""
    return driver.execute_script(DRAWN, controller)


def expected(st) -> dict:
    """What the page should draw of a controller, from its `state` alone."""
    def tree(tabs):
        for t in tabs:
            yield t
            yield from tree(t.get("children") or [])
    enabled = {t["id"]: t.get("enabled", True) for t in tree(st["tabs"])}
    bar = st["bar"]
    sidebar = st.get("sidebar") or {"available": False}
    rows = []

    def walk(items, depth):
        for i in items:
            group = "children" in i
            rows.append([i["id"], depth, str(i["expanded"]).lower() if group else None, not enabled[i["id"]]])
            if group and i["expanded"]:
                walk(i["children"], depth + 1)
    if sidebar["available"] and sidebar["visible"]:
        walk(sidebar["items"], 0)
    search = st.get("search")
    return {
        "seq": st["seq"], "idiom": st["idiom"], "size_class": st["size_class"], "mode": st["mode"],
        "position": bar["position"], "hidden": bar["hidden"], "placed": None if bar["hidden"] else bar["position"],
        "bar": bar["visible"], "unreachable": bar.get("unreachable", []),
        "disabled": [t for t in bar["visible"] if t != "more" and not enabled[t]], "selected": bar["selected"],
        "compact_tabs": st["compact_tabs"],
        "sidebar": "none" if not sidebar["available"] else "shown" if sidebar["visible"] else "hidden",
        "sidebar_rows": rows if sidebar["available"] and sidebar["visible"] else None,
        "search": None if search is None else "active" if search["active"] else "inactive",
        "search_field": bool(search and search["active"]),
        "editing": st["editing"],
    }


def check(driver: webdriver.Chrome, c: tabd_client.Client, controller: str, step: str) -> dict:
    """Waits until the page has drawn the controller at `state`'s seq, then compares."""
    st = c.state(controller)
    wait(driver, lambda d: (drawn(d, controller) or {}).get("seq") == st["seq"], what="%s at seq %d (%s)" % (controller, st["seq"], step))
    assert drawn(driver, controller) == expected(st), "%s after %s" % (controller, step)
    return st


# Every controller uses R13 and R14 (groups, a search tab), so `state` reports their members.
MODERN_TABS = [{"id": "home", "title": "Home"},
               {"id": "library", "title": "Library", "children": [{"id": "albums"}, {"id": "songs"}, {"id": "artists"}]},
               {"id": "radio", "title": "Radio"}, {"id": "news", "title": "News"}, {"id": "shop", "title": "Shop"},
               {"id": "settings", "title": "Settings"},
               {"id": "find", "title": "Find", "role": "search", "activates_search": True}]


def test_the_console_draws_what_state_says(tabd: Tabd, browser: webdriver.Chrome) -> None:
    """Bar position and hidden, size class and compact tabs, the sidebar, search, enabled,
    mode and editing (R13, R14) on a phone, a regular pad, a compact pad and a tv."""
    web = Web(tabd.socket)
    try:
        browser.get(web.url)
        wait(browser, lambda d: d.find_element(By.ID, "status").get_attribute("data-state") == "live", what="live")
        with tabd_client.Client(tabd.socket) as c:
            # A phone: More, a disabled tab, the bar hidden and shown, compact tabs, search.
            c.controller_create("phone", idiom="phone", max_visible=5)
            c.set_tabs(MODERN_TABS, controller="phone")
            check(browser, c, "phone", "set_tabs")
            c.set_enabled("library", False, controller="phone")
            st = check(browser, c, "phone", "set_enabled")
            assert "library" in st["bar"]["visible"]
            assert not browser.find_element(By.CSS_SELECTOR, '[data-bar="phone"] [data-tab="library"]').is_enabled()
            c.set_bar_hidden(True, controller="phone")
            check(browser, c, "phone", "set_bar_hidden true")
            assert not browser.find_element(By.CSS_SELECTOR, '[data-bar="phone"] [data-tab="home"]').is_displayed()
            c.set_bar_hidden(False, controller="phone")
            check(browser, c, "phone", "set_bar_hidden false")
            c.set_compact_tabs(["home", "radio", "find"], controller="phone")
            check(browser, c, "phone", "set_compact_tabs")
            c.select("find", controller="phone")
            assert check(browser, c, "phone", "select find")["search"] == {"active": True}
            c.search(False, controller="phone")
            check(browser, c, "phone", "search false")

            # A regular pad: the bar at the top, the sidebar with its groups.
            c.controller_create("pad", idiom="pad", max_visible=6)
            c.set_tabs(MODERN_TABS, controller="pad")
            st = check(browser, c, "pad", "set_tabs")
            assert st["bar"]["position"] == "top" and st["sidebar"]["visible"]
            c.set_expanded("library", False, controller="pad")
            check(browser, c, "pad", "set_expanded false")
            click(browser, '[data-sidebar="pad"] [data-expand="library"]')  # the disclosure: set_expanded
            wait(browser, lambda d: [r[2] for r in drawn(d, "pad")["sidebar_rows"] if r[0] == "library"] == ["true"], what="expanded")
            check(browser, c, "pad", "the disclosure clicked")
            c.set_enabled("songs", False, controller="pad")
            check(browser, c, "pad", "set_enabled songs")
            assert not browser.find_element(By.CSS_SELECTOR, '[data-sidebar="pad"] [data-tab="songs"]').is_enabled()
            c.edit_begin(controller="pad")
            check(browser, c, "pad", "edit.begin")
            c.edit_end(controller="pad")
            c.sidebar(False, controller="pad")
            check(browser, c, "pad", "sidebar false")
            c.sidebar(True, controller="pad")
            check(browser, c, "pad", "sidebar true")
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            browser.find_element(By.CSS_SELECTOR, '[data-controller="pad"]').screenshot(str(ARTIFACTS / "pad-sidebar.png"))
            c.set_bar_hidden(True, controller="pad")
            check(browser, c, "pad", "set_bar_hidden true")
            c.set_bar_hidden(False, controller="pad")
            c.set_size_class("compact", controller="pad")
            st = check(browser, c, "pad", "set_size_class compact")
            assert st["bar"]["position"] == "bottom" and not st["sidebar"]["available"]
            c.set_size_class("regular", controller="pad")
            check(browser, c, "pad", "set_size_class regular")
            c.set_mode("tab_bar", controller="pad")
            check(browser, c, "pad", "set_mode tab_bar")

            # A compact pad: what compact_tabs keeps, at the bottom, no sidebar.
            c.controller_create("cpad", idiom="pad", max_visible=5, size_class="compact", compact_tabs=["library", "news", "settings", "find"])
            c.set_tabs(MODERN_TABS, controller="cpad")
            st = check(browser, c, "cpad", "set_tabs")
            assert st["bar"]["visible"] == ["library", "news", "settings", "find"]

            # A tv: the bar at the top, no room for some (unreachable), a disabled tab, hidden.
            c.controller_create("tv", idiom="tv", max_visible=3)
            c.set_tabs(MODERN_TABS, controller="tv")
            st = check(browser, c, "tv", "set_tabs")
            assert st["bar"]["unreachable"]
            c.set_enabled("home", False, controller="tv")
            check(browser, c, "tv", "set_enabled")
            c.set_bar_hidden(True, controller="tv")
            check(browser, c, "tv", "set_bar_hidden true")
        browser.save_screenshot(str(ARTIFACTS / "console-r14.png"))
    finally:
        web.stop()


def test_a_narrow_window(tabd: Tabd, browser: webdriver.Chrome) -> None:
    """At 390 px wide (a phone's browser) nothing overflows sideways; the icon is served."""
    with tabd_client.Client(tabd.socket) as c:
        setup_controllers(c)
    web = Web(tabd.socket)
    try:
        browser.set_window_size(390, 844)
        browser.get(web.url)
        wait(browser, lambda d: d.find_element(By.ID, "status").get_attribute("data-state") == "live", what="live")
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-controller]")) == 3, what="three devices")
        width, scroll, outside = browser.execute_script("""
            const w = window.innerWidth;
            const outside = [...document.querySelectorAll("header *, [data-controller]")]
                .filter((e) => { const r = e.getBoundingClientRect(); return r.left < 0 || r.right > w; })
                .map((e) => e.id || e.dataset.controller || e.tagName);
            return [w, document.documentElement.scrollWidth, outside];""")
        assert width <= 400, "the window is %d px wide, not a phone's" % width
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / "console-390.png"))
        assert scroll <= width and outside == [], (width, scroll, outside)
        status = browser.execute_async_script("const done = arguments[0]; fetch('/favicon.ico').then((r) => done(r.status));")
        assert status == 200
    finally:
        web.stop()


def test_safe_by_default(tabd: Tabd) -> None:
    web = Web(tabd.socket)
    try:
        def get(path: str, headers=None):
            req = urllib.request.Request(web.base + path, headers=headers or {})
            opener = urllib.request.build_opener(NoRedirect)
            try:
                r = opener.open(req, timeout=5)
                return r.status, dict(r.headers), r.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, dict(e.headers), e.read().decode()

        status, headers, body = get("/")
        assert status == 403 and "token" in body
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert get("/?token=" + "0" * 32)[0] == 403
        status, headers, _ = get("/?token=" + web.token)
        assert status == 303 and "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
        cookie = {"Cookie": web.cookie}
        status, headers, body = get("/", cookie)
        assert status == 200 and "<script src=\"/app.js\"" in body
        assert "script-src 'self'" in headers["Content-Security-Policy"]
        for icon in ["/favicon.ico", "/favicon.svg"]:  # index.html names the svg; browsers ask for the ico
            status, headers, body = get(icon, cookie)
            assert status == 200 and headers["Content-Type"] == "image/svg+xml" and body.startswith("<svg"), icon

        # The WebSocket: upgraded for the page's own origin with the cookie only.
        def upgrade(origin: str, with_cookie: bool = True) -> str:
            with socket.create_connection(("127.0.0.1", web.port), timeout=5) as s:
                s.sendall(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: %s\r\n%s\r\n"
                           % (web.port, origin, cookie_line if with_cookie else "")).encode())
                return s.recv(200).decode(errors="replace").split("\r\n")[0]
        cookie_line = "Cookie: %s\r\n" % web.cookie
        assert " 101 " in upgrade("http://127.0.0.1:%d" % web.port)
        assert " 101 " not in upgrade("http://evil.example")
        assert " 101 " not in upgrade("http://127.0.0.1:%d" % web.port, with_cookie=False)

        # It listens on 127.0.0.1 only.
        out = subprocess.run(["ss", "-ltnp"], capture_output=True, text=True).stdout
        lines = [l for l in out.splitlines() if ":%d " % web.port in l]
        assert lines and all("127.0.0.1:%d" % web.port in l for l in lines), lines
    finally:
        web.stop()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_on_a_unix_socket(tabd: Tabd, tmp_path: Path) -> None:
    """--unix-socket: the same token rule, on a Unix socket instead of 127.0.0.1 (its cookie
    named for the socket)."""
    path = str(tmp_path / "web.sock")
    process = subprocess.Popen([str(WEB), "--socket", tabd.socket, "--unix-socket", path], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        found = re.search(r"unix:(\S+) ?/\?token=([0-9a-f]+)", line)
        assert found and found.group(1) == path, line

        def get(target: str) -> str:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(path)
                s.sendall(("GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" % target).encode())
                return s.recv(4096).decode(errors="replace")
        assert get("/").startswith("HTTP/1.1 403")
        answer = get("/?token=" + found.group(2))
        assert answer.startswith("HTTP/1.1 303") and re.search(r"tabd_web_token_unix_[0-9a-f]+=" + found.group(2), answer)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)
