// Undoing a turn: the daemon undoes the changes of a turn whose journal records could not be
// made durable (`TabContainers.keepChanges` / `undoChanges`). What is kept to undo a change
// costs what the change touched, not the controller: a command that changes only some root
// tabs in place (a badge, a push, a select) keeps the controller without its tabs and the
// old values of those roots; any other keeps the whole controller (a copy that shares its
// storage: the command's own writes make it pay once for what they change).

extension Controller {
    /// Below this many root tabs an undo keeps the whole controller: copying a few tabs once a
    /// turn costs less than working out each command's footprint. (Debug builds use 1, so
    /// that every test runs the footprints.)
    #if DEBUG
    static let footprintMinimumTabs = 1
    #else
    static let footprintMinimumTabs = 32
    #endif

    /// The root tabs (their indices in `tabs`) that `command` may change, when it changes
    /// nothing else of `tabs` (no tab added, removed or moved, no other root written); nil
    /// when it may change anything. Every caller's footprint is checked against what the
    /// command did in debug builds (`TabContainers.apply`), so that a command that writes
    /// outside the roots named here fails every test that runs it.
    func footprint(of command: Command) -> RootFootprint? {
        // R14.1: search follows the selection over the whole tree.
        if searchActive || (arranged && layout.search != nil) { return nil }
        switch command {
        case .badge(let id, _), .push(let id, _), .pop(let id), .popToRoot(let id):
            return RootFootprint(locate(id)?.first)
        case .updateTab(let id, let update):
            return update.arranges ? nil : RootFootprint(locate(id)?.first)
        case .select(let target):
            let root: Int? = switch target {
            case .tab(let id): locate(id)?.first
            case .index(let i): i >= 0 && i < tabs.count ? i : nil
            case .more: nil
            }
            return RootFootprint(root, selectedRoot)
        case .tap(let target):
            if case .tab(let id) = target { return RootFootprint(locate(id)?.first, selectedRoot) }
            return RootFootprint(nil, selectedRoot)
        default:
            return nil
        }
    }

    /// The root tab the selection is in, if any.
    private var selectedRoot: Int? {
        if arranged, current.rootIndex >= 0 { return current.rootIndex }
        return selectedIndex
    }

    /// This controller with no tabs: what an undo keeps beside the roots it logs (the tabs
    /// stay the live controller's alone, so that writing one does not copy them all).
    var withoutTabs: Controller {
        var c = self
        c.tabs = []
        return c
    }
}

/// At most two root indices (a select's target and the tab it leaves).
struct RootFootprint: Sendable {
    var first: Int?, second: Int?

    init(_ first: Int?, _ second: Int? = nil) {
        self.first = first
        self.second = second == first ? nil : second
    }

    func forEach(_ body: (Int) -> Void) {
        if let first { body(first) }
        if let second { body(second) }
    }
}

/// What undoing a turn needs of one controller, kept at its first change in the turn.
enum SavedController: Equatable, Sendable {
    /// It did not exist: undoing deletes it.
    case absent
    /// The whole controller as it was.
    case whole(Controller)
    /// The controller as it was but its tabs (`withoutTabs`), and the old value of each root
    /// tab changed since (by index, first write only): undoing puts them into the live tabs.
    case roots(Controller, [(index: Int, tab: Tab)])

    static func == (a: SavedController, b: SavedController) -> Bool {
        switch (a, b) {
        case (.absent, .absent): return true
        case (.whole(let x), .whole(let y)): return x == y
        case (.roots(let x, let xs), .roots(let y, let ys)):
            return x == y && xs.elementsEqual(ys) { $0.index == $1.index && $0.tab == $1.tab }
        default: return false
        }
    }

    /// Logs the old value of each root of `footprint` in `live` not logged yet.
    mutating func log(_ footprint: RootFootprint, of live: Controller) {
        guard case .roots(let base, var logged) = self else { return }
        let count = logged.count
        footprint.forEach { i in
            guard i < live.tabs.count, !logged.contains(where: { $0.index == i }) else { return }
            logged.append((i, live.tabs[i]))
        }
        if logged.count != count { self = .roots(base, logged) }
    }

    /// The controller as it was, given the live one (`roots` needs its tabs).
    func restored(from live: Controller?) -> Controller? {
        switch self {
        case .absent: return nil
        case .whole(let c): return c
        case .roots(var c, let logged):
            var tabs = live?.tabs ?? []
            for (i, tab) in logged.reversed() where i < tabs.count { tabs[i] = tab }
            c.tabs = tabs
            return c
        }
    }
}
