// The registry of containers: every node (`ContainerNode`: a container with its kind, its parent and
// its window flag) by name. The daemon keeps one of these; a command is addressed to a node by
// its name (`controller` on the wire), and the tree of containers follows from the nodes'
// parent links.

import TabJSON

public struct TabContainers: Equatable, Sendable {
    /// The controller every request addresses unless it names another. Computed: a literal
    /// is made in place, where a stored global is a lazy-initialisation check and a retain
    /// on every request that names no controller.
    @inlinable
    public static var defaultName: String { "main" }
    /// Names are short, printable and safe in logs and file names.
    public static let maxNameLength = 64

    /// Every tab bar controller by name.
    public internal(set) var nodes: [String: ContainerNode] = [:]

    /// Every container of another kind (navigation, drawer, custom) by name. A table of its
    /// own: a tab command's lookup and in-place change stay what they were (a flat `select`
    /// may not cost more for R15, issue 42). Names are unique across both tables.
    public internal(set) var composites: [String: Composite] = [:]

    /// Events of other containers the last command of an attached tab controller caused (a
    /// root's `status_bar_changed`, R15.8 c), for the daemon to publish after its own. Holds
    /// one command's at most: set anew by each such command.
    public internal(set) var treeEvents: [SentNodeEvent] = []
    /// Whether `treeEvents` holds any: a flag the daemon reads after every command (reading
    /// the array retained and released it).
    public internal(set) var hasTreeEvents = false
    /// For each of `treeEvents`, how many of the command's notifications come before it
    /// (R15.8 a: a content's appearance right after its tab's; R15.14: a tap's pop first).
    public internal(set) var treeEventPlaces: [Int] = []
    /// What plugins answered to proposals while the last command of a tab controller in a tree
    /// settled the splits below it (R15.10, R15.33): for the journal, which writes them before
    /// the command's record. Replay hands them back (`recordAnswers`).
    public internal(set) var treeAnswers: [ProposalAnswer] = []
    /// The answers a journal record kept for the next command of `pendingAnswers.controller`.
    var pendingAnswers: (controller: String, answers: [ProposalAnswer])?
    /// Whether `send` keeps the events it numbers (false while a command nobody hears runs:
    /// `apply(_:to:…keepingEvents:)`, `applyInTree`), and how many it numbered without
    /// keeping them since `applyInTree` began.
    var keepsEvents = true
    var unkeptEvents = 0
    /// The `notifying` of the tab command `applyInTree` runs.
    var treeNotifying = true

    /// Replay: `answers` are for the next command of `controller`.
    public mutating func recordAnswers(_ answers: [ProposalAnswer], for controller: String) { pendingAnswers = (controller, answers) }

    /// Replay: the answers kept for this command of `controller` (none when the record before
    /// it kept none).
    public mutating func takeRecordedAnswers(for controller: String) -> [ProposalAnswer] {
        guard let p = pendingAnswers else { return [] }
        pendingAnswers = nil
        return p.controller == controller ? p.answers : []
    }

    /// The tree events the last command left, handed over once (the next command's are its own).
    public mutating func takeTreeEvents() -> [SentNodeEvent] {
        hasTreeEvents = false
        defer { treeEvents = []; treeEventPlaces = [] }
        return treeEvents
    }

    /// `takeTreeEvents()` with each event's place among the command's notifications.
    public mutating func takePlacedTreeEvents() -> (events: [SentNodeEvent], places: [Int]) {
        hasTreeEvents = false
        defer { treeEvents = []; treeEventPlaces = [] }
        return (treeEvents, treeEventPlaces)
    }

    /// The highest event seq a deleted controller reached (its `controller_deleted`). A
    /// controller created later starts counting from here, so that a name's seq never repeats
    /// however often it is deleted and created again (R11.4), with nothing kept per name.
    public internal(set) var seqFloor: UInt64 = 0

    /// Where the controller last addressed lies: requests come in runs for one controller (most
    /// of them for `main`), and comparing a short name costs less than hashing it. Forgotten
    /// whenever a controller is added or removed: a dictionary index lives only until then.
    var recent = Recent()

    /// Not compared (see `==`): where a lookup landed is not what the set holds, and the
    /// positions of two dictionaries cannot be compared.
    struct Recent: Sendable {
        var name = ""
        var index: Dictionary<String, ContainerNode>.Index?
        /// Where the last composites looked up lie (`lookUpComposite`: a drawer's moves, the
        /// walk of a select below a tab): a few, by name.
        var composites: [(name: String, index: Dictionary<String, Composite>.Index)] = []
        /// How many `composites` holds at most.
        static let compositesKept = 8
    }

    /// Each controller as it was before its first change since `keepChanges()` (nil: it did
    /// not exist), so that `undoChanges()` can put them back: the daemon undoes a turn whose
    /// journal records could not be made durable.
    var before = UndoLog()

    /// Equal when they hold the same controllers, the same seq floor, the same plugins'
    /// stored data and the same changes to undo (two sets with changes kept and not yet kept
    /// differ: `undoChanges` would make them differ). `notCompared` lists what is left out
    /// and why; a test holds the stored properties to these two lists.
    public static func == (a: TabContainers, b: TabContainers) -> Bool {
        a.nodes == b.nodes && a.composites == b.composites && a.seqFloor == b.seqFloor && a.pluginData == b.pluginData && a.before == b.before
    }

    /// The stored properties `==` compares.
    static let compared: Set<String> = ["nodes", "composites", "seqFloor", "pluginData", "before"]
    /// The stored properties `==` leaves out, with the reason.
    static let notCompared: [String: String] = ["recent": "where the last lookup landed, a cache of positions that cannot be compared",
                                                "treeEvents": "the last command's events for other containers, already sent: not state",
                                                "hasTreeEvents": "whether treeEvents holds any",
                                                "treeEventPlaces": "where treeEvents go among the last command's notifications: not state",
                                                "treeAnswers": "the plugins' answers of the last command, for its journal record: not state",
                                                "pendingAnswers": "replay's answers for the next record: not state",
                                                "keepsEvents": "whether the running command's events are kept for listeners: not state",
                                                "unkeptEvents": "how many events the running command numbered without keeping them: not state",
                                                "treeNotifying": "whether the running tab command in a tree has subscribers: not state"]

    /// What each plugin keeps in its store (host->store_put, plugin ABI 1.6), by the plugin's
    /// configured name, then key. Kept here so that the snapshot and the journal carry it
    /// exactly as they carry the controllers. Not undone with a turn's controllers (like
    /// what the plugin itself remembers, a write stays; the snapshot written once the journal
    /// can be written again covers it).
    public private(set) var pluginData: [String: [String: String]] = [:]

    /// Sets (or, `value` nil, removes) `key` of `plugin`'s store.
    public mutating func setPluginValue(plugin: String, key: String, _ value: String?) {
        if let value {
            pluginData[plugin, default: [:]][key] = value
        } else if pluginData[plugin]?.removeValue(forKey: key) != nil, pluginData[plugin]?.isEmpty == true {
            pluginData[plugin] = nil
        }
    }

    /// The snapshot's body: compact JSON, objects' keys sorted, in the names Swift's Codable
    /// gave the fields (snapshots written by Codable read the same).
    public func writeSnapshot(to w: inout JSONWriter) {
        var m = SortedMembers()
        m.add("controllers") { SortedMembers.write(nodes, to: &$0) { $0.tabBar.writeSnapshot(to: &$1) } }
        m.add("seqFloor") { $0.int(Int(truncatingIfNeeded: seqFloor)) }
        // R15.4: where a tab controller sits, for those that are not a window's root.
        let placed = nodes.filter { !$0.value.window || $0.value.parent != nil }
        if !placed.isEmpty {
            m.add("tabPlaces") { SortedMembers.write(placed, to: &$0) { n, w in
                w.beginObject()
                w.key(literal: "window"); w.bool(n.window)
                w.key(literal: "parent"); Composite.writeParent(n.parent, to: &w)
                w.endObject()
            } }
        }
        if !composites.isEmpty {
            m.add("composites") { SortedMembers.write(composites, to: &$0) { $0.writeSnapshot(to: &$1) } }
        }
        if !pluginData.isEmpty {
            m.add("pluginData") { SortedMembers.write(pluginData, to: &$0) { store, w in SortedMembers.write(store, to: &w) { $1.string($0) } } }
        }
        m.write(to: &w)
    }

    /// The state a snapshot's body holds.
    public init(snapshot json: JSONValue) throws(TabFieldError) {
        var r = try TabObjectReader.object(json, at: "", .snapshot, orNull: false, expected: "an object")
        guard let all = r.take("controllers") else { throw TabFieldError("controllers", .missing) }
        nodes = try SortedMembers.read(all, at: "controllers") { (v, at) throws(TabFieldError) in ContainerNode(try Controller(snapshot: v, at: at)) }
        for name in nodes.keys where nodes[name]!.tabBar.hasContent { nodes[name]!.holdsContent = true }
        let floor = try r.read("seqFloor", as: Int.self) ?? 0
        guard floor >= 0 else { throw TabFieldError("seqFloor", .type(expected: "a count")) }
        seqFloor = UInt64(floor)
        if case .object(let places)? = r.take("tabPlaces") {
            for (name, v) in places {
                guard nodes[name] != nil else { throw TabFieldError("tabPlaces." + name, .value("'\(name)' is placed but is no tab controller")) }
                let (window, parent) = try NodeJSON.object(v, at: "tabPlaces." + name) { (m: inout TakenMembers) throws(TabFieldError) in
                    (try NodeJSON.bool(m.take("window"), m.place("window")) ?? true, try Composite.readParent(m.take("parent"), at: m.place("parent")))
                }
                nodes[name]!.window = window
                nodes[name]!.parent = parent
            }
        }
        if let all = r.take("composites") {
            guard case .object(let o) = all else { throw TabFieldError("composites", .type(expected: "an object")) }
            for (name, v) in o { composites[name] = try Composite(name: name, snapshot: v, at: "composites." + name) }
        }
        if let data = r.take("pluginData") {
            pluginData = try SortedMembers.read(data, at: "pluginData") { (v, at) throws(TabFieldError) in
                try SortedMembers.read(v, at: at) { (s, at) throws(TabFieldError) in try String(json: s, at: at, .snapshot, orNull: false) }
            }
        }
    }

    public init() {}

    /// A fresh set with the default phone controller `main`.
    public static func withDefault() -> TabContainers {
        var c = TabContainers()
        c.insert(Controller(name: defaultName, idiom: .phone))
        return c
    }

    /// The tab bar controllers' names in a stable order.
    public var names: [String] { nodes.keys.sorted() }

    /// Every container's name, whatever its kind, in a stable order.
    public var allNames: [String] { (Array(nodes.keys) + Array(composites.keys)).sorted() }

    /// How many containers there are.
    public var count: Int { nodes.count + composites.count }

    /// The tab controller `name` (a copy), or nil when there is no such node.
    public subscript(name: String) -> Controller? { nodes[name]?.tabBar }

    /// The node `name` (a copy), or nil.
    public func node(_ name: String) -> ContainerNode? { nodes[name] }

    public func controller(_ name: String) throws(TabError) -> Controller {
        guard let n = nodes[name] else { throw missing(name) }
        return n.tabBar
    }

    /// Why there is no tab controller `name`: none at all, or one of another kind (R15.1).
    func missing(_ name: String) -> TabError {
        guard let c = composites[name] else { return TabError(.notFound, "no controller named '\(name)'") }
        return TabError(.notAvailable, "'\(name)' is a \(c.kind.rawValue) controller; this command is for tab controllers (docs/protocol.md, \"Containers beyond tabs\", lists a \(c.kind.rawValue) controller's commands)")
    }

    /// Creates the container `name` as `spec` says: a root (R15.4), numbering its events from
    /// the seq floor.
    /// Returns the events of an R15 container's children entering (none for a tab controller).
    @discardableResult
    public mutating func create(_ name: String, _ spec: ContainerSpec, limits: ControllerLimits = ControllerLimits(),
                                policy: Policy = DefaultPolicy()) throws(TabError) -> NodeOutcome {
        try Self.validate(name: name)
        let node: ContainerNode
        switch spec {
        case .tab(let options):
            try options.validate()
            var n = ContainerNode(Controller(name: name, options))
            n.window = options.window
            node = n
        case .composite(let composite):
            return try create(name, composite: composite, limits: limits, policy: policy)
        }
        guard nodes[name] == nil, composites[name] == nil else { throw TabError(.conflict, "a controller named '\(name)' already exists") }
        saveWhole(name)
        nodes[name] = node
        nodes[name]!.tabBar.seq = seqFloor
        recent = Recent()
        return NodeOutcome()
    }

    /// Creates the tab controller `name` (`create(_:_:)` with `.tab`).
    public mutating func create(_ name: String, idiom: Idiom, maxVisible: Int? = nil, tapPops: TapPops = .always,
                                mode: Mode = .automatic, sizeClass: SizeClass? = nil, compactTabs: [String]? = nil) throws(TabError) {
        try create(name, .tab(TabBarOptions(idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode,
                                            sizeClass: sizeClass, compactTabs: compactTabs)))
    }

    /// Deletes a controller; returns the seq of its last event, `controller_deleted`.
    /// `main` always exists (the controller requests address when they name none); a journal
    /// written before that rule may still delete it (`replaying`).
    @discardableResult
    public mutating func delete(_ name: String, replaying: Bool = false) throws(TabError) -> UInt64 {
        try checkDelete(name, replaying: replaying)
        if composites[name] != nil { return deleteComposite(name) }
        saveWhole(name)
        let removed = nodes.removeValue(forKey: name)!
        if before.seqFloor == nil { before.seqFloor = seqFloor }
        let last = removed.seq &+ 1
        seqFloor = max(seqFloor, last)
        recent = Recent()
        return last
    }

    /// Throws what `delete(name)` would refuse, changing nothing: the daemon asks before it
    /// tells the plugins a controller is going (a refused delete must not end its sessions or
    /// drop its timers).
    public func checkDelete(_ name: String, replaying: Bool = false) throws(TabError) {
        guard name != Self.defaultName || replaying else {
            throw TabError(.conflict, "'\(name)' is the default controller and cannot be deleted; delete only controllers you created")
        }
        if let c = composites[name] {
            if let p = c.parent { throw TabError(.conflict, "'\(name)' is a child of '\(p.parent)'; remove it there first, then delete it") }
            if let held = c.body.children.first(where: { $0.controller != nil }) {
                throw TabError(.conflict, "'\(name)' holds the controller '\(held.controller!)' (child '\(held.id)'); detach it first, then delete '\(name)'")
            }
            return
        }
        guard let n = nodes[name] else { throw TabError(.notFound, "no controller named '\(name)'") }
        if let p = n.parent { throw TabError(.conflict, "'\(name)' is a child of '\(p.parent)'; remove it there first, then delete it") }
        if n.holdsContent, let held = n.tabBar.contents.first {
            throw TabError(.conflict, "'\(name)' holds the controller '\(held.controller!)' (content of tab '\(held.id)'); detach it first (update_tab with \"controller\": null), then delete '\(name)'")
        }
    }

    /// Numbers one event of a controller that is not a state machine's notification (a
    /// plugin's), and returns its seq; nil when there is no such controller.
    public mutating func nextSeq(_ name: String) -> UInt64? {
        if composites[name] != nil {
            saveComposite(name)
            composites[name]!.seq &+= 1
            return composites[name]!.seq
        }
        guard nodes[name] != nil else { return nil }
        saveSeq(name)
        nodes[name]!.tabBar.seq &+= 1
        return nodes[name]!.tabBar.seq
    }

    /// Sets a controller's seq (replaying the journal's record of events that changed no
    /// state). Never lowers it.
    public mutating func setSeq(_ name: String, _ seq: UInt64) throws(TabError) {
        if composites[name] != nil {
            saveComposite(name)
            composites[name]!.seq = max(composites[name]!.seq, seq)
            return
        }
        guard nodes[name] != nil else { throw TabError(.notFound, "no controller named '\(name)'") }
        saveSeq(name)
        nodes[name]!.tabBar.seq = max(nodes[name]!.tabBar.seq, seq)
    }

    /// Applies `command` to the controller `name`; a refused command changes nothing.
    /// `semantics`: the rules the command was recorded under (a journal's, on replay).
    public mutating func apply(_ command: Command, to name: String, policy: Policy = DefaultPolicy(), notifying: Bool = true,
                               semantics: Semantics = .amended) throws(TabError) -> Outcome {
        try apply(command, to: name, policy: policy, notifying: notifying, semantics: semantics) { _, _ in }
    }

    /// Applies `command` to the controller `name` where it lies (one lookup, no copy of the
    /// controller), then hands the controller as it is afterwards and the outcome to `read`:
    /// the daemon builds its reply there without copying the controller out.
    public mutating func apply(_ command: Command, to name: String, policy: Policy = DefaultPolicy(), notifying: Bool = true,
                               selectionChanges: Bool = false, semantics: Semantics = .amended,
                               reading read: (Controller, Outcome) -> Void) throws(TabError) -> Outcome {
        let i = try lookUp(name)
        // R15: not a window's root (attached, or out of its window), or holding a tab whose
        // content is a controller, or given one. One flag read and one comparison of the
        // command's case on every command; the tree's work, out of line, only for those.
        if nodes.values[i].isInTree() || command.carriesContent {
            // (`notifying` handed over in a stored flag: as one more argument here it cost every
            // flat command ~3 instructions, its registers allocated otherwise.)
            treeNotifying = notifying
            return try applyInTree(command, to: name, at: i, policy: policy, selectionChanges: selectionChanges, semantics: semantics, reading: read)
        }
        return try apply(command, to: name, at: i, policy: policy, notifying: notifying, selectionChanges: selectionChanges, semantics: semantics, reading: read)
    }

    /// `apply(_:to:…reading:)` once the controller is found at `i`.
    @inline(__always)
    mutating func apply(_ command: Command, to name: String, at i: Dictionary<String, ContainerNode>.Index, policy: Policy, notifying: Bool,
                                selectionChanges: Bool, semantics: Semantics, reading read: (Controller, Outcome) -> Void) throws(TabError) -> Outcome {
        let pending = prepareUndo(name, at: i, before: command)
        #if DEBUG
        let footprint = nodes.values[i].tabBar.footprint(of: command), tabsBefore = nodes.values[i].tabBar.tabs
        #endif
        let outcome: Outcome
        do {
            outcome = try nodes.values[i].tabBar.apply(command, policy: policy, notifying: notifying, selectionChanges: selectionChanges,
                                                      semantics: semantics, reading: read)
        } catch {
            before.settle(pending, made: false)
            throw error
        }
        #if DEBUG
        // The footprint's promise, checked by every test that runs a command (whatever the
        // controller's size): the command did to the root tabs no more than it said.
        if let footprint { footprint.check(command, before: tabsBefore, after: nodes.values[i].tabBar.tabs) }
        #endif
        before.settle(pending, made: outcome.changed)  // a refused or idle command inserted or removed nothing
        return outcome
    }

    /// Hands the controller `name` to `read` where it lies (one lookup, no copy: a copy would
    /// retain and release each of its arrays and strings for a `state` that only reads it).
    /// Mutating only to reach it in place; it changes nothing. As in `apply(_:to:…reading:)`,
    /// `read` must not touch this set of controllers: while it runs the dictionary's in-place
    /// access has taken their storage away (a debug build stops on such an access; a release
    /// build, exclusivity unchecked, would see none).
    public mutating func reading<R>(_ name: String, _ read: (Controller) -> R) throws(TabError) -> R {
        let i = try lookUp(name)
        return nodes.values[i].tabBar.lend(read)
    }

    /// `reading(_:_:)` with something of the caller's handed to `read` in place too (the
    /// daemon's memo of `state` replies, a stored property beside this set: passed so, the
    /// two are reached together without `read` capturing their owner).
    /// Inlinable, so that it is specialized in the caller's module (not a generic call across
    /// modules).
    /// Nil, `read` not called, for a tab controller out of a window (R15.4), or holding a tab
    /// whose content is a controller (R15.2): its `state` has R15.35's members and, on a root,
    /// R15.11's `status_bar_path`, which depend on the tree.
    @inlinable
    public mutating func reading<R, Extra: ~Copyable>(_ name: String, with extra: inout Extra, _ read: (Controller, inout Extra) -> R) throws(TabError) -> R? {
        var result: R?
        try lending(name) { result = read($0, &extra) }
        return result
    }

    /// `reading`'s lookup and loan, not generic (so not specialized anywhere).
    @usableFromInline
    mutating func lending(_ name: String, _ read: (Controller) -> Void) throws(TabError) {
        let i = try lookUp(name)
        guard !nodes.values[i].isInTree() else { return }
        nodes.values[i].tabBar.lend(read)
    }

    /// Where the controller `name` lies: the last one looked up, else found by its hash.
    @inline(__always)
    private mutating func lookUp(_ name: String) throws(TabError) -> Dictionary<String, ContainerNode>.Index {
        if let last = recent.index, recent.name == name { return last }
        guard let found = nodes.index(forKey: name) else { throw missing(name) }
        // (The composite last addressed stays remembered: a client moving a drawer between
        // selects does not hash the drawer's name anew each time.)
        recent.name = name
        recent.index = found
        return found
    }

    /// Where the composite `name` lies (the last one looked up, else found by its hash), or nil.
    @inline(__always)
    mutating func lookUpComposite(_ name: String) -> Dictionary<String, Composite>.Index? {
        for k in recent.composites.indices where recent.composites[k].name == name { return recent.composites[k].index }
        guard let found = composites.index(forKey: name) else { return nil }
        if recent.composites.count >= Recent.compositesKept { recent.composites.removeFirst() }
        recent.composites.append((name, found))
        return found
    }

    /// Asks `policy` for the orientations of the controller `name` (nil: of every controller)
    /// and has them keep the answers (`Controller.decideOrientations`): for a delegate that
    /// has not seen them change. Returns what the delegate asked for meanwhile. Not a change
    /// of state: nothing to journal or undo.
    public mutating func decideOrientations(of name: String? = nil, policy: Policy) -> [PolicyEffect] {
        var effects: [PolicyEffect] = []
        if let name {
            nodes[name]?.tabBar.decideOrientations(policy: policy, effects: &effects)
        } else {
            // In the order of their names, not the dictionary's (seeded anew in each process):
            // the delegate is asked, and `explain` records, the same way at every start.
            for name in names { nodes[name]!.tabBar.decideOrientations(policy: policy, effects: &effects) }
        }
        return effects
    }

    /// What makes this set impossible (see `Controller.inconsistency`), or nil.
    public var inconsistency: String? {
        for (name, n) in nodes {
            do { try Self.validate(name: name) } catch { return "a controller is named '\(name)': \(error.message)" }
            guard n.name == name else { return "controller '\(n.name)' is stored as '\(name)'" }
            if let problem = n.inconsistency { return problem }
            for c in n.holdsContent ? n.tabBar.contents : [] {
                guard parent(of: c.controller!) == Attachment(parent: name, slot: c.id) else {
                    return "controller '\(name)' holds '\(c.controller!)' as the content of tab '\(c.id)', which is not attached there"
                }
                if nodes[c.controller!] != nil { return "controller '\(name)' holds the tab controller '\(c.controller!)' as the content of a tab" }
            }
            if let p = n.parent {
                guard let holder = composites[p.parent] else { return "controller '\(name)' is attached to '\(p.parent)', which does not exist" }
                guard holder.body.child(p.slot)?.controller == name else {
                    return "controller '\(name)' is attached to '\(p.parent)' as '\(p.slot)', which does not hold it"
                }
                // R15.3 counts the tab controller at the end of a chain too.
                if chainAbove(name) > Self.maxChain { return "controller '\(name)' is more than \(Self.maxChain) controllers deep" }
            }
        }
        for (name, c) in composites {
            do { try Self.validate(name: name) } catch { return "a controller is named '\(name)': \(error.message)" }
            guard c.name == name else { return "controller '\(c.name)' is stored as '\(name)'" }
            if nodes[name] != nil { return "'\(name)' names a tab controller and a \(c.kind.rawValue) controller" }
            if let problem = c.inconsistency { return problem }
            if let p = c.parent, let holder = nodes[p.parent] {
                guard holder.holdsContent, holder.tabBar.content(of: p.slot) == name else {
                    return "controller '\(name)' is attached to '\(p.parent)' as '\(p.slot)', which does not hold it"
                }
            } else if let p = c.parent {
                guard let holder = composites[p.parent], let child = holder.body.child(p.slot), child.controller == name else {
                    return "controller '\(name)' is attached to '\(p.parent)' as '\(p.slot)', which does not hold it"
                }
            }
            for child in c.body.children {
                guard let x = child.controller else { continue }
                guard parent(of: x) == Attachment(parent: name, slot: child.id) else {
                    return "controller '\(name)' holds '\(x)' as '\(child.id)', which is not attached there"
                }
            }
            if chainAbove(name) > Self.maxChain { return "controller '\(name)' is more than \(Self.maxChain) controllers deep" }
        }
        return nil
    }

    /// Puts a controller back as it was (restoring from a snapshot): a root in a window.
    public mutating func insert(_ controller: Controller) {
        nodes[controller.name] = ContainerNode(controller)
        nodes[controller.name]!.holdsContent = controller.hasContent
        recent = Recent()
    }

    public static func validate(name: String) throws(TabError) {
        guard !name.isEmpty, name.utf8.count <= maxNameLength,
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) })
        else {
            throw TabError(.invalid, "controller names are 1–\(maxNameLength) characters of A–Z, a–z, 0–9, '-', '_' or '.'")
        }
    }
}
