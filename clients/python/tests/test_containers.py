"""The methods of navigation, split, drawer and custom controllers (R15) against a real
tabd: each does what its command does, every event those containers send has
the data its results.EVENT_DATA type says (each of those events among them),
and a Follower of every controller stays equal to `state` with containers
about."""

from __future__ import annotations

from typing import Any, Dict, List, Set

from conftest import Tabd
from test_coverage import check
from test_results import container_calls, problems, split_calls
from tabd_client import Client, ControllerMirror, Event, Follower, NotAvailable
from tabd_client.results import EVENT_DATA


#: A container root's environment events (rotate, set_size_class): typed as a tab controller's.
ENVIRONMENT_EVENTS = {"orientation_changed", "size_class_changed"}


def events_until(watcher: Client, last: Any) -> List[Dict[str, Any]]:
    """The events `watcher` receives until one for which `last` holds (60 s at most)."""
    seen: List[Dict[str, Any]] = []
    while not seen or not last(seen[-1]):
        event = watcher.next_event(60)
        assert event is not None, "the events stopped after %s" % [e["event"] for e in seen]
        seen.append(event)
    return seen


def test_container_methods_and_their_events(tabd: Tabd) -> None:
    with Client(tabd.socket) as c, Client(tabd.socket) as watcher:
        watcher.subscribe(None, ["nav", "root", "box", "cols"])
        calls = container_calls(c)
        results = {name.split()[0]: result for name, result in calls.items()}
        split_calls(c)  # a split's events too
        assert results["create_navigation"]["top"] == "inbox" and results["create_navigation"]["kind"] == "navigation"
        nav = next(s for s in results["controllers"]["controllers"] if s["name"] == "nav")
        assert (nav["kind"], nav["parent"], nav["window"]) == ("navigation", {"controller": "root", "child": "main"}, False)
        assert results["pop_to_root_screen"] == {"changed": True, "stack": ["inbox"], "top": "inbox"}
        assert results["set_center"]["center"] == "home"
        assert results["set_window"] == {"changed": True, "children": ["a", "d"], "shown": ["d"], "window": False}
        # `subscribe`'s seqs name every kind of controller (where its numbering stands).
        with Client(tabd.socket) as other:
            assert set(other.subscribe()["seqs"]) == {"main", "nav", "root", "box", "cols"}
        events = events_until(watcher, lambda e: e["controller"] == "cols" and e["event"] == "split_expanded")
    wrong = [p for i, e in enumerate(events) if e["event"] in EVENT_DATA
             for p in problems(e["data"], EVENT_DATA[e["event"]], "%s %s (%d)" % (e["controller"], e["event"], i))]
    assert not wrong, "events and results.EVENT_DATA differ:\n" + "\n".join(wrong)
    kinds: Set[str] = {e["event"] for e in events}
    assert set(EVENT_DATA) <= kinds, "not seen: %s" % (set(EVENT_DATA) - kinds)
    # Besides R15's: the split root's environment, events a tab controller sends too.
    assert kinds - set(EVENT_DATA) == ENVIRONMENT_EVENTS, kinds - set(EVENT_DATA)
    assert {e.value for e in ControllerMirror.CONTAINER_EVENTS} <= set(EVENT_DATA)
    of_root = [(e["event"], e["data"]) for e in events if e["controller"] == "root"]
    assert ("drawer_changed", {"center": "main", "left": "menu", "right": None, "open_side": "left", "previous": "none",
                               "cause": "user"}) in of_root
    assert ("config_changed", {"changes": {"open_gestures": ["button"], "center_interaction": "none"}}) in of_root
    assert [e["data"] for e in events if e["controller"] == "nav"][-1] == {"parent": None, "window": False}
    assert Event("drawer_changed") is Event.DRAWER_CHANGED
    assert Event("split_changed") is Event.SPLIT_CHANGED


def test_split_methods_and_their_events(tabd: Tabd) -> None:
    """A pad split (R15.15–R15.23): each method's result, and its events in order —
    display_mode_will_change before a visible expanded split's mode changes,
    split_collapsed and split_expanded when the size class changes, split_changed
    last with the columns' ids and modes."""
    with Client(tabd.socket) as c, Client(tabd.socket) as watcher:
        watcher.subscribe(None, ["cols"])
        r = {name: result for name, result in split_calls(c).items()}
        created = r["create_split 0"]
        assert (created["kind"], created["style"], created["display_mode"], created["split_behavior"]) == \
            ("split", "double", "secondary_only", "overlay")
        assert created["columns"]["primary"] == {"id": "list", "title": "List", "restoration_id": None, "controller": None}
        assert created["visible_columns"] == ["secondary"] and created["collapsed"] is False and created["top_column"] is None
        assert r["set_window 1"]["display_mode"] == "one_beside" and r["set_window 1"]["orientation"] == "landscape_left"
        assert r["hide_column 2"]["visible_columns"] == ["secondary"]
        assert r["show_column 3"]["display_mode"] == "one_beside" and r["show_column 3"]["visible_columns"] == ["primary", "secondary"]
        assert r["show_detail 4"]["columns"]["secondary"] == "detail-2"
        assert (r["set_window 6"]["collapsed"], r["set_window 6"]["top_column"], r["set_window 6"]["collapsed_stack"]) == \
            (True, "secondary", ["primary", "secondary"])
        assert r["show_column 7"]["top_column"] == "primary" and r["show_column 7"]["visible_columns"] == ["primary"]
        assert r["set_column 8"]["top_column"] == "compact" and r["set_column 8"]["columns"]["compact"] == "compact"
        assert r["set_column 9"]["columns"]["compact"] is None
        state = r["container_state 11"]
        assert (state["collapsed"], state["preferred_display_mode"], state["presents_with_gesture"]) == (False, "one_over", False)
        # presents_with_gesture false: a user cannot show a column.
        try:
            c.show_column("primary", controller="cols", user=True)
            raise AssertionError("a user's show_column was not refused")
        except NotAvailable:
            pass
        events = events_until(watcher, lambda e: e["event"] == "split_changed" and e["data"]["collapsed"] is False
                              and e["data"]["cause"] == "environment" and e["seq"] == state["seq"])
    assert {e["event"] for e in events} - set(EVENT_DATA) == ENVIRONMENT_EVENTS
    wrong = [p for i, e in enumerate(events) if e["event"] in EVENT_DATA
             for p in problems(e["data"], EVENT_DATA[e["event"]], "cols %s (%d)" % (e["event"], i))]
    assert not wrong, "events and results.EVENT_DATA differ:\n" + "\n".join(wrong)
    names = [e["event"] for e in events]
    # rotate: the orientation, the mode's will-change, the primary's appearance, then split_changed.
    turn = names.index("orientation_changed")
    assert names[turn:turn + 5] == ["orientation_changed", "display_mode_will_change", "appearance", "appearance", "split_changed"], names
    assert events[turn + 1]["data"] == {"display_mode": "one_beside"}
    assert events[turn + 4]["data"] == {"columns": {"primary": "list", "supplementary": None, "secondary": "detail", "compact": None},
                                 "display_mode": "one_beside", "split_behavior": "tile", "collapsed": False,
                                 "top_column": None, "collapsed_stack": None, "visible_columns": ["primary", "secondary"],
                                 "cause": "environment"}
    collapsed = [e["data"] for e in events if e["event"] == "split_collapsed"]
    expanded = [e["data"] for e in events if e["event"] == "split_expanded"]
    assert collapsed == [{"top_column": "secondary"}] and len(expanded) == 1, (collapsed, expanded)
    configured = [e["data"] for e in events if e["event"] == "config_changed"]
    assert configured == [{"changes": {"preferred_display_mode": "one_over", "presents_with_gesture": False}}]
    # hide_column by the app, then show_column by a user.
    assert [e["data"]["cause"] for e in events if e["event"] == "split_changed"][1:3] == ["app", "user"]


def test_a_follower_of_every_controller_with_containers(tabd: Tabd) -> None:
    """A Follower of every controller (none named) follows a tab controller from
    events and reads a container's state again after its events: equal to
    `state` throughout."""
    with Client(tabd.socket) as c:
        c.set_tabs([{"id": "a"}, {"id": "b"}])
        f = Follower(tabd.socket)
        c.create_navigation("nav", [{"id": "inbox"}], window=True)
        c.create_custom("box", [{"id": "x"}], shown=["x"])
        steps = [
            ("nav", lambda: c.push_screen({"id": "msg"}, controller="nav")),
            ("box", lambda: c.set_children([{"id": "x"}, {"id": "y"}], controller="box", shown=["y"])),
            ("box", lambda: c.configure(controller="box", status_bar_child="y")),
            ("main", lambda: c.select("b")),
            ("nav", lambda: c.pop_screen(controller="nav")),
            ("box", lambda: c.set_window(True, controller="box")),
        ]
        for i, (name, step) in enumerate(steps):
            step()
            differences, _ = check(f, name)
            assert differences == [], "step %d (%s): %s" % (i, name, differences)
        f.close()
