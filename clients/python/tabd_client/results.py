"""What each command's reply holds: a TypedDict per result of docs/protocol.md.

A result is still the dict tabd sent (`result["selected"]` as before); the types let mypy
check the keys a program reads (`mypy --strict` calls `result["selcted"]` an error). A key
marked NotRequired is there only sometimes (docs/protocol.md says when: the tree's members on
a controller that uses groups or the sidebar, a tv's `unreachable`, ...). Values this file
leaves as `Any` are open objects (a plugin's value, a restoration archive, the configuration).

tests/test_results.py checks every reply docs/protocol.md shows, and the replies of a real
tabd for the commands the page elides, against these types, both ways: no key missing, none
unknown.
"""

# No `from __future__ import annotations` here: NotRequired must be seen when the class is
# made, for __required_keys__ (and the tests) to know it.
from typing import Any, Dict, List, NotRequired, Optional, TypedDict

# MARK: values inside results


class Screen(TypedDict):
    id: str
    title: NotRequired[Optional[str]]


class Item(TypedDict):
    title: Optional[str]
    image: Optional[str]
    tag: Optional[int]
    badge: Optional[str]


class Tab(TypedDict):
    """A tab as `state` shows it (TabCore's `Tab.fields`, in that order); R13's and R14's
    members only on a controller that uses them, a group's only on a group."""
    id: str
    title: Optional[str]
    item: Item
    badge: Optional[str]
    restoration_id: Optional[str]
    orientations: List[str]
    full_screen_layout: bool
    navigation: bool
    stack: List[Screen]
    content_loaded: bool
    placement: NotRequired[str]
    hidden: NotRequired[bool]
    allows_hiding: NotRequired[bool]
    hidden_by_default: NotRequired[bool]
    subtitle: NotRequired[Optional[str]]
    enabled: NotRequired[bool]
    role: NotRequired[Optional[str]]
    activates_search: NotRequired[bool]
    expanded: NotRequired[bool]
    children: NotRequired[List["Tab"]]
    default_child: NotRequired[Optional[str]]
    allows_reordering: NotRequired[bool]
    selected_child: NotRequired[Optional[str]]
    display_order: NotRequired[List[str]]
    controller: NotRequired[str]  # R15.2: the tab's content is this controller


class Bar(TypedDict):
    visible: List[str]
    more: List[str]
    selected: Optional[str]
    position: str
    unreachable: NotRequired[List[str]]
    hidden: NotRequired[bool]


class SidebarItem(TypedDict):
    id: str
    children: NotRequired[List["SidebarItem"]]
    expanded: NotRequired[bool]


class Sidebar(TypedDict):
    available: bool
    visible: bool
    items: List[SidebarItem]


class Search(TypedDict):
    active: bool


class Orientation(TypedDict):
    current: str
    supported: List[str]
    preferred: Optional[str]


class Frame(TypedDict):
    x: float
    y: float
    width: float
    height: float


class Child(TypedDict):
    """A child object of a navigation, drawer or custom controller (R15.2): a screen,
    or with `controller` the controller of that name."""
    id: str
    title: Optional[str]
    restoration_id: Optional[str]
    controller: Optional[str]


class Parent(TypedDict):
    """Where a container is attached: its container and the child it is there."""
    controller: str
    child: str


class ControllerSummary(TypedDict):
    """A tab controller's `max_visible` and `tabs`; another kind's `kind`, `parent`,
    `window` (R15)."""
    name: str
    idiom: str
    max_visible: NotRequired[int]
    tabs: NotRequired[int]
    kind: NotRequired[str]
    parent: NotRequired[Optional[Parent]]
    window: NotRequired[bool]


class Plugin(TypedDict):
    name: str
    version: Optional[str]
    description: Optional[str]
    path: str
    hooks: List[str]
    loaded: bool
    error: Optional[str]
    required: bool
    abi: Optional[str]
    stale: bool
    status: str
    isolation: str
    crashes: int
    timeouts: int
    restarts: int


# MARK: results


class Empty(TypedDict):
    """`ping`'s result: nothing."""


class Hello(TypedDict):
    name: str
    version: str
    protocol: int
    instance: str
    commands: List[str]
    events: List[str]
    plugins: List[str]


class Selection(TypedDict):
    """What every command that may change the selection answers (R4), and what it adds."""
    selected: Optional[str]
    selected_index: Optional[int]
    changed: bool
    selected_path: NotRequired[List[str]]


class TabList(Selection):
    """set_tabs, add_tab, remove_tab, customize.end: the root tabs' ids in order (not with
    brief=True)."""
    tabs: NotRequired[List[str]]


class TabChanged(Selection):
    """badge, update_tab, set_enabled: the tab that changed (None: nothing did)."""
    tab_changed: Optional[str]


class StackResult(Selection):
    """push, pop, pop_to_root: the tab's stack."""
    stack: List[Screen]


class CustomizableResult(Selection):
    customizable: NotRequired[Optional[List[str]]]  # not with brief=True


class CustomizingResult(Selection):
    """customize.begin, customize.move: the order being arranged (not with brief=True)."""
    customizing_order: NotRequired[List[str]]


class Rotated(Selection):
    rotated: bool
    orientation: str
    supported: List[str]
    preferred: Optional[str]


class BarResult(Selection):
    """set_hidden, reorder, set_bar_hidden, set_compact_tabs: the bar after it."""
    bar: Bar


class SidebarResult(Selection):
    """sidebar, set_expanded."""
    sidebar: Sidebar


class ModeResult(SidebarResult):
    mode: str


class SizeClassResult(BarResult):
    sidebar: Sidebar
    size_class: str


class SearchResult(Selection):
    search: Search


class EditingResult(Selection):
    """edit.begin, edit.end."""
    editing: bool


class Layout(TypedDict):
    bar: Frame
    content: Frame
    bar_position: str
    status_bar_child: Optional[str]
    sidebar: NotRequired[Frame]


class Preserved(TypedDict):
    archive: Any


class State(TypedDict):
    controller: str
    idiom: str
    max_visible: int
    tap_pops: str
    tabs: List[Tab]
    selected: Optional[str]
    selected_path: NotRequired[List[str]]
    mode: NotRequired[str]
    sidebar: NotRequired[Sidebar]
    size_class: NotRequired[str]
    compact_tabs: NotRequired[Optional[List[str]]]
    editing: NotRequired[bool]
    search: NotRequired[Search]
    selected_index: Optional[int]
    bar: Bar
    customizable: List[str]
    customizing: bool
    customizing_order: NotRequired[List[str]]
    orientation: Orientation
    status_bar_child: Optional[str]
    seq: int
    # R15.35: a tab controller out of its window, attached, or holding a tab's content
    # controller says where it is; a root holding content also its status bar path (R15.11).
    kind: NotRequired[str]
    parent: NotRequired[Optional[Parent]]
    window: NotRequired[bool]
    visible: NotRequired[bool]
    status_bar_path: NotRequired[List[str]]


class SplitColumns(TypedDict):
    """A split's columns in `state`: a child object each, None for an empty one (and
    `supplementary` on a double split)."""
    primary: Child
    supplementary: Optional[Child]
    secondary: Child
    compact: Optional[Child]


class SplitColumnIDs(TypedDict):
    """A split's columns in `split_changed` and its commands' results: ids, None for
    an empty one."""
    primary: str
    supplementary: Optional[str]
    secondary: str
    compact: Optional[str]


class ContainerState(TypedDict):
    """`state` of a navigation, split, drawer or custom controller (R15; the reply of its
    `controller.create` too): the kind's members only on that kind, `status_bar_path`
    only on a root. A split's `top_column` and `collapsed_stack` are None while it is
    expanded (R15.20)."""
    controller: str
    kind: str
    parent: Optional[Parent]
    window: bool
    visible: bool
    idiom: str
    size_class: str
    orientation: str
    stack: NotRequired[List[Child]]
    top: NotRequired[str]
    style: NotRequired[str]
    columns: NotRequired[SplitColumns]
    preferred_display_mode: NotRequired[str]
    preferred_split_behavior: NotRequired[str]
    presents_with_gesture: NotRequired[bool]
    display_mode: NotRequired[str]
    split_behavior: NotRequired[str]
    collapsed: NotRequired[bool]
    top_column: NotRequired[Optional[str]]
    collapsed_stack: NotRequired[Optional[List[str]]]
    visible_columns: NotRequired[List[str]]
    center: NotRequired[Child]
    left: NotRequired[Optional[Child]]
    right: NotRequired[Optional[Child]]
    open_side: NotRequired[str]
    open_gestures: NotRequired[List[str]]
    close_gestures: NotRequired[List[str]]
    center_interaction: NotRequired[str]
    children: NotRequired[List[Child]]
    shown: NotRequired[List[str]]
    status_bar_child: Optional[str]
    status_bar_path: NotRequired[List[str]]
    seq: int


class NavigationResult(TypedDict):
    """push_screen, pop_screen, pop_to, pop_to_root_screen, set_stack: the stack's ids
    and its top."""
    changed: bool
    stack: List[str]
    top: str


class DrawerResult(TypedDict):
    """open_drawer, close_drawer, toggle_drawer, set_center, set_drawer."""
    changed: bool
    open_side: str
    center: str


class CustomResult(TypedDict):
    """set_children, set_shown, transition."""
    changed: bool
    children: List[str]
    shown: List[str]


class SplitModes(TypedDict):
    """A split's columns (ids) and modes: its commands' results and `split_changed`."""
    columns: SplitColumnIDs
    display_mode: str
    split_behavior: str
    collapsed: bool
    top_column: Optional[str]
    collapsed_stack: Optional[List[str]]
    visible_columns: List[str]


class SplitResult(SplitModes):
    """set_column, show_column, hide_column, show_detail: the split's columns (ids) and
    modes, as `split_changed` tells them."""
    changed: bool


class ContainerChanged(TypedDict):
    """configure, set_window, and restore, rotate and set_size_class of a container root:
    what the kind's commands answer (NavigationResult's, SplitResult's, DrawerResult's or
    CustomResult's members), set_window's `window`, rotate's `rotated`, `orientation` and
    `supported`, set_size_class's `size_class`."""
    changed: bool
    stack: NotRequired[List[str]]
    top: NotRequired[str]
    columns: NotRequired[SplitColumnIDs]
    display_mode: NotRequired[str]
    split_behavior: NotRequired[str]
    collapsed: NotRequired[bool]
    top_column: NotRequired[Optional[str]]
    collapsed_stack: NotRequired[Optional[List[str]]]
    visible_columns: NotRequired[List[str]]
    open_side: NotRequired[str]
    center: NotRequired[str]
    children: NotRequired[List[str]]
    shown: NotRequired[List[str]]
    window: NotRequired[bool]
    rotated: NotRequired[bool]
    orientation: NotRequired[str]
    supported: NotRequired[List[str]]
    size_class: NotRequired[str]


class Controllers(TypedDict):
    controllers: List[ControllerSummary]


class ControllerCreated(TypedDict):
    controller: str
    idiom: str
    max_visible: int
    tap_pops: str
    mode: NotRequired[str]
    size_class: NotRequired[str]
    compact_tabs: NotRequired[Optional[List[str]]]
    window: NotRequired[bool]


class Deleted(TypedDict):
    deleted: str


class Subscribed(TypedDict):
    events: List[str]
    controllers: NotRequired[Optional[List[str]]]
    grouped: NotRequired[bool]
    seqs: Dict[str, int]


class Unsubscribed(TypedDict):
    events: List[str]


class Plugins(TypedDict):
    plugins: List[Plugin]


class PluginValue(TypedDict):
    """plugin.call: the plugin that answered and its value."""
    plugin: str
    value: Any


class Explained(TypedDict):
    decisions: List[Dict[str, Any]]


class Reloaded(TypedDict):
    reloaded: bool
    plugins: List[str]
    changed: List[str]
    plugins_started: List[str]
    plugins_stopped: List[str]
    refused: List[Any]
    stale: List[str]
    restart_required: List[str]


class Memory(TypedDict):
    held_bytes: int
    budget_bytes: int


class ReloadStats(TypedDict):
    last: str
    successes: int
    failures: int
    last_success_time: str
    failed_at: Optional[str]
    problems: List[Any]


class Journal(TypedDict):
    fsync: str
    bytes: int
    records: int
    last_fsync_us: float
    seq: int
    state: str
    fault: Optional[str]
    faults: int


class Latency(TypedDict):
    count: int
    mean_us: float
    p50_us: float
    p99_us: float
    max_us: float


class HookTimes(TypedDict):
    calls: int
    total_ns: int
    avg_ns: int
    max_ns: int


class PluginStats(TypedDict):
    name: str
    denials: int
    call_refusals: int
    failures: int
    isolation: str
    crashes: int
    timeouts: int
    restarts: int
    store_refusals: int
    store_bytes: int
    hooks: Dict[str, HookTimes]


class Stats(TypedDict):
    """Counters and gauges (docs/protocol.md, "stats", says what each counts)."""
    uptime_seconds: float
    connections: int
    connections_accepted: int
    max_connections: int
    memory: Memory
    limits_hit: Dict[str, int]
    subscribers: int
    commands_total: int
    errors: int
    errors_by_code: Dict[str, int]
    reload: ReloadStats
    denials: int
    events_sent: int
    journal: Journal
    commands: Dict[str, Latency]
    plugins: List[PluginStats]


class Config(TypedDict):
    file: Optional[str]
    flags: List[str]
    config: Dict[str, Any]


class Metrics(TypedDict):
    text: str


# MARK: the data of R15's events (docs/protocol.md, "Containers beyond tabs")
#
# An event is `{"event", "controller", "seq", "data"}`; these type the `data` of the events of
# navigation, drawer and custom controllers (EVENT_DATA by event name). tests/test_results.py
# checks a real tabd's events against them.


class ChildAppearance(TypedDict):
    """`appearance` of a container's child (`child_controller` when it is a controller)."""
    child: str
    child_controller: NotRequired[str]
    phase: str


class ChildContainment(TypedDict):
    """`containment` of a container's child; `parent` None when it leaves."""
    child: str
    child_controller: NotRequired[str]
    phase: str
    parent: Optional[str]


class StackChanged(TypedDict):
    """`navigation_changed` of a navigation controller (no `tab`): the whole stack."""
    stack: List[Child]
    operation: str
    cause: str


class DrawerChanged(TypedDict):
    center: str
    left: Optional[str]
    right: Optional[str]
    open_side: str
    previous: str
    cause: str


class DisplayModeWillChange(TypedDict):
    """An expanded, visible split's mode about to change (R15.17, R15.21)."""
    display_mode: str


class SplitCollapsed(TypedDict):
    """A visible split collapsed (R15.20): the column on top."""
    top_column: str


class SplitExpanded(TypedDict):
    """A visible split expanded (R15.21): its display mode."""
    display_mode: str


class SplitChanged(SplitModes):
    """A split's columns (ids) and modes after any change of them; `cause`: `app`,
    `user`, `environment`, `restore`."""
    cause: str


class ChildrenChanged(TypedDict):
    children: List[str]
    shown: List[str]


class ConfigChanges(TypedDict, total=False):
    open_gestures: List[str]
    close_gestures: List[str]
    center_interaction: str
    status_bar_child: Optional[str]
    preferred_display_mode: str
    preferred_split_behavior: str
    presents_with_gesture: bool


class ConfigChanged(TypedDict):
    """What `configure` was asked, before its effects (R15.8 b)."""
    changes: ConfigChanges


class WindowChanged(TypedDict):
    window: bool


class ParentChanged(TypedDict):
    """Attached (`parent`) or detached (None, a root again)."""
    parent: Optional[Parent]
    window: bool


class StatusBarChanged(TypedDict):
    """A visible root's status bar path (R15.11)."""
    path: List[str]


#: The data type of each R15 event of a navigation, split, drawer or custom controller.
EVENT_DATA: Dict[str, Any] = {
    "appearance": ChildAppearance, "containment": ChildContainment, "navigation_changed": StackChanged,
    "display_mode_will_change": DisplayModeWillChange, "split_collapsed": SplitCollapsed,
    "split_expanded": SplitExpanded, "split_changed": SplitChanged,
    "drawer_changed": DrawerChanged, "children_changed": ChildrenChanged, "config_changed": ConfigChanged,
    "window_changed": WindowChanged, "parent_changed": ParentChanged, "status_bar_changed": StatusBarChanged,
}
