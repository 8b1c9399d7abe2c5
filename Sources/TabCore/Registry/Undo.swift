// Undoing a turn: the daemon undoes the changes of a turn whose journal records could not be
// made durable (`TabContainers.keepChanges` / `undoChanges`). What is kept to undo a change
// costs what the change touched, not the controller: a command that says what it does to the
// root tabs (`Controller.footprint`: writes some roots in place, or inserts or removes one)
// keeps the controller without its tabs once a turn and, per command, the old roots it writes
// or the one it removes; any other command keeps the whole controller (a copy that shares its
// storage: the command's own writes make it pay once for what they change).

extension Controller {
    /// Below this many root tabs an undo keeps the whole controller: copying a few tabs once a
    /// turn costs less than working out each command's footprint. (Debug builds use 1, so
    /// that every test runs the footprints and their checks.)
    #if DEBUG
    static let footprintMinimumTabs = 1
    #else
    static let footprintMinimumTabs = 32
    #endif

    /// What `command` may do to the root tabs when that is all it does to `tabs`; nil when it
    /// may change anything. Checked against what the command did in debug builds
    /// (`TabContainers.apply`, `Footprint.check`), so that a command that does more stops
    /// every test that runs it.
    func footprint(of command: Command) -> Footprint? {
        // R14.1: search follows the selection over the whole tree.
        if searchActive || (arranged && layout.search != nil) { return nil }
        switch command {
        case .badge(let id, _), .push(let id, _), .pop(let id), .popToRoot(let id):
            return .writes(rootIndex(of: id))
        case .updateTab(let id, let update):
            return update.arranges ? nil : .writes(rootIndex(of: id))
        case .select(let target):
            switch target {
            case .tab(let id): return selecting(rootIndex(of: id), tapping: false)
            case .index(let i): return selecting(i >= 0 && i < tabs.count ? i : nil, tapping: false)
            case .more: return selecting(nil, tapping: false)
            }
        case .tap(let target):
            if case .tab(let id) = target { return selecting(rootIndex(of: id), tapping: true) }
            return selecting(nil, tapping: true)
        case .addTab(let tab, let index, nil) where !arranged && !tab.arranges && (tabs.isEmpty || selection.isTab):
            // R2.2: the selection stays on its tab (or, the list empty, goes to the new one).
            let at = index ?? tabs.count
            return at >= 0 && at <= tabs.count ? .inserts(at: at) : .writes(nil)
        case .customizeMove(let id, let to):
            // R7.2: one id moves within the session's order; nothing else changes (a refusal
            // changes nothing). Undone by moving it back: the order is not kept.
            guard let order = customizingOrder, let from = order.firstIndex(of: id), to >= 0, to < order.count, from != to else { return nil }
            return .movesInCustomizingOrder(from: from, to: to)
        case .removeTab(let id) where !arranged:
            // Another tab stays selected: nothing is reselected (R2.2), nothing else written.
            guard let at = self.index(of: id), case .tab(let selected) = selection, selected != id else { return nil }
            return .removes(at: at)
        default:
            return nil
        }
    }

    /// How many root tabs (mutating only to be reached in place: a read through the set's
    /// dictionary copies the controller).
    mutating func rootCount() -> Int { tabs.count }

    /// `footprint(of:)` reached in place (mutating only for that: it changes nothing). A
    /// Controller read out of the set's dictionary is a copy, a retain of each of its arrays
    /// and strings.
    mutating func undoFootprint(for command: Command) -> Footprint? { footprint(of: command) }

    /// The root at `i`, for an undo's log (mutating only to be reached in place).
    mutating func rootForUndo(_ i: Int) -> Tab { tabs[i] }

    /// The root tab `id` is in (without the address array `locate` makes).
    private func rootIndex(of id: String) -> Int? {
        if arranged { return layout.node(id)?.rootIndex }
        return self.index(of: id)
    }

    /// A select or tap of the root at `target` (nil: More, or no such tab). A flat controller
    /// writes only the target: its content loaded the first time (R5.2), its stack popped by a
    /// tap (R4.3); an arranged one also the groups on the paths it leaves and enters (R13.8).
    private func selecting(_ target: Int?, tapping: Bool) -> Footprint {
        if arranged { return .writes(target, current.rootIndex >= 0 ? current.rootIndex : selectedIndex) }
        guard let target else { return .writes(nil) }
        let t = tabs[target]
        return .writes(!t.contentLoaded || (tapping && !t.stack.isEmpty) ? target : nil)
    }

    /// This controller without its tabs (nor their index, rebuilt by `restoring(tabs:)`) and
    /// without a customization session's order: what an undo keeps beside its edits, so that
    /// the live tabs and order stay the live controller's alone and writing one does not copy
    /// them all.
    var withoutTabs: Controller {
        var c = self
        c.tabs = []
        c.customizingOrder = nil
        c.dropIDIndex()
        return c
    }

    /// This controller (`withoutTabs`) with `tabs` and the session's order back.
    func restoring(tabs: [Tab], customizingOrder: [String]?) -> Controller {
        var c = self
        c.tabs = tabs
        c.customizingOrder = customizingOrder
        c.rebuildIDIndex()
        return c
    }
}

/// What one command may do to a controller's root tabs (`Controller.footprint`).
enum Footprint: Sendable {
    /// It writes at most these roots in place; no root is added, removed or moved.
    case writes(Int?, Int? = nil)
    /// It inserts one root at this index and writes no other.
    case inserts(at: Int)
    /// It removes the root at this index and writes no other.
    case removes(at: Int)
    /// It moves the id at `from` to `to` in the customization session's order (R7.2) and
    /// changes no root.
    case movesInCustomizingOrder(from: Int, to: Int)

    /// Stops (a test's failure) when the command did more to the roots than this says.
    func check(_ command: Command, before: [Tab], after: [Tab]) {
        if before == after { return }  // refused, or changed nothing
        switch self {
        case .writes(let a, let b):
            precondition(after.count == before.count, "\(command) changed the number of root tabs; its footprint says it writes \([a, b].compactMap { $0 })")
            for i in before.indices where i != a && i != b {
                precondition(before[i] == after[i], "\(command) wrote root tab \(i) ('\(before[i].id)'), outside its footprint \([a, b].compactMap { $0 })")
            }
        case .inserts(let at):
            var shown = after
            precondition(after.count == before.count + 1, "\(command) did not insert one root tab, as its footprint says")
            shown.remove(at: at)
            precondition(shown == before, "\(command) changed root tabs besides inserting one at \(at)")
        case .removes(let at):
            var kept = before
            precondition(after.count == before.count - 1, "\(command) did not remove one root tab, as its footprint says")
            kept.remove(at: at)
            precondition(kept == after, "\(command) changed root tabs besides removing the one at \(at)")
        case .movesInCustomizingOrder:
            precondition(false, "\(command) changed root tabs; its footprint says it moves an id of the customizing order only")
        }
    }
}

/// One change to a controller's root tabs (or its customizing order), with what undoing it
/// needs.
enum TabEdit: Equatable, Sendable {
    case wrote(Int, Tab)
    case inserted(Int)
    case removed(Int, Tab)
    /// The customization session's order had the id at `from` moved to `to`.
    case movedInCustomizingOrder(from: Int, to: Int)
}

/// What undoing a turn needs of one node, kept at its first change in the turn.
struct SavedController: Equatable, Sendable {
    enum Form: Equatable, Sendable {
        /// It did not exist: undoing deletes it.
        case absent
        /// The whole controller as it was.
        case whole
        /// The controller as it was but its tabs (`Controller.withoutTabs`); `edits` undo
        /// what the turn did to the live tabs.
        case withoutTabs
    }

    /// Kept apart from `node`, so that the request path tests a byte, not a payload.
    var form: Form
    var node: ContainerNode?
    /// In the order they happened (for `withoutTabs`).
    var edits: [TabEdit] = []

    static let absent = SavedController(form: .absent, node: nil)
    static func whole(_ n: ContainerNode) -> SavedController { SavedController(form: .whole, node: n) }
    static func withoutTabs(_ n: ContainerNode) -> SavedController {
        var kept = n
        kept.tabBar = n.tabBar.withoutTabs
        return SavedController(form: .withoutTabs, node: kept)
    }

    /// The node as it was, given the live one (`withoutTabs` needs its tabs).
    func restored(from live: ContainerNode?) -> ContainerNode? {
        switch form {
        case .absent: return nil
        case .whole: return node
        case .withoutTabs:
            var tabs = live?.tabBar.tabs ?? []
            var order = live?.tabBar.customizingOrder
            for edit in edits.reversed() {
                switch edit {
                case .wrote(let i, let tab): tabs[i] = tab
                case .inserted(let i): tabs.remove(at: i)
                case .removed(let i, let tab): tabs.insert(tab, at: i)
                case .movedInCustomizingOrder(let from, let to): order?.move(from: to, to: from)
                }
            }
            var n = node!
            n.tabBar = n.tabBar.restoring(tabs: tabs, customizingOrder: order)
            return n
        }
    }

    /// Whether the old value of `root` was logged since the last insertion or removal (then
    /// a later write needs no entry of its own).
    func logged(_ root: Int) -> Bool {
        for edit in edits.reversed() {
            guard case .wrote(let i, _) = edit else { return false }  // indices before an insertion or removal differ
            if i == root { return true }
        }
        return false
    }
}

/// Each controller changed since `keepChanges()` as it was before (`SavedController`), and
/// the seq floor before the first delete.
struct UndoLog: Equatable, Sendable {
    var saved: [(name: String, controller: SavedController)] = []
    /// `seqFloor` before the first delete to undo.
    var seqFloor: UInt64?
    /// Each composite changed since `keepChanges()`, whole as it was (nil: absent). Small
    /// values (a stack, a drawer's slots): a copy is the inverse record.
    var composites: [(name: String, node: Composite?)] = []
    /// The names in `composites` once there are more than `scannedComposites` (a lookup per
    /// event, where a search would grow with the turn); empty until then.
    var compositesSaved = Set<String>()

    /// Up to this many composites saved in a turn, a save's check compares their names.
    static let scannedComposites = 8

    /// Whether `name` is not in `composites` yet (the caller appends it). A turn's few names
    /// are compared where they are (hashing a name cost more than comparing a few); past
    /// `scannedComposites`, the set.
    @inline(__always)
    mutating func firstSave(of name: String) -> Bool {
        if composites.count < Self.scannedComposites {
            for saved in composites where saved.name == name { return false }
            return true
        }
        if compositesSaved.isEmpty { compositesSaved = Set(composites.map(\.name)) }
        return compositesSaved.insert(name).inserted
    }

    static func == (a: UndoLog, b: UndoLog) -> Bool {
        a.seqFloor == b.seqFloor && a.saved.elementsEqual(b.saved) { $0.name == $1.name && $0.controller == $1.controller }
            && a.composites.elementsEqual(b.composites) { $0.name == $1.name && $0.node == $1.node }
    }

    /// Where `name`'s entry is, if it has one. The common case (a run of requests to one
    /// controller) compares one name.
    @inline(__always)
    func position(of name: String) -> Int? {
        if let last = saved.last, last.name == name { return saved.count - 1 }
        return saved.firstIndex(where: { $0.name == name })
    }

    /// Settles what `prepareUndo` left pending once the command ran: an insertion is logged
    /// (it was made); an edit logged ahead goes if the command was refused (`made` false).
    @inline(__always)
    mutating func settle(_ pending: PendingEdit, made: Bool) {
        // Nothing pending (every command of a controller saved whole): no call.
        if case .none = pending { return }
        settleEdit(pending, made: made)
    }

    @inline(never)
    private mutating func settleEdit(_ pending: PendingEdit, made: Bool) {
        switch pending {
        case .none: return
        case .insertion(let at, let index): if made { saved[at].controller.edits.append(.inserted(index)) }
        case .loggedAhead(let at): if !made { saved[at].controller.edits.removeLast() }
        }
    }
}

/// An insertion or removal `prepareUndo` left to settle once the command ran (small: the
/// request path passes it by value).
enum PendingEdit {
    case none
    /// Log `.inserted(index)` in the entry at `at` if the command inserted.
    case insertion(at: Int, index: Int)
    /// The entry at `at` logged the command's edit (a removal, a move) ahead; take it back if
    /// the command was refused.
    case loggedAhead(at: Int)
}

extension TabContainers {
    /// Remembers the controller `name` (nil: absent) whole as it is before it changes, once per
    /// controller until `keepChanges` or `undoChanges`; an entry kept without its tabs becomes
    /// whole, as it was at the turn's start.
    mutating func saveWhole(_ name: String) {
        guard let at = before.position(of: name) else {
            return before.saved.append((name, nodes[name].map { .whole($0) } ?? .absent))
        }
        makeWhole(at, live: nodes[name])
    }

    private mutating func makeWhole(_ at: Int, live: ContainerNode?) {
        guard before.saved[at].controller.form == .withoutTabs else { return }
        before.saved[at].controller = .whole(before.saved[at].controller.restored(from: live)!)
    }

    /// Remembers the controller `name` before a change of its seq alone (its tabs stay).
    mutating func saveSeq(_ name: String) {
        guard let i = nodes.index(forKey: name) else { return }
        saveSeq(name, at: i)
    }

    /// `saveSeq(_:)` of the controller at `i` (read in place until it is kept).
    mutating func saveSeq(_ name: String, at i: Dictionary<String, ContainerNode>.Index) {
        guard before.position(of: name) == nil else { return }
        let whole = nodes.values[i].tabBar.rootCount() < Controller.footprintMinimumTabs
        before.saved.append((name, whole ? .whole(nodes.values[i]) : .withoutTabs(nodes.values[i])))
    }

    /// Remembers the controller at `i` before `command` changes it: for a controller of
    /// `Controller.footprintMinimumTabs` tabs or more whose command says what it does to the
    /// roots, the controller without its tabs (once a turn) and the roots it writes; else the
    /// whole controller. Returns what to settle once the command ran (`UndoLog.settle`).
    @inline(__always)
    mutating func prepareUndo(_ name: String, at i: Dictionary<String, ContainerNode>.Index, before command: Command) -> PendingEdit {
        let at: Int, footprint: Footprint?
        // Reached in place (mutating calls): a Controller read out of the dictionary is a
        // copy, a retain of each of its arrays and strings per request.
        if let found = before.position(of: name) {
            guard before.saved[found].controller.form == .withoutTabs else { return .none }
            at = found
            footprint = nodes.values[i].tabBar.undoFootprint(for: command)
        } else if nodes.values[i].tabBar.rootCount() >= Controller.footprintMinimumTabs,
                  case let found? = nodes.values[i].tabBar.undoFootprint(for: command) {
            at = before.saved.count
            footprint = found
            before.saved.append((name, .withoutTabs(nodes.values[i])))
        } else {
            before.saved.append((name, .whole(nodes.values[i])))
            return .none
        }
        switch footprint {
        case .writes(let first, let second)?:
            logWrite(first, at: at, from: i)
            logWrite(second, at: at, from: i)
            return .none
        case .inserts(let p)?:
            return .insertion(at: at, index: p)
        case .removes(let p)?:
            before.saved[at].controller.edits.append(.removed(p, nodes.values[i].tabBar.rootForUndo(p)))
            return .loggedAhead(at: at)
        case .movesInCustomizingOrder(let from, let to)?:
            before.saved[at].controller.edits.append(.movedInCustomizingOrder(from: from, to: to))
            return .loggedAhead(at: at)
        case nil:
            makeWhole(at, live: nodes.values[i])
            return .none
        }
    }

    /// Logs the old value of `root` of the controller at `i` in the undo entry `at`, unless
    /// logged already since the last insertion or removal.
    @inline(__always)
    private mutating func logWrite(_ root: Int?, at: Int, from i: Dictionary<String, ContainerNode>.Index) {
        guard let root, !before.saved[at].controller.logged(root) else { return }
        before.saved[at].controller.edits.append(.wrote(root, nodes.values[i].tabBar.rootForUndo(root)))
    }

    /// Whether every change to undo kept its controller without its tabs (tests: the
    /// footprints' path was taken).
    var undoesRootsOnly: Bool {
        !before.saved.isEmpty && before.saved.allSatisfy { $0.controller.form == .withoutTabs }
    }

    /// How many moves in a customizing order the turn would undo by moving back (tests).
    var undoneMoves: Int {
        before.saved.reduce(0) { n, entry in
            n + entry.controller.edits.count { if case .movedInCustomizingOrder = $0 { true } else { false } }
        }
    }

    /// The changes since the last call are kept: nothing to undo any more.
    public mutating func keepChanges() {
        if !before.saved.isEmpty { before.saved.removeAll(keepingCapacity: true) }
        if !before.composites.isEmpty { before.composites.removeAll(keepingCapacity: true); before.compositesSaved.removeAll(keepingCapacity: true) }
        before.seqFloor = nil
    }

    /// Puts every controller changed since `keepChanges()` back as it was (created ones go,
    /// deleted ones come back). Returns the names of those controllers.
    @discardableResult
    public mutating func undoChanges() -> [String] {
        let saved = before.saved
        before.saved.removeAll()
        if let floor = before.seqFloor { seqFloor = floor }
        before.seqFloor = nil
        for (name, controller) in saved.reversed() {
            nodes[name] = controller.restored(from: nodes[name])
        }
        let composites = before.composites
        before.composites.removeAll()
        before.compositesSaved.removeAll()
        for (name, node) in composites.reversed() { self.composites[name] = node }
        recent = Recent()
        return saved.map(\.name) + composites.map(\.name)
    }
}

extension Array {
    /// Moves the element at `from` to `to`, shifting those between by one: O(|to - from|),
    /// where a removal and an insertion move every element after the lower index.
    mutating func move(from: Int, to: Int) {
        if from < to {
            for i in from..<to { swapAt(i, i + 1) }
        } else {
            for i in stride(from: from, to: to, by: -1) { swapAt(i, i - 1) }
        }
    }
}
