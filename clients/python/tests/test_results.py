"""Typed results: every command's method names a TypedDict of results.py, and
every reply docs/protocol.md shows — and, for the commands the page elides
(`hello`, `stats`, `explain`, `config`, `state` of a pad, a tv), tabd's own
reply — has exactly that TypedDict's keys (none missing, none unknown, each
value of its type, nested objects too). mypy --strict finds a wrong key."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Set, Union, get_args, get_origin, get_type_hints, is_typeddict

from conftest import ROOT, Tabd
from tabd_client import Client
from tabd_client.commands import Command, Commands

DOC = (ROOT / "docs" / "protocol.md").read_text()


def result_type(cmd: str) -> Any:
    """The TypedDict of a command's method (`customize.begin` → `customize_begin`)."""
    method = getattr(Commands, cmd.replace(".", "_"), None)
    assert isinstance(method, Command), "Commands.%s is not a command method with @returns(...)" % cmd.replace(".", "_")
    return method.result


#: The methods of a command's forms other than the tab controller's: without `tab` (a
#: navigation controller's), `controller.create` of another kind, `state` of another kind.
OTHER_FORMS = {"push": "push_screen", "pop": "pop_screen", "pop_to_root": "pop_to_root_screen"}


def reply_type(request: Dict[str, Any], result: Any) -> Any:
    """The TypedDict of a reply to `request`: its command's method's, or that of the
    command's form for a navigation, drawer or custom controller."""
    cmd = request["cmd"]
    if cmd in OTHER_FORMS and "tab" not in request:
        return result_type(OTHER_FORMS[cmd])
    if cmd == "controller.create" and request.get("kind", "tab") != "tab":
        return result_type("create_" + request["kind"])
    if cmd == "state" and isinstance(result, dict) and result.get("kind", "tab") != "tab":
        return result_type("container_state")
    if cmd in ("restore", "rotate", "set_size_class") and isinstance(result, dict) and "selected" not in result:
        return result_type("set_window")  # a container root's form: ContainerChanged
    if cmd == "preserve" and isinstance(result, dict) and "controllers" in (result.get("archive") or {}):
        return Any  # a tree's archive (R15.12): controllers by restoration path
    return result_type(cmd)


def problems(value: Any, tp: Any, where: str) -> List[str]:
    """How `value` differs from `tp` (a TypedDict, List, Dict, Optional, str, ...)."""
    if tp is Any:
        return []
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return ["%s: not an object" % where]
        hints = get_type_hints(tp)
        found = ["%s: no %r (%s requires it)" % (where, k, tp.__name__) for k in sorted(tp.__required_keys__) if k not in value]
        found += ["%s: %r is not a key of %s" % (where, k, tp.__name__) for k in value if k not in hints]
        for k, v in value.items():
            if k in hints:
                found += problems(v, hints[k], "%s.%s" % (where, k))
        return found
    origin = get_origin(tp)
    if origin is Union:
        if value is None and type(None) in get_args(tp):
            return []
        tries = [problems(value, arg, where) for arg in get_args(tp) if arg is not type(None)]
        return [] if any(not t for t in tries) else tries[0]
    if origin is list:
        if not isinstance(value, list):
            return ["%s: not an array" % where]
        return [p for i, v in enumerate(value) for p in problems(v, get_args(tp)[0], "%s[%d]" % (where, i))]
    if origin is dict:
        if not isinstance(value, dict):
            return ["%s: not an object" % where]
        return [p for k, v in value.items() for p in problems(v, get_args(tp)[1], "%s.%s" % (where, k))]
    if tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, tp)
    return [] if ok else ["%s: %r is not a %s" % (where, value, getattr(tp, "__name__", tp))]


def documented_replies() -> Dict[str, List[Any]]:
    """The results of the page's success replies, by command, each with its request:
    each ```console command's requests (`'{"cmd":…}'` arguments) paired in order with
    the reply lines under it, where the two counts agree and the reply is not elided (…)."""
    replies: Dict[str, List[Any]] = {}
    for block in re.findall(r"```console\n(.*?)```", DOC, re.S):
        for command in re.split(r"^\$ ", block, flags=re.M)[1:]:
            first, *rest = command.split("\n")
            requests = [json.loads(r) for r in re.findall(r"'(\{\"cmd\".*?\})'", first)]
            lines = [line for line in rest if line.startswith('{"ok"')]
            if len(requests) != len(lines):
                continue
            for request, line in zip(requests, lines):
                try:
                    reply = json.loads(line)
                except ValueError:
                    continue  # elided: "…"
                if reply["ok"]:
                    replies.setdefault(request["cmd"], []).append((request, reply["result"]))
    return replies


def test_every_documented_reply_is_its_commands_type() -> None:
    found = documented_replies()
    assert len(found) > 30, "docs/protocol.md's replies were not found: %s" % sorted(found)
    wrong = [p for cmd, results in sorted(found.items()) for i, (request, r) in enumerate(results)
             for p in problems(r, reply_type(request, r), "%s reply %d" % (cmd, i + 1))]
    assert not wrong, "docs/protocol.md and results.py differ:\n" + "\n".join(wrong)


def tree_controller(c: Client, name: str, idiom: str) -> None:
    """A controller with a group, hidden and disabled tabs and a search tab."""
    c.controller_create(name, idiom=idiom)
    c.set_tabs([{"id": "home", "title": "Home"},
                {"id": "library", "children": [{"id": "albums"}, {"id": "songs"}], "allows_reordering": True},
                {"id": "radio", "allows_hiding": True, "hidden_by_default": True, "subtitle": "Live"},
                {"id": "find", "role": "search"}], controller=name)


def container_calls(c: Client) -> Dict[str, Any]:
    """Every method of navigation, drawer and custom controllers (R15) on a drawer `root`
    (a window's root) whose center is the navigation controller `nav`, and a custom
    container `box`: each result by "<method> <n>"."""
    calls: Dict[str, Any] = {}

    def call(name: str, result: Any) -> None:
        calls["%s %d" % (name, len(calls))] = result
    call("create_navigation", c.create_navigation("nav", [{"id": "inbox", "title": "Inbox"}]))
    call("create_drawer", c.create_drawer("root", {"id": "main", "controller": "nav"}, left={"id": "menu"},
                                          open_gestures=["bezel_pan_center"], close_gestures=["tap_center"],
                                          center_interaction="full", window=True))
    call("create_custom", c.create_custom("box", [{"id": "a"}, {"id": "b", "restoration_id": "b"}], shown=["a"]))
    call("controllers", c.controllers())
    call("push_screen", c.push_screen({"id": "msg", "title": "Message"}, controller="nav", animated=True))
    call("push_screen", c.push_screen({"id": "reply"}, controller="nav"))
    call("pop_to", c.pop_to("msg", controller="nav"))
    call("pop_screen", c.pop_screen(controller="nav", user=True))
    call("set_stack", c.set_stack([{"id": "inbox"}, {"id": "sent"}], controller="nav"))
    call("pop_to_root_screen", c.pop_to_root_screen(controller="nav"))
    for name in ["nav", "root", "box"]:
        call("container_state", c.container_state(name))
    # The login gate keeps drawers shut for a user while `main` is logged out (plugin ABI 1.10).
    c.login("demo", "demo")
    call("open_drawer", c.open_drawer("left", controller="root", gesture="bezel_pan_center"))
    call("close_drawer", c.close_drawer(controller="root", gesture="tap_center"))
    call("toggle_drawer", c.toggle_drawer("left", controller="root"))
    call("configure", c.configure(controller="root", open_gestures=["button"], center_interaction="none"))
    call("set_drawer", c.set_drawer("right", {"id": "info"}, controller="root"))
    call("set_center", c.set_center({"id": "home"}, controller="root", close_drawer=True))
    call("set_children", c.set_children([{"id": "a"}, {"id": "c"}], controller="box", shown=["a", "c"]))
    call("set_shown", c.set_shown(["c"], controller="box"))
    call("transition", c.transition("c", {"id": "d"}, controller="box", animated=True))
    call("configure", c.configure(controller="box", status_bar_child="d"))
    call("configure", c.configure(controller="box", status_bar_child=None))
    call("set_window", c.set_window(True, controller="box"))
    call("set_window", c.set_window(False, controller="box"))
    for name in ["nav", "root", "box"]:
        call("container_state", c.container_state(name))
    return calls


def split_calls(c: Client, first: int = 0) -> Dict[str, Any]:
    """Every method of a split view controller (R15.15–R15.23) on `cols`, a pad's double
    split and a window's root: expanded in portrait (secondary_only) and landscape
    (one_beside), its columns shown and hidden, collapsed by a compact size class and
    expanded again; each result by "<method> <n>" (rotate's and set_size_class's, a
    container root's form, as set_window's: ContainerChanged)."""
    calls: Dict[str, Any] = {}

    def call(name: str, result: Any) -> None:
        calls["%s %d" % (name, first + len(calls))] = result
    call("create_split", c.create_split("cols", "double", {"id": "list", "title": "List"}, {"id": "detail"},
                                        idiom="pad", window=True))
    call("set_window", c.rotate("landscape_left", controller="cols"))
    call("hide_column", c.hide_column("primary", controller="cols"))
    call("show_column", c.show_column("primary", controller="cols", user=True))
    call("show_detail", c.show_detail({"id": "detail-2", "title": "Detail"}, controller="cols", animated=True))
    call("configure", c.configure(controller="cols", preferred_display_mode="one_over", presents_with_gesture=False))
    call("set_window", c.set_size_class("compact", controller="cols"))
    call("show_column", c.show_column("primary", controller="cols"))
    call("set_column", c.set_column("compact", {"id": "compact"}, controller="cols"))
    call("set_column", c.set_column("compact", None, controller="cols"))
    call("set_window", c.set_size_class("regular", controller="cols"))
    call("container_state", c.container_state("cols"))
    return calls


def test_tabds_replies_are_their_commands_types(tabd: Tabd) -> None:
    """The commands the page elides or shows only for a phone, as tabd answers
    them; together with the page, every command's type is checked."""
    with Client(tabd.socket) as c:
        c.set_tabs([{"id": "login"}, {"id": "home", "navigation": True}, {"id": "video"}])
        tree_controller(c, "pad", "pad")
        tree_controller(c, "tv", "tv")
        c.set_enabled("radio", False, controller="pad")
        c.tap("login")
        calls: Dict[str, Any] = {
            "hello": c.hello(), "stats": c.stats(), "explain": c.explain(limit=5), "config": c.config(),
            "plugins": c.plugins(), "controllers": c.controllers(), "metrics": c.metrics(),
        }
        for controller in ["main", "pad", "tv"]:
            calls["state " + controller] = c.state(controller)
            calls["layout " + controller] = c.layout(1024, 768, controller=controller)
        c.select("find", controller="pad")
        calls["search pad"] = c.search(True, controller="pad")
        calls["edit.begin pad"] = c.edit_begin(controller="pad")
        calls.update(container_calls(c))
        calls.update(split_calls(c, len(calls)))
        wrong = [p for name, result in calls.items() for p in problems(result, result_type(name.split()[0]), name)]
        assert not wrong, "tabd's replies and results.py differ:\n" + "\n".join(wrong)
    checked: Set[str] = set(documented_replies()) | {name.split()[0] for name in calls}
    every = set(re.findall(r'"cmd": *"([a-z_.]+)"', DOC)) - {"fly"}
    assert every <= checked, "commands whose result type nothing checks: %s" % sorted(every - checked)


def test_mypy_finds_a_wrong_key(tmp_path: Path) -> None:
    """A program that reads a key a result does not have fails `mypy --strict`
    (blocking and asyncio); the same program with the right keys passes."""
    program = '''
from tabd_client import AsyncClient, Client

def blocking(c: Client) -> None:
    state = c.state()
    print(state["bar"]["visible"], state["%s"])

async def aio(c: AsyncClient) -> None:
    reply = await c.select("home")
    print(reply["%s"])
'''
    def mypy(source: str) -> "subprocess.CompletedProcess[str]":
        path = tmp_path / "program.py"
        path.write_text(source)
        return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(path)],
                              capture_output=True, text=True, env={"MYPYPATH": str(ROOT / "clients" / "python"), "PATH": ""})
    right = mypy(program % ("selected", "changed"))
    assert right.returncode == 0, right.stdout + right.stderr
    wrong = mypy(program % ("selcted", "chnged"))
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert 'TypedDict "State" has no key "selcted"' in wrong.stdout, wrong.stdout
    assert 'TypedDict "Selection" has no key "chnged"' in wrong.stdout, wrong.stdout
