"""One controller as `state` reports it, kept up to date from events.

The rules of docs/protocol.md, "Staying in sync": start from a `state` result,
then `apply` every later event in order. Each `on_<event>` method is the rule
for one event; events without one (did_select, appearance, containment,
will_end_customizing, plugin) change nothing `state` reports and only advance
`seq`. An event the mirror cannot follow raises OutOfSync: read `state` again.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, Iterator, List, Optional

JSON = Dict[str, Any]

# What a mirror kept from events cannot know: plugins decide these when asked
# (orientation), and moves are announced only at customize.end.
IGNORED = {"orientation.supported", "orientation.preferred", "customizing_order"}


class OutOfSync(Exception):
    """The mirror cannot follow: a seq was skipped or an event does not say enough."""


def _walk(tabs: List[JSON]) -> Iterator[JSON]:
    for tab in tabs:
        yield tab
        yield from _walk(tab.get("children") or [])


class ControllerMirror:
    """One controller's `state`, kept from events (`state` is the dict)."""

    def __init__(self, state: JSON) -> None:
        if "seq" not in state:
            raise OutOfSync("this tabd's state has no seq: it is too old for the recipe")
        self.state: JSON = copy.deepcopy(state)
        self.deleted = False

    @property
    def name(self) -> str:
        return str(self.state.get("controller", ""))

    @property
    def seq(self) -> int:
        return int(self.state["seq"])

    def apply(self, event: JSON) -> None:
        """Applies one event; raises OutOfSync when the mirror cannot follow."""
        if event["seq"] != self.seq + 1:
            # seq grows by one per event, plugin events included: a gap means
            # something was missed, so the mirror is in doubt.
            raise OutOfSync("seq %d was followed by %d" % (self.seq, event["seq"]))
        self.state["seq"] = event["seq"]
        rule = getattr(self, "on_" + event["event"], None)
        if rule:
            rule(event.get("data") or {})

    def _tab(self, tab_id: str) -> JSON:
        for tab in _walk(self.state["tabs"]):
            if tab["id"] == tab_id:
                return tab
        raise OutOfSync("an event names tab %r, which the mirror does not have" % tab_id)

    def _uses_groups(self) -> bool:
        return any("children" in t for t in self.state["tabs"])

    def on_tabs_changed(self, data: JSON) -> None:
        """`tabs` is the new order of ids; `objects` are the tabs the change
        added or changed, exactly as `state` reports them. Every other tab is
        the one we already have (a tab that stays is the same child, R2.5)."""
        if "objects" not in data:
            raise OutOfSync("tabs_changed without objects (a tabd older than the recipe)")
        known = {t["id"]: t for t in self.state["tabs"]}
        known.update({t["id"]: copy.deepcopy(t) for t in data["objects"]})
        missing = [i for i in data["tabs"] if i not in known]
        if missing:
            raise OutOfSync("tabs_changed names tabs the mirror does not know: %s" % missing)
        self.state["tabs"] = [known[i] for i in data["tabs"]]
        if self._uses_groups():
            raise OutOfSync("tabs_changed in a controller with groups (the sidebar and path follow from state)")

    def on_tab_updated(self, data: JSON) -> None:
        """`object` replaces the tab with that id, in place."""
        if "object" not in data:
            raise OutOfSync("tab_updated without object (a tabd older than the recipe)")
        tab = self._tab(data["tab"])
        tab.clear()
        tab.update(copy.deepcopy(data["object"]))

    def on_badge_changed(self, data: JSON) -> None:
        """The value is both the tab's `badge` and its item's `badge`."""
        tab = self._tab(data["tab"])
        tab["badge"] = tab["item"]["badge"] = data["value"]

    def on_navigation_changed(self, data: JSON) -> None:
        """`stack` is the tab's whole stack of pushed screens."""
        self._tab(data["tab"])["stack"] = copy.deepcopy(data["stack"])

    def on_content_loaded(self, data: JSON) -> None:
        """A tab's content loads once, on its first selection, and stays."""
        self._tab(data["tab"])["content_loaded"] = True

    def on_selection_changed(self, data: JSON) -> None:
        """`tab` is an id, "more" or null; `index` is null for More or nothing.
        The selected child decides the status bar (`status_bar_child`). With
        groups, `path` is the selected path: each group on it shows the next."""
        self.state["selected"] = self.state["status_bar_child"] = data["tab"]
        self.state["selected_index"] = data["index"]
        path = data.get("path")
        if path is not None:
            self.state["selected_path"] = list(path)
            for group, child in zip(path, path[1:]):
                self._tab(group)["selected_child"] = child

    def on_bar_changed(self, data: JSON) -> None:
        """What the bar shows (`visible`, `more`, `selected`, ...), whatever
        the cause: a client never re-implements the More rule."""
        self.state["bar"] = copy.deepcopy(data)

    def on_customizable_changed(self, data: JSON) -> None:
        self.state["customizable"] = copy.deepcopy(data["tabs"])

    def on_will_begin_customizing(self, data: JSON) -> None:
        self.state["customizing"] = True

    def on_did_end_customizing(self, data: JSON) -> None:
        """`tabs` is the new order of all tabs. Moves during the session were
        not announced: `customizing_order` ends with it."""
        by_id = {t["id"]: t for t in self.state["tabs"]}
        self.state["tabs"] = [by_id[i] for i in data["tabs"]]
        self.state["customizing"] = False
        self.state.pop("customizing_order", None)

    def on_orientation_changed(self, data: JSON) -> None:
        self.state["orientation"]["current"] = data["orientation"]

    def on_visibility_changed(self, data: JSON) -> None:
        """R13.3: each tab's new visibility. What a group shows and the
        sidebar's items follow from it in ways only `state` says: in doubt."""
        for change in data["tabs"]:
            self._tab(change["id"])["hidden"] = change["hidden"]
        raise OutOfSync("visibility_changed: the sidebar and the groups' children follow from state")

    def on_display_order_changed(self, data: JSON) -> None:
        """R13.5: a group's order of children (the bar's is in bar_changed)."""
        if data.get("group") is not None:
            self._tab(data["group"])["display_order"] = list(data["order"])
        raise OutOfSync("display_order_changed: the sidebar's items follow from state")

    def on_sidebar_changed(self, data: JSON) -> None:
        sidebar = self.state.get("sidebar")
        if sidebar is None:
            raise OutOfSync("sidebar_changed for a controller whose state has no sidebar")
        sidebar["visible"] = data["visible"]

    def on_controller_deleted(self, data: JSON) -> None:
        """The controller's last event: the mirror is gone."""
        self.deleted = True


def diff(mine: Any, theirs: Any, path: str = "") -> List[str]:
    """The paths where two JSON values differ, leaving out IGNORED."""
    if path in IGNORED:
        return []
    if isinstance(mine, dict) and isinstance(theirs, dict):
        out: List[str] = []
        for key in sorted(set(mine) | set(theirs)):
            sub = path + "." + key if path else key
            if sub in IGNORED:
                continue
            if key not in mine or key not in theirs:
                out.append(sub)
            else:
                out += diff(mine[key], theirs[key], sub)
        return out
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        out = []
        for i, (a, b) in enumerate(zip(mine, theirs)):
            out += diff(a, b, "%s[%d]" % (path, i))
        return out
    return [] if mine == theirs else [path or "."]


def state_of(mirror: Optional[ControllerMirror]) -> Optional[JSON]:
    return mirror.state if mirror else None
