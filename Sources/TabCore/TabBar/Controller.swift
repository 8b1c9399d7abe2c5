// The tab bar controller (SEMANTICS.md R1–R14), as a value: its state, how a tab is found
// (R1), and `apply`, the one entry of a command: `perform`'s switch sends each command to the
// rule's own file (R2 Replacing.swift, R3 More.swift, R4–R5 Selection.swift, R6
// Navigation.swift, R7 Customization.swift, R8 Badges.swift, R9 Orientation.swift, R10
// Layout.swift, R11 Restoration.swift and Snapshot.swift, R13 Tree/, R13.12 and R14
// Modern.swift). Each mutating command either throws a TabError and changes nothing, or
// returns its outcome: the ordered notifications it produced, with what the delegate decided
// (a refusal, which changed nothing; the orientations) and asked for (its effects).

public struct Controller: Equatable, Sendable {
    /// The wire name of the More item (R3.2): never a tab id.
    public static let moreID = "more"

    public let name: String
    public let idiom: Idiom
    /// The most items the bar shows (R3.1).
    public let maxVisible: Int
    /// Which taps pop a tab's stack to its root (R4.3).
    public let tapPops: TapPops
    /// How the controller presents its tabs: bar, or sidebar on the pad idiom (R13.6); changed
    /// at run time by `set_mode` (R14.5).
    public internal(set) var mode: Mode
    /// A pad's width class (R14.4): phone is always compact, tv always regular.
    public internal(set) var sizeClass: SizeClass
    /// The whole bar is hidden (R14.3).
    public internal(set) var barHidden = false
    /// Search is active (R14.1).
    public internal(set) var searchActive = false
    /// R14's state that holds references (`compactTabs`, `searchReturn`, `editingStart`), in
    /// one box, nil while none is set: a copy of the controller (an undo keeps a small one
    /// whole) retains one reference for them, not three.
    var extras: ExtrasBox?
    /// Whether the sidebar is shown, where there is one (R13.6).
    public internal(set) var sidebarVisible = true
    /// The user's order of the bar's tabs between the fixed and the pinned ones (R13.5), or
    /// nil for the tabs' own order.
    public internal(set) var barOrder: [String]?
    /// Whether the tabs are arranged with R13 (groups, placement, hiding, a user's bar order):
    /// the bar is then composed as R13.4 says. Derived; refreshed with `rebuildIndex`.
    public internal(set) var arranged = false
    /// What an arranged controller derives from its tree (R13): its bar and tab addresses.
    var layout = TreeLayout.none
    /// The node an arranged controller's `selectedPath` ends at, as the last command left it
    /// (`TreeNode.nothing` otherwise): read between commands (the path for replies, the bar
    /// item it shows selected), refreshed after each. One reference: a select moves it.
    var current = TreeNode.nothing
    /// The tabs in display order (R1.2).
    public internal(set) var tabs: [Tab] = []
    public internal(set) var selection: Selection = .none
    /// Ids of the tabs the user may rearrange, in tab order (R7.1). Empty: no rearranging.
    public var customizable: [String] { customizableAll ? tabs.map(\.id) : customizableList }
    /// `customizable` is every root tab (R2.3's reset after any change of the list), held as
    /// such rather than as a list of every id: add_tab and remove_tab on 1,000 tabs spent
    /// more on making, comparing and releasing that list than on the change. Canonical: a
    /// list as long as `tabs` (the set is a subset of the root ids in tab order, so it is
    /// then all of them) is never kept; `setCustomizable(list:)` makes it `true`.
    var customizableAll = true
    /// The customizable ids while `customizableAll` is false; empty while it is true.
    var customizableList: [String] = []
    /// The order being edited in a customization session, or nil when none runs (R7.2).
    public internal(set) var customizingOrder: [String]?
    /// The order when the session began, to report `changed` (R7.4).
    var customizingStart: [String]?
    public internal(set) var orientation: Orientation = .portrait
    /// The `seq` of the controller's last event (R11.4): every notification counts, published
    /// or not, so replaying the journal numbers them as they were numbered live. A new
    /// controller starts where its set's numbering of deleted controllers left off.
    public internal(set) var seq: UInt64 = 0
    /// While a command recorded under the original rules is replayed (see `Semantics`).
    var original = false
    /// While a command of a format 3 journal is replayed: R13.10's fit is not checked.
    var fitUnchecked = false
    /// While a command of an attached tab controller runs, or it adopts its root's environment:
    /// its orientation is the root's (R15.10), so R9.1/R9.4 do not move or refuse it.
    var followsTree = false
    /// R9.2: the orientations the delegate decided at the controller's last change (nil when
    /// the delegate has no say: they follow from the tabs). Never saved (a start asks the
    /// plugins again), but compared: a `state` shows them, so two controllers whose delegates
    /// answered differently are not equal (the `state` memo relies on it).
    var delegated = Delegated()

    struct Delegated: Equatable, Sendable {
        var orientations: OrientationDecision?
    }
    /// tab id → index; derived from `tabs`, rebuilt whenever the list changes. Empty while
    /// there are at most `linearLookupLimit` tabs: those are found by comparing ids in turn.
    private var indexByID: [String: Int] = [:]
    /// Up to this many tabs, comparing short ids one after the other costs less than hashing
    /// one (and a controller keeps no table): `select` on 6 tabs looks up an id twice.
    static let linearLookupLimit = 16

    public init(name: String, idiom: Idiom = .phone, maxVisible: Int? = nil, tapPops: TapPops = .always,
                mode: Mode = .automatic, sizeClass: SizeClass? = nil, compactTabs: [String]? = nil) {
        self.name = name
        self.idiom = idiom
        self.maxVisible = maxVisible ?? idiom.defaultMaxVisible
        self.tapPops = tapPops
        self.mode = mode
        self.sizeClass = sizeClass ?? idiom.defaultSizeClass
        if let compactTabs {
            self.compactTabs = compactTabs
            refreshArranged()
        }
    }

    // MARK: Finding a tab

    public func index(of id: String) -> Int? {
        guard tabs.count > Self.linearLookupLimit else {
            // A few ids compared in turn; a short ASCII id by its two words (InlineID), where
            // `==` calls into the standard library for each id that differs.
            guard let key = InlineID(id) else {
                for i in tabs.indices where tabs[i].id == id { return i }
                return nil
            }
            for i in tabs.indices {
                if let k = InlineID(tabs[i].id) { if k == key { return i } } else if tabs[i].id == id { return i }
            }
            return nil
        }
        return indexByID[id]
    }

    /// The tab with this id, wherever it is in the tree (R13.1).
    public func tab(_ id: String) -> Tab? {
        if let i = self.index(of: id) { return tabs[i] }
        guard arranged, let at = locate(id) else { return nil }
        return self[at: at]
    }

    /// `body` with this controller lent to the delegate as it is: in place, not copied.
    /// `body` must not touch `self` (it is being accessed): read what it needs first.
    @inline(__always)
    mutating func lend<R>(_ body: (LentController) -> R) -> R {
        withUnsafePointer(to: &self) { body(LentController($0)) }
    }

    // MARK: Commands

    /// Applies one command. Throws (changing nothing) when the command is invalid; a command
    /// the delegate refuses changes nothing either and returns its refusal (`Outcome.refusal`).
    /// `notifying: false` when no one will read the notifications (see `Outcome`);
    /// `selectionChanges`: then the selection changes are built all the same (for a delegate
    /// told every one: `Policy.watchesSelection`, which the caller knows without asking).
    public mutating func apply(_ command: Command, policy: Policy = DefaultPolicy(), notifying: Bool = true,
                               selectionChanges: Bool = false,
                               semantics: Semantics = .amended) throws(TabError) -> Outcome {
        if case .amended = semantics { return try applyOnce(command, policy: policy, notifying: notifying, selectionChanges: selectionChanges) }
        return try replay(command, policy: policy, notifying: notifying, selectionChanges: selectionChanges, semantics: semantics)
    }

    /// `apply` under the rules of an older journal (see `Semantics`): out of the request path.
    @inline(never)
    private mutating func replay(_ command: Command, policy: Policy, notifying: Bool, selectionChanges: Bool,
                                 semantics: Semantics) throws(TabError) -> Outcome {
        if case .original = semantics {
            original = true
            defer { original = false }
            return try applyOnce(command, policy: policy, notifying: notifying, selectionChanges: selectionChanges)
        }
        if case .amendedBeforeTree = semantics {
            fitUnchecked = true
            defer { fitUnchecked = false }
            return try applyOnce(command, policy: policy, notifying: notifying, selectionChanges: selectionChanges)
        }
        return try applyOnce(command, policy: policy, notifying: notifying, selectionChanges: selectionChanges)
    }

    @inline(__always)
    private mutating func applyOnce(_ command: Command, policy: Policy, notifying: Bool, selectionChanges: Bool) throws(TabError) -> Outcome {
        var out = Outcome(recordsNotifications: notifying, recordsSelectionChanges: selectionChanges)
        let moves = Self.movesSelectionOnly(command)
        let keepsBar = !moves && Self.keepsBar(command)
        // The bar's lists are as long as the controller: read only where the command can move
        // them and may not (a flat list's root added or removed always moves them: every root
        // is on the bar, in More or unreachable).
        let surelyMoves = !moves && !keepsBar && movesBarWhenItChanges(command)
        let bar = moves || keepsBar || surelyMoves ? nil : barState
        #if DEBUG
        let barBefore = keepsBar || surelyMoves ? barState : nil
        // R15.41: a controller detached from a tree keeps the orientation it had, even one its
        // tabs do not support; a command must not make an orientation unsupported.
        let supportedBefore = tabsOrientations.contains(orientation.mask)
        #endif
        // An arranged controller's select or tap: only the bar's selected item can move.
        let barSlot = moves && arranged ? current.barSlot : 0  // the item as a number (`TreeNode.barSlot`)
        // R13.6: a change of the tree can make the sidebar come or go (automatic mode: a group
        // is added, or the last one goes); `set_mode` and `set_size_class` announce their own.
        let sidebarBefore = !moves && Self.changesTree(command) ? sidebarAvailable : nil
        // R14.1: search follows the leaf before the command where a search tab exists or search
        // is active, apart: a leaf kept in a local here was released by every flat select.
        if searchActive || (arranged && layout.search != nil) {
            try performFollowingSearch(command, policy: policy, moves: moves, &out)
        } else {
            try perform(command, policy: policy, &out)
            settleCurrent(moves: moves)
            if extras != nil || (arranged && layout.search != nil) { followModern(leafBefore: nil, &out) }
        }
        if let sidebarBefore, sidebarAvailable != sidebarBefore { out.notify(.sidebarChanged(visible: sidebarVisible)) }
        if let bar { if bar != barState { out.barMoved = true } }
        if surelyMoves, out.changed { out.barMoved = true }
        #if DEBUG
        if let barBefore, keepsBar { precondition(barState == barBefore, "\(command) moved the bar, which keepsBar says it cannot") }
        if let barBefore, surelyMoves, out.changed { precondition(barState != barBefore, "\(command) left the bar as it was, which movesBarWhenItChanges says it cannot") }
        // What update_tab and remove_tab rely on to skip the orientation check (R9.1).
        precondition(original || fitUnchecked || followsTree || !supportedBefore || tabsOrientations.contains(orientation.mask), "\(command) left the orientation \(orientation) that the tabs do not support")
        #endif
        if moves, arranged, current.barSlot != barSlot { out.barMoved = true }
        if out.barMoved { out.notify(.barChanged) }
        if out.notificationCount > 0, !out.changed { out.journalsNumbering = true }
        seq &+= UInt64(truncatingIfNeeded: out.notificationCount)
        if out.changed || out.orientations != nil { keepOrientations(policy: policy, &out) }
        // Moved out: a plain `return out` was copied (its arrays retained) and the original
        // destroyed.
        return consume out
    }

    /// `perform` where search follows the selection (R14.1): the leaf before the command is
    /// what selecting the search tab remembers.
    @inline(never)
    private mutating func performFollowingSearch(_ command: Command, policy: Policy, moves: Bool, _ out: inout Outcome) throws(TabError) {
        let leafBefore = current.path.last
        try perform(command, policy: policy, &out)
        settleCurrent(moves: moves)
        followModern(leafBefore: leafBefore, &out)
    }

    /// A select or tap left `current` in `moveSelection`; other commands may move the path
    /// anywhere.
    @inline(__always)
    private mutating func settleCurrent(moves: Bool) {
        if arranged { if !moves { setCurrentPath(selectedPath) } } else if current !== TreeNode.nothing { current = .nothing }
    }

    /// R14.1 and R14.6 after a command: search follows the selection; the editing session ends
    /// when the sidebar went away.
    private mutating func followModern(leafBefore: String?, _ out: inout Outcome) {
        followSearch(leafBefore: leafBefore, &out)
        if editingStart != nil, !sidebarAvailable { endEditing(&out) }
    }

    /// What the bar shows (`state`'s `bar`): a `bar_changed` is sent when it changes.
    struct BarState: Equatable {
        var visible: [String], more: [String], unreachable: [String], selected: String?, hidden: Bool, top: Bool
    }

    var barState: BarState {
        BarState(visible: barVisible, more: moreList, unreachable: unreachable, selected: barSelected, hidden: barHidden, top: barAtTop)
    }

    /// The commands that never change what the bar shows (`barState`): they write one tab's
    /// badge, stack or shown fields, or a customization session's order (checked after each
    /// of them in debug builds).
    private static func keepsBar(_ command: Command) -> Bool {
        switch command {
        case .badge, .push, .pop, .popToRoot, .customizeMove: return true  // a move changes the session's order, not the bar
        case .updateTab(_, let update): return !update.arranges
        default: return false
        }
    }

    /// Whether `command`, if it changes anything, certainly changes what the bar shows: a root
    /// added to or removed from a flat list.
    private func movesBarWhenItChanges(_ command: Command) -> Bool {
        guard !arranged, !original else { return false }
        switch command {
        case .addTab(let tab, _, nil): return !tab.arranges
        case .removeTab(let id): return self.index(of: id) != nil
        default: return false
        }
    }

    /// The commands that change the tree's shape (which tabs there are, and where).
    private static func changesTree(_ command: Command) -> Bool {
        switch command {
        case .setTabs, .addTab, .removeTab, .updateTab: return true
        default: return false
        }
    }

    /// `select` and `tap` move the selection and change no list: whether the bar's selected
    /// item moved is found where the selection moves (`changeSelection`), not by building the
    /// bar twice on the path clients use most.
    @inline(__always)
    public static func movesSelectionOnly(_ command: Command) -> Bool {
        switch command {
        case .select, .tap: return true
        default: return false
        }
    }

    /// `apply` into an outcome the caller made (returning one from each case would copy it).
    private mutating func perform(_ command: Command, policy: Policy, _ out: inout Outcome) throws(TabError) {
        switch command {
        case .setTabs(let new, let animated, let selected):
            try setTabs(new, animated: animated, selected: selected, &out)
        case .addTab(let tab, let index, let group):
            try addTab(tab, at: index, group: group, &out)
        case .removeTab(let id):
            try removeTab(id, &out)
        case .updateTab(let id, let update):
            try updateTab(id, update, &out)
        case .badge(let id, let value):
            try setBadge(id, value, &out)
        case .select(let target):
            try select(target, &out)
        case .tap(let target):
            try tap(target, policy: policy, &out)
            return  // journals itself: a tap that changed nothing is not written
        case .push(let id, let screen):
            try push(id, screen, &out)
        case .pop(let id):
            try pop(id, toRoot: false, &out)
        case .popToRoot(let id):
            try pop(id, toRoot: true, &out)
        case .setCustomizable(let ids):
            try setCustomizable(ids, &out)
        case .customizeBegin:
            try customizeBegin(policy: policy, &out)
        case .customizeMove(let id, let to):
            try customizeMove(id, to: to, &out)
        case .customizeEnd:
            try customizeEnd(policy: policy, &out)
        case .rotate(let orientation):
            rotate(to: orientation, policy: policy, &out)
            return  // journals the resolved orientation, not the request
        case .setOrientation(let orientation):
            // Only the journal sends it, as a rotation it resolved: one the tabs do not all
            // support was never made (the plugins decide within what the tabs support), so
            // the record is damage, not a change to replay.
            guard original || followsTree || tabsOrientations.contains(orientation.mask) else {
                throw TabError(.conflict, "the orientation \(orientation.rawValue) is not one the tabs all support (\(tabsOrientations.orientations.map(\.rawValue).joined(separator: ", ")))")
            }
            setOrientation(orientation, &out)
        case .restore(let archive):
            restore(archive, &out)
        case .setHidden(let id, let hidden):
            try setHidden(id, hidden, policy: policy, &out)
        case .reorder(let group, let order):
            try reorder(group, order, policy: policy, &out)
        case .sidebar(let visible):
            try setSidebar(visible, &out)
        case .setExpanded(let group, let expanded):
            try setExpanded(group, expanded, &out)
        case .search(let active):
            try search(active, &out)
        case .setEnabled(let id, let enabled):
            try setEnabled(id, enabled, &out)
        case .setBarHidden(let hidden, _):
            setBarHidden(hidden, &out)
        case .setSizeClass(let size):
            try setSizeClass(size, &out)
        case .setCompactTabs(let ids):
            setCompactTabs(ids, &out)
        case .setMode(let mode):
            setMode(mode, &out)
        case .editBegin:
            try editBegin(&out)
        case .editEnd:
            try editEnd(&out)
        case .selectChild(let group, let child):
            try selectChild(group, child, &out)
        }
        if !out.changed, out.changedState { out.journalsCommand = true }
    }

    /// `apply`, then `read` of the controller as it is afterwards — in place, without a copy.
    public mutating func apply(_ command: Command, policy: Policy = DefaultPolicy(), notifying: Bool = true,
                               selectionChanges: Bool = false, semantics: Semantics = .amended,
                               reading read: (Controller, Outcome) -> Void) throws(TabError) -> Outcome {
        let outcome = try apply(command, policy: policy, notifying: notifying, selectionChanges: selectionChanges, semantics: semantics)
        read(self, outcome)
        return outcome
    }

    /// `read(self)`, reached through the caller's in-place access to where this controller is
    /// stored (a getter would copy it out): `TabContainers.reading`.
    mutating func lend<R>(_ read: (Controller) -> R) -> R { read(self) }

    // MARK: Helpers

    mutating func rebuildIndex() {
        refreshArranged()
        rebuildIDIndex()
    }

    /// `indexByID` from `tabs` (empty while a linear search is cheaper).
    mutating func rebuildIDIndex() {
        guard tabs.count > Self.linearLookupLimit else {
            if !indexByID.isEmpty { indexByID = [:] }
            return
        }
        indexByID.removeAll(keepingCapacity: true)
        for (i, tab) in tabs.enumerated() { indexByID[tab.id] = i }
    }

    /// Forgets `indexByID` (`withoutTabs`: rebuilt when the tabs come back).
    mutating func dropIDIndex() { indexByID = [:] }

    /// `indexByID` after one root was inserted at `at` or removed from it (`inserted` false):
    /// only the roots from `at` on move.
    mutating func reindex(from at: Int, inserted: Bool, removedID: String? = nil) {
        guard tabs.count > Self.linearLookupLimit, indexByID.count == tabs.count + (inserted ? -1 : 1) else { return rebuildIDIndex() }
        if let removedID { indexByID[removedID] = nil }
        for i in at..<tabs.count { indexByID[tabs[i].id] = i }
    }

    static func validate(_ tab: Tab) throws(TabError) {
        guard !tab.id.isEmpty else { throw TabError(.invalid, "a tab needs a non-empty id") }
        guard tab.id != moreID else {
            throw TabError(.invalid, "'more' is reserved for the More item and cannot be a tab id")
        }
        if let x = tab.controller, tab.navigation || tab.children != nil {
            throw TabError(.invalid, "tab '\(tab.id)' has controller '\(x)' as its content and \(tab.navigation ? "navigation: true" : "children"); a tab's content is a controller or its own, not both", field: "controller")
        }
    }
}

extension Selection {
    var isTab: Bool { if case .tab = self { return true } else { return false } }
}

extension Outcome {
    /// Whether the notifications say the state changed (reads never notify).
    var changedState: Bool { notificationCount > 0 }
}
