// One tab container: the state machine of SEMANTICS.md R1–R11, as a value.
// Each mutating command either throws a TabError and changes nothing, or returns its
// outcome: the ordered notifications it produced, with what the delegate decided (a
// refusal, which changed nothing; the orientations) and asked for (its effects).

import TabJSON

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
    /// one box, nil while none is set: a controller is copied on every request, and one word
    /// copies for less than three retained fields (BENCHMARKS.md).
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
    public private(set) var customizable: [String] = []
    /// The order being edited in a customization session, or nil when none runs (R7.2).
    public private(set) var customizingOrder: [String]?
    /// The order when the session began, to report `changed` (R7.4).
    private var customizingStart: [String]?
    public private(set) var orientation: Orientation = .portrait
    /// The `seq` of the controller's last event (R11.4): every notification counts, published
    /// or not, so replaying the journal numbers them as they were numbered live. A new
    /// controller starts where its set's numbering of deleted controllers left off.
    public internal(set) var seq: UInt64 = 0
    /// While a command recorded under the original rules is replayed (see `Semantics`).
    var original = false
    /// While a command of a format 3 journal is replayed: R13.10's fit is not checked.
    var fitUnchecked = false
    /// R9.2: the orientations the delegate decided at the controller's last change (nil when
    /// the delegate has no say: they follow from the tabs). Never saved (a start asks the
    /// plugins again), but compared: a `state` shows them, so two controllers whose delegates
    /// answered differently are not equal (the `state` memo relies on it).
    private var delegated = Delegated()

    private struct Delegated: Equatable, Sendable {
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

    // MARK: Derived state

    /// R3.1: More is shown on phone and pad when there are more tabs than fit.
    public var moreShown: Bool {
        if arranged { return idiom != .tv && composedBar.count > maxVisible }
        return idiom != .tv && tabs.count > maxVisible
    }

    /// How many tabs the bar shows itself (R3.1, R3.6).
    public var barTabCount: Int {
        if arranged { return layout.shown.count }
        if moreShown { return maxVisible - 1 }
        return min(tabs.count, maxVisible)
    }

    /// Ids on the bar, plus "more" when shown.
    public var barVisible: [String] {
        if arranged {
            var ids = layout.shown
            if moreShown { ids.append(Controller.moreID) }
            return ids
        }
        var ids = tabs.prefix(barTabCount).map(\.id)
        if moreShown { ids.append(Controller.moreID) }
        return ids
    }

    /// Ids listed by More (phone/pad), in order.
    public var moreList: [String] {
        if arranged { return idiom == .tv ? [] : layout.rest }
        return moreShown ? tabs.dropFirst(barTabCount).map(\.id) : []
    }

    /// tv: ids that do not fit on the bar and are not reachable from it (R3.6).
    public var unreachable: [String] {
        if arranged { return idiom == .tv ? layout.rest : [] }
        return idiom == .tv ? tabs.dropFirst(barTabCount).map(\.id) : []
    }

    /// R3.3: the index of the selected tab; nil for More or nothing.
    public var selectedIndex: Int? {
        if case .tab(let id) = selection { return self.index(of: id) }
        return nil
    }

    /// The bar item shown as selected: a tab listed by More shows More (R3.5); on tv, a tab
    /// that does not fit on the bar shows no item (R3.6).
    public var barSelected: String? {
        if arranged { return arrangedBarSelected }
        switch barSlot(of: selection, index: selectedIndex) {
        case Self.noBarItem: return nil
        case Self.moreBarItem: return Controller.moreID
        case let i: return tabs[i].id
        }
    }

    private static let noBarItem = -1, moreBarItem = -2

    /// `barSelected` as a number, for comparing without making strings: the index of the tab
    /// on the bar, `moreBarItem` or `noBarItem`. `index`: the selected tab's index.
    @inline(__always)
    private func barSlot(of candidate: Candidate) -> Int {
        switch candidate {
        case .more: return Self.moreBarItem
        case .tab(_, let index):
            if index < barTabCount { return index }
            return moreShown ? Self.moreBarItem : Self.noBarItem
        }
    }

    @inline(__always)
    private func barSlot(of selection: Selection, index: Int?) -> Int {
        switch selection {
        case .none: return Self.noBarItem
        case .more: return Self.moreBarItem
        case .tab:
            guard let index else { return Self.noBarItem }
            if index < barTabCount { return index }
            return moreShown ? Self.moreBarItem : Self.noBarItem
        }
    }

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

    /// Where the bar is (R10.1, R13.11): at the top on tv and on a regular-width pad.
    public var barAtTop: Bool { idiom == .tv || (idiom == .pad && sizeClass == .regular) }

    /// R5.4: the child that decides the status bar's style and visibility.
    public var statusBarChild: String? { selection.wireValue }

    /// R9.1: what every tab supports (portrait when there are none).
    public var tabsOrientations: OrientationMask {
        tabs.reduce(into: OrientationMask.all) { $0.formIntersection($1.supportedOrientations) }
            .intersection(tabs.isEmpty ? .portrait : .all)
    }

    /// R9.2: the supported and preferred orientations, the delegate asked once for each.
    public func orientations(policy: Policy, effects: inout [PolicyEffect]) -> OrientationDecision {
        var lent = self
        return lent.decide(policy: policy, effects: &effects)
    }

    /// `orientations(policy:effects:)` with this controller lent in place.
    private mutating func decide(policy: Policy, effects: inout [PolicyEffect]) -> OrientationDecision {
        let proposed = tabsOrientations
        let supported = lend { policy.supportedOrientations(proposed: proposed, in: $0, effects: &effects) }
        let preferred = lend { policy.preferredOrientation(in: $0, effects: &effects) }
        return OrientationDecision(supported: supported, preferred: preferred ?? self.preferred(among: supported))
    }

    /// `body` with this controller lent to the delegate as it is: in place, not copied.
    /// `body` must not touch `self` (it is being accessed): read what it needs first.
    @inline(__always)
    mutating func lend<R>(_ body: (LentController) -> R) -> R {
        withUnsafePointer(to: &self) { body(LentController($0)) }
    }

    /// R9.2 without a preference: the current orientation if supported, else the first supported one.
    private func preferred(among supported: OrientationMask) -> Orientation? {
        supported.contains(orientation.mask) ? orientation : supported.orientations.first
    }

    /// What `state` reports as the supported and preferred orientations: the delegate's
    /// answers at the last change (or at `decideOrientations`), else what the tabs support.
    /// Asks nobody.
    public var decidedOrientations: OrientationDecision {
        if let decided = delegated.orientations { return decided }
        let supported = tabsOrientations
        return OrientationDecision(supported: supported, preferred: preferred(among: supported))
    }

    /// Asks `policy` for the orientations now and keeps its answers (`decidedOrientations`):
    /// for controllers the delegate has not seen change (it was loaded, or replaced, after
    /// their last change).
    public mutating func decideOrientations(policy: Policy, effects: inout [PolicyEffect]) {
        let decided = policy.decidesOrientations ? decide(policy: policy, effects: &effects) : nil
        delegated.orientations = decided
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
        precondition(original || fitUnchecked || tabsOrientations.contains(orientation.mask), "\(command) left the orientation \(orientation) that the tabs do not support")
        #endif
        if moves, arranged, current.barSlot != barSlot { out.barMoved = true }
        if out.barMoved { out.notify(.barChanged) }
        if out.notificationCount > 0, !out.changed { out.journalsNumbering = true }
        seq &+= UInt64(truncatingIfNeeded: out.notificationCount)
        if out.changed || out.orientations != nil { keepOrientations(policy: policy, &out) }
        // Moved out: a plain `return out` was copied (its arrays retained) and the original
        // destroyed, ~160 instructions a select.
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

    /// After a change (or a rotate): the delegate's orientations, asked once if it decides
    /// them, kept for `decidedOrientations`; forgotten under a delegate that does not.
    private mutating func keepOrientations(policy: Policy, _ out: inout Outcome) {
        if policy.decidesOrientations {
            // The delegate's answers may follow the change: asked once, after it.
            if out.orientations == nil { out.orientations = decide(policy: policy, effects: &out.effects) }
            delegated.orientations = out.orientations
        } else if case .some = delegated.orientations {
            delegated.orientations = nil
        }
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
            guard original || tabsOrientations.contains(orientation.mask) else {
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

    // MARK: R2 — replacing the tabs

    private mutating func setTabs(_ new: [Tab], animated: Bool, selected: SelectTarget?, _ out: inout Outcome) throws(TabError) {
        try refuseWhileCustomizing("replace the tabs")
        var seen = Set<String>()
        for tab in new {
            try Controller.validate(tab)
            guard seen.insert(tab.id).inserted else {
                throw TabError(.conflict, "tab id '\(tab.id)' appears twice; tab ids must be unique")
            }
        }
        try Controller.validateTree(new)
        // R2.6, R13.8: the named selection is a tab of the new tree (an index counts root tabs).
        var named: String?
        switch selected {
        case nil: break
        case .tab(let id)?:
            guard seen.contains(id) || Controller.treeContains(new, id) else {
                throw TabError(.notFound, "'selected' names tab '\(id)', which is not in the new tabs")
            }
            named = id
        case .index(let i)?:
            guard i >= 0, i < new.count else {
                throw TabError(.outOfRange, new.isEmpty
                    ? "'selected' index \(i) is out of range: the new tab list is empty"
                    : "'selected' index \(i) is out of range: \(TabError.allowed(upTo: new.count - 1)) (\(new.count) new tab\(new.count == 1 ? "" : "s"))")
            }
            named = new[i].id
        case .more?:
            throw TabError(.invalid, "set_tabs selects a tab by id or index, not More; send select with more afterwards")
        }
        if original { return setTabsAsOriginally(new, animated: animated, named: named, &out) }
        try Controller.requireCommonOrientation(new)
        // R13.8: a replacement whose resulting state is the current one is a no-op: no events.
        let saved = self
        var local = Outcome(recordsNotifications: out.recordsNotifications, recordsSelectionChanges: out.recordsSelectionChanges)
        try replaceTree(new, as: .tabs(animated: animated), named: named, &local)
        if self == saved {
            // The value as it was, storage and all: an equal value in new arrays made every
            // later `state` compare the memo's controller field by field instead of by its
            // buffers (c=50 clients each sending the same set_tabs: state ops/s a third).
            self = saved
            return
        }
        out.absorb(local)
    }

    /// `set_tabs` under the original rules: every old child leaves and every new one is
    /// installed fresh (no identity across the replacement, R2.5), whatever their orientations.
    private mutating func setTabsAsOriginally(_ new: [Tab], animated: Bool, named: String?, _ out: inout Outcome) {
        let before = selectionSnapshot
        for tab in tabs { removeChild(tab.id, onScreen: selection == .tab(tab.id) ? selectedLeaf : nil, &out) }
        tabs = new.map(Controller.fresh)
        rebuildIndex()
        for tab in tabs { installChild(tab.id, &out) }
        out.notify(.tabsChanged(tabs: tabs.map(\.id), animated: animated, changed: tabs.map(\.id)))
        resetCustomizable(&out)
        reselect(after: before, removedSelected: before.selection.isTab, named: named, cause: .tabs, &out)
    }

    private mutating func addTab(_ tab: Tab, at index: Int?, group: String?, _ out: inout Outcome) throws(TabError) {
        try refuseWhileCustomizing("add a tab")
        try Controller.validate(tab)
        guard self.index(of: tab.id) == nil else {
            throw TabError(.conflict, "a tab with id '\(tab.id)' already exists")
        }
        if let group {
            // R13.8: into a group, at `index` among its children.
            guard let at = locate(group) else { throw .noTab(group) }
            let g = self[at: at]
            guard let kids = g.children else {
                throw TabError(.conflict, "tab '\(group)' is not a group: add_tab's 'group' names a tab with children")
            }
            let i = index ?? kids.count
            guard i >= 0, i <= kids.count else {
                throw TabError(.outOfRange, "index \(i) is out of range: \(TabError.allowed(upTo: kids.count)) (group '\(group)' has \(kids.count) child\(kids.count == 1 ? "" : "ren"))")
            }
            if original { throw TabError(.invalid, "add_tab into a group was not a command before issue 30") }
            var roots = tabs
            Controller.modify(&roots, at: at) { $0.children!.insert(tab, at: i) }
            try Controller.validateTree(roots)
            return try replaceTree(roots, as: .tabs(animated: false), named: nil, &out)
        }
        let previousIDs = arranged || tab.arranges ? treeIDs : []
        if arranged || tab.arranges { try Controller.validateTree([tab], taken: previousIDs) }
        let at = index ?? tabs.count
        guard at >= 0, at <= tabs.count else {
            throw TabError(.outOfRange, "index \(at) is out of range: \(TabError.allowed(upTo: tabs.count)) (\(tabs.count) tab\(tabs.count == 1 ? "" : "s"))")
        }
        if !original, tabsOrientations.intersection(tab.supportedOrientations).isEmpty {
            try Controller.requireCommonOrientation(tabs + [tab], naming: tab.id)  // names the culprit
        }
        if !original, arranged || tab.arranges {
            var roots = tabs
            roots.insert(tab, at: at)
            return try replaceTree(roots, as: .tabs(animated: false), named: nil, &out)
        }
        let before = selectionSnapshot
        let stayFlat = !arranged && !tab.arranges
        tabs.insert(Controller.fresh(tab), at: at)
        if stayFlat {
            reindex(from: at, inserted: true)  // a flat list stays flat: no bar order, no layout
        } else {
            adjustBarOrder(previous: previousIDs)
            rebuildIndex()
        }
        installChild(tab.id, &out)
        let ids = tabs.map(\.id)
        out.notify(.tabsChanged(tabs: ids, animated: false, changed: [tab.id]))
        resetCustomizable(to: ids, &out)
        reselect(after: before, removedSelected: false, cause: .tabs, &out)
        reorientIfUnsupported(&out)
    }

    private mutating func removeTab(_ id: String, _ out: inout Outcome) throws(TabError) {
        try refuseWhileCustomizing("remove a tab")
        guard let index = self.index(of: id) else {
            // R13.8: any tab of the tree (a group with its subtree).
            guard let at = locate(id), !original else { throw .noTab(id) }
            var roots = tabs
            Controller.modify(&roots, at: Array(at.dropLast())) { g in
                g.children!.remove(at: at[at.count - 1])
                if g.defaultChild == id { g.defaultChild = nil }
            }
            return try replaceTree(roots, as: .tabs(animated: false), named: nil, &out)
        }
        if arranged, !original {
            var roots = tabs
            roots.remove(at: index)
            return try replaceTree(roots, as: .tabs(animated: false), named: nil, &out)
        }
        let before = selectionSnapshot
        removeChild(id, onScreen: selection == .tab(id) ? selectedLeaf : nil, &out)
        tabs.remove(at: index)
        if arranged {
            adjustBarOrder(previous: barOrder == nil ? [] : treeIDs)  // no tab is new: none joins the bar
            rebuildIndex()
        } else {
            reindex(from: index, inserted: false, removedID: id)  // a flat list stays flat
        }
        let ids = tabs.map(\.id)
        out.notify(.tabsChanged(tabs: ids, animated: false, changed: []))
        resetCustomizable(to: ids, &out)
        reselect(after: before, removedSelected: before.selection == .tab(id), cause: .tabs, &out)
        // Fewer tabs support at least as much, but none: portrait only (R9.1).
        if tabs.isEmpty { reorientIfUnsupported(&out) }
    }

    /// What a change of the tree is, for its events: a replacement of the tab list (`set_tabs`,
    /// `add_tab`, `remove_tab`: `tabs_changed`, and R2.3's reset of `customizable`) or an
    /// `update_tab` of one tab (`tab_updated`).
    enum TreeChange {
        case tabs(animated: Bool)
        case update(String)
    }

    /// R2 with R13.8: the tree becomes `descriptions`, each tab matched to the current tree by
    /// id wherever it stands (identity). Removed tabs leave first (containment to nil, the one
    /// on screen disappearing), then new ones are installed (at any depth), then the selection
    /// follows its leaf (R13.8's reselection) or `named`. Throws before changing anything.
    mutating func replaceTree(_ descriptions: [Tab], as change: TreeChange, named: String?, _ out: inout Outcome) throws(TabError) {
        let before = selectionSnapshot
        let oldLeaf: String? = before.path?.last ?? before.selection.wireValue
        let previousIDs = barOrder == nil ? [] : treeIDs
        try Controller.validateTree(descriptions)
        let r = matched(descriptions)
        try requireFit(r.roots)
        if let named, let hidden = Controller.hiddenOnPath(to: named, in: r.roots) {
            throw TabError(.notAvailable, hidden == named
                ? "'selected' names tab '\(named)', which is hidden; show it first or name another tab"
                : "'selected' names tab '\(named)', which is in the hidden group '\(hidden)'; show the group first or name another tab")
        }
        // R14.6: a change that takes the sidebar away (automatic mode, no group left) ends the
        // editing session first.
        if editingStart != nil, mode == .automatic, !r.roots.contains(where: { $0.children != nil }) { endEditing(&out) }
        for id in r.removed { removeChild(id, onScreen: id == oldLeaf ? id : nil, &out) }
        var oldRoots: [String: Tab] = [:]
        for t in tabs { oldRoots[t.id] = t }
        let oldUpdated: Tab? = if case .update(let id) = change { tab(id) } else { nil }
        tabs = r.roots
        adjustBarOrder(previous: previousIDs)
        rebuildIndex()
        for id in r.added { installChild(id, &out) }
        switch change {
        case .tabs(let animated):
            out.notify(.tabsChanged(tabs: tabs.map(\.id), animated: animated,
                                    changed: tabs.filter { oldRoots[$0.id] != $0 }.map(\.id)))
        case .update(let id):
            let t = tab(id)
            out.notify(.tabUpdated(tab: id))
            if t?.badge != oldUpdated?.badge { out.notify(.badgeChanged(tab: id, value: t?.badge)) }
            if let t, t.stack != oldUpdated?.stack { out.notify(.navigationChanged(tab: id, stack: t.stack)) }
        }
        if !r.visibility.isEmpty { out.notify(.visibilityChanged(tabs: r.visibility, cause: .app)) }
        if case .tabs = change { resetCustomizable(&out) }
        let removedSelected = oldLeaf.map { $0 != Controller.moreID && !r.kept.contains($0) } ?? false
        // The leaf is still there but can no longer be shown: the app hid it (R13.9).
        let hid = !removedSelected && oldLeaf.flatMap { layout.node($0) }?.hidden == true
        let replaced: Bool = if case .tabs = change { true } else { false }
        reselect(after: before, removedSelected: removedSelected, named: named, cause: hid ? .hidden : .tabs,
                 replacement: replaced, &out)
        reorientIfUnsupported(&out)
    }

    /// The tree `descriptions` describe, matched to the current one (R13.8): what stays, what
    /// leaves and what comes, in tree order (parents first, children in `children` order).
    struct Matched {
        var roots: [Tab] = []
        var kept = Set<String>()
        var removed: [String] = [], added: [String] = []
        /// Kept tabs whose `hidden` the description changed.
        var visibility: [TabVisibility] = []
    }

    func matched(_ descriptions: [Tab]) -> Matched {
        var old: [String: Tab] = [:], oldOrder: [String] = []
        func collect(_ t: Tab) {
            old[t.id] = t; oldOrder.append(t.id)
            for k in t.children ?? [] { collect(k) }
        }
        for t in tabs { collect(t) }
        var m = Matched()
        func build(_ d: Tab) -> Tab {
            var t: Tab
            // A kept id that switches between leaf and group is removed, then added.
            if let o = old[d.id], (o.children == nil) == (d.children == nil) {
                m.kept.insert(d.id)
                t = Controller.staying(o, as: d)
                if t.hidden != o.hidden { m.visibility.append(TabVisibility(id: d.id, hidden: t.hidden)) }
            } else {
                m.added.append(d.id)
                t = Controller.freshOne(d)
            }
            if let kids = d.children { t.children = kids.map(build) }
            return t
        }
        m.roots = descriptions.map(build)
        m.removed = oldOrder.filter { !m.kept.contains($0) }
        return m
    }

    /// Whether `id` is a tab of the trees `roots`.
    static func treeContains(_ roots: [Tab], _ id: String) -> Bool {
        roots.contains { $0.id == id || treeContains($0.children ?? [], id) }
    }

    /// The first hidden tab on the path to `id` in `roots` (`id` itself included), or nil.
    static func hiddenOnPath(to id: String, in roots: [Tab]) -> String? {
        func find(_ list: [Tab], _ hiddenAbove: String?) -> String?? {
            for t in list {
                let h = hiddenAbove ?? (t.hidden ? t.id : nil)
                if t.id == id { return .some(h) }
                if let r = find(t.children ?? [], h) { return r }
            }
            return nil
        }
        return find(roots, nil) ?? nil
    }

    static func modify(_ roots: inout [Tab], at address: [Int], _ body: (inout Tab) -> Void) {
        func walk(_ t: inout Tab, _ rest: ArraySlice<Int>) {
            guard let i = rest.first else { return body(&t) }
            walk(&t.children![i], rest.dropFirst())
        }
        walk(&roots[address[0]], address.dropFirst())
    }

    /// R5.3: will-move(nil), the disappearance of `onScreen` (the leaf shown, when this tab
    /// is it or holds it), did-move(nil).
    private mutating func removeChild(_ id: String, onScreen leaf: String?, _ out: inout Outcome) {
        out.notify(.containment(tab: id, phase: .willMove, parent: nil))
        if let leaf {
            out.notify(.appearance(tab: leaf, phase: .willDisappear))
            out.notify(.appearance(tab: leaf, phase: .didDisappear))
        }
        out.notify(.containment(tab: id, phase: .didMove, parent: nil))
    }

    private func installChild(_ id: String, _ out: inout Outcome) {
        out.notify(.containment(tab: id, phase: .willMove, parent: name))
        out.notify(.containment(tab: id, phase: .didMove, parent: name))
    }

    /// R2.3: any change of the tab list makes every tab customizable again.
    private mutating func resetCustomizable(_ out: inout Outcome) {
        resetCustomizable(to: tabs.map(\.id), &out)
    }

    /// `resetCustomizable` given the root ids in order.
    private mutating func resetCustomizable(to all: [String], _ out: inout Outcome) {
        if customizable != all { customizable = all }
        out.notify(.customizableChanged(tabs: all))
    }

    private struct SelectionSnapshot {
        var selection: Selection
        var index: Int?
        /// The selected path (R13.2) of a controller arranged with R13, else nil.
        var path: [String]?
    }

    private var selectionSnapshot: SelectionSnapshot {
        SelectionSnapshot(selection: selection, index: selectedIndex, path: arranged ? selectedPath : nil)
    }

    /// R2.2: the same tab by id, else the same index, else index 0, else nothing.
    /// More stays selected while it is still shown. `removedSelected`: the selected child
    /// was removed (its disappearance was already sent). `named`: the selection the change
    /// names (R2.6), which wins.
    private mutating func reselect(after before: SelectionSnapshot, removedSelected: Bool, named: String? = nil,
                                   cause: SelectionCause, replacement: Bool = false, _ out: inout Outcome) {
        if arranged || before.path != nil {
            return reselectArranged(after: before, removedSelected: removedSelected, named: named, cause: cause,
                                    replacement: replacement, &out)
        }
        var next: Selection = named.map { .tab($0) } ?? .none
        switch named == nil ? before.selection : .none {
        case .tab(let id) where self.index(of: id) != nil:
            next = .tab(id)
        case .tab:
            if let i = before.index, i < tabs.count { next = .tab(tabs[i].id) }
        case .more where moreShown:
            next = .more
        default:
            break
        }
        if next == .none, let first = tabs.first { next = .tab(first.id) }
        let previous = before.selection
        if removedSelected || previous != next {
            selection = .none
            appear(next, disappearing: removedSelected ? .none : previous, &out)
        }
        selection = next
        if previous != next || before.index != selectedIndex {
            out.notify(.selectionChanged(tab: next.wireValue, index: selectedIndex,
                                                       previous: previous.wireValue, cause: cause))
        }
    }

    /// R2.2 with R13.8: the selected leaf stays selected while its id is in the tree (the
    /// path follows it), else the deepest tab of the old path still in the tree, else the
    /// root at the same index, else index 0 — never a hidden tab (R13.3's search instead);
    /// appearance calls on the leaves.
    /// `replacement`: the tab list was replaced (set_tabs, add_tab, remove_tab), after which
    /// the selection is never an unreachable tab either.
    private mutating func reselectArranged(after before: SelectionSnapshot, removedSelected: Bool, named: String?,
                                           cause: SelectionCause, replacement: Bool, _ out: inout Outcome) {
        let oldPath = before.path ?? (before.selection.wireValue.map { [$0] } ?? [])
        var path: [String]?
        // A controller no longer arranged (no group left) has no nodes: its tabs are roots.
        func landing(_ id: String) -> [String]? {
            if !arranged { return index(of: id) == nil ? nil : [id] }
            return layout.node(id).map(visibleLanding)
        }
        let namedPath = named.flatMap(landing)
        if let namedPath {
            path = namedPath
        } else if case .more = before.selection, moreShown {
            path = [Controller.moreID]
        } else if case .tab = before.selection {
            for id in oldPath.reversed() {
                if let p = landing(id) { path = p; break }
            }
            if path == nil, let i = before.index, i < tabs.count { path = landingPath(ofRoot: tabs[i]) }
        }
        if path == nil { path = tabs.first.map(landingPath(ofRoot:)) ?? [] }
        // R13.8, R3.6: after a replacement, never an unreachable tab — on tv, a root off the
        // bar — unless the replacement names it (as a select may): R13.3's search from that
        // root instead.
        if replacement, namedPath == nil, arranged, idiom == .tv, let root = path?.first,
           root != Controller.moreID, !layout.shown.contains(root) {
            let reachable = fallbackPath(hiding: root)
            if !reachable.isEmpty { path = reachable }
        }
        let newPath = path!
        selection = .none
        if newPath == [Controller.moreID] { selection = .more } else if let root = newPath.first { selection = .tab(root) }
        remember(newPath)
        if removedSelected || oldPath != newPath {
            appearLeaves(old: removedSelected ? nil : oldPath.last, new: newPath.last, &out)
        }
        if oldPath != newPath || before.index != selectedIndex {
            out.notify(.selectionChanged(tab: selection.wireValue, index: selectedIndex, previous: before.selection.wireValue,
                                         cause: cause, path: newPath, previousPath: oldPath))
        }
    }

    /// Where a selection of `node` lands, or, when it or a group above it is hidden, where
    /// R13.3's search for the nearest visible tab leads instead.
    func visibleLanding(_ node: TreeNode) -> [String] {
        if node.hidden, let top = node.path.first(where: { tab($0)?.hidden == true }) { return fallbackPath(hiding: top) }
        return (try? landing(at: node))?.path ?? []
    }

    // MARK: Tab properties

    /// `update_tab` of any tab of the tree. Only a root tab's orientations count towards the
    /// controller's (R9.1, R13.1): a nested tab's change is never refused for them.
    private mutating func updateTab(_ id: String, _ update: TabUpdate, _ out: inout Outcome) throws(TabError) {
        guard let at = locate(id) else { throw .noTab(id) }
        let old = self[at: at]
        var tab = old
        update.apply(to: &tab, arranging: false)
        if update.navigation == .set(false) { tab.stack = [] }  // no longer a navigation stack: its screens go (as R2.5)
        // R13.12: only a group has an expansion, and expanded is its default (nil).
        if case .set(let v) = update.expanded { tab.expanded = old.children == nil ? old.expanded : v == false ? false : nil }
        tab.keepForm(of: old)
        if update.arranges {
            // R13.8: the tab as described, its children matched to the tree by identity.
            update.apply(to: &tab, arranging: true)
            guard tab != old else { return }
            try refuseWhileCustomizing("change a tab's place in the tree")
            if original { throw TabError(.invalid, "update_tab of R13 fields was not a command before issue 30") }
            var roots = tabs
            Controller.modify(&roots, at: at) { $0 = tab }
            try Controller.validateTree(roots)
            try Controller.requireCommonOrientation(roots, naming: id)
            let sidebarBefore = sidebarAvailable
            try replaceTree(roots, as: .update(id), named: nil, &out)
            // R13.12: a group collapsed or expanded by the same update. (A sidebar that came or
            // went is announced once, by `applyOnce`.)
            if self.tab(id)?.isExpanded != old.isExpanded, sidebarBefore, sidebarAvailable {
                out.notify(.sidebarChanged(visible: sidebarVisible))
            }
            return
        }
        guard tab != old else { return }
        let root = at.count == 1
        if root, tab.supportedOrientations != old.supportedOrientations, !original {
            var all = tabs
            all[at[0]] = tab
            try Controller.requireCommonOrientation(all, naming: id)
        }
        if root { tabs[at[0]] = tab } else { modify(at: at) { $0 = tab } }
        if old.arranges != tab.arranges || old.enabled != tab.enabled { refreshArranged() }
        out.notify(.tabUpdated(tab: id))
        if tab.badge != old.badge { out.notify(.badgeChanged(tab: id, value: tab.badge)) }
        if tab.stack != old.stack { out.notify(.navigationChanged(tab: id, stack: tab.stack)) }
        if tab.isExpanded != old.isExpanded, sidebarAvailable { out.notify(.sidebarChanged(visible: sidebarVisible)) }
        // The orientation is always one the tabs support (R9.1): only a change of this tab's
        // can leave it unsupported (the check reads every tab).
        if tab.supportedOrientations != old.supportedOrientations { reorientIfUnsupported(&out) }
    }

    /// R8: a badge changes nothing but the badge.
    private mutating func setBadge(_ id: String, _ value: String?, _ out: inout Outcome) throws(TabError) {
        guard let index = self.index(of: id) else {
            guard let at = locate(id) else { throw .noTab(id) }
            guard self[at: at].badge != value else { return }
            modify(at: at) { t in if t.item == nil { t.item = TabItem(badge: value) } else { t.item!.badge = value } }
            return out.notify(.badgeChanged(tab: id, value: value))
        }
        guard tabs[index].badge != value else { return }
        if tabs[index].item == nil {
            tabs[index].item = TabItem(badge: value)
        } else {
            tabs[index].item!.badge = value
        }
        out.notify(.badgeChanged(tab: id, value: value))
    }

    // MARK: R4 — selection

    /// Resolves a target to a candidate, or throws R4.5's errors.
    public func candidate(for target: SelectTarget) throws(TabError) -> Candidate {
        switch target {
        case .tab(let id):
            guard let index = self.index(of: id) else { throw .noTab(id) }
            return .tab(id: id, index: index)
        case .index(let index):
            guard index >= 0, index < tabs.count else {
                throw TabError(.outOfRange, tabs.isEmpty
                    ? "index \(index) is out of range: the controller has no tabs"
                    : "index \(index) is out of range: \(TabError.allowed(upTo: tabs.count - 1)) (\(tabs.count) tab\(tabs.count == 1 ? "" : "s"))")
            }
            return .tab(id: tabs[index].id, index: index)
        case .more:
            guard idiom != .tv else { throw TabError(.notAvailable, "the tv idiom has no More item") }
            return .more
        }
    }

    /// R4.1: programmatic selection; the delegate is not consulted.
    private mutating func select(_ target: SelectTarget, _ out: inout Outcome) throws(TabError) {
        if arranged {
            if case .tab(let id) = target {
                // The common case, a tab that is not a group: the same move, in one pass.
                guard let node = layout.node(id) else { throw .noTab(id) }
                if node.landsOnItself { return moveSelection(toLeaf: node, cause: .select, &out) }
                let (path, leaf) = try landing(at: node)
                // A group: its leaf is a node too, in one pass when it lands on itself.
                if let leaf, leaf.landsOnItself { return moveSelection(toLeaf: leaf, cause: .select, &out) }
                return moveSelection(to: path, leaf: leaf, cause: .select, &out)
            }
            let (path, leaf) = try landing(for: target)
            return moveSelection(to: path, leaf: leaf, cause: .select, &out)
        }
        let candidate = try candidate(for: target)
        if case .more = candidate, !moreShown, !original {
            // R3.7: as for a tap, More must be on the bar.
            throw TabError(.notAvailable, "More is not on the bar: the controller has \(tabs.count) tab(s) and shows up to \(maxVisible)")
        }
        changeSelection(to: candidate, cause: .select, &out)
    }

    /// R4.2–R4.4: a user's tap.
    private mutating func tap(_ target: TapTarget, policy: Policy, _ out: inout Outcome) throws(TabError) {
        if arranged { return try tapArranged(target, policy: policy, &out) }
        let candidate: Candidate
        switch target {
        case .tab(let id):
            candidate = try self.candidate(for: .tab(id))
            if idiom == .tv, let index = candidate.index, index >= barTabCount {
                throw TabError(.notAvailable, "tab '\(id)' does not fit on the tv bar and cannot be tapped")
            }
        case .more:
            candidate = try self.candidate(for: .more)
            guard moreShown else {
                throw TabError(.notAvailable, "More is not on the bar: the controller has \(tabs.count) tab(s) and shows up to \(maxVisible)")
            }
        }
        // The delegate's effects gather in a local array, handed to `out` once at the end:
        // `&out.effects` rebuilt the outcome's boxed answers twice per call (~400 instructions).
        var effects: [PolicyEffect] = []
        defer { if !effects.isEmpty { out.effects.append(contentsOf: effects) } }
        guard allowsTap(candidate, policy: policy, &effects, &out) else { return }
        // What a tap can change: the selection (and with it a tab's content loading, which
        // happens only when the selection moves) and the tapped tab's stack. The delegate's
        // did-select sees a copy and changes nothing.
        let selectionBefore = selection
        var poppedToRoot = false
        // R4.3: a tap shows the tab's root (with `tap_pops: reselect`, only a tap on the
        // selected tab). The pop comes before the appearance calls, so a front end applying
        // events in order never shows the deep screen.
        if case .tab(let id, let index) = candidate, !tabs[index].stack.isEmpty,
           tapPops == .always || selection == .tab(id) {
            tabs[index].stack.removeAll()
            poppedToRoot = true
            out.notify(.navigationChanged(tab: id, stack: []))
        }
        changeSelection(to: candidate, cause: .tap, &out)
        out.notify(.didSelect(tab: candidate.id, index: candidate.index))
        lend { policy.didSelect(candidate, in: $0, effects: &effects) }
        if selection != selectionBefore || poppedToRoot { out.journalsCommand = true }
    }

    /// R4.2's should-select for a tap: true when the delegate allows it, else false with the
    /// refusal in `out` (and nothing changed). `effects`: the delegate's, gathered by the caller.
    @inline(__always)
    private mutating func allowsTap(_ candidate: Candidate, policy: Policy, _ effects: inout [PolicyEffect], _ out: inout Outcome) -> Bool {
        guard case .deny(let by, let reason, let message) = lend({ policy.shouldSelect(candidate, in: $0, effects: &effects) }) else { return true }
        refuse(candidate, by: by, reason: reason, message: message, &out)
        return false
    }

    /// R4.2–R4.4 with R13.2 and R13.8: a tap on what the user can touch now; should-select
    /// sees the tapped tab, did-select reports it with the path to the leaf it shows.
    private mutating func tapArranged(_ target: TapTarget, policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard case .tab(let id) = target else { return try tapMoreArranged(policy: policy, &out) }
        // The leaf is not optional (More is `tapMoreArranged`'s) and the tapped node is not
        // kept: a node unwrapped from an optional, or bound across the controller's mutating
        // calls, was retained and released around each of them (BENCHMARKS.md, issue 30).
        let (leaf, rootIndex) = try tapped(id)
        let candidate = Candidate.tab(id: id, index: rootIndex)
        // The delegate's effects gather in a local array, handed to `out` once at the end (as
        // in `tap`).
        var effects: [PolicyEffect] = []
        defer { if !effects.isEmpty { out.effects.append(contentsOf: effects) } }
        guard allowsTap(candidate, policy: policy, &effects, &out) else { return }
        // The start of the command, what the last one left: its node (compared, not kept: a
        // reference is a retain and a release) and, for did_select, its leaf.
        let start = ObjectIdentifier(current)
        let previous = out.recordsNotifications ? current.path.last : nil
        var popped = false
        // R4.3, R13.8: the tap shows the leaf it lands on at its root (with `reselect`, only a
        // tap on a tab of the selected path).
        if !Self.stackIsEmpty(at: leaf.address, in: tabs), tapPops == .always || current.path.contains(id) {
            modify(at: leaf.address) { $0.stack.removeAll() }
            popped = true
            out.notify(.navigationChanged(tab: leaf.id, stack: []))
        }
        if leaf.landsOnItself { moveSelection(toLeaf: leaf, cause: .tap, &out) }
        else { moveSelection(to: leaf.path, leaf: leaf, cause: .tap, &out) }
        out.notify(.didSelect(tab: id, index: rootIndex, leaf: LeafChange(path: leaf.path, previous: previous)))
        lend { policy.didSelect(candidate, in: $0, effects: &effects) }
        // `current` is the node the move left: another node is another path (a move to the
        // same leaf keeps the node; the start's node was alive beside the leaf's, so their
        // identities differ).
        if ObjectIdentifier(current) != start || popped { out.journalsCommand = true }
    }

    /// `tapArranged`'s checks of the tapped tab `id` (R13.3, R13.8, R14.2): the leaf it lands
    /// on (`landing(at:)`'s, without its path) and its root's index, or why the user cannot
    /// tap it. Mutating though it changes nothing: the controller is then reached in place (a
    /// non-mutating call copied 176 bytes of it first).
    @inline(__always)
    private mutating func tapped(_ id: String) throws(TabError) -> (leaf: TreeNode, rootIndex: Int) {
        guard let node = layout.node(id) else { throw .noTab(id) }
        let leaf = node.hidden ? try landing(at: node).leaf! : node.leaf(in: tabs)
        // R14.2: a disabled tab (or one in a disabled group) is refused before the delegate.
        if let off = node.disabled { throw Self.disabledTap(id, in: off) }
        guard Self.onScreen(node, from: current, layout, barHidden: barHidden, tv: idiom == .tv) || touchableInSidebar(node) else {
            throw Self.untouchableTap(id)
        }
        return (leaf, node.rootIndex)
    }

    /// `tapArranged` of More (R3.7): the bar's More item, which lands on More's list.
    private mutating func tapMoreArranged(policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard idiom != .tv else { throw TabError(.notAvailable, "the tv idiom has no More item") }
        guard moreShown else { throw moreNotShown }
        var effects: [PolicyEffect] = []
        defer { if !effects.isEmpty { out.effects.append(contentsOf: effects) } }
        guard allowsTap(.more, policy: policy, &effects, &out) else { return }
        let start = ObjectIdentifier(current)
        let previous = out.recordsNotifications ? current.path.last : nil
        moveSelection(to: [Controller.moreID], cause: .tap, &out)
        out.notify(.didSelect(tab: Controller.moreID, index: nil, leaf: LeafChange(path: [Controller.moreID], previous: previous)))
        lend { policy.didSelect(.more, in: $0, effects: &effects) }
        if ObjectIdentifier(current) != start { out.journalsCommand = true }
    }

    /// The refusals of a tap, made out of line: their sentences kept `tapArranged` too big for
    /// the calls it makes on every tap to be inlined (each copied the controller).
    @inline(never)
    private static func disabledTap(_ id: String, in off: String) -> TabError {
        TabError(.notAvailable, off == id ? "tab '\(id)' is disabled; enable it with set_enabled, or select it" : "tab '\(id)' is in the disabled group '\(off)'; enable it with set_enabled, or select it")
    }

    @inline(never)
    private static func untouchableTap(_ id: String) -> TabError {
        TabError(.notAvailable, "tab '\(id)' is not on the bar, in More's list, in the sidebar or inside the selected tab, so the user cannot tap it; use select")
    }

    /// R13.8, with `touchableInSidebar`: whether the user can touch `node` now: an item of the
    /// bar, a tab of More's list, a tab of the selected root's subtree (or a sidebar item, the
    /// sidebar shown). What it reads is passed in: a tap calls it without copying the
    /// controller. `current`: the selected path's node.
    @inline(__always)
    private static func onScreen(_ node: TreeNode, from current: TreeNode, _ layout: TreeLayout, barHidden: Bool, tv: Bool) -> Bool {
        // Roots compared by their indices (a node of this layout has its address; a path's
        // own node has none), else ids by their words (`InlineID.same`).
        if current.rootIndex >= 0 { if current.rootIndex == node.rootIndex { return true } }
        else if let root = current.path.first, InlineID.same(node.path[0], root) { return true }
        guard !barHidden else { return false }
        // A root tab's bar item is itself when it is on the bar, More when it is in More's
        // list (not on tv), none otherwise (`refreshArranged`).
        if node.address.count == 1 { return node.barItem != nil }
        return layout.shown.contains(where: { InlineID.same($0, node.id) })
            || !tv && layout.rest.contains(where: { InlineID.same($0, node.id) })
    }

    /// R13.12: a sidebar item inside a collapsed group is not shown.
    private func touchableInSidebar(_ node: TreeNode) -> Bool {
        sidebarAvailable && sidebarVisible && node.path.dropLast().allSatisfy { tab($0)?.isExpanded != false }
    }

    /// The delegate refused a tap: nothing changes; the outcome carries the `denied` error,
    /// with the delegate's own sentence when it gave one.
    private func refuse(_ candidate: Candidate, by: String, reason: String, message: String?, _ out: inout Outcome) {
        out.refusal = TabError(.denied, message ?? "'\(by)' refused selecting '\(candidate.id)': \(reason)", plugin: by, reason: reason)
    }

    /// Moves the selection, sending R5.1's appearance calls and R4.6's state change.
    private mutating func changeSelection(to candidate: Candidate, cause: SelectionCause, _ out: inout Outcome) {
        // Compared in place: a select runs this, and each Selection copied is a string retained.
        switch candidate {
        case .tab(let id, _): if case .tab(let current) = selection, current == id { return }
        case .more: if case .more = selection { return }
        }
        var previous: Selection
        switch candidate {
        case .tab(let id, _): previous = .tab(id)
        case .more: previous = .more
        }
        // The bar's selected item moved, unless the new selection shows the same item as the
        // old: only possible when it is not a tab on the bar (More, a tab under More, a tv tab
        // off the bar), so the old one's index is looked up only then.
        let slot = barSlot(of: candidate)
        if slot >= 0 || slot != barSlot(of: selection, index: selectedIndex) { out.barMoved = true }
        swap(&previous, &selection)  // the new selection in, the old one out, nothing copied
        appear(selection, at: candidate.index, disappearing: previous, &out)
        guard out.recordsNotifications || out.recordsSelectionChanges else { return out.skip(1) }
        out.notify(.selectionChanged(tab: selection.wireValue, index: candidate.index,
                                     previous: previous.wireValue, cause: cause))
    }

    /// R5.1/R5.2: old will-disappear, new will-appear, old did-disappear, new did-appear;
    /// the new tab's content is loaded first if it never was.
    /// `nextIndex`: the new tab's index when the caller knows it (spares a lookup).
    private mutating func appear(_ next: Selection, at nextIndex: Int? = nil, disappearing old: Selection, _ out: inout Outcome) {
        if case .tab(let id) = next, let index = nextIndex ?? self.index(of: id), !tabs[index].contentLoaded {
            tabs[index].contentLoaded = true
            out.notify(.contentLoaded(tab: id))
        }
        guard out.recordsNotifications else {
            // Nobody reads them (a select without subscribers): counted, not built.
            return out.skip((old.isNone ? 0 : 2) + (next.isNone ? 0 : 2))
        }
        let leaving = old.wireValue, coming = next.wireValue  // once each
        if let id = leaving { out.notify(.appearance(tab: id, phase: .willDisappear)) }
        if let id = coming { out.notify(.appearance(tab: id, phase: .willAppear)) }
        if let id = leaving { out.notify(.appearance(tab: id, phase: .didDisappear)) }
        if let id = coming { out.notify(.appearance(tab: id, phase: .didAppear)) }
    }

    // MARK: R6 — navigation stacks

    private mutating func navigationTab(_ id: String) throws(TabError) -> [Int] {
        guard let at = locate(id) else { throw .noTab(id) }
        if let kids = self[at: at].children, !kids.isEmpty {
            // R13.8: a group that has children shows its leaf; the stack is the leaf's.
            throw TabError(.notAvailable, "tab '\(id)' is a group: its stack is its leaf's; push or pop '\(shownChildID(of: id) ?? kids[0].id)', the tab it shows")
        }
        guard self[at: at].navigation else {
            throw TabError(.notAvailable, "tab '\(id)' is not a navigation stack (create it with \"navigation\": true)")
        }
        return at
    }

    private mutating func push(_ id: String, _ screen: Screen, _ out: inout Outcome) throws(TabError) {
        let at = try navigationTab(id)
        guard !screen.id.isEmpty else { throw TabError(.invalid, "a screen needs a non-empty id") }
        if at.count == 1 {
            tabs[at[0]].stack.append(screen)
        } else {
            modify(at: at) { $0.stack.append(screen) }
        }
        out.notify(.navigationChanged(tab: id, stack: self[at: at].stack))
    }

    private mutating func pop(_ id: String, toRoot: Bool, _ out: inout Outcome) throws(TabError) {
        let at = try navigationTab(id)
        if self[at: at].stack.isEmpty {
            if toRoot { return }
            throw TabError(.conflict, "tab '\(id)' shows its root screen; the root cannot be popped")
        }
        modify(at: at) { t in if toRoot { t.stack.removeAll() } else { t.stack.removeLast() } }
        out.notify(.navigationChanged(tab: id, stack: self[at: at].stack))
    }

    // MARK: R7 — customization

    private mutating func setCustomizable(_ ids: [String]?, _ out: inout Outcome) throws(TabError) {
        let wanted = Set(ids ?? [])
        for id in ids ?? [] where self.index(of: id) == nil { throw .noTab(id) }
        let ordered = tabs.map(\.id).filter(wanted.contains)
        guard ordered != customizable else { return }
        customizable = ordered
        out.notify(.customizableChanged(tabs: ordered))
    }

    private mutating func customizeBegin(policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard idiom != .tv else { throw TabError(.notAvailable, "the tv idiom has no customization") }
        guard !sidebarAvailable || original else {
            throw TabError(.notAvailable, "controller '\(name)' has a sidebar: the user edits it with edit.begin and edit.end (R14.6), not customize")
        }
        guard !arranged else {
            throw TabError(.notAvailable, "controller '\(name)' arranges its bar with groups, placement or hidden tabs (R13); the user rearranges it with reorder, not customize")
        }
        guard moreShown else {
            throw TabError(.notAvailable, "customization needs More: more than \(maxVisible) tabs (the controller has \(tabs.count))")
        }
        guard !customizable.isEmpty || original else {
            // R7.1: UIKit hides the Edit button.
            throw TabError(.notAvailable, "no tab is customizable; send customizable with the tabs the user may rearrange first")
        }
        guard customizingOrder == nil else { throw TabError(.conflict, "a customization session is already running") }
        let order = tabs.map(\.id)
        customizingOrder = order
        customizingStart = order
        // R7.2: the configuration screen shows the customizable tabs only, in order.
        out.notify(.willBeginCustomizing(tabs: customizable))
        let announced = customizable
        lend { policy.willBeginCustomizing(tabs: announced, in: $0, effects: &out.effects) }
    }

    private mutating func customizeMove(_ id: String, to: Int, _ out: inout Outcome) throws(TabError) {
        guard var order = customizingOrder else {
            throw TabError(.conflict, "no customization session is running (send customize.begin first)")
        }
        guard let from = order.firstIndex(of: id) else { throw .noTab(id) }
        guard to >= 0, to < order.count else {
            throw TabError(.outOfRange, "position \(to) is out of range: \(TabError.allowed(upTo: order.count - 1))")
        }
        guard customizable.contains(id) else {
            throw TabError(.conflict, "tab '\(id)' is not customizable")
        }
        guard from != to else { return }
        if customizable.count != tabs.count {
            // R7.3: a tab that is not customizable keeps its side of the bar. Only the tabs
            // between `from` and `to` shift, by one; the first one (in tab order) that would
            // cross is named.
            let onBar = barTabCount
            let movable = Set(customizable)
            for tab in tabs where !movable.contains(tab.id) {
                let was = order.firstIndex(of: tab.id)!
                let now = from < to ? (was > from && was <= to ? was - 1 : was) : (was >= to && was < from ? was + 1 : was)
                let before = was < onBar
                if before != (now < onBar) {
                    throw TabError(.conflict, "moving '\(id)' to \(to) would move the non-customizable tab '\(tab.id)' \(before ? "off the bar into More" : "from More onto the bar")")
                }
            }
        }
        customizingOrder = nil  // the order's storage unshared while it moves
        order.remove(at: from)
        order.insert(id, at: to)
        customizingOrder = order
        // Moves notify nobody until the session ends, but they are state: journal them.
        out.journalsCommand = true
    }

    private mutating func customizeEnd(policy: Policy, _ out: inout Outcome) throws(TabError) {
        guard let order = customizingOrder, let start = customizingStart else {
            throw TabError(.conflict, "no customization session is running")
        }
        let changed = order != start
        out.notify(.willEndCustomizing(tabs: order, changed: changed))
        lend { policy.willEndCustomizing(tabs: order, changed: changed, in: $0, effects: &out.effects) }
        let before = selectionSnapshot
        if changed {
            let byID = Dictionary(uniqueKeysWithValues: tabs.map { ($0.id, $0) })
            tabs = order.map { byID[$0]! }
            rebuildIndex()
        }
        customizingOrder = nil
        customizingStart = nil
        out.notify(.didEndCustomizing(tabs: order, changed: changed))
        lend { policy.didEndCustomizing(tabs: order, changed: changed, in: $0, effects: &out.effects) }
        // The customizable set is kept in tab order: announced when that order moved, so that
        // a client keeps it from events without reordering it itself.
        let reordered = tabs.map(\.id).filter(Set(customizable).contains)
        if reordered != customizable {
            customizable = reordered
            out.notify(.customizableChanged(tabs: reordered))
        }
        // R7.4: the selected tab stays selected; its index may have moved.
        if before.index != selectedIndex {
            out.notify(.selectionChanged(tab: selection.wireValue, index: selectedIndex,
                                                       previous: before.selection.wireValue, cause: .customize))
        }
    }

    func refuseWhileCustomizing(_ what: String) throws(TabError) {
        if customizingOrder != nil {
            throw TabError(.conflict, "cannot \(what) during a customization session; send customize.end first")
        }
    }

    // MARK: R9 — orientation

    /// R9.3: the supported set decides; the preference is asked once the controller turned
    /// (or did not): both answers go with the outcome.
    private mutating func rotate(to new: Orientation, policy: Policy, _ out: inout Outcome) {
        let proposed = tabsOrientations
        let supported = lend { policy.supportedOrientations(proposed: proposed, in: $0, effects: &out.effects) }
        out.rotated = supported.contains(new.mask)
        if out.rotated == true, new != orientation {
            setOrientation(new, &out)
            out.rewrittenJournal = .setOrientation(new)
        }
        let preferred = lend { policy.preferredOrientation(in: $0, effects: &out.effects) }
        out.orientations = OrientationDecision(supported: supported, preferred: preferred ?? self.preferred(among: supported))
    }

    /// R9.4: the supported set is never empty. Refuses (`conflict`) tabs with no orientation
    /// in common, naming `changed` (the tab added or updated) or else the first tab that
    /// leaves the ones before it nothing in common.
    static func requireCommonOrientation(_ tabs: [Tab], naming changed: String? = nil) throws(TabError) {
        var common = OrientationMask.all
        for t in tabs { common.formIntersection(t.supportedOrientations) }
        guard common.isEmpty, let first = tabs.first else { return }
        var culprit = first, others = OrientationMask.all
        if let changed, let t = tabs.first(where: { $0.id == changed }) {
            culprit = t
            for o in tabs where o.id != changed { others.formIntersection(o.supportedOrientations) }
        } else {
            for t in tabs {
                if others.intersection(t.supportedOrientations).isEmpty { culprit = t; break }
                others.formIntersection(t.supportedOrientations)
            }
        }
        func names(_ m: OrientationMask) -> String { m.isEmpty ? "no orientation" : m.orientations.map(\.rawValue).joined(separator: ", ") }
        let theirs = others.isEmpty ? "the other tabs share none" : "the other tabs only \(names(others))"
        throw TabError(.conflict, "tab '\(culprit.id)' supports \(names(culprit.supportedOrientations)) and \(theirs); tabs must have an orientation in common, so give '\(culprit.id)' one the others support")
    }

    /// R9.4: after a change of tabs, an orientation the tabs no longer all support gives way
    /// to the first one they do (in `Orientation.allCases` order: portrait first) — the
    /// preferred orientation when no delegate has a say, since the current one is out.
    /// Decided from the tabs alone, not the delegate (policy plugins): the journal records
    /// the command, not the rotation, and replay (which runs without plugins) must land in
    /// the same orientation.
    private mutating func reorientIfUnsupported(_ out: inout Outcome) {
        if original { return }
        let supported = tabsOrientations
        guard !supported.contains(orientation.mask), let first = supported.orientations.first else { return }
        setOrientation(first, &out)
    }

    private mutating func setOrientation(_ new: Orientation, _ out: inout Outcome) {
        guard new != orientation else { return }
        let old = orientation
        orientation = new
        out.notify(.orientationChanged(from: old, to: new))
    }

    // MARK: R10 — layout

    /// The bar's height in points for this idiom.
    public var barHeight: Double {
        switch idiom {
        case .phone: return 49
        case .pad: return 50
        case .tv: return 68
        }
    }

    /// R10.1: bar and content frames for a screen. Content never underlaps the bar; a tab
    /// with full-screen layout underlaps the status bar (phone/pad only).
    public func layout(width: Double, height: Double, statusBar: Double? = nil) -> (bar: Frame, content: Frame) {
        let status = idiom == .tv ? 0 : (statusBar ?? 20)
        let bar = barHidden ? 0 : min(barHeight, height)  // R14.3: no bar inset while hidden
        if idiom == .pad, sizeClass == .regular {
            // R13.11: a regular-width pad's bar is at the top, under the status bar; content
            // starts below it (a full-screen tab still never underlaps the bar), or under the
            // status bar while the bar is hidden.
            var fullScreen = false
            if case .tab(let id) = selection, let t = tab(id) { fullScreen = t.fullScreenLayout }
            let top = min(status, height - bar)
            let contentTop = bar > 0 ? top + bar : (fullScreen ? 0 : top)
            return (Frame(x: 0, y: top, width: width, height: bar),
                    Frame(x: 0, y: contentTop, width: width, height: max(0, height - contentTop)))
        }
        if idiom == .tv {
            return (Frame(x: 0, y: 0, width: width, height: bar),
                    Frame(x: 0, y: bar, width: width, height: max(0, height - bar)))
        }
        var fullScreen = false
        if case .tab(let id) = selection, let t = tab(id) { fullScreen = t.fullScreenLayout }
        let top = fullScreen ? 0 : min(status, height - bar)
        return (Frame(x: 0, y: height - bar, width: width, height: bar),
                Frame(x: 0, y: top, width: width, height: max(0, height - bar - top)))
    }

    // MARK: R11 — state preservation

    /// The address of every tab of the tree, parents first, children in `children` order:
    /// the tabs' indices for a controller without groups.
    var treeAddresses: [[Int]] {
        var all: [[Int]] = []
        all.reserveCapacity(tabs.count)
        func visit(_ t: Tab, _ at: [Int]) {
            all.append(at)
            for (i, k) in (t.children ?? []).enumerated() { visit(k, at + [i]) }
        }
        for (i, t) in tabs.enumerated() { visit(t, [i]) }
        return all
    }

    /// Every tab of the tree, in `treeAddresses` order.
    private var treeTabs: [Tab] {
        var all: [Tab] = []
        func visit(_ t: Tab) { all.append(t); for k in t.children ?? [] { visit(k) } }
        for t in tabs { visit(t) }
        return all
    }

    /// R11.1–R11.2, R13.8: the restoration path of each tab of the tree (nil without a
    /// restoration id), in `treeAddresses` order (for a controller without groups: tab
    /// order). It never depends on the tab id (R11.1: a tab renamed between preserve and
    /// restore keeps its stack): the restoration id alone when no other tab has it, else
    /// "<restoration id>#<n>", n counting the tabs with that restoration id from 0 in that
    /// order, so paths stay unique (R11.2). '\\' and '#' are escaped in the restoration id so
    /// the first unescaped '#' always ends it (ids may contain '#').
    public var restorationPaths: [String?] { Self.restorationPaths(of: treeTabs) }

    private static func restorationPaths(of all: [Tab]) -> [String?] {
        var count: [String: Int] = [:]
        for t in all { if let rid = t.restorationID { count[rid, default: 0] += 1 } }
        var seen: [String: Int] = [:]
        return all.map { t in
            guard let rid = t.restorationID else { return nil }
            let escaped = Self.escaped(rid)
            guard count[rid]! > 1 else { return escaped }
            let n = seen[rid, default: 0]
            seen[rid] = n + 1
            return escaped + "#" + String(n)
        }
    }

    /// The restoration path of one of the controller's tabs, at any depth (see `restorationPaths`).
    public func restorationPath(of tab: Tab) -> String? {
        guard tab.restorationID != nil, let i = treeTabs.firstIndex(where: { $0.id == tab.id }) else { return nil }
        return restorationPaths[i]
    }

    /// The path tabd 0.1.0 gave a tab: "<restoration id>#<tab id>".
    private static func legacyPath(_ tab: Tab) -> String? {
        tab.restorationID.map { escaped($0) + "#" + tab.id }
    }

    private static func escaped(_ rid: String) -> String {
        var path = ""
        for ch in rid {
            if ch == "#" || ch == "\\" { path.append("\\") }
            path.append(ch)
        }
        return path
    }

    /// The restoration id a path starts with (undoing `restorationPath`'s escapes).
    static func restorationID(inPath path: String) -> String {
        var rid = "", escaped = false
        for ch in path {
            if escaped { rid.append(ch); escaped = false }
            else if ch == "\\" { escaped = true }
            else if ch == "#" { break }
            else { rid.append(ch) }
        }
        return rid
    }

    /// R11.1, R13.8: what preservation saves: the selected leaf by restoration path (else the
    /// deepest tab of the selected path that has one), and the stacks of every tab of the tree
    /// that has a restoration id.
    public func preserve() -> RestorationArchive {
        var archive = RestorationArchive()
        let all = treeTabs
        let paths = Self.restorationPaths(of: all)
        if arranged {
            for id in selectedPath.reversed() {
                if let i = all.firstIndex(where: { $0.id == id }), let p = paths[i] { archive.selected = p; break }
            }
        } else if let i = selectedIndex {
            archive.selected = paths[i]
        }
        for (t, path) in zip(all, paths) { if let path { archive.stacks[path] = t.stack } }
        return archive
    }

    /// R11.1, R13.8: selects the saved tab by restoration id, wherever it is in the tree (the
    /// exact path first when ids repeat), never a hidden one; tabs without one return to their
    /// defaults.
    private mutating func restore(_ archive: RestorationArchive, _ out: inout Outcome) {
        // A format 1 or 2 journal's restore record replays with the paths tabd made then (see
        // `RestorationArchive.legacyPaths`), so that it restores what it restored then: root
        // tabs only, as then.
        let addresses = archive.legacyPaths ? tabs.indices.map { [$0] } : treeAddresses
        let all = addresses.map { self[at: $0] }
        let legacyPaths = all.map(Self.legacyPath)
        let paths = archive.legacyPaths ? legacyPaths : Self.restorationPaths(of: all)
        for k in all.indices {
            // Archives made before issue 17 named a stack "<restoration id>#<tab id>": read as
            // a last resort — unless that is another tab's path now.
            let path = paths[k]
            var legacy = archive.legacyPaths ? nil : legacyPaths[k]
            if let l = legacy, paths.contains(l) { legacy = nil }
            let stack = path.flatMap { archive.stacks[$0] } ?? legacy.flatMap { archive.stacks[$0] } ?? []
            let restored = all[k].navigation ? stack : []
            if all[k].stack != restored {
                modify(at: addresses[k]) { $0.stack = restored }
                out.notify(.navigationChanged(tab: all[k].id, stack: restored))
            }
        }
        var target: Int?
        if let path = archive.selected {
            target = paths.firstIndex { $0 == path }
            if target == nil, !archive.legacyPaths { target = legacyPaths.firstIndex { $0 == path } }
            if target == nil {
                let rid = Controller.restorationID(inPath: path)
                target = all.firstIndex { $0.restorationID == rid }
            }
        }
        if target == nil, !tabs.isEmpty { target = 0 }
        guard let target else { return }
        if arranged {
            // R13: never onto a hidden tab (R13.3), and down to the group's leaf (R13.2).
            guard let node = layout.node(all[target].id) else { return }
            return moveSelection(to: visibleLanding(node), cause: .restore, &out)
        }
        let next = Selection.tab(tabs[addresses[target][0]].id)
        guard next != selection else { return }
        let previous = selection
        appear(next, disappearing: previous, &out)
        selection = next
        out.notify(.selectionChanged(tab: next.wireValue, index: selectedIndex,
                                                   previous: previous.wireValue, cause: .restore))
    }

    // MARK: Helpers

    private mutating func rebuildIndex() {
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
    private mutating func reindex(from at: Int, inserted: Bool, removedID: String? = nil) {
        guard tabs.count > Self.linearLookupLimit, indexByID.count == tabs.count + (inserted ? -1 : 1) else { return rebuildIDIndex() }
        if let removedID { indexByID[removedID] = nil }
        for i in at..<tabs.count { indexByID[tabs[i].id] = i }
    }

    /// R2.5, R13.8: a tab that stays across a replacement, as its new description says (its
    /// children are matched by the caller): with the child's runtime state — its stack (while
    /// it is still a navigation stack), its loaded content, its badge unless the new
    /// description names one (a non-nil `item.badge`: a nil one cannot say "no badge" apart
    /// from "not given"), its `hidden` unless the description names it, and for a group its
    /// selected child and display order (new children at its end).
    static func staying(_ old: Tab, as new: Tab) -> Tab {
        var t = new
        t.keepsHidden = false
        if new.keepsHidden { t.hidden = old.hidden }
        // R13.12: a group's expansion, kept when the description does not say (stored as
        // false or nil: expanded).
        t.expanded = new.expanded.map { $0 ? nil : false } ?? old.expanded
        t.contentLoaded = old.contentLoaded
        t.stack = new.navigation ? old.stack : []
        // Never what the new description says of them (a journal record's tab carries both).
        t.selectedChild = nil
        t.displayOrder = nil
        if let kids = new.children {
            let ids = kids.map(\.id)
            if let s = old.selectedChild, ids.contains(s) { t.selectedChild = s }
            if let order = old.displayOrder {
                let present = Set(ids)
                var kept = order.filter(present.contains)
                var have = Set(kept)
                for id in ids where have.insert(id).inserted { kept.append(id) }
                if kept != ids { t.displayOrder = kept }
            }
        }
        if new.item?.badge == nil, let badge = old.badge {
            if t.item == nil { t.item = TabItem(badge: badge) } else { t.item!.badge = badge }
        }
        t.keepForm(of: old)
        return t
    }

    /// A tab as a client hands it in: runtime state starts fresh (its children as they are).
    static func freshOne(_ tab: Tab) -> Tab {
        var t = tab
        if t.keepsHidden { t.hidden = t.hiddenByDefault }  // R13.9: new to the tree
        t.keepsHidden = false
        if t.expanded == true { t.expanded = nil }
        t.contentLoaded = false
        if !t.navigation { t.stack = [] }
        t.selectedChild = nil
        t.displayOrder = nil
        return t
    }

    /// A tab and its subtree as a client hands them in.
    static func fresh(_ tab: Tab) -> Tab {
        var t = freshOne(tab)
        if let kids = t.children { t.children = kids.map(fresh) }
        return t
    }

    static func validate(_ tab: Tab) throws(TabError) {
        guard !tab.id.isEmpty else { throw TabError(.invalid, "a tab needs a non-empty id") }
        guard tab.id != moreID else {
            throw TabError(.invalid, "'more' is reserved for the More item and cannot be a tab id")
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

extension Controller {
    /// What makes this controller impossible (a state no sequence of commands produces), or
    /// nil. A snapshot whose checksum is right may still have been written by hand or by a
    /// buggy build: the store refuses it instead of trusting it.
    public var inconsistency: String? {
        let least = idiom == .tv ? 1 : 2
        guard maxVisible >= least, maxVisible <= 1000 else { return "controller '\(name)' has max_visible \(maxVisible)" }
        var ids = Set<String>()
        for t in tabs {
            do { try Self.validate(t) } catch { return "controller '\(name)': \(error.message)" }
            guard ids.insert(t.id).inserted else { return "controller '\(name)' has tab '\(t.id)' twice" }
        }
        if case .tab(let id) = selection, !ids.contains(id) { return "controller '\(name)' selects tab '\(id)', which it does not have" }
        guard Set(customizable).count == customizable.count, customizable.allSatisfy(ids.contains) else {
            return "controller '\(name)' has customizable tabs it does not have"
        }
        for order in [customizingOrder, customizingStart].compactMap({ $0 }) where order.count != tabs.count || Set(order) != ids {
            return "controller '\(name)' has a customizing order that is not its tabs"
        }
        if (customizingOrder == nil) != (customizingStart == nil) { return "controller '\(name)' has half a customization session" }
        return treeInconsistency
    }
}

extension Controller {
    /// The controller as the snapshot keeps it: the names Swift's Codable gave its fields,
    /// keys sorted, what holds its default left out where Codable left it out.
    func writeSnapshot(to w: inout JSONWriter) {
        var m = SortedMembers()
        m.add("name") { $0.string(name) }
        m.add("idiom") { idiom.write(to: &$0, .snapshot) }
        m.add("maxVisible") { $0.int(maxVisible) }
        m.add("tabs") { tabs.write(to: &$0, .snapshot) }
        m.add("selection") { selection.writeSnapshot(to: &$0) }
        m.add("customizable") { customizable.write(to: &$0, .snapshot) }
        if let customizingOrder { m.add("customizingOrder") { customizingOrder.write(to: &$0, .snapshot) } }
        if let customizingStart { m.add("customizingStart") { customizingStart.write(to: &$0, .snapshot) } }
        m.add("orientation") { orientation.write(to: &$0, .snapshot) }
        m.add("seq") { $0.int(Int(truncatingIfNeeded: seq)) }
        m.add("tapPops") { tapPops.write(to: &$0, .snapshot) }
        if mode != .automatic { m.add("mode") { mode.write(to: &$0, .snapshot) } }
        if !sidebarVisible { m.add("sidebarVisible") { $0.bool(false) } }
        if let barOrder { m.add("barOrder") { barOrder.write(to: &$0, .snapshot) } }
        if sizeClass != idiom.defaultSizeClass { m.add("sizeClass") { sizeClass.write(to: &$0, .snapshot) } }
        if let compactTabs { m.add("compactTabs") { compactTabs.write(to: &$0, .snapshot) } }
        if barHidden { m.add("barHidden") { $0.bool(true) } }
        if searchActive { m.add("searchActive") { $0.bool(true) } }
        if let searchReturn { m.add("searchReturn") { $0.string(searchReturn) } }
        if let editingStart { m.add("editingStart") { editingStart.writeSnapshot(to: &$0) } }
        m.write(to: &w)
    }

    /// A controller from the snapshot; what snapshots written before a field have not is its
    /// default.
    init(snapshot json: JSONValue, at path: String) throws(TabFieldError) {
        var r = try TabObjectReader.object(json, at: path, .snapshot, orNull: false, expected: "a controller object")
        name = try r.required("name")
        idiom = try r.required("idiom")
        maxVisible = try r.required("maxVisible")
        tapPops = try r.read("tapPops") ?? .always  // absent before issue 17
        mode = try r.read("mode") ?? .automatic  // R13's: absent before issue 18
        sidebarVisible = try r.read("sidebarVisible") ?? true
        barOrder = try r.read("barOrder")
        // R13.11–R14's: absent before issue 30.
        sizeClass = try r.read("sizeClass") ?? idiom.defaultSizeClass
        barHidden = try r.read("barHidden") ?? false
        searchActive = try r.read("searchActive") ?? false
        if let v = try r.read("compactTabs", as: [String].self) { compactTabs = v }
        if let v = try r.read("searchReturn", as: String.self) { searchReturn = v }
        if let v = r.take("editingStart") { editingStart = try EditingStart(snapshot: v, at: r.place("editingStart")) }
        tabs = try r.required("tabs")
        guard let selection = r.take("selection") else { throw TabFieldError(r.place("selection"), .missing) }
        self.selection = try Selection(snapshot: selection, at: r.place("selection"))
        customizable = try r.required("customizable")
        customizingOrder = try r.read("customizingOrder")
        customizingStart = try r.read("customizingStart")
        orientation = try r.required("orientation")
        let seq = try r.read("seq", as: Int.self) ?? 0  // snapshots written before seq was kept
        guard seq >= 0 else { throw TabFieldError(r.place("seq"), .type(expected: "a count")) }
        self.seq = UInt64(seq)
        rebuildIndex()
    }
}

extension Idiom: TabFieldName {}
extension Orientation: TabFieldName {}
extension TapPops: TabFieldName {}
extension Mode: TabFieldName {}
extension SizeClass: TabFieldName {}

extension Selection {
    /// Codable's synthesized form, which snapshots keep: `{"none":{}}`, `{"tab":{"_0":id}}`,
    /// `{"more":{}}`.
    func writeSnapshot(to w: inout JSONWriter) {
        w.beginObject()
        switch self {
        case .none: w.key(literal: "none"); w.beginObject(); w.endObject()
        case .tab(let id): w.key(literal: "tab"); w.beginObject(); w.key(literal: "_0"); w.string(id); w.endObject()
        case .more: w.key(literal: "more"); w.beginObject(); w.endObject()
        }
        w.endObject()
    }

    init(snapshot json: JSONValue, at path: String) throws(TabFieldError) {
        guard case .object(let o) = json, o.count == 1 else { throw TabFieldError(path, .type(expected: "a selection object")) }
        switch o.key(at: 0) {
        case "none": self = .none
        case "more": self = .more
        case "tab":
            var r = try TabObjectReader.object(o.value(at: 0), at: path + ".tab", .snapshot, orNull: false, expected: "an object")
            self = .tab(try r.required("_0"))
        default: throw TabFieldError(path, .type(expected: "a selection object"))
        }
    }
}

/// An object's members written in the order of their keys (Swift's String order), as
/// Codable's sorted keys wrote them: the snapshot's objects.
struct SortedMembers {
    private var members: [(key: String, write: (inout JSONWriter) -> Void)] = []

    mutating func add(_ key: String, _ write: @escaping (inout JSONWriter) -> Void) { members.append((key, write)) }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        for m in members.sorted(by: { $0.key < $1.key }) {
            w.key(m.key)
            m.write(&w)
        }
        w.endObject()
    }

    /// A dictionary's entries, keys sorted.
    static func write<V>(_ d: [String: V], to w: inout JSONWriter, _ value: (V, inout JSONWriter) -> Void) {
        w.beginObject()
        for k in d.keys.sorted() {
            w.key(k)
            value(d[k]!, &w)
        }
        w.endObject()
    }

    /// A dictionary's entries, read with `value`.
    static func read<V>(_ json: JSONValue, at path: String, _ value: (JSONValue, String) throws(TabFieldError) -> V) throws(TabFieldError) -> [String: V] {
        guard case .object(let o) = json else { throw TabFieldError(path, .type(expected: "an object")) }
        var out: [String: V] = [:]
        for (k, v) in o { out[k] = try value(v, path + "." + k) }
        return out
    }
}
