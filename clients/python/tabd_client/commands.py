"""One method per command of docs/protocol.md, for both clients.

Each builds the request and hands it to `_call`, which the blocking client
answers with the result and the asyncio client with an awaitable of it. An
error reply raises TabdError. `controller=None` is tabd's default (`main`).
An optional argument left None is left out of the request, except where null
means something (`badge`'s value, `customizable`'s and `set_compact_tabs`'
tabs, `update_tab`'s fields): there None is sent as null.
tests/test_coverage.py checks that every command tabd and docs/protocol.md
name has a method here.
"""

from __future__ import annotations

from typing import Any, Dict, Generic, List, Optional, TypeVar, Union

R = TypeVar("R")
JSON = Dict[str, Any]


class Commands(Generic[R]):
    def _call(self, cmd: str, fields: JSON) -> R:  # pragma: no cover - implemented by the clients
        raise NotImplementedError

    def request(self, cmd: str, **fields: Any) -> R:
        """Any command, its fields as keyword arguments (None leaves one out)."""
        return self._call(cmd, {k: v for k, v in fields.items() if v is not None})

    def _with_nulls(self, cmd: str, controller: Optional[str], **fields: Any) -> R:
        """A command whose fields are sent as given, None as null (it means "none" there)."""
        return self._call(cmd, {**fields, **({"controller": controller} if controller else {})})

    def hello(self) -> R:
        return self.request("hello")

    def ping(self) -> R:
        return self.request("ping")

    def state(self, controller: Optional[str] = None) -> R:
        return self.request("state", controller=controller)

    def select(self, tab: Optional[str] = None, *, index: Optional[int] = None, more: Optional[bool] = None,
               controller: Optional[str] = None) -> R:
        return self.request("select", tab=tab, index=index, more=more, controller=controller)

    def tap(self, tab: Optional[str] = None, *, more: Optional[bool] = None, controller: Optional[str] = None) -> R:
        """A user's tap: the policy plugins decide (TabdError `denied` names the plugin)."""
        return self.request("tap", tab=tab, more=more, controller=controller)

    def set_tabs(self, tabs: List[JSON], *, selected: Union[str, int, None] = None, animated: Optional[bool] = None,
                 controller: Optional[str] = None) -> R:
        return self.request("set_tabs", tabs=tabs, selected=selected, animated=animated, controller=controller)

    def add_tab(self, tab: JSON, *, index: Optional[int] = None, group: Optional[str] = None,
                controller: Optional[str] = None) -> R:
        """`group`: the group the tab goes into (None: the root); `index` its place there."""
        return self.request("add_tab", tab=tab, index=index, group=group, controller=controller)

    def remove_tab(self, tab: str, *, controller: Optional[str] = None) -> R:
        return self.request("remove_tab", tab=tab, controller=controller)

    def update_tab(self, tab: str, *, controller: Optional[str] = None, **fields: Any) -> R:
        """`fields`: the members to change (`title`, `item`, ...); None removes one."""
        return self._with_nulls("update_tab", controller, tab=tab, **fields)

    def badge(self, tab: str, value: Optional[str], *, controller: Optional[str] = None) -> R:
        """`value` None: no badge."""
        return self._with_nulls("badge", controller, tab=tab, value=value)

    def push(self, tab: str, screen: JSON, *, controller: Optional[str] = None) -> R:
        return self.request("push", tab=tab, screen=screen, controller=controller)

    def pop(self, tab: str, *, controller: Optional[str] = None) -> R:
        return self.request("pop", tab=tab, controller=controller)

    def pop_to_root(self, tab: str, *, controller: Optional[str] = None) -> R:
        return self.request("pop_to_root", tab=tab, controller=controller)

    def customizable(self, tabs: Optional[List[str]], *, controller: Optional[str] = None) -> R:
        """`tabs` None: nothing may be rearranged."""
        return self._with_nulls("customizable", controller, tabs=tabs)

    def customize_begin(self, *, controller: Optional[str] = None) -> R:
        return self.request("customize.begin", controller=controller)

    def customize_move(self, tab: str, to: int, *, controller: Optional[str] = None) -> R:
        return self.request("customize.move", tab=tab, to=to, controller=controller)

    def customize_end(self, *, controller: Optional[str] = None) -> R:
        return self.request("customize.end", controller=controller)

    def rotate(self, orientation: str, *, controller: Optional[str] = None) -> R:
        return self.request("rotate", orientation=orientation, controller=controller)

    def layout(self, width: float, height: float, *, status_bar: Optional[float] = None,
               controller: Optional[str] = None) -> R:
        return self.request("layout", width=width, height=height, status_bar=status_bar, controller=controller)

    def set_hidden(self, tab: str, hidden: bool, *, controller: Optional[str] = None) -> R:
        return self.request("set_hidden", tab=tab, hidden=hidden, controller=controller)

    def reorder(self, order: List[str], *, group: Optional[str] = None, controller: Optional[str] = None) -> R:
        return self.request("reorder", order=order, group=group, controller=controller)

    def sidebar(self, visible: bool, *, controller: Optional[str] = None) -> R:
        return self.request("sidebar", visible=visible, controller=controller)

    def set_expanded(self, group: str, expanded: bool, *, controller: Optional[str] = None) -> R:
        """Expands or collapses a group in the sidebar (R13.12)."""
        return self.request("set_expanded", group=group, expanded=expanded, controller=controller)

    def search(self, active: bool, *, controller: Optional[str] = None) -> R:
        """Activates search (only with the search tab selected) or cancels it (R14.1)."""
        return self.request("search", active=active, controller=controller)

    def set_enabled(self, tab: str, enabled: bool, *, controller: Optional[str] = None) -> R:
        """A disabled tab stays in the bar and sidebar; a tap on it is refused (R14.2)."""
        return self.request("set_enabled", tab=tab, enabled=enabled, controller=controller)

    def set_bar_hidden(self, hidden: bool, *, animated: Optional[bool] = None, controller: Optional[str] = None) -> R:
        """Hides or shows the whole bar (R14.3)."""
        return self.request("set_bar_hidden", hidden=hidden, animated=animated, controller=controller)

    def set_size_class(self, size_class: str, *, controller: Optional[str] = None) -> R:
        """`regular` or `compact`; only a pad changes it (R14.4)."""
        return self.request("set_size_class", size_class=size_class, controller=controller)

    def set_compact_tabs(self, tabs: Optional[List[str]], *, controller: Optional[str] = None) -> R:
        """The root tabs compact appearances show (R14.4); None: all."""
        return self._with_nulls("set_compact_tabs", controller, tabs=tabs)

    def set_mode(self, mode: str, *, controller: Optional[str] = None) -> R:
        """`automatic`, `tab_bar` or `tab_sidebar` (R14.5)."""
        return self.request("set_mode", mode=mode, controller=controller)

    def edit_begin(self, *, controller: Optional[str] = None) -> R:
        """The sidebar's editing session (R14.6), where the sidebar exists."""
        return self.request("edit.begin", controller=controller)

    def edit_end(self, *, controller: Optional[str] = None) -> R:
        return self.request("edit.end", controller=controller)

    def select_child(self, group: str, child: str, *, controller: Optional[str] = None) -> R:
        """The child `group` shows, without selecting it unless the group is on the
        selected path (R14.7)."""
        return self.request("select_child", group=group, child=child, controller=controller)

    def preserve(self, *, controller: Optional[str] = None) -> R:
        return self.request("preserve", controller=controller)

    def restore(self, archive: Any, *, controller: Optional[str] = None) -> R:
        return self.request("restore", archive=archive, controller=controller)

    def controllers(self) -> R:
        return self.request("controllers")

    def controller_create(self, controller: str, *, idiom: Optional[str] = None, max_visible: Optional[int] = None,
                          **fields: Any) -> R:
        return self.request("controller.create", controller=controller, idiom=idiom, max_visible=max_visible, **fields)

    def controller_delete(self, controller: str) -> R:
        """For administrators (`forbidden` otherwise)."""
        return self.request("controller.delete", controller=controller)

    def subscribe(self, events: Optional[List[str]] = None, controllers: Optional[List[str]] = None,
                  grouped: Optional[bool] = None) -> R:
        """`events` None: all; `controllers` None: all. The result's `seqs` says
        where each controller's numbering stands. `grouped`: each command's events
        as one line (`events_of` reads it; the clients hand its events out one by one)."""
        fields: Dict[str, Any] = {"events": events or ["*"], "controllers": controllers}
        if grouped is not None:
            fields["grouped"] = grouped
        return self._call("subscribe", fields)

    def unsubscribe(self, events: Optional[List[str]] = None) -> R:
        return self._call("unsubscribe", {"events": events or ["*"]})

    def plugins(self) -> R:
        return self.request("plugins")

    def plugin_call(self, plugin: str, method: str, args: Any = None, *, controller: Optional[str] = None) -> R:
        return self.request("plugin.call", plugin=plugin, method=method, args=args, controller=controller)

    def login(self, user: str, password: str, *, controller: Optional[str] = None) -> R:
        """The reference login gate's login (plugin `login-gate`)."""
        return self.plugin_call("login-gate", "login", {"user": user, "password": password}, controller=controller)

    def explain(self, *, limit: Optional[int] = None, controller: Optional[str] = None) -> R:
        return self.request("explain", limit=limit, controller=controller)

    def reload(self) -> R:
        """For administrators (`forbidden` otherwise)."""
        return self.request("reload")

    def stats(self) -> R:
        return self.request("stats")

    def config(self) -> R:
        """The configuration tabd runs with. For administrators (`forbidden` otherwise)."""
        return self.request("config")

    def metrics(self, *, format: Optional[str] = None) -> R:
        """`text`: OpenMetrics (`format` None), or `prometheus`'s text format."""
        return self.request("metrics", format=format)
