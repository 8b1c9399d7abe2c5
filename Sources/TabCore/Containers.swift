// Any number of controllers, by name. The daemon keeps one of these.

import TabJSON

public struct TabContainers: Equatable, Sendable {
    /// The controller every request addresses unless it names another. Computed: a literal
    /// is made in place, where a stored global is a lazy-initialisation check and a retain
    /// on every request that names no controller.
    @inlinable
    public static var defaultName: String { "main" }
    /// Names are short, printable and safe in logs and file names.
    public static let maxNameLength = 64

    public private(set) var controllers: [String: Controller] = [:]

    /// The highest event seq a deleted controller reached (its `controller_deleted`). A
    /// controller created later starts counting from here, so that a name's seq never repeats
    /// however often it is deleted and created again (R11.4), with nothing kept per name.
    public private(set) var seqFloor: UInt64 = 0

    /// Where the controller last addressed lies: requests come in runs for one controller (most
    /// of them for `main`), and comparing a short name costs less than hashing it. Forgotten
    /// whenever a controller is added or removed: a dictionary index lives only until then.
    private var recent = Recent()

    /// Not compared (see `==`): where a lookup landed is not what the set holds, and the
    /// positions of two dictionaries cannot be compared.
    private struct Recent: Sendable {
        var name = ""
        var index: Dictionary<String, Controller>.Index?
    }

    /// Each controller as it was before its first change since `keepChanges()` (nil: it did
    /// not exist), so that `undoChanges()` can put them back: the daemon undoes a turn whose
    /// journal records could not be made durable.
    private var before = Before()

    private struct Before: Equatable, Sendable {
        var saved: [(name: String, controller: SavedController)] = []
        /// `seqFloor` before the first delete to undo.
        var seqFloor: UInt64?

        static func == (a: Before, b: Before) -> Bool {
            a.seqFloor == b.seqFloor && a.saved.elementsEqual(b.saved) { $0.name == $1.name && $0.controller == $1.controller }
        }

        /// Where `name`'s entry is, if it has one. The common case (a run of requests to one
        /// controller) compares one name.
        @inline(__always)
        func position(of name: String) -> Int? {
            if let last = saved.last, last.name == name { return saved.count - 1 }
            return saved.firstIndex(where: { $0.name == name })
        }
    }

    /// Equal when they hold the same controllers, the same seq floor, the same plugins'
    /// stored data and the same changes to undo (two sets with changes kept and not yet kept
    /// differ: `undoChanges` would make them differ). `notCompared` lists what is left out
    /// and why; a test holds the stored properties to these two lists.
    public static func == (a: TabContainers, b: TabContainers) -> Bool {
        a.controllers == b.controllers && a.seqFloor == b.seqFloor && a.pluginData == b.pluginData && a.before == b.before
    }

    /// The stored properties `==` compares.
    static let compared: Set<String> = ["controllers", "seqFloor", "pluginData", "before"]
    /// The stored properties `==` leaves out, with the reason.
    static let notCompared: [String: String] = ["recent": "where the last lookup landed, a cache of positions that cannot be compared"]

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
        m.add("controllers") { SortedMembers.write(controllers, to: &$0) { $0.writeSnapshot(to: &$1) } }
        m.add("seqFloor") { $0.int(Int(truncatingIfNeeded: seqFloor)) }
        if !pluginData.isEmpty {
            m.add("pluginData") { SortedMembers.write(pluginData, to: &$0) { store, w in SortedMembers.write(store, to: &w) { $1.string($0) } } }
        }
        m.write(to: &w)
    }

    /// The state a snapshot's body holds.
    public init(snapshot json: JSONValue) throws(TabFieldError) {
        var r = try TabObjectReader.object(json, at: "", .snapshot, orNull: false, expected: "an object")
        guard let all = r.take("controllers") else { throw TabFieldError("controllers", .missing) }
        controllers = try SortedMembers.read(all, at: "controllers") { (v, at) throws(TabFieldError) in try Controller(snapshot: v, at: at) }
        let floor = try r.read("seqFloor", as: Int.self) ?? 0
        guard floor >= 0 else { throw TabFieldError("seqFloor", .type(expected: "a count")) }
        seqFloor = UInt64(floor)
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

    /// Names in a stable order.
    public var names: [String] { controllers.keys.sorted() }

    public subscript(name: String) -> Controller? { controllers[name] }

    public func controller(_ name: String) throws(TabError) -> Controller {
        guard let c = controllers[name] else { throw TabError(.notFound, "no controller named '\(name)'") }
        return c
    }

    public mutating func create(_ name: String, idiom: Idiom, maxVisible: Int? = nil, tapPops: TapPops = .always,
                                mode: Mode = .automatic, sizeClass: SizeClass? = nil, compactTabs: [String]? = nil) throws(TabError) {
        if let sizeClass, sizeClass != idiom.defaultSizeClass, idiom != .pad {
            // R14.4: phone is always compact, tv always regular.
            throw TabError(.notAvailable, "the \(idiom.rawValue) idiom is always \(idiom.defaultSizeClass.rawValue); only a pad has size_class \(sizeClass.rawValue)")
        }
        try Self.validate(name: name)
        if let maxVisible {
            let least = idiom == .tv ? 1 : 2
            guard maxVisible >= least, maxVisible <= 1000 else {
                throw TabError(.outOfRange, "max_visible must be between \(least) and 1000 for the \(idiom.rawValue) idiom")
            }
        }
        guard controllers[name] == nil else { throw TabError(.conflict, "a controller named '\(name)' already exists") }
        saveWhole(name)
        var c = Controller(name: name, idiom: idiom, maxVisible: maxVisible, tapPops: tapPops, mode: mode,
                           sizeClass: sizeClass, compactTabs: compactTabs)
        c.seq = seqFloor
        controllers[name] = c
        recent = Recent()
    }

    /// Deletes a controller; returns the seq of its last event, `controller_deleted`.
    /// `main` always exists (the controller requests address when they name none); a journal
    /// written before that rule may still delete it (`replaying`).
    @discardableResult
    public mutating func delete(_ name: String, replaying: Bool = false) throws(TabError) -> UInt64 {
        guard name != Self.defaultName || replaying else {
            throw TabError(.conflict, "'\(name)' is the default controller and cannot be deleted; delete only controllers you created")
        }
        guard controllers[name] != nil else { throw TabError(.notFound, "no controller named '\(name)'") }
        saveWhole(name)
        let removed = controllers.removeValue(forKey: name)!
        if before.seqFloor == nil { before.seqFloor = seqFloor }
        let last = removed.seq &+ 1
        seqFloor = max(seqFloor, last)
        recent = Recent()
        return last
    }

    /// Numbers one event of a controller that is not a state machine's notification (a
    /// plugin's), and returns its seq; nil when there is no such controller.
    public mutating func nextSeq(_ name: String) -> UInt64? {
        guard controllers[name] != nil else { return nil }
        saveSeq(name)
        controllers[name]!.seq &+= 1
        return controllers[name]!.seq
    }

    /// Sets a controller's seq (replaying the journal's record of events that changed no
    /// state). Never lowers it.
    public mutating func setSeq(_ name: String, _ seq: UInt64) throws(TabError) {
        guard controllers[name] != nil else { throw TabError(.notFound, "no controller named '\(name)'") }
        saveSeq(name)
        controllers[name]!.seq = max(controllers[name]!.seq, seq)
    }

    // MARK: Undo

    /// Remembers the controller `name` (nil: absent) whole as it is before it changes, once per
    /// controller until `keepChanges` or `undoChanges`; an entry that kept only some roots
    /// (`SavedController.roots`) becomes whole, as it was at the turn's start.
    private mutating func saveWhole(_ name: String) {
        guard let at = before.position(of: name) else {
            return before.saved.append((name, controllers[name].map(SavedController.whole) ?? .absent))
        }
        if case .roots = before.saved[at].controller {
            before.saved[at].controller = .whole(before.saved[at].controller.restored(from: controllers[name])!)
        }
    }

    /// Remembers the controller `name` before a change of its seq alone (its tabs stay).
    private mutating func saveSeq(_ name: String) {
        guard before.position(of: name) == nil, let c = controllers[name] else { return }
        before.saved.append((name, c.tabs.count < Controller.footprintMinimumTabs ? .whole(c) : .roots(c.withoutTabs, [])))
    }

    /// Remembers the controller at `i` before `command` changes it: for a controller of
    /// `Controller.footprintMinimumTabs` tabs or more, only the roots the command may write
    /// when it says which (`Controller.footprint`); else the whole controller.
    @inline(__always)
    private mutating func save(_ name: String, at i: Dictionary<String, Controller>.Index, before command: Command) {
        guard let at = before.position(of: name) else {
            guard controllers.values[i].tabs.count >= Controller.footprintMinimumTabs,
                  let footprint = controllers.values[i].footprint(of: command)
            else { return before.saved.append((name, .whole(controllers.values[i]))) }
            var saved = SavedController.roots(controllers.values[i].withoutTabs, [])
            saved.log(footprint, of: controllers.values[i])
            return before.saved.append((name, saved))
        }
        guard case .roots = before.saved[at].controller else { return }
        if let footprint = controllers.values[i].footprint(of: command) {
            before.saved[at].controller.log(footprint, of: controllers.values[i])
        } else {
            before.saved[at].controller = .whole(before.saved[at].controller.restored(from: controllers.values[i])!)
        }
    }

    /// Whether every change to undo kept only some roots of its controller (tests: the
    /// footprints' path was taken).
    var undoesRootsOnly: Bool {
        !before.saved.isEmpty && before.saved.allSatisfy { if case .roots = $0.controller { true } else { false } }
    }

    /// The changes since the last call are kept: nothing to undo any more.
    public mutating func keepChanges() {
        if !before.saved.isEmpty { before.saved.removeAll(keepingCapacity: true) }
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
            controllers[name] = controller.restored(from: controllers[name])
        }
        recent = Recent()
        return saved.map(\.name)
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
        save(name, at: i, before: command)
        #if DEBUG
        // The footprint's promise, checked by every test that runs a command (whatever the
        // controller's size): no root outside it was written.
        let footprint = controllers.values[i].footprint(of: command), tabsBefore = controllers.values[i].tabs
        defer { if let footprint { Self.checkFootprint(footprint, of: command, before: tabsBefore, after: controllers[name]?.tabs) } }
        #endif
        return try controllers.values[i].apply(command, policy: policy, notifying: notifying, selectionChanges: selectionChanges,
                                               semantics: semantics, reading: read)
    }

    #if DEBUG
    private static func checkFootprint(_ footprint: RootFootprint, of command: Command, before: [Tab], after: [Tab]?) {
        guard let after else { return }
        precondition(after.count == before.count, "\(command) changed the number of root tabs, outside its footprint")
        var inside = Set<Int>()
        footprint.forEach { inside.insert($0) }
        for i in before.indices where !inside.contains(i) {
            precondition(before[i] == after[i], "\(command) changed root tab \(i) ('\(before[i].id)'), outside its footprint \(inside.sorted())")
        }
    }
    #endif

    /// Hands the controller `name` to `read` where it lies (one lookup, no copy): a copy
    /// retains and releases each of its arrays and strings, about a thousand instructions
    /// for a `state` that only reads it. Mutating only to reach it in place; it changes
    /// nothing. As in `apply(_:to:…reading:)`, `read` must not touch this set of controllers:
    /// while it runs the dictionary's in-place access has taken their storage away (a debug
    /// build stops on such an access; a release build, exclusivity unchecked, would see none).
    public mutating func reading<R>(_ name: String, _ read: (Controller) -> R) throws(TabError) -> R {
        let i = try lookUp(name)
        return controllers.values[i].lend(read)
    }

    /// `reading(_:_:)` with something of the caller's handed to `read` in place too (the
    /// daemon's memo of `state` replies, a stored property beside this set: passed so, the
    /// two are reached together without `read` capturing their owner).
    /// Inlinable, so that it is specialized in the caller's module (a generic call across
    /// modules cost ~100 instructions a `state`).
    @inlinable
    public mutating func reading<R, Extra: ~Copyable>(_ name: String, with extra: inout Extra, _ read: (Controller, inout Extra) -> R) throws(TabError) -> R {
        var result: R?
        try lending(name) { result = read($0, &extra) }
        return result!
    }

    /// `reading`'s lookup and loan, not generic (so not specialized anywhere).
    @usableFromInline
    mutating func lending(_ name: String, _ read: (Controller) -> Void) throws(TabError) {
        let i = try lookUp(name)
        controllers.values[i].lend(read)
    }

    /// Where the controller `name` lies: the last one looked up, else found by its hash.
    @inline(__always)
    private mutating func lookUp(_ name: String) throws(TabError) -> Dictionary<String, Controller>.Index {
        if let last = recent.index, recent.name == name { return last }
        guard let found = controllers.index(forKey: name) else { throw TabError(.notFound, "no controller named '\(name)'") }
        recent = Recent(name: name, index: found)
        return found
    }

    /// Asks `policy` for the orientations of the controller `name` (nil: of every controller)
    /// and has them keep the answers (`Controller.decideOrientations`): for a delegate that
    /// has not seen them change. Returns what the delegate asked for meanwhile. Not a change
    /// of state: nothing to journal or undo.
    public mutating func decideOrientations(of name: String? = nil, policy: Policy) -> [PolicyEffect] {
        var effects: [PolicyEffect] = []
        if let name {
            controllers[name]?.decideOrientations(policy: policy, effects: &effects)
        } else {
            // In the order of their names, not the dictionary's (seeded anew in each process):
            // the delegate is asked, and `explain` records, the same way at every start.
            for name in names { controllers[name]!.decideOrientations(policy: policy, effects: &effects) }
        }
        return effects
    }

    /// What makes this set impossible (see `Controller.inconsistency`), or nil.
    public var inconsistency: String? {
        for (name, c) in controllers {
            do { try Self.validate(name: name) } catch { return "a controller is named '\(name)': \(error.message)" }
            guard c.name == name else { return "controller '\(c.name)' is stored as '\(name)'" }
            if let problem = c.inconsistency { return problem }
        }
        return nil
    }

    /// Puts a controller back as it was (restoring from a snapshot).
    public mutating func insert(_ controller: Controller) {
        controllers[controller.name] = controller
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
