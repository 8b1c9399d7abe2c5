"""The methods of navigation, drawer and custom controllers (R15) against a real
tabd: each does what its command does, every event those containers send has
the data its results.EVENT_DATA type says (each of those events among them),
and a Follower of every controller stays equal to `state` with containers
about."""

from __future__ import annotations

from typing import Any, Dict, List, Set

from conftest import Tabd
from test_coverage import check
from test_results import container_calls, problems
from tabd_client import Client, ControllerMirror, Event, Follower
from tabd_client.results import EVENT_DATA


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
        watcher.subscribe(None, ["nav", "root", "box"])
        calls = container_calls(c)
        results = {name.split()[0]: result for name, result in calls.items()}
        assert results["create_navigation"]["top"] == "inbox" and results["create_navigation"]["kind"] == "navigation"
        nav = next(s for s in results["controllers"]["controllers"] if s["name"] == "nav")
        assert (nav["kind"], nav["parent"], nav["window"]) == ("navigation", {"controller": "root", "child": "main"}, False)
        assert results["pop_to_root_screen"] == {"changed": True, "stack": ["inbox"], "top": "inbox"}
        assert results["set_center"]["center"] == "home"
        assert results["set_window"] == {"changed": True, "children": ["a", "d"], "shown": ["d"], "window": False}
        # `subscribe`'s seqs name every kind of controller (where its numbering stands).
        with Client(tabd.socket) as other:
            assert set(other.subscribe()["seqs"]) == {"main", "nav", "root", "box"}
        events = events_until(watcher, lambda e: e["controller"] == "box" and e["event"] == "window_changed"
                              and e["data"]["window"] is False)
    wrong = [p for i, e in enumerate(events) for p in problems(e["data"], EVENT_DATA.get(e["event"]), "%s %s (%d)" % (e["controller"], e["event"], i))]
    assert not wrong, "events and results.EVENT_DATA differ:\n" + "\n".join(wrong)
    kinds: Set[str] = {e["event"] for e in events}
    assert kinds == set(EVENT_DATA), "not seen: %s" % (set(EVENT_DATA) - kinds)
    assert {e.value for e in ControllerMirror.CONTAINER_EVENTS} <= set(EVENT_DATA)
    of_root = [(e["event"], e["data"]) for e in events if e["controller"] == "root"]
    assert ("drawer_changed", {"center": "main", "left": "menu", "right": None, "open_side": "left", "previous": "none",
                               "cause": "user"}) in of_root
    assert ("config_changed", {"changes": {"open_gestures": ["button"], "center_interaction": "none"}}) in of_root
    assert [e["data"] for e in events if e["controller"] == "nav"][-1] == {"parent": None, "window": False}
    assert Event("drawer_changed") is Event.DRAWER_CHANGED


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
