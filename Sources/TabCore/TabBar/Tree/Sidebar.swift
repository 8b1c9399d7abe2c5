// R13.6: the sidebar — where there is one, its items, and showing or hiding it.

extension Controller {
    // MARK: The sidebar (R13.6)

    /// A sidebar exists on the pad idiom in `tab_sidebar` mode, or `automatic` with a group.
    public var sidebarAvailable: Bool {
        idiom == .pad && sizeClass == .regular
            && (mode == .tabSidebar || (mode == .automatic && tabs.contains { $0.children != nil }))
    }

    /// The sidebar's tree: visible tabs in display order (sidebar-only ones included).
    public var sidebarItems: [SidebarItem] {
        guard sidebarAvailable else { return [] }
        func items(_ list: [Tab]) -> [SidebarItem] {
            list.filter { !$0.hidden }.map {
                SidebarItem(id: $0.id, children: $0.children == nil ? nil : items($0.orderedChildren),
                            expanded: $0.children == nil ? nil : $0.isExpanded)
            }
        }
        return items(tabs)
    }

    mutating func setSidebar(_ visible: Bool, _ out: inout Outcome) throws(TabError) {
        guard sidebarAvailable else { throw noSidebar }
        guard visible != sidebarVisible else { return }
        sidebarVisible = visible
        out.notify(.sidebarChanged(visible: visible))
    }

    /// Where there is no sidebar, `sidebar` and `set_expanded` are refused (R13.12).
    var noSidebar: TabError {
        TabError(.notAvailable, idiom != .pad
            ? "the \(idiom.rawValue) idiom has no sidebar"
            : sizeClass == .compact ? "controller '\(name)' is compact: a compact pad has no sidebar"
            : "controller '\(name)' has no sidebar: it is in \(mode.rawValue) mode\(mode == .tabBar ? "" : " without a group")")
    }
}
