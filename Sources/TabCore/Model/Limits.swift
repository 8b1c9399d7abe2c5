// What one controller may hold: bounds on what a client can make tabd keep in memory.
//
// Checked on what clients ask for, before the command runs (`check`), never on replay: a
// journal written under higher limits still loads after the limits were lowered, and a
// controller already above a lowered limit keeps its tabs (it only cannot grow).

/// Bounds on one controller's contents. The defaults fit any real tab bar many times over,
/// and keep a full controller's `state` under 100 MB (1,000 tabs × (four 1 KiB texts + 64
/// screens × 1.3 KiB)), well inside the default memory budget; the config's `limits`
/// section changes them (docs/operations.md).
public struct ControllerLimits: Equatable, Sendable {
    /// Tabs in one controller, a group's children counted (`set_tabs`, `add_tab`, an
    /// `update_tab` that gives a tab children).
    public var maxTabs = 1000
    /// Bytes (UTF-8) of a tab id, a screen id or a restoration id.
    public var maxIDBytes = 256
    /// Bytes of a title, an image name or a badge value.
    public var maxTextBytes = 1024
    /// Screens on one tab's navigation stack (`push`, `restore`).
    public var maxStackDepth = 64

    public init() {}

    /// No bound: replaying a journal written under higher limits (they are checked on what
    /// clients ask, never on replay).
    public static let unlimited = ControllerLimits(maxTabs: .max, maxIDBytes: .max, maxTextBytes: .max, maxStackDepth: .max)

    public init(maxTabs: Int = 1000, maxIDBytes: Int = 256, maxTextBytes: Int = 1024, maxStackDepth: Int = 64) {
        self.maxTabs = maxTabs
        self.maxIDBytes = maxIDBytes
        self.maxTextBytes = maxTextBytes
        self.maxStackDepth = maxStackDepth
    }

    /// Refuses (`out_of_range`, naming the limit's config key) a command that would make the
    /// controller hold more than the limits allow. Commands that store nothing new (`select`,
    /// `tap`, …) pass without looking the controller up.
    @inlinable
    public func check(_ command: Command, on controller: () throws(TabError) -> Controller) throws(TabError) {
        switch command {
        case .select, .tap, .removeTab, .pop, .popToRoot, .customizeBegin, .customizeMove, .customizeEnd,
             .rotate, .setOrientation, .setHidden, .sidebar:
            return  // inlined into the caller: a select pays one comparison
        default:
            try checkStoring(command, on: controller)
        }
    }

    @usableFromInline
    func checkStoring(_ command: Command, on controller: () throws(TabError) -> Controller) throws(TabError) {
        switch command {
        case .setTabs(let tabs, _, _):
            // R13: a group's children count as tabs: the limit bounds the whole tree.
            let count = tabs.reduce(0) { $0 + Self.count($1) }
            guard count <= maxTabs else {
                throw TabError(.outOfRange, "set_tabs gives \(count) tabs; a controller holds at most \(maxTabs) (limits.max_tabs)")
            }
            for tab in tabs { try check(tab) }
        case .addTab(let tab, _, _):
            let controller = try controller()
            let have = controller.arranged ? controller.treeCount : controller.tabs.count
            guard have + Self.count(tab) <= maxTabs else {
                throw TabError(.outOfRange, "controller '\(controller.name)' already has \(have) tabs; it holds at most \(maxTabs) (limits.max_tabs)")
            }
            try check(tab)
        case .reorder(let group, let order):
            try id(group, "group id")
            guard order.count <= maxTabs else {
                throw TabError(.outOfRange, "reorder lists \(order.count) tabs; a controller holds at most \(maxTabs) (limits.max_tabs)")
            }
            for i in order { try id(i, "tab id") }
        case .updateTab(_, let update):
            if case .set(let title) = update.title { try text(title, "title") }
            if case .set(let item?) = update.item { try check(item) }
            if case .set(let rid) = update.restorationID { try id(rid, "restoration_id") }
            if case .set(let s) = update.subtitle { try text(s, "subtitle") }
            if case .set(let d) = update.defaultChild { try id(d, "default_child") }
            if case .set(let kids?) = update.children {
                // R13.8: new children count as tabs, as add_tab's do.
                let controller = try controller()
                let adding = kids.reduce(0) { $0 + Self.count($1) }
                let have = controller.arranged ? controller.treeCount : controller.tabs.count
                guard have + adding <= maxTabs else {
                    throw TabError(.outOfRange, "update_tab gives \(adding) children; controller '\(controller.name)' already has \(have) tabs and holds at most \(maxTabs) (limits.max_tabs)")
                }
                for k in kids { try check(k) }
            }
        case .badge(_, let value):
            try text(value, "badge")
        case .push(let tab, let screen):
            try check(screen)
            if let depth = try controller().tab(tab)?.stack.count, !Navigation.fits(above: depth + 1, max: maxStackDepth) {
                throw TabError(.outOfRange, "tab '\(tab)' already has \(depth) screens on its stack; a stack holds at most \(maxStackDepth) (limits.max_stack_depth)")
            }
        case .setCustomizable(let ids):
            guard let ids else { return }
            guard ids.count <= maxTabs else {
                throw TabError(.outOfRange, "customizable lists \(ids.count) tabs; a controller holds at most \(maxTabs) (limits.max_tabs)")
            }
            for i in ids { try id(i, "customizable id") }
        case .restore(let archive):
            try id(archive.selected, "archive selected path")
            for (path, stack) in archive.stacks {
                guard stack.count <= maxStackDepth else {
                    throw TabError(.outOfRange, "the archive's stack for '\(Self.shown(path))' has \(stack.count) screens; a stack holds at most \(maxStackDepth) (limits.max_stack_depth)")
                }
                for screen in stack { try check(screen) }
            }
        default:
            return  // stores nothing new: `check` does not call this
        }
    }

    /// Refuses (`out_of_range`, `limits.max_total_tabs`) a `set_tabs`, an `add_tab` or an
    /// `update_tab` that gives a tab children, when it would make all controllers together
    /// hold more than `maxTotal` tabs (a group's children counted). Costs a walk of the
    /// controllers, for these commands only (`Command.addsTabs`).
    public static func checkTotal(_ command: Command, on name: String, in containers: TabContainers, maxTotal: Int) throws(TabError) {
        let adding: Int
        switch command {
        case .setTabs(let tabs, _, _): adding = tabs.reduce(0) { $0 + count($1) }
        case .addTab(let tab, _, _): adding = count(tab)
        case .updateTab(_, let update):
            guard case .set(let kids?) = update.children else { return }
            adding = kids.reduce(0) { $0 + count($1) }
        default: return
        }
        var others = 0, own = 0
        for (n, node) in containers.nodes {
            let c = node.tabBar
            let held = c.arranged ? c.treeCount : c.tabs.count
            if n == name { own = held } else { others += held }
        }
        let total = others + adding + (command.isSetTabs ? 0 : own)
        guard total <= maxTotal else {
            throw TabError(.outOfRange, "all controllers together would hold \(total) tabs; tabd holds at most \(maxTotal) (limits.max_total_tabs): remove tabs or controllers first")
        }
    }

    private func check(_ tab: Tab) throws(TabError) {
        try id(tab.id, "tab id")
        try text(tab.title, "title")
        try id(tab.restorationID, "restoration_id")
        if let item = tab.item { try check(item) }
        guard Navigation.fits(above: tab.stack.count, max: maxStackDepth) else {
            throw TabError(.outOfRange, "tab '\(Self.shown(tab.id))' has \(tab.stack.count) screens; a stack holds at most \(maxStackDepth) (limits.max_stack_depth)")
        }
        for screen in tab.stack { try check(screen) }
        try id(tab.defaultChild, "default_child")
        try text(tab.subtitle, "subtitle")
        for child in tab.children ?? [] { try check(child) }
    }

    /// A tab and the tabs in it (R13.1).
    static func count(_ tab: Tab) -> Int {
        1 + (tab.children ?? []).reduce(0) { $0 + count($1) }
    }

    private func check(_ item: TabItem) throws(TabError) {
        try text(item.title, "item title")
        try text(item.image, "item image")
        try text(item.badge, "badge")
    }

    private func check(_ screen: Screen) throws(TabError) {
        try id(screen.id, "screen id")
        try text(screen.title, "screen title")
    }

    private func id(_ value: String?, _ what: String) throws(TabError) {
        guard let value, value.utf8.count > maxIDBytes else { return }
        throw TabError(.outOfRange, "a \(what) of \(value.utf8.count) bytes ('\(Self.shown(value))') is longer than \(maxIDBytes) bytes (limits.max_id_bytes)")
    }

    private func text(_ value: String?, _ what: String) throws(TabError) {
        guard let value, value.utf8.count > maxTextBytes else { return }
        throw TabError(.outOfRange, "a \(what) of \(value.utf8.count) bytes is longer than \(maxTextBytes) bytes (limits.max_text_bytes)")
    }

    /// The start of a long value, for a message.
    private static func shown(_ s: String) -> String {
        s.utf8.count <= 40 ? s : String(s.prefix(32)) + "…"
    }
}
