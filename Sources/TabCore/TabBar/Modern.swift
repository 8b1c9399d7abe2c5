// R13.12 and R14: collapsed sidebar groups, the search tab, enabled tabs, the hidden bar,
// size class and compact tabs, the mode at run time, the sidebar's editing session and a
// group's selected child. Each command changes what it names and announces it; what the bar
// shows follows (`bar_changed`, from `applyOnce`).

import TabJSON

/// What an editing session may change, as it was when it began (R14.6): `did_end_editing`'s
/// `changed` compares it with the end.
struct EditingStart: Equatable, Sendable {
    var barOrder: [String]
    /// Each group's children in display order.
    var orders: [String: [String]]
    var hidden: [String]
}

extension EditingStart {
    func writeSnapshot(to w: inout JSONWriter) {
        var m = SortedMembers()
        m.add("barOrder") { barOrder.write(to: &$0, .snapshot) }
        m.add("orders") { SortedMembers.write(orders, to: &$0) { $0.write(to: &$1, .snapshot) } }
        m.add("hidden") { hidden.write(to: &$0, .snapshot) }
        m.write(to: &w)
    }

    init(snapshot json: JSONValue, at path: String) throws(TabFieldError) {
        var r = try TabObjectReader.object(json, at: path, .snapshot, orNull: false, expected: "an object")
        barOrder = try r.required("barOrder")
        guard let orders = r.take("orders") else { throw TabFieldError(r.place("orders"), .missing) }
        self.orders = try SortedMembers.read(orders, at: r.place("orders")) { (v, at) throws(TabFieldError) in try [String](json: v, at: at, .snapshot, orNull: false) }
        hidden = try r.required("hidden")
    }
}

/// R14's state that holds references, boxed (`Controller.extras`).
struct Extras: Equatable, Sendable {
    var compactTabs: [String]?
    var searchReturn: String?
    var editingStart: EditingStart?
}

/// `Extras` behind one reference, copied before a write when shared (copy on write).
final class ExtrasBox: Equatable, @unchecked Sendable {
    // Written only through `Controller.extra(_:)`, which copies a shared box first.
    var value: Extras
    init(_ value: Extras) { self.value = value }
    static func == (a: ExtrasBox, b: ExtrasBox) -> Bool { a === b || a.value == b.value }
}

extension Controller {
    /// The root tabs compact appearances show (R14.4); nil: all.
    public internal(set) var compactTabs: [String]? {
        get { extras?.value.compactTabs }
        set { extra { $0.compactTabs = newValue } }
    }

    /// The leaf selected before the search tab was (R14.1), for a cancel to go back to.
    var searchReturn: String? {
        get { extras?.value.searchReturn }
        set { extra { $0.searchReturn = newValue } }
    }

    /// The sidebar's editing session (R14.6): what it may change as it was when it began; nil
    /// when none runs.
    var editingStart: EditingStart? {
        get { extras?.value.editingStart }
        set { extra { $0.editingStart = newValue } }
    }

    /// Changes `extras` in place (copied first when another controller shares it); nil again
    /// once nothing is set, so that equal controllers compare equal.
    private mutating func extra(_ body: (inout Extras) -> Void) {
        var value = extras?.value ?? Extras()
        body(&value)
        if value == Extras() { extras = nil; return }
        if extras != nil, isKnownUniquelyReferenced(&extras!) { extras!.value = value } else { extras = ExtrasBox(value) }
    }

    /// An editing session runs (R14.6).
    public var editing: Bool { editingStart != nil }

    /// The controller has a search tab (R14.1).
    public var hasSearchTab: Bool { layout.search != nil }

    /// Whether `id` is the controller's search tab (R14.1): what plugins are told of a tap.
    @inlinable public func isSearchTab(_ id: String) -> Bool { arranged && searchTabID == id }

    /// The search tab's id, if any.
    public var searchTabID: String? { layout.search }

    // MARK: R13.12 — collapsed groups

    mutating func setExpanded(_ group: String, _ expanded: Bool, _ out: inout Outcome) throws(TabError) {
        guard let at = locate(group) else { throw .noTab(group) }
        guard self[at: at].children != nil else {
            throw TabError(.conflict, "tab '\(group)' is not a group: only a group is expanded or collapsed")
        }
        guard sidebarAvailable else { throw noSidebar }
        guard self[at: at].isExpanded != expanded else { return }
        modify(at: at) { $0.expanded = expanded ? nil : false }
        out.notify(.sidebarChanged(visible: sidebarVisible))
    }

    // MARK: R14.1 — search

    mutating func search(_ active: Bool, _ out: inout Outcome) throws(TabError) {
        guard let id = layout.search else {
            throw TabError(.notAvailable, "controller '\(name)' has no search tab; give a root tab \"role\": \"search\"")
        }
        if active {
            guard selection == .tab(id) else {
                throw TabError(.notAvailable, "search is activated on the search tab '\(id)'; select it first")
            }
            guard !searchActive else { return }
            searchActive = true
            return out.notify(.searchChanged(active: true))
        }
        guard searchActive else { return }
        searchActive = false
        let back = searchReturn
        searchReturn = nil
        // Cancelling a search that the tab activates goes back to where the user was.
        if tab(id)?.activatesSearch == true, selection == .tab(id), let back, let node = layout.node(back), !node.hidden,
           let (path, leaf) = try? landing(at: node) {
            moveSelection(to: path, leaf: leaf, from: current.path, cause: .searchCancelled, &out)
        }
        out.notify(.searchChanged(active: false))
        out.journalsCommand = true
    }

    /// After any command: selecting the search tab (from elsewhere) remembers the leaf before
    /// it and, when the tab activates search, activates it; leaving it deactivates search —
    /// announced after the selection change.
    mutating func followSearch(leafBefore: String?, _ out: inout Outcome) {
        let id = layout.search
        let onSearch = id != nil && selection == .tab(id!)
        let wasOn = id != nil && leafBefore == id
        if onSearch, !wasOn {
            if searchReturn != leafBefore { searchReturn = leafBefore }
            if tab(id!)?.activatesSearch == true, !searchActive {
                searchActive = true
                out.notify(.searchChanged(active: true))
            }
        } else if !onSearch, searchActive {
            searchActive = false
            out.notify(.searchChanged(active: false))
        }
        if id == nil, searchReturn != nil { searchReturn = nil }
    }

    // MARK: R14.2 — enabled

    mutating func setEnabled(_ id: String, _ enabled: Bool, _ out: inout Outcome) throws(TabError) {
        guard let at = locate(id) else { throw .noTab(id) }
        guard self[at: at].enabled != enabled else { return }
        modify(at: at) { $0.enabled = enabled }
        refreshArranged()
        out.notify(.tabUpdated(tab: id))
    }

    // MARK: R14.3 — the hidden bar

    mutating func setBarHidden(_ hidden: Bool, _ out: inout Outcome) {
        guard hidden != barHidden else { return }
        barHidden = hidden
        refreshArranged()  // a hidden bar's taps are R13.8's: only what the user can still touch
        out.barMoved = true  // `bar_changed` reports `hidden`
        out.journalsCommand = true
    }

    // MARK: R14.4 — size class and compact tabs

    mutating func setSizeClass(_ size: SizeClass, _ out: inout Outcome) throws(TabError) {
        guard idiom == .pad else {
            throw TabError(.notAvailable, "the \(idiom.rawValue) idiom is always \(idiom.defaultSizeClass.rawValue); only a pad changes its size class")
        }
        guard size != sizeClass else { return }
        let sidebarBefore = sidebarAvailable
        if editingStart != nil, size == .compact { endEditing(&out) }  // R14.6: before the sidebar goes
        sizeClass = size
        refreshArranged()
        out.notify(.sizeClassChanged(size))
        if sidebarAvailable != sidebarBefore { out.notify(.sidebarChanged(visible: sidebarVisible)) }
        settleSelection(from: current.path, cause: .tabs, &out)  // More may have left the bar
    }

    mutating func setCompactTabs(_ ids: [String]?, _ out: inout Outcome) {
        guard ids != compactTabs else { return }
        compactTabs = ids
        refreshArranged()
        out.journalsCommand = true
        out.barMoved = true  // PROTOCOL: `bar_changed` announces it (with `compact_tabs`), the bar moved or not
        settleSelection(from: current.path, cause: .tabs, &out)
    }

    // MARK: R14.5 — the mode at run time

    mutating func setMode(_ new: Mode, _ out: inout Outcome) {
        guard new != mode else { return }
        let sidebarBefore = sidebarAvailable
        var next = self
        next.mode = new
        if editingStart != nil, !next.sidebarAvailable { endEditing(&out) }  // R14.6: first
        mode = new
        refreshArranged()
        out.notify(.modeChanged(new))
        if sidebarAvailable != sidebarBefore { out.notify(.sidebarChanged(visible: sidebarVisible)) }
    }

    // MARK: R14.6 — the sidebar's editing session

    private var editingSnapshot: EditingStart {
        var orders: [String: [String]] = [:], hidden: [String] = []
        forEachTab { t, _, _ in
            if t.children != nil { orders[t.id] = t.orderedChildren.map(\.id) }
            if t.hidden { hidden.append(t.id) }
        }
        return EditingStart(barOrder: composedBar.middle, orders: orders, hidden: hidden)
    }

    mutating func editBegin(_ out: inout Outcome) throws(TabError) {
        if customizingOrder != nil { throw TabError(.conflict, "a customization session is running; send customize.end first") }
        guard sidebarAvailable else {
            throw TabError(.notAvailable, "controller '\(name)' has no sidebar: its user edits the bar with customize (R7), not edit.begin")
        }
        guard editingStart == nil else { throw TabError(.conflict, "an editing session is already running; send edit.end first") }
        editingStart = editingSnapshot
        out.notify(.willBeginEditing)
    }

    mutating func editEnd(_ out: inout Outcome) throws(TabError) {
        guard editingStart != nil else { throw TabError(.conflict, "no editing session is running (send edit.begin first)") }
        endEditing(&out)
    }

    /// Ends the editing session: `did_end_editing` with whether the bar order, a group's
    /// order or any visibility differs from its start.
    mutating func endEditing(_ out: inout Outcome) {
        guard let start = editingStart else { return }
        editingStart = nil
        out.notify(.didEndEditing(changed: start != editingSnapshot))
    }

    // MARK: R14.7 — a group's selected child

    mutating func selectChild(_ group: String, _ child: String, _ out: inout Outcome) throws(TabError) {
        guard let at = locate(group) else { throw .noTab(group) }
        guard let kids = self[at: at].children else {
            throw TabError(.conflict, "tab '\(group)' is not a group: select_child names a group and one of its children")
        }
        guard let k = kids.first(where: { $0.id == child }) else {
            throw TabError(.notFound, "'\(child)' is not a child of group '\(group)'; its children: \(kids.map(\.id).joined(separator: ", "))")
        }
        if k.hidden { throw TabError(.notAvailable, "tab '\(child)' is hidden; show it with set_hidden before selecting it") }
        let onPath = current.path.contains(group)
        guard shownChildID(of: group) != child || self[at: at].selectedChild != child else { return }
        modify(at: at) { $0.selectedChild = child }
        out.journalsCommand = true
        guard onPath, let node = layout.node(group), let (path, leaf) = try? landing(at: node) else { return }
        moveSelection(to: path, leaf: leaf, from: current.path, cause: .select, &out)
    }
}
