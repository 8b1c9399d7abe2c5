"""One method per command of docs/protocol.md, for both clients.

Each builds the request and hands it to `_call`, which the blocking client
answers with the result and the asyncio client with an awaitable of it. An
error reply raises TabdError. `controller=None` is tabd's default (`main`).
An optional argument left None is left out of the request, except where null
means something (`badge`'s value, `customizable`'s and `set_compact_tabs`'
tabs, `update_tab`'s fields): there None is sent as null.

The commands of navigation, split, drawer and custom controllers (R15; docs/protocol.md,
"Containers beyond tabs") take `controller` as a required keyword: `main` is a
tab controller. A child object is a dict `{"id": ..., "title"?: ...,
"restoration_id"?: ..., "controller"?: ...}` (with `controller`: that
controller is the child). `push`, `pop` and `pop_to_root` are one command each
for both kinds: `push(tab, screen)` changes a tab's stack (R6),
`push_screen(screen, controller=...)` a navigation controller's (the same
command without `tab`); so `pop_screen` and `pop_to_root_screen`.

Each method says what its result is (`@returns(State)`: a TypedDict of
results.py), so that mypy checks the keys a program reads: `Client.state()`
is a `State`, `await AsyncClient.state()` too. tests/test_coverage.py checks
that every command tabd and docs/protocol.md name has a method here, and
tests/test_results.py the types against the page and tabd.
"""

from __future__ import annotations

import types
from typing import (Any, Awaitable, Callable, Concatenate, Dict, Generic, List, Optional, ParamSpec, Type, TypeVar,
                    Union, overload)

from .results import (BarResult, Config, ContainerChanged, ContainerState, ControllerCreated, Controllers,
                      CustomizableResult, CustomizingResult, CustomResult, Deleted, DrawerResult, EditingResult, Empty,
                      Explained, Hello, Layout, Metrics, ModeResult, NavigationResult, Plugins, PluginValue, Preserved,
                      Reloaded, Rotated, SearchResult, Selection, SidebarResult, SizeClassResult, SplitResult,
                      StackResult, State, Stats, Subscribed, TabChanged, TabList, Unsubscribed)

R = TypeVar("R")
T = TypeVar("T")
P = ParamSpec("P")
JSON = Dict[str, Any]


class Command(Generic[P, T]):
    """A command's method, its result a `T`: read from a blocking client
    (`Commands[JSON]`) it returns a T, from the asyncio one an awaitable of a T.
    `result` is the TypedDict."""

    def __init__(self, method: Callable[Concatenate[Any, P], Any], result: Type[T]) -> None:
        self.method, self.result = method, result
        # What help(), inspect.signature() and a reader of Client.state expect of a method.
        self.__doc__, self.__wrapped__, self.__name__, self.__qualname__ = (
            method.__doc__, method, method.__name__, method.__qualname__)
        getattr(method, "__annotations__", {})["return"] = result.__name__  # help(): -> State

    def __call__(self, client: Any, /, *args: P.args, **kwargs: P.kwargs) -> Any:
        """Called on the class (`Client.state(c)`), as a function."""
        return self.method(client, *args, **kwargs)

    @overload
    def __get__(self, obj: None, owner: Any) -> Command[P, T]: ...

    @overload
    def __get__(self, obj: Commands[Awaitable[JSON]], owner: Any) -> Callable[P, Awaitable[T]]: ...

    @overload
    def __get__(self, obj: Commands[JSON], owner: Any) -> Callable[P, T]: ...

    def __get__(self, obj: Any, owner: Any) -> Any:
        return self if obj is None else types.MethodType(self.method, obj)


def returns(result: Type[T]) -> Callable[[Callable[Concatenate[Any, P], Any]], Command[P, T]]:
    """The method's result is a `result` (a TypedDict of results.py)."""
    def command(method: Callable[Concatenate[Any, P], Any]) -> Command[P, T]:
        return Command(method, result)
    return command


class Commands(Generic[R]):
    def _call(self, cmd: str, fields: JSON) -> R:  # pragma: no cover - implemented by the clients
        raise NotImplementedError

    def request(self, cmd: str, **fields: Any) -> R:
        """Any command, its fields as keyword arguments (None leaves one out); its
        result untyped (a dict)."""
        return self._call(cmd, {k: v for k, v in fields.items() if v is not None})

    def _with_nulls(self, cmd: str, controller: Optional[str], **fields: Any) -> R:
        """A command whose fields are sent as given, None as null (it means "none" there)."""
        return self._call(cmd, {**fields, **({"controller": controller} if controller else {})})

    @returns(Hello)
    def hello(self) -> Any:
        return self.request("hello")

    @returns(Empty)
    def ping(self) -> Any:
        return self.request("ping")

    @returns(State)
    def state(self, controller: Optional[str] = None) -> Any:
        return self.request("state", controller=controller)

    @returns(Selection)
    def select(self, tab: Optional[str] = None, *, index: Optional[int] = None, more: Optional[bool] = None,
               controller: Optional[str] = None) -> Any:
        return self.request("select", tab=tab, index=index, more=more, controller=controller)

    @returns(Selection)
    def tap(self, tab: Optional[str] = None, *, more: Optional[bool] = None, controller: Optional[str] = None) -> Any:
        """A user's tap: the policy plugins decide (TabdError `denied` names the plugin)."""
        return self.request("tap", tab=tab, more=more, controller=controller)

    @returns(TabList)
    def set_tabs(self, tabs: List[JSON], *, selected: Union[str, int, None] = None, animated: Optional[bool] = None,
                 controller: Optional[str] = None, brief: bool = False) -> Any:
        """`brief`: the reply without `tabs` (docs/protocol.md); so for every list command."""
        return self.request("set_tabs", tabs=tabs, selected=selected, animated=animated, controller=controller,
                            brief=brief or None)

    @returns(TabList)
    def add_tab(self, tab: JSON, *, index: Optional[int] = None, group: Optional[str] = None,
                controller: Optional[str] = None, brief: bool = False) -> Any:
        """`group`: the group the tab goes into (None: the root); `index` its place there."""
        return self.request("add_tab", tab=tab, index=index, group=group, controller=controller, brief=brief or None)

    @returns(TabList)
    def remove_tab(self, tab: str, *, controller: Optional[str] = None, brief: bool = False) -> Any:
        return self.request("remove_tab", tab=tab, controller=controller, brief=brief or None)

    @returns(TabChanged)
    def update_tab(self, /, tab: str, *, controller: Optional[str] = None, **fields: Any) -> Any:
        """`fields`: the members to change (`title`, `item`, ...); None removes one."""
        return self._with_nulls("update_tab", controller, tab=tab, **fields)

    @returns(TabChanged)
    def badge(self, tab: str, value: Optional[str], *, controller: Optional[str] = None) -> Any:
        """`value` None: no badge."""
        return self._with_nulls("badge", controller, tab=tab, value=value)

    @returns(StackResult)
    def push(self, tab: str, screen: JSON, *, controller: Optional[str] = None) -> Any:
        return self.request("push", tab=tab, screen=screen, controller=controller)

    @returns(StackResult)
    def pop(self, tab: str, *, controller: Optional[str] = None) -> Any:
        return self.request("pop", tab=tab, controller=controller)

    @returns(StackResult)
    def pop_to_root(self, tab: str, *, controller: Optional[str] = None) -> Any:
        return self.request("pop_to_root", tab=tab, controller=controller)

    @returns(CustomizableResult)
    def customizable(self, tabs: Optional[List[str]], *, controller: Optional[str] = None, brief: bool = False) -> Any:
        """`tabs` None: nothing may be rearranged."""
        return self._with_nulls("customizable", controller, tabs=tabs, **({"brief": True} if brief else {}))

    @returns(CustomizingResult)
    def customize_begin(self, *, controller: Optional[str] = None, brief: bool = False) -> Any:
        return self.request("customize.begin", controller=controller, brief=brief or None)

    @returns(CustomizingResult)
    def customize_move(self, tab: str, to: int, *, controller: Optional[str] = None, brief: bool = False) -> Any:
        return self.request("customize.move", tab=tab, to=to, controller=controller, brief=brief or None)

    @returns(TabList)
    def customize_end(self, *, controller: Optional[str] = None, brief: bool = False) -> Any:
        return self.request("customize.end", controller=controller, brief=brief or None)

    @returns(Rotated)
    def rotate(self, orientation: str, *, controller: Optional[str] = None) -> Any:
        return self.request("rotate", orientation=orientation, controller=controller)

    @returns(Layout)
    def layout(self, width: float, height: float, *, status_bar: Optional[float] = None,
               controller: Optional[str] = None) -> Any:
        return self.request("layout", width=width, height=height, status_bar=status_bar, controller=controller)

    @returns(BarResult)
    def set_hidden(self, tab: str, hidden: bool, *, controller: Optional[str] = None) -> Any:
        return self.request("set_hidden", tab=tab, hidden=hidden, controller=controller)

    @returns(BarResult)
    def reorder(self, order: List[str], *, group: Optional[str] = None, controller: Optional[str] = None) -> Any:
        return self.request("reorder", order=order, group=group, controller=controller)

    @returns(SidebarResult)
    def sidebar(self, visible: bool, *, controller: Optional[str] = None) -> Any:
        return self.request("sidebar", visible=visible, controller=controller)

    @returns(SidebarResult)
    def set_expanded(self, group: str, expanded: bool, *, controller: Optional[str] = None) -> Any:
        """Expands or collapses a group in the sidebar (R13.12)."""
        return self.request("set_expanded", group=group, expanded=expanded, controller=controller)

    @returns(SearchResult)
    def search(self, active: bool, *, controller: Optional[str] = None) -> Any:
        """Activates search (only with the search tab selected) or cancels it (R14.1)."""
        return self.request("search", active=active, controller=controller)

    @returns(TabChanged)
    def set_enabled(self, tab: str, enabled: bool, *, controller: Optional[str] = None) -> Any:
        """A disabled tab stays in the bar and sidebar; a tap on it is refused (R14.2)."""
        return self.request("set_enabled", tab=tab, enabled=enabled, controller=controller)

    @returns(BarResult)
    def set_bar_hidden(self, hidden: bool, *, animated: Optional[bool] = None, controller: Optional[str] = None) -> Any:
        """Hides or shows the whole bar (R14.3)."""
        return self.request("set_bar_hidden", hidden=hidden, animated=animated, controller=controller)

    @returns(SizeClassResult)
    def set_size_class(self, size_class: str, *, controller: Optional[str] = None) -> Any:
        """`regular` or `compact`; only a pad changes it (R14.4)."""
        return self.request("set_size_class", size_class=size_class, controller=controller)

    @returns(BarResult)
    def set_compact_tabs(self, tabs: Optional[List[str]], *, controller: Optional[str] = None) -> Any:
        """The root tabs compact appearances show (R14.4); None: all."""
        return self._with_nulls("set_compact_tabs", controller, tabs=tabs)

    @returns(ModeResult)
    def set_mode(self, mode: str, *, controller: Optional[str] = None) -> Any:
        """`automatic`, `tab_bar` or `tab_sidebar` (R14.5)."""
        return self.request("set_mode", mode=mode, controller=controller)

    @returns(EditingResult)
    def edit_begin(self, *, controller: Optional[str] = None) -> Any:
        """The sidebar's editing session (R14.6), where the sidebar exists."""
        return self.request("edit.begin", controller=controller)

    @returns(EditingResult)
    def edit_end(self, *, controller: Optional[str] = None) -> Any:
        return self.request("edit.end", controller=controller)

    @returns(Selection)
    def select_child(self, group: str, child: str, *, controller: Optional[str] = None) -> Any:
        """The child `group` shows, without selecting it unless the group is on the
        selected path (R14.7)."""
        return self.request("select_child", group=group, child=child, controller=controller)

    @returns(Preserved)
    def preserve(self, *, controller: Optional[str] = None) -> Any:
        return self.request("preserve", controller=controller)

    @returns(Selection)
    def restore(self, archive: Any, *, controller: Optional[str] = None) -> Any:
        return self.request("restore", archive=archive, controller=controller)

    @returns(Controllers)
    def controllers(self) -> Any:
        return self.request("controllers")

    @returns(ControllerCreated)
    def controller_create(self, /, controller: str, *, idiom: Optional[str] = None, max_visible: Optional[int] = None,
                          **fields: Any) -> Any:
        return self.request("controller.create", controller=controller, idiom=idiom, max_visible=max_visible, **fields)

    @returns(ContainerState)
    def create_navigation(self, controller: str, stack: List[JSON], *, window: Optional[bool] = None,
                          idiom: Optional[str] = None) -> Any:
        """`controller.create` of a navigation controller (R15.13): `stack` (child
        objects, bottom to top, at least one). `window`: a window's root (default
        False: a container to attach). The result is the new controller's state."""
        return self.request("controller.create", controller=controller, kind="navigation", window=window, idiom=idiom,
                            stack=stack)

    @returns(ContainerState)
    def create_split(self, controller: str, style: str, primary: JSON, secondary: JSON, *,
                     supplementary: Optional[JSON] = None, compact: Optional[JSON] = None,
                     preferred_display_mode: Optional[str] = None, preferred_split_behavior: Optional[str] = None,
                     presents_with_gesture: Optional[bool] = None, window: Optional[bool] = None,
                     idiom: Optional[str] = None) -> Any:
        """`controller.create` of a split view controller (R15.15): `style`
        (`double`, `triple`), its columns (child objects; `supplementary` on
        triple only, required there; `compact` shown alone while collapsed),
        its preferences (R15.17) and `presents_with_gesture` (R15.19). A phone
        split is collapsed from its creation (R15.20)."""
        return self.request("controller.create", controller=controller, kind="split", window=window, idiom=idiom,
                            style=style, primary=primary, supplementary=supplementary, secondary=secondary,
                            compact=compact, preferred_display_mode=preferred_display_mode,
                            preferred_split_behavior=preferred_split_behavior,
                            presents_with_gesture=presents_with_gesture)

    @returns(ContainerState)
    def create_drawer(self, controller: str, center: JSON, *, left: Optional[JSON] = None, right: Optional[JSON] = None,
                      open_gestures: Optional[List[str]] = None, close_gestures: Optional[List[str]] = None,
                      center_interaction: Optional[str] = None, window: Optional[bool] = None,
                      idiom: Optional[str] = None) -> Any:
        """`controller.create` of a drawer controller (R15.24): its center and
        side drawers (child objects), the gestures that open and close them
        (R15.26), what a user may do below the center while one is open (R15.29)."""
        return self.request("controller.create", controller=controller, kind="drawer", window=window, idiom=idiom,
                            center=center, left=left, right=right, open_gestures=open_gestures,
                            close_gestures=close_gestures, center_interaction=center_interaction)

    @returns(ContainerState)
    def create_custom(self, controller: str, children: Optional[List[JSON]] = None, *, shown: Optional[List[str]] = None,
                      status_bar_child: Optional[str] = None, window: Optional[bool] = None,
                      idiom: Optional[str] = None) -> Any:
        """`controller.create` of a custom container (R15.30): its children, the
        ids of those it shows, the child that decides the status bar (R15.11)."""
        return self.request("controller.create", controller=controller, kind="custom", window=window, idiom=idiom,
                            children=children or [], shown=shown, status_bar_child=status_bar_child)

    @returns(ContainerState)
    def container_state(self, controller: str) -> Any:
        """`state` of a navigation, split, drawer or custom controller (`state()` is a
        tab controller's): `kind`, `parent`, `window`, `visible`, the kind's slots."""
        return self.request("state", controller=controller)

    @returns(ContainerChanged)
    def configure(self, /, *, controller: str, **fields: Any) -> Any:
        """The kind's configuration (R15.1), as `controller.create` takes it:
        `open_gestures`, `close_gestures`, `center_interaction` (drawer),
        `status_bar_child` (custom; None clears it), `preferred_display_mode`,
        `preferred_split_behavior`, `presents_with_gesture` (split). Members
        not given stay."""
        return self._with_nulls("configure", controller, **fields)

    @returns(ContainerChanged)
    def set_window(self, window: bool, *, controller: str) -> Any:
        """Makes a root a window's root view controller, or not (R15.4)."""
        return self.request("set_window", window=window, controller=controller)

    @returns(NavigationResult)
    def push_screen(self, screen: JSON, *, controller: str, animated: Optional[bool] = None) -> Any:
        """Pushes a child object on a navigation controller's stack (`push` without `tab`)."""
        return self.request("push", screen=screen, animated=animated, controller=controller)

    @returns(NavigationResult)
    def pop_screen(self, *, controller: str, user: Optional[bool] = None, animated: Optional[bool] = None) -> Any:
        """Pops a navigation controller's top (`pop` without `tab`); `user`: the
        back button or the edge swipe, a user's action (R15.9)."""
        return self.request("pop", user=user, animated=animated, controller=controller)

    @returns(NavigationResult)
    def pop_to(self, screen: str, *, controller: str, animated: Optional[bool] = None) -> Any:
        """Pops a navigation controller down to the child `screen` of its stack."""
        return self.request("pop_to", screen=screen, animated=animated, controller=controller)

    @returns(NavigationResult)
    def pop_to_root_screen(self, *, controller: str, animated: Optional[bool] = None) -> Any:
        """Pops a navigation controller down to its root (`pop_to_root` without `tab`)."""
        return self.request("pop_to_root", animated=animated, controller=controller)

    @returns(NavigationResult)
    def set_stack(self, stack: List[JSON], *, controller: str, animated: Optional[bool] = None) -> Any:
        """Replaces a navigation controller's whole stack (bottom to top)."""
        return self.request("set_stack", stack=stack, animated=animated, controller=controller)

    @returns(SplitResult)
    def set_column(self, column: str, child: Optional[JSON], *, controller: str) -> Any:
        """Puts `child` in a split's `column` (`primary`, `supplementary`,
        `secondary`, `compact`); None empties the compact column, the only one
        that may be empty (R15.16)."""
        return self._with_nulls("set_column", controller, column=column, child=child)

    @returns(SplitResult)
    def show_column(self, column: str, *, controller: str, user: Optional[bool] = None,
                    animated: Optional[bool] = None) -> Any:
        """Shows a split's `column` (R15.19; collapsed, pushes it, R15.20);
        `user`: a swipe or the display-mode button, refused while
        `presents_with_gesture` is false."""
        return self.request("show_column", column=column, user=user, animated=animated, controller=controller)

    @returns(SplitResult)
    def hide_column(self, column: str, *, controller: str, user: Optional[bool] = None,
                    animated: Optional[bool] = None) -> Any:
        """Hides a split's `column` (R15.19; collapsed, pops it, R15.20)."""
        return self.request("hide_column", column=column, user=user, animated=animated, controller=controller)

    @returns(SplitResult)
    def show_detail(self, child: JSON, *, controller: str, animated: Optional[bool] = None) -> Any:
        """Makes `child` the split's secondary and shows it
        (showDetailViewController, R15.22); the secondary's own id is a no-op."""
        return self.request("show_detail", child=child, animated=animated, controller=controller)

    @returns(DrawerResult)
    def open_drawer(self, side: str, *, controller: str, gesture: Optional[str] = None,
                    animated: Optional[bool] = None) -> Any:
        """Opens the drawer on `side` (`left`, `right`); a `gesture` makes it a
        user's action, refused unless the open gestures allow it (R15.26)."""
        return self.request("open_drawer", side=side, gesture=gesture, animated=animated, controller=controller)

    @returns(DrawerResult)
    def close_drawer(self, *, controller: str, gesture: Optional[str] = None, animated: Optional[bool] = None) -> Any:
        return self.request("close_drawer", gesture=gesture, animated=animated, controller=controller)

    @returns(DrawerResult)
    def toggle_drawer(self, side: str, *, controller: str, gesture: Optional[str] = None,
                      animated: Optional[bool] = None) -> Any:
        """Opens the drawer on `side`, or closes it when it is the one open."""
        return self.request("toggle_drawer", side=side, gesture=gesture, animated=animated, controller=controller)

    @returns(DrawerResult)
    def set_center(self, child: JSON, *, controller: str, close_drawer: Optional[bool] = None) -> Any:
        """Replaces the drawer's center (R15.27); `close_drawer`: and closes the open drawer."""
        return self.request("set_center", child=child, close_drawer=close_drawer, controller=controller)

    @returns(DrawerResult)
    def set_drawer(self, side: str, child: Optional[JSON], *, controller: str) -> Any:
        """Puts `child` in the drawer on `side`; None removes that drawer (R15.28)."""
        return self._with_nulls("set_drawer", controller, side=side, child=child)

    @returns(CustomResult)
    def set_children(self, children: List[JSON], *, controller: str, shown: Optional[List[str]] = None) -> Any:
        """Replaces a custom container's children; `shown` None keeps those of
        the old `shown` that are still children (R15.30)."""
        return self.request("set_children", children=children, shown=shown, controller=controller)

    @returns(CustomResult)
    def set_shown(self, shown: List[str], *, controller: str) -> Any:
        """The ids of the children a custom container shows."""
        return self.request("set_shown", shown=shown, controller=controller)

    @returns(CustomResult)
    def transition(self, from_: str, to: JSON, *, controller: str, animated: Optional[bool] = None) -> Any:
        """Replaces the shown child `from_` with the child object `to` (R15.31)."""
        return self._call("transition", {"from": from_, "to": to, "controller": controller,
                                         **({"animated": animated} if animated is not None else {})})

    @returns(Deleted)
    def controller_delete(self, controller: str) -> Any:
        """For administrators (`forbidden` otherwise)."""
        return self.request("controller.delete", controller=controller)

    @returns(Subscribed)
    def subscribe(self, events: Optional[List[str]] = None, controllers: Optional[List[str]] = None,
                  grouped: Optional[bool] = None) -> Any:
        """`events` None: all; `controllers` None: all. The result's `seqs` says
        where each controller's numbering stands. `grouped`: each command's events
        as one line (`events_of` reads it; the clients hand its events out one by one)."""
        fields: Dict[str, Any] = {"events": events or ["*"], "controllers": controllers}
        if grouped is not None:
            fields["grouped"] = grouped
        return self._call("subscribe", fields)

    @returns(Unsubscribed)
    def unsubscribe(self, events: Optional[List[str]] = None) -> Any:
        return self._call("unsubscribe", {"events": events or ["*"]})

    @returns(Plugins)
    def plugins(self) -> Any:
        return self.request("plugins")

    @returns(PluginValue)
    def plugin_call(self, plugin: str, method: str, args: Any = None, *, controller: Optional[str] = None) -> Any:
        return self.request("plugin.call", plugin=plugin, method=method, args=args, controller=controller)

    @returns(PluginValue)
    def login(self, user: str, password: str, *, controller: Optional[str] = None) -> Any:
        """The reference login gate's login (plugin `login-gate`)."""
        return self.request("plugin.call", plugin="login-gate", method="login", args={"user": user, "password": password},
                            controller=controller)

    @returns(Explained)
    def explain(self, *, limit: Optional[int] = None, controller: Optional[str] = None,
                plugin: Optional[str] = None, kind: Optional[str] = None) -> Any:
        """The last decisions; each filter given narrows them (kind: should_select,
        supported_orientations, preferred_orientation, timer, may_open_drawer,
        top_column_for_collapsing or display_mode_for_expanding)."""
        return self.request("explain", limit=limit, controller=controller, plugin=plugin, kind=kind)

    @returns(Reloaded)
    def reload(self) -> Any:
        """For administrators (`forbidden` otherwise)."""
        return self.request("reload")

    @returns(Stats)
    def stats(self) -> Any:
        return self.request("stats")

    @returns(Config)
    def config(self) -> Any:
        """The configuration tabd runs with. For administrators (`forbidden` otherwise)."""
        return self.request("config")

    @returns(Metrics)
    def metrics(self, *, format: Optional[str] = None) -> Any:
        """`text`: OpenMetrics (`format` None), or `prometheus`'s text format."""
        return self.request("metrics", format=format)
