"""The client covers the protocol: a method for every command tabd's `hello`
and docs/protocol.md name, each sending that command with fields tabd
accepts; an `Event` for every event they name, with a mirror rule unless it
changes nothing `state` reports; and the mirror equal to `state` while R13's
and R14's members come and go, and through R14's events."""

from __future__ import annotations

import re
import time
from typing import Any, Callable, Dict, List, Set, Tuple

from conftest import ROOT, Tabd
from tabd_client import Changed, Checked, Client, ControllerMirror, Event, Follower, Resynced, TabdError
from tabd_client.commands import JSON, Commands

DOC = (ROOT / "docs" / "protocol.md").read_text()

#: Commands docs/protocol.md shows that are not commands.
NOT_COMMANDS = {"fly": "the example of unknown_command"}

#: Commands the client deliberately has no method for, each with the reason.
NOT_WRAPPED: Dict[str, str] = {}

TAB = {"id": "t"}

#: Each command's method, called with arguments of the types it takes.
CALLS: Dict[str, Callable[[Any], Any]] = {
    "hello": lambda c: c.hello(),
    "ping": lambda c: c.ping(),
    "state": lambda c: c.state("main"),
    "controllers": lambda c: c.controllers(),
    "controller.create": lambda c: c.controller_create("pad", idiom="pad", max_visible=6, mode="tab_sidebar"),
    "controller.delete": lambda c: c.controller_delete("pad"),
    "set_tabs": lambda c: c.set_tabs([TAB], selected="t", animated=True),
    "add_tab": lambda c: c.add_tab({"id": "u"}, index=0, group="g"),
    "remove_tab": lambda c: c.remove_tab("t"),
    "update_tab": lambda c: c.update_tab("t", title=None),
    "badge": lambda c: c.badge("t", None),
    "select": lambda c: c.select(index=0),
    "tap": lambda c: c.tap(more=True),
    "push": lambda c: c.push("t", {"id": "s", "title": "S"}),
    "pop": lambda c: c.pop("t"),
    "pop_to_root": lambda c: c.pop_to_root("t"),
    "customizable": lambda c: c.customizable(None),
    "customize.begin": lambda c: c.customize_begin(),
    "customize.move": lambda c: c.customize_move("t", 1),
    "customize.end": lambda c: c.customize_end(),
    "rotate": lambda c: c.rotate("landscape_left"),
    "layout": lambda c: c.layout(390, 844, status_bar=47),
    "preserve": lambda c: c.preserve(),
    "restore": lambda c: c.restore({"selected": None, "stacks": {}}),
    "set_hidden": lambda c: c.set_hidden("t", True),
    "reorder": lambda c: c.reorder(["t"]),
    "sidebar": lambda c: c.sidebar(False),
    "subscribe": lambda c: c.subscribe(["search_changed"], ["main"]),
    "unsubscribe": lambda c: c.unsubscribe(),
    "plugins": lambda c: c.plugins(),
    "plugin.call": lambda c: c.login("demo", "demo"),
    "explain": lambda c: c.explain(limit=3),
    "reload": lambda c: c.reload(),
    "stats": lambda c: c.stats(),
    "metrics": lambda c: c.metrics(format="prometheus"),
    "config": lambda c: c.config(),
    "set_expanded": lambda c: c.set_expanded("g", False),
    "search": lambda c: c.search(False),
    "set_enabled": lambda c: c.set_enabled("t", False),
    "set_bar_hidden": lambda c: c.set_bar_hidden(True, animated=True),
    "set_size_class": lambda c: c.set_size_class("compact"),
    "set_compact_tabs": lambda c: c.set_compact_tabs(None),
    "set_mode": lambda c: c.set_mode("tab_bar"),
    "edit.begin": lambda c: c.edit_begin(),
    "edit.end": lambda c: c.edit_end(),
    "select_child": lambda c: c.select_child("g", "t"),
    # R15: navigation, drawer and custom controllers (create_*, push_screen, pop_screen and
    # pop_to_root_screen in test_container_methods).
    "configure": lambda c: c.configure(controller="d", open_gestures=["bezel_pan_center"], center_interaction="full",
                                       status_bar_child=None),
    "set_window": lambda c: c.set_window(True, controller="n"),
    "pop_to": lambda c: c.pop_to("s", controller="n", animated=True),
    "set_stack": lambda c: c.set_stack([{"id": "s", "title": "S"}, {"id": "m", "controller": "main"}], controller="n"),
    "open_drawer": lambda c: c.open_drawer("left", controller="d", gesture="button", animated=True),
    "close_drawer": lambda c: c.close_drawer(controller="d", gesture="tap_center"),
    "toggle_drawer": lambda c: c.toggle_drawer("right", controller="d"),
    "set_center": lambda c: c.set_center({"id": "c"}, controller="d", close_drawer=True),
    "set_drawer": lambda c: c.set_drawer("left", None, controller="d"),
    "set_children": lambda c: c.set_children([{"id": "a"}], controller="x", shown=["a"]),
    "set_shown": lambda c: c.set_shown([], controller="x"),
    "transition": lambda c: c.transition("a", {"id": "b"}, controller="x", animated=False),
    # Split (R15.15–R15.23; create_split in test_split_methods_and_their_events).
    "set_column": lambda c: c.set_column("compact", None, controller="s"),
    "show_column": lambda c: c.show_column("primary", controller="s", user=True, animated=False),
    "hide_column": lambda c: c.hide_column("primary", controller="s"),
    "show_detail": lambda c: c.show_detail({"id": "d", "title": "D"}, controller="s", animated=True),
}


class Recorder(Commands[JSON]):
    """The requests the methods make, not sent."""

    def __init__(self) -> None:
        self.sent: List[Tuple[str, JSON]] = []

    def _call(self, cmd: str, fields: JSON) -> JSON:
        self.sent.append((cmd, fields))
        return {}


def documented_commands() -> Set[str]:
    return set(re.findall(r'"cmd": *"([a-z_.]+)"', DOC)) - set(NOT_COMMANDS)


def documented_events() -> Set[str]:
    """The events of docs/protocol.md's table in "Events" (a row may name several)."""
    section = DOC.split("\n## Events\n")[1].split("\n## ")[0]
    names: Set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return names


def test_every_command_has_a_method(tabd: Tabd) -> None:
    """Every command of `hello` and docs/protocol.md has a method that sends
    it, in a request tabd does not refuse as malformed (unless NOT_WRAPPED says
    why not)."""
    with Client(tabd.socket) as c:
        known = set(c.hello()["commands"])
        assert documented_commands() == known, "docs/protocol.md and hello differ: %s" % (documented_commands() ^ known)
        recorder = Recorder()
        missing: List[str] = []
        for name in sorted(known - set(NOT_WRAPPED)):
            before = len(recorder.sent)
            try:
                CALLS[name](recorder)
            except (KeyError, AttributeError):
                missing.append(name)
                continue
            assert [cmd for cmd, _ in recorder.sent[before:]] == [name], "the method for %s sent %s" % (name, recorder.sent[before:])
        assert not missing, "commands without a method (add one, or list them in NOT_WRAPPED with why): %s" % missing
        assert not set(NOT_WRAPPED) - known, "NOT_WRAPPED names commands tabd does not know"
        for (cmd, fields), reply in zip(recorder.sent, c.pipeline(recorder.sent)):
            if isinstance(reply, TabdError):
                assert reply.code not in ("invalid_request", "unknown_command", "parse_error"), "%s %s: %s" % (cmd, fields, reply)


def test_every_event_is_an_event_the_mirror_knows(tabd: Tabd) -> None:
    """docs/protocol.md's events, `hello`'s and `Event` are the same; the
    mirror has a rule for each, or lists it among those `state` does not show."""
    with Client(tabd.socket) as c:
        known = set(c.hello()["events"])
    typed = {e.value for e in Event}
    assert documented_events() == known == typed, (documented_events() ^ typed, known ^ typed)
    without = [e.value for e in Event if not hasattr(ControllerMirror, "on_" + e.value)
               and e not in ControllerMirror.UNSHOWN | ControllerMirror.CONTAINER_EVENTS]
    assert not without, "events without a mirror rule: %s" % without
    both = [e.value for e in ControllerMirror.UNSHOWN | ControllerMirror.CONTAINER_EVENTS
            if hasattr(ControllerMirror, "on_" + e.value)]
    assert not both, "events in UNSHOWN or CONTAINER_EVENTS with a rule: %s" % both
    assert not ControllerMirror.UNSHOWN & ControllerMirror.CONTAINER_EVENTS


def check(f: Follower, name: str, timeout: float = 60) -> Tuple[List[str], List[str]]:
    """Waits until the mirror of `name` equals state (or `timeout` passed):
    the last differences, and the reasons of any resync on the way."""
    deadline = time.monotonic() + timeout
    resyncs: List[str] = []
    differences = ["no check answered"]
    while differences and time.monotonic() < deadline:
        f.check(name)
        answered = False
        while not answered and time.monotonic() < deadline:
            for u in f.poll(0.1):
                if isinstance(u, Resynced):
                    resyncs.append(u.reason)
                if isinstance(u, Checked) and u.controller == name:
                    differences, answered = u.differences, True
    return differences, resyncs


def test_mirror_follows_r14_from_events(tabd: Tabd) -> None:
    """A pad with a group and a search tab: size class, mode, an editing
    session, search, a collapsed group, compact tabs, a hidden bar: each
    applied from its events alone (no resync), the mirror equal to state."""
    with Client(tabd.socket) as c:
        c.controller_create("pad", idiom="pad", compact_tabs=["home"])
        c.set_tabs([{"id": "home"}, {"id": "library", "allows_reordering": True, "children": [{"id": "albums"}, {"id": "songs"}]},
                    {"id": "radio"}, {"id": "find", "role": "search", "activates_search": True}], controller="pad")
        f = Follower(tabd.socket, ["pad"])
        steps: List[Callable[[], Any]] = [
            lambda: c.set_size_class("compact", controller="pad"),
            lambda: c.set_size_class("regular", controller="pad"),
            lambda: c.set_mode("tab_sidebar", controller="pad"),
            lambda: c.edit_begin(controller="pad"),
            lambda: c.edit_end(controller="pad"),
            lambda: c.set_expanded("library", False, controller="pad"),
            lambda: c.select("albums", controller="pad"),
            # On the selected path: selection_changed says it. (Off the path, tabd
            # sends no event for the group's new selected_child: docs/clients.md.)
            lambda: c.select_child("library", "songs", controller="pad"),
            lambda: c.select("find", controller="pad"),
            lambda: c.search(False, controller="pad"),
            lambda: c.set_compact_tabs(["home", "library"], controller="pad"),
            lambda: c.set_compact_tabs(None, controller="pad"),
            lambda: c.set_bar_hidden(True, animated=True, controller="pad"),
            lambda: c.set_enabled("radio", False, controller="pad"),
            lambda: c.set_mode("automatic", controller="pad"),
        ]
        check(f, "pad")
        for i, step in enumerate(steps):
            step()
            differences, resyncs = check(f, "pad")
            assert differences == [] and resyncs == [], "step %d: %s %s" % (i, differences, resyncs)
        f.close()


def test_mirror_follows_the_modern_model_coming_and_going(tabd: Tabd) -> None:
    """`state` reports R13's and R14's members exactly while the controller
    uses them, which no event says: the mirror equals state as they come and
    go (reading it again when in doubt)."""
    with Client(tabd.socket) as c:
        c.set_tabs([{"id": "a"}, {"id": "b"}])
        c.controller_create("pad", idiom="pad")
        c.set_tabs([{"id": "a"}, {"id": "b"}], controller="pad")
        f = Follower(tabd.socket, ["main", "pad"])
        steps: List[Tuple[str, Callable[[], Any]]] = [
            ("main", lambda: c.set_bar_hidden(True)),
            ("main", lambda: c.set_bar_hidden(False)),
            ("main", lambda: c.set_enabled("b", False)),
            ("main", lambda: c.set_enabled("b", True)),
            ("main", lambda: c.set_compact_tabs(["b"])),
            ("main", lambda: c.set_compact_tabs(None)),
            ("main", lambda: c.badge("a", "3")),
            ("main", lambda: c.badge("a", None)),
            ("pad", lambda: c.set_mode("tab_sidebar", controller="pad")),
            ("pad", lambda: c.edit_begin(controller="pad")),
            ("pad", lambda: c.edit_end(controller="pad")),
            ("pad", lambda: c.set_mode("automatic", controller="pad")),
            ("pad", lambda: c.set_size_class("compact", controller="pad")),
            ("pad", lambda: c.set_size_class("regular", controller="pad")),
            ("pad", lambda: c.update_tab("a", placement="pinned", controller="pad")),
            ("pad", lambda: c.update_tab("a", placement="automatic", controller="pad")),
        ]
        for i, (name, step) in enumerate(steps):
            step()
            differences, _ = check(f, name)
            assert differences == [], "step %d (%s): %s" % (i, name, differences)
        f.close()


def documented_error_codes() -> Set[str]:
    """The codes of docs/protocol.md's table in "Errors"."""
    section = DOC.split("\n## Errors\n")[1].split("\n## ")[0]
    return {m for line in section.splitlines() if line.startswith("| `")
            for m in re.findall(r"^\| `([a-z_]+)`", line)}


def test_every_error_code_has_its_exception(tabd: Tabd) -> None:
    """ERRORS names a TabdError subclass for each code docs/protocol.md lists,
    and an error reply of tabd raises that subclass."""
    import tabd_client
    codes = documented_error_codes()
    assert len(codes) >= 14, codes
    assert set(tabd_client.ERRORS) == codes, "docs/protocol.md and ERRORS differ: %s" % (set(tabd_client.ERRORS) ^ codes)
    for code, cls in tabd_client.ERRORS.items():
        assert issubclass(cls, TabdError) and cls is not TabdError and cls.__name__ in tabd_client.__all__, code
    with Client(tabd.socket) as c:
        try:
            c.select("nowhere")
        except tabd_client.NotFound as e:
            assert e.code == "not_found" and isinstance(e, TabdError)
        else:
            raise AssertionError("select of a missing tab did not raise NotFound")
        c.set_tabs([{"id": "login"}, {"id": "home"}])
        try:
            c.tap("home")
        except tabd_client.Denied as e:
            assert e.plugin == "login-gate", e.error
        else:
            raise AssertionError("a tap the login gate refuses did not raise Denied")
    assert type(TabdError.from_reply({"ok": False, "error": {"code": "from_the_future", "message": "m"}})) is TabdError
