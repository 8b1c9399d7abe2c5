// Every event of the protocol, by its wire name: the one list of event names. `hello` lists
// them, `subscribe` accepts them, TabClient's typed events are these (`TabEvent.Kind`), and
// the client libraries' tests compare them with docs/protocol.md, "Events".

/// An event's wire name, in the order `hello` lists them. A state machine's notification
/// names its event with `Notification.event`; `controllerDeleted` and `plugin` are the
/// daemon's (a deleted controller's last event, a plugin's own).
public enum EventName: String, CaseIterable, Sendable {
    case selectionChanged = "selection_changed", didSelect = "did_select", contentLoaded = "content_loaded"
    case appearance, containment
    case tabsChanged = "tabs_changed", customizableChanged = "customizable_changed", badgeChanged = "badge_changed"
    case navigationChanged = "navigation_changed"
    case willBeginCustomizing = "will_begin_customizing", willEndCustomizing = "will_end_customizing"
    case didEndCustomizing = "did_end_customizing"
    case orientationChanged = "orientation_changed", tabUpdated = "tab_updated", barChanged = "bar_changed"
    // R13 (issue 24), R14 (issue 30).
    case visibilityChanged = "visibility_changed", displayOrderChanged = "display_order_changed"
    case sidebarChanged = "sidebar_changed"
    case searchChanged = "search_changed", sizeClassChanged = "size_class_changed", modeChanged = "mode_changed"
    case willBeginEditing = "will_begin_editing", didEndEditing = "did_end_editing"
    // R15 (issue 42).
    case drawerChanged = "drawer_changed", childrenChanged = "children_changed", configChanged = "config_changed"
    case windowChanged = "window_changed", parentChanged = "parent_changed", statusBarChanged = "status_bar_changed"
    case displayModeWillChange = "display_mode_will_change", splitCollapsed = "split_collapsed", splitExpanded = "split_expanded"
    case splitChanged = "split_changed"
    case controllerDeleted = "controller_deleted", plugin
}
