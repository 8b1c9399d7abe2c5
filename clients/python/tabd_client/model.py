"""One controller as `state` reports it, kept up to date from events.

The rules of docs/protocol.md, "Staying in sync": start from a `state` result,
then `apply` every later event in order. Each `on_<event>` method is the rule
for one event of `Event`; the events in `UNSHOWN` (did_select, appearance,
containment, will_end_customizing, plugin) change nothing `state` reports and
only advance `seq`. The events of R15's containers (`CONTAINER_EVENTS`), and
any but those of `UNSHOWN` of a navigation, split, drawer or custom controller (its
state's `kind`), put the mirror in doubt: it reads `state` again. An event the mirror cannot follow raises OutOfSync: read
`state` again.
"""

from __future__ import annotations

import copy
from enum import Enum
from typing import Any, Dict, FrozenSet, Iterator, List, Optional

JSON = Dict[str, Any]

# What a mirror kept from events cannot know: plugins decide these when asked
# (orientation), and moves are announced only at customize.end.
IGNORED = {"orientation.supported", "orientation.preferred", "customizing_order"}


class Event(str, Enum):
    """The events of docs/protocol.md, "Events" (`hello` lists them too; the
    tests compare the three). An event dict's name is `Event(event["event"])`."""
    SELECTION_CHANGED = "selection_changed"
    DID_SELECT = "did_select"
    CONTENT_LOADED = "content_loaded"
    APPEARANCE = "appearance"
    CONTAINMENT = "containment"
    TABS_CHANGED = "tabs_changed"
    CUSTOMIZABLE_CHANGED = "customizable_changed"
    BADGE_CHANGED = "badge_changed"
    NAVIGATION_CHANGED = "navigation_changed"
    WILL_BEGIN_CUSTOMIZING = "will_begin_customizing"
    WILL_END_CUSTOMIZING = "will_end_customizing"
    DID_END_CUSTOMIZING = "did_end_customizing"
    ORIENTATION_CHANGED = "orientation_changed"
    TAB_UPDATED = "tab_updated"
    BAR_CHANGED = "bar_changed"
    VISIBILITY_CHANGED = "visibility_changed"
    DISPLAY_ORDER_CHANGED = "display_order_changed"
    SIDEBAR_CHANGED = "sidebar_changed"
    SEARCH_CHANGED = "search_changed"
    SIZE_CLASS_CHANGED = "size_class_changed"
    MODE_CHANGED = "mode_changed"
    WILL_BEGIN_EDITING = "will_begin_editing"
    DID_END_EDITING = "did_end_editing"
    # R15: navigation, split, drawer and custom controllers (their data: results.EVENT_DATA).
    DISPLAY_MODE_WILL_CHANGE = "display_mode_will_change"
    SPLIT_COLLAPSED = "split_collapsed"
    SPLIT_EXPANDED = "split_expanded"
    SPLIT_CHANGED = "split_changed"
    DRAWER_CHANGED = "drawer_changed"
    CHILDREN_CHANGED = "children_changed"
    CONFIG_CHANGED = "config_changed"
    WINDOW_CHANGED = "window_changed"
    PARENT_CHANGED = "parent_changed"
    STATUS_BAR_CHANGED = "status_bar_changed"
    CONTROLLER_DELETED = "controller_deleted"
    PLUGIN = "plugin"


class OutOfSync(Exception):
    """The mirror cannot follow: a seq was skipped or an event does not say enough."""


def _walk(tabs: List[JSON]) -> Iterator[JSON]:
    for tab in tabs:
        yield tab
        yield from _walk(tab.get("children") or [])


class ControllerMirror:
    """One controller's `state`, kept from events (`state` is the dict)."""

    #: Events that change nothing `state` reports: they have no rule.
    UNSHOWN: FrozenSet[Event] = frozenset({Event.DID_SELECT, Event.APPEARANCE, Event.CONTAINMENT,
                                           Event.WILL_END_CUSTOMIZING, Event.PLUGIN})

    #: The events of navigation, split, drawer and custom controllers (R15): a tab
    #: controller's state has nothing they say, and a container's is not
    #: followed from events here: the mirror is in doubt and reads state again.
    CONTAINER_EVENTS: FrozenSet[Event] = frozenset({
        Event.DISPLAY_MODE_WILL_CHANGE, Event.SPLIT_COLLAPSED, Event.SPLIT_EXPANDED, Event.SPLIT_CHANGED,
        Event.DRAWER_CHANGED, Event.CHILDREN_CHANGED, Event.CONFIG_CHANGED, Event.WINDOW_CHANGED,
        Event.PARENT_CHANGED, Event.STATUS_BAR_CHANGED})

    #: Events after which `state` may start or stop reporting R13's and R14's
    #: members (`mode`, `size_class`, `compact_tabs`, `editing`, `bar.hidden`,
    #: `selected_path`, `sidebar`, ...), which no event says: the mirror then
    #: compares what it holds with what it had.
    MAY_TURN_THE_MODERN_MODEL: FrozenSet[str] = frozenset({
        Event.TABS_CHANGED.value, Event.TAB_UPDATED.value, Event.BAR_CHANGED.value, Event.MODE_CHANGED.value,
        Event.SIZE_CLASS_CHANGED.value, Event.WILL_BEGIN_EDITING.value, Event.DID_END_EDITING.value})

    #: A tab's members that its sidebar item follows from (R13.6).
    #: (with the value an absent member stands for)
    SIDEBAR_MEMBERS = (("hidden", False), ("children", None), ("display_order", None), ("placement", "automatic"),
                       ("expanded", True), ("role", None))

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
        data = event.get("data") or {}
        composite = self.state.get("kind", "tab") != "tab"
        # A container's `visible` follows its children's appearance: not followed here either.
        if event["event"] in self.CONTAINER_EVENTS or composite and (event["event"] not in self.UNSHOWN
                                                                     or event["event"] == Event.APPEARANCE.value):
            raise OutOfSync("%s: an event of a navigation, split, drawer or custom controller" % event["event"])
        reported = self._reports_modern()
        rule = getattr(self, "on_" + event["event"], None)
        if rule:
            rule(data)
        if event["event"] in self.MAY_TURN_THE_MODERN_MODEL:
            # `bar_changed` is state's bar, which has `hidden` exactly when R13's
            # members are reported; after the others, what the mirror holds is
            # a sure yes and a likely no (a user's order of the bar, which
            # neither events nor state show, may keep them).
            now = "hidden" in data if event["event"] == Event.BAR_CHANGED.value else self._holds_modern()
            if now != reported:
                raise OutOfSync("%s: state %s R13's members (mode, size_class, ...) now"
                                % (event["event"], "reports" if now else "may no longer report"))

    def _tab(self, tab_id: str) -> JSON:
        for tab in _walk(self.state["tabs"]):
            if tab["id"] == tab_id:
                return tab
        raise OutOfSync("an event names tab %r, which the mirror does not have" % tab_id)

    def _uses_groups(self) -> bool:
        return any("children" in t for t in self.state["tabs"])

    def _reports_modern(self) -> bool:
        """Whether state reports R13's and R14's members (it then has `mode`)."""
        return "mode" in self.state

    def _holds_modern(self) -> bool:
        """Whether what the mirror holds says the controller uses R13 or R14."""
        s = self.state
        default_size = "compact" if s.get("idiom") == "phone" else "regular"
        return (s.get("mode", "automatic") != "automatic" or s.get("compact_tabs") is not None
                or bool(s["bar"].get("hidden")) or bool(s.get("editing")) or s.get("size_class", default_size) != default_size
                or any("placement" in t for t in s["tabs"]))

    def on_tabs_changed(self, data: JSON) -> None:
        """`tabs` is the new order of ids; `objects` are the tabs the change
        added or changed, exactly as `state` reports them. Every other tab is
        the one we already have (a tab that stays is the same child, R2.5)."""
        if "objects" not in data:
            raise OutOfSync("tabs_changed without objects (a tabd older than the recipe)")
        before = self._sidebar_shape()
        known = {t["id"]: t for t in self.state["tabs"]}
        known.update({t["id"]: copy.deepcopy(t) for t in data["objects"]})
        missing = [i for i in data["tabs"] if i not in known]
        if missing:
            raise OutOfSync("tabs_changed names tabs the mirror does not know: %s" % missing)
        self.state["tabs"] = [known[i] for i in data["tabs"]]
        self._follow_the_search_tab()
        if self._uses_groups():
            raise OutOfSync("tabs_changed in a controller with groups (the sidebar and path follow from state)")
        if self._sidebar_shape() != before:
            self._sidebar_follows()

    def on_tab_updated(self, data: JSON) -> None:
        """`object` replaces the tab with that id, in place."""
        if "object" not in data:
            raise OutOfSync("tab_updated without object (a tabd older than the recipe)")
        tab = self._tab(data["tab"])
        before = self._sidebar_shape()
        was_hidden = bool(tab.get("hidden"))
        tab.clear()
        tab.update(copy.deepcopy(data["object"]))
        self._follow_the_search_tab()
        if self._uses_groups() and bool(tab.get("hidden")) != was_hidden:
            # R13.3: a group whose selected child is hidden shows another, which no event
            # says where the group is off the selected path.
            raise OutOfSync("tab_updated hid or showed a tab: the groups' selected children follow from state")
        if self._sidebar_shape() != before:
            self._sidebar_follows()

    def _sidebar_shape(self) -> List[Any]:
        """What the sidebar's items follow from (R13.6): the tabs' order and members."""
        return [[t["id"]] + [t.get(k, absent) for k, absent in self.SIDEBAR_MEMBERS] for t in self.state["tabs"]]

    def _sidebar_follows(self) -> None:
        """A shown sidebar's items are the visible tabs in display order (R13.6), and
        no `sidebar_changed` says when the tabs change them: in doubt."""
        if (self.state.get("sidebar") or {}).get("available"):
            raise OutOfSync("the tabs changed: the sidebar's items follow from state")

    def _follow_the_search_tab(self) -> None:
        """State has `search` exactly while it reports R13's members and a root
        tab has `role: "search"`; it comes inactive (R14.1)."""
        if self._reports_modern() and any(t.get("role") == "search" for t in self.state["tabs"]):
            self.state.setdefault("search", {"active": False})
        else:
            self.state.pop("search", None)

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
        elif "selected_path" in self.state:
            # No path in a controller without groups, placement or hidden tabs (a mode
            # or a size class of its own still makes state report one): the selection.
            self.state["selected_path"] = [] if data["tab"] is None else [data["tab"]]

    def on_bar_changed(self, data: JSON) -> None:
        """What the bar shows (`visible`, `more`, `selected`, ...), whatever
        the cause: a client never re-implements the More rule. Its
        `compact_tabs` (absent: null) is state's, beside the bar."""
        bar = copy.deepcopy(data)
        compact = bar.pop("compact_tabs", None)
        self.state["bar"] = bar
        if self._reports_modern():
            self.state["compact_tabs"] = compact

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
        """The whole of state's `sidebar`; a group's `expanded` is read from
        its item (R13.12)."""
        if "sidebar" not in self.state:
            raise OutOfSync("sidebar_changed for a controller whose state has no sidebar")
        self.state["sidebar"] = copy.deepcopy(data)

        def expand(items: List[JSON]) -> None:
            for item in items:
                if "expanded" in item:
                    self._tab(item["id"])["expanded"] = item["expanded"]
                expand(item.get("children") or [])
        expand(data.get("items") or [])

    def on_search_changed(self, data: JSON) -> None:
        """R14.1: `search.active` (state has `search` when a search tab exists)."""
        search = self.state.get("search")
        if search is None:
            if any(t.get("role") == "search" for t in self.state["tabs"]):
                raise OutOfSync("search_changed for a controller whose state has no search")
            return  # a set_tabs took the search tab away, then cancelled search
        search["active"] = data["active"]

    def on_size_class_changed(self, data: JSON) -> None:
        """R14.4 (the sidebar and the bar follow in their own events)."""
        self.state["size_class"] = data["size_class"]

    def on_mode_changed(self, data: JSON) -> None:
        """R14.5 (the sidebar and the bar follow in their own events)."""
        self.state["mode"] = data["mode"]

    def on_will_begin_editing(self, data: JSON) -> None:
        """R14.6: the sidebar's editing session."""
        self.state["editing"] = True

    def on_did_end_editing(self, data: JSON) -> None:
        self.state["editing"] = False

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
