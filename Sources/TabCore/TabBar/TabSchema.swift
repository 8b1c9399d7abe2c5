// A tab described once: `Tab.fields`, one row per field, from which every form of a tab
// object is read and written — what a client sends (`set_tabs`, `add_tab`, `update_tab`),
// what `state` and events show, the journal's records, the snapshot, and TabClient's
// mirror. docs/architecture.md, "How to add a field", shows the one edit a new field is.

import TabJSON

/// The forms a tab object takes.
public enum TabForm: Sendable {
    /// What a client sends: snake_case names, strict (an unknown member is refused); the
    /// members only `state` reports are accepted back and ignored.
    case description
    /// What `state` and the events show: the tab as it behaves (its effective item, the
    /// orientations it supports, the child a group shows), R13's members only for a tab
    /// that uses R13. Read back leniently (TabClient's mirror).
    case state
    /// The journal's records: snake_case names, strict, every field the tab holds.
    case journal
    /// The snapshot: the names Swift's Codable gave the fields (camelCase), objects' keys
    /// sorted; read leniently (an unknown member is skipped, as Codable did).
    case snapshot
}

/// What is wrong with a member of a tab object (or of a value in one), said in the words of
/// the side that read it: `wireMessage` for a client, `journalMessage` for a state file.
public struct TabFieldError: Error, Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The value is not of the type the member needs (`expected`: "a string or null").
        case type(expected: String)
        /// A required member is absent.
        case missing
        /// The object has a member this tabd does not know (`object`: the object's place).
        case unknown(object: String)
        /// The value is of the right type but not one the member takes: its own sentence.
        case value(String)
    }

    /// Where the member is ("tabs[0].placement").
    public var path: String
    public var kind: Kind

    public init(_ path: String, _ kind: Kind) { self.path = path; self.kind = kind }

    /// As the protocol says it (`invalid_request` with `field` = `path`).
    public var wireMessage: String {
        switch kind {
        case .type(let expected): return "'\(path)' must be \(expected)"
        case .missing: return "missing \"\(path)\""
        case .unknown: return "unknown field '\(path)' for this object"
        case .value(let sentence): return sentence
        }
    }

    /// As a journal or snapshot reader says it (of a record it refuses).
    public var journalMessage: String {
        switch kind {
        case .type(let expected): return "'\(path)' is not \(expected)"
        case .missing: return "it has no \"\(path)\""
        case .unknown(let object): return "'\(object)' has a field this tabd does not know: '\(path)'"
        case .value(let sentence): return sentence
        }
    }
}

// MARK: Values

/// A value a tab's field holds, read from and written to JSON in each form.
public protocol TabFieldValue: Equatable, Sendable {
    /// How a value of this type is named in an error ("a string").
    static var expected: String { get }
    func write(to w: inout JSONWriter, _ form: TabForm)
    /// `orNull`: the member may also be null (it is an optional's), for the error's words.
    init(json: JSONValue, at path: String, _ form: TabForm, orNull: Bool) throws(TabFieldError)
    /// A value that is not `value`: what the tests of `Tab.fields` set each field to.
    static func other(than value: Self) -> Self
    /// One value of the type (for `other(than:)` of an optional).
    static var example: Self { get }
}

extension TabFieldValue {
    /// The type error for `path`.
    static func wrongType(_ path: String, orNull: Bool) -> TabFieldError {
        TabFieldError(path, .type(expected: orNull ? expected + " or null" : expected))
    }
}

/// A value of one JSON scalar: read by `scalar(_:)`, nil for any other value.
public protocol TabFieldScalar: TabFieldValue {
    static func scalar(_ json: JSONValue) -> Self?
}

extension TabFieldScalar {
    public init(json: JSONValue, at path: String, _ form: TabForm, orNull: Bool) throws(TabFieldError) {
        guard let v = Self.scalar(json) else { throw Self.wrongType(path, orNull: orNull) }
        self = v
    }
}

extension String: TabFieldScalar {
    public static var expected: String { "a string" }
    public func write(to w: inout JSONWriter, _ form: TabForm) { w.string(self) }
    public static func scalar(_ json: JSONValue) -> String? { if case .string(let s) = json { s } else { nil } }
    public static func other(than value: String) -> String { value + "x" }
}

extension Bool: TabFieldScalar {
    public static var expected: String { "true or false" }
    public func write(to w: inout JSONWriter, _ form: TabForm) { w.bool(self) }
    public static func scalar(_ json: JSONValue) -> Bool? { if case .bool(let b) = json { b } else { nil } }
    public static func other(than value: Bool) -> Bool { !value }
}

extension Int: TabFieldScalar {
    public static var expected: String { "an integer" }
    public func write(to w: inout JSONWriter, _ form: TabForm) { w.int(self) }
    public static func scalar(_ json: JSONValue) -> Int? { if case .int(let i) = json { Int(exactly: i) } else { nil } }
    public static func other(than value: Int) -> Int { value &+ 1 }
}

extension Optional: TabFieldValue where Wrapped: TabFieldValue {
    public static var expected: String { Wrapped.expected + " or null" }
    public func write(to w: inout JSONWriter, _ form: TabForm) {
        if let self { self.write(to: &w, form) } else { w.null() }
    }
    public init(json: JSONValue, at path: String, _ form: TabForm, orNull: Bool) throws(TabFieldError) {
        if json == .null { self = nil; return }
        self = try Wrapped(json: json, at: path, form, orNull: true)
    }
    public static var example: Self { nil }
    public static func other(than value: Self) -> Self {
        guard let value else { return Wrapped.other(than: Wrapped.example) }
        return Wrapped.other(than: value)
    }
}

/// A value an array holds: how the array is named in an error ("an array of screens").
public protocol TabFieldElement: TabFieldValue {
    static var plural: String { get }
}

extension String: TabFieldElement {
    public static var plural: String { "strings" }
    public static var example: String { "x" }
}

extension Bool: TabFieldElement {
    public static var plural: String { "booleans" }
    public static var example: Bool { false }
}

extension Int: TabFieldElement {
    public static var plural: String { "integers" }
    public static var example: Int { 0 }
}

extension Array: TabFieldValue where Element: TabFieldElement {
    public static var expected: String { "an array of " + Element.plural }
    public func write(to w: inout JSONWriter, _ form: TabForm) {
        w.beginArray()
        for e in self { e.write(to: &w, form) }
        w.endArray()
    }
    public init(json: JSONValue, at path: String, _ form: TabForm, orNull: Bool) throws(TabFieldError) {
        guard case .array(let values) = json else { throw Self.wrongType(path, orNull: orNull) }
        var out: [Element] = []
        out.reserveCapacity(values.count)
        for (i, v) in values.enumerated() { out.append(try Element(json: v, at: "\(path)[\(i)]", form, orNull: false)) }
        self = out
    }
    public static func other(than value: Self) -> Self { value + [Element.example] }
    public static var example: Self { [] }
}

/// A value named by its wire name (`Placement`, `TabRole`).
public protocol TabFieldName: TabFieldValue, RawRepresentable<String>, CaseIterable {}

extension TabFieldName {
    public static var expected: String { "a string" }
    public func write(to w: inout JSONWriter, _ form: TabForm) { w.string(rawValue) }
    public init(json: JSONValue, at path: String, _ form: TabForm, orNull: Bool) throws(TabFieldError) {
        guard case .string(let name) = json else { throw Self.wrongType(path, orNull: orNull) }
        guard let v = Self(rawValue: name) else {
            let names = Self.allCases.map(\.rawValue)
            let one = names.count == 1 ? "\"\(names[0])\"" : "one of \(names.joined(separator: ", "))"
            throw TabFieldError(path, .value("'\(path)' must be \(one)\(orNull ? " or null" : "") (got '\(name)')"))
        }
        self = v
    }
    public static func other(than value: Self) -> Self { allCases.first { $0 != value } ?? value }
    public static var example: Self { allCases.first! }
}

extension Placement: TabFieldName {}
extension TabRole: TabFieldName {}

extension OrientationMask: TabFieldValue {
    public static var expected: String { "an array of strings" }
    /// The orientations' names, in `Orientation.allCases`' order.
    public func write(to w: inout JSONWriter, _ form: TabForm) {
        w.beginArray()
        for o in Orientation.allCases where contains(o.mask) { w.string(o.rawValue) }  // no array made
        w.endArray()
    }
    public init(json: JSONValue, at path: String, _ form: TabForm, orNull: Bool) throws(TabFieldError) {
        guard case .array(let values) = json else { throw Self.wrongType(path, orNull: orNull) }
        self.init()
        for (i, v) in values.enumerated() {
            let name = try String(json: v, at: "\(path)[\(i)]", form, orNull: false)
            guard let o = Orientation(rawValue: name) else {
                throw TabFieldError("\(path)[\(i)]", .value("unknown orientation '\(name)'; one of \(Orientation.allCases.map(\.rawValue).joined(separator: ", "))"))
            }
            insert(o.mask)
        }
    }
    public static func other(than value: Self) -> Self { value == .landscapeLeft ? .portrait : .landscapeLeft }
    public static var example: Self { .portrait }
}

/// The members of one object, each taken at most once; `finish` refuses the rest in the
/// strict forms.
public struct TabObjectReader {
    public let object: JSONObject
    /// The object's place ("tabs[0]"; "" for a record).
    public let path: String
    let form: TabForm
    private var taken: UInt64 = 0

    public init(_ object: JSONObject, path: String, _ form: TabForm) {
        self.object = object; self.path = path; self.form = form
    }

    /// `key`'s place under the object.
    public func place(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    public mutating func take(_ key: String) -> JSONValue? {
        guard let i = object.position(ofIdentifier: key) else { return nil }
        if i < 64 { taken |= 1 &<< UInt64(i) }
        return object.value(at: i)
    }

    /// A member read as `V` (absent: nil).
    public mutating func read<V: TabFieldValue>(_ key: String, as: V.Type = V.self) throws(TabFieldError) -> V? {
        guard let v = take(key) else { return nil }
        return try V(json: v, at: place(key), form, orNull: false)
    }

    public mutating func required<V: TabFieldValue>(_ key: String, as: V.Type = V.self) throws(TabFieldError) -> V {
        guard let v = try read(key, as: V.self) else { throw TabFieldError(place(key), .missing) }
        return v
    }

    /// Refuses a member nobody took (in the strict forms: a description and the journal).
    public func finish() throws(TabFieldError) {
        guard form == .description || form == .journal else { return }
        for i in 0..<object.count where i >= 64 || taken & (1 &<< UInt64(i)) == 0 {
            throw TabFieldError(place(object.key(at: i)), .unknown(object: path))
        }
    }

    static func object(_ json: JSONValue, at path: String, _ form: TabForm, orNull: Bool, expected: String) throws(TabFieldError) -> TabObjectReader {
        guard case .object(let o) = json else { throw TabFieldError(path, .type(expected: orNull ? expected + " or null" : expected)) }
        return TabObjectReader(o, path: path, form)
    }
}

extension TabItem: TabFieldValue {
    public static var expected: String { "an item object" }
    /// Every member, nulls included; the snapshot only those it has, keys sorted.
    public func write(to w: inout JSONWriter, _ form: TabForm) {
        w.beginObject()
        if form == .snapshot {
            if let badge { w.key(literal: "badge"); w.string(badge) }
            if let image { w.key(literal: "image"); w.string(image) }
            if let tag { w.key(literal: "tag"); w.int(tag) }
            if let title { w.key(literal: "title"); w.string(title) }
        } else {
            w.key(literal: "title"); title.write(to: &w, form)
            w.key(literal: "image"); image.write(to: &w, form)
            w.key(literal: "tag"); tag.write(to: &w, form)
            w.key(literal: "badge"); badge.write(to: &w, form)
        }
        w.endObject()
    }
    public init(json: JSONValue, at path: String, _ form: TabForm, orNull: Bool) throws(TabFieldError) {
        var r = try TabObjectReader.object(json, at: path, form, orNull: orNull, expected: Self.expected)
        self.init(title: try r.read("title", as: String?.self) ?? nil, image: try r.read("image", as: String?.self) ?? nil,
                  tag: try r.read("tag", as: Int?.self) ?? nil, badge: try r.read("badge", as: String?.self) ?? nil)
        try r.finish()
    }
    public static func other(than value: Self) -> Self { TabItem(title: String?.other(than: value.title), image: "i", tag: 1, badge: "b") }
    public static var example: Self { TabItem() }
}

extension Screen: TabFieldElement {
    public static var expected: String { "a screen object like {\"id\":\"detail\"}" }
    public static var plural: String { "screens" }
    public func write(to w: inout JSONWriter, _ form: TabForm) {
        w.beginObject()
        w.key(literal: "id"); w.string(id)
        if let title { w.key(literal: "title"); w.string(title) }
        w.endObject()
    }
    public init(json: JSONValue, at path: String, _ form: TabForm, orNull: Bool) throws(TabFieldError) {
        var r = try TabObjectReader.object(json, at: path, form, orNull: orNull, expected: Self.expected)
        self.init(id: try r.required("id"), title: try r.read("title", as: String?.self) ?? nil)
        try r.finish()
    }
    public static func other(than value: Self) -> Self { Screen(id: value.id + "x", title: "t") }
    public static var example: Self { Screen(id: "s") }
}

extension RestorationArchive: TabFieldValue {
    public static var expected: String { "the object preserve returned" }
    /// `preserve`'s result, as the journal keeps it too: the stacks by path, sorted.
    public func write(to w: inout JSONWriter, _ form: TabForm) {
        w.beginObject()
        w.key(literal: "selected"); selected.write(to: &w, form)
        w.key(literal: "stacks"); w.beginObject()
        for path in stacks.keys.sorted() { w.key(path); stacks[path]!.write(to: &w, form) }
        w.endObject()
        w.endObject()
    }
    public init(json: JSONValue, at path: String, _ form: TabForm, orNull: Bool) throws(TabFieldError) {
        var r = try TabObjectReader.object(json, at: path, form, orNull: orNull, expected: Self.expected)
        self.init(selected: try r.read("selected", as: String?.self) ?? nil)
        if let v = r.take("stacks"), v != .null {
            guard case .object(let all) = v else { throw TabFieldError(r.place("stacks"), .type(expected: "an object")) }
            for (key, stack) in all { stacks[key] = try [Screen](json: stack, at: r.place("stacks") + "." + key, form, orNull: false) }
        }
        try r.finish()
    }
    public static func other(than value: Self) -> Self { RestorationArchive(selected: String?.other(than: value.selected)) }
    public static var example: Self { RestorationArchive() }
}

// MARK: Fields

/// One field of a tab: its names, where each form writes it, and how its value is got, set,
/// compared, written and read. Made by `TabField.field` (a stored field) or `TabField.shown`
/// (a member only `state` shows, computed). A class: the codecs walk the table for every tab
/// they write, and a reference is all such a walk copies.
public final class TabField: Sendable {
    /// When a form writes a field.
    public enum Presence: Sendable {
        case always
        /// Only when it does not hold its default (an older reader need not know it).
        case unlessDefault
        case never
    }

    /// What a client's description does with the member.
    public enum Accepts: Sendable {
        /// Read (and `update_tab` may change it).
        case read
        /// Accepted and ignored: a member `state` reports that a client cannot set (a tab
        /// object copied from `state` is taken back).
        case ignored
        /// Unknown to clients: refused like any other unknown member.
        case refused
    }

    /// Where `state` shows the field.
    public enum Shown: Sendable {
        /// In every tab object.
        case always
        /// In the objects of tabs that use R13 or R14 (`Tab.usesModernModel`), after the others.
        case modern
        /// In a group's object (a tab with children), after the others.
        case group
        case never
    }

    /// The wire's and the journal's name.
    public let name: String
    /// The snapshot's name.
    public let key: String
    /// `update_tab`'s name (its request's and its record's members): the name, but where the
    /// request's own members take it (`controller`, the container addressed: a tab's content
    /// controller is `content_controller` there).
    public let updateName: String
    let nameLiteral: StaticString, keyLiteral: StaticString, updateLiteral: StaticString
    public let accepts: Accepts
    public let journal: Presence
    public let snapshot: Presence
    public let shown: Shown
    /// `update_tab` of the field changes how the tree is arranged (R13.8: the whole tree is
    /// checked and installed again).
    public let arranges: Bool
    /// The field, for `TabUpdate`'s members (nil for a member only `state` shows).
    let path: (PartialKeyPath<Tab> & Sendable)?

    let isDefault: @Sendable (Tab) -> Bool
    let write: @Sendable (Tab, inout JSONWriter, TabForm) -> Void
    /// What `state` writes: whether it shows the field for this tab, and its value as shown.
    let showsIn: (@Sendable (Tab) -> Bool)?
    let writeShown: @Sendable (Tab, Controller?, inout JSONWriter) -> Void
    let read: @Sendable (JSONValue, inout Tab, String, TabForm) throws(TabFieldError) -> Void
    let equal: @Sendable (Tab, Tab) -> Bool
    let copy: @Sendable (Tab, inout Tab) -> Void
    /// Sets the field to a value other than its default (the tests of `Tab.fields`).
    let setOther: @Sendable (inout Tab) -> Void

    init(name: StaticString, key: StaticString, update: StaticString? = nil, accepts: Accepts, journal: Presence, snapshot: Presence, shown: Shown, arranges: Bool,
         path: (PartialKeyPath<Tab> & Sendable)?, isDefault: @escaping @Sendable (Tab) -> Bool,
         write: @escaping @Sendable (Tab, inout JSONWriter, TabForm) -> Void, showsIn: (@Sendable (Tab) -> Bool)?,
         writeShown: @escaping @Sendable (Tab, Controller?, inout JSONWriter) -> Void,
         read: @escaping @Sendable (JSONValue, inout Tab, String, TabForm) throws(TabFieldError) -> Void,
         equal: @escaping @Sendable (Tab, Tab) -> Bool, copy: @escaping @Sendable (Tab, inout Tab) -> Void,
         setOther: @escaping @Sendable (inout Tab) -> Void) {
        self.name = name.description; self.key = key.description; nameLiteral = name; keyLiteral = key
        updateLiteral = update ?? name; updateName = updateLiteral.description
        self.accepts = accepts; self.journal = journal; self.snapshot = snapshot; self.shown = shown; self.arranges = arranges
        self.path = path; self.isDefault = isDefault; self.write = write; self.showsIn = showsIn; self.writeShown = writeShown
        self.read = read; self.equal = equal; self.copy = copy; self.setOther = setOther
    }

    /// A stored field: its names, its key path and the reading of it (`get`, `\.title`:
    /// the key path again, as a function, which compiles to a plain read), its default.
    /// `state`: what `state` shows instead of the stored value (nil: the value); `showsIf`:
    /// when it shows it at all, within its place (nil: always).
    @inline(__always)
    static func field<V: TabFieldValue>(
        _ name: StaticString, _ key: StaticString, _ path: WritableKeyPath<Tab, V> & Sendable, _ get: @escaping @Sendable (Tab) -> V,
        default defaultValue: V, update: StaticString? = nil,
        accepts: Accepts = .read, journal: Presence = .unlessDefault, snapshot: Presence = .unlessDefault,
        shown: Shown = .always, arranges: Bool = false,
        showsIf: (@Sendable (Tab) -> Bool)? = nil, state: (@Sendable (Tab, Controller?, inout JSONWriter) -> Void)? = nil
    ) -> TabField {
        TabField(
            name: name, key: key, update: update, accepts: accepts, journal: journal, snapshot: snapshot, shown: shown, arranges: arranges,
            path: path,
            isDefault: { get($0) == defaultValue },
            write: { t, w, form in get(t).write(to: &w, form) },
            showsIn: showsIf,
            writeShown: state ?? { t, _, w in get(t).write(to: &w, .state) },
            read: { (json, t, at, form) throws(TabFieldError) in
                // A `state` object is read by clients, perhaps of another tabd's: a member
                // this one cannot read is left at its default.
                if form == .state {
                    if let v = try? V(json: json, at: at, form, orNull: false) { t[keyPath: path] = v }
                    return
                }
                // In the state files, a null where the field cannot be null is its default
                // (as the journal's reader always took it).
                if json == .null, form == .journal || form == .snapshot {
                    t[keyPath: path] = (try? V(json: json, at: at, form, orNull: false)) ?? defaultValue
                    return
                }
                t[keyPath: path] = try V(json: json, at: at, form, orNull: false)
            },
            equal: { get($0) == get($1) },
            copy: { from, to in to[keyPath: path] = get(from) },
            setOther: { $0[keyPath: path] = V.other(than: defaultValue) })
    }

    /// A member only `state` shows, computed from the tab (`badge`, the item's badge again).
    static func shown(_ name: StaticString, _ shown: Shown = .always, _ state: @escaping @Sendable (Tab, Controller?, inout JSONWriter) -> Void) -> TabField {
        TabField(
            name: name, key: name, accepts: .ignored, journal: .never, snapshot: .never, shown: shown, arranges: false,
            path: nil, isDefault: { _ in true }, write: { _, _, _ in }, showsIn: nil, writeShown: state,
            read: { _, _, _, _ in }, equal: { _, _ in true }, copy: { _, _ in }, setOther: { _ in })
    }

    /// Whether `form` writes the field for `t`.
    @inline(__always)
    func writes(_ t: Tab, _ form: TabForm) -> Bool {
        switch form == .journal ? journal : snapshot {
        case .always: return true
        case .unlessDefault: return !isDefault(t)
        case .never: return false
        }
    }

    /// Whether `form` reads the member.
    func reads(_ form: TabForm) -> Bool {
        switch form {
        case .description: return accepts != .refused
        case .state: return shown != .never && path != nil
        case .journal: return journal != .never
        case .snapshot: return snapshot != .never
        }
    }
}

extension Array where Element == TabField {
    /// Calls `body` with each row in order until it returns false; false when it did. The
    /// rows are reached unretained (`Tab.fields` and the lists made from it are constants
    /// kept for the process's life): `for f in rows` retained and released each row, and each
    /// closure it called, for every field of every tab read, written or compared (BENCHMARKS.md,
    /// "One tab schema").
    @inline(__always)
    @discardableResult
    func eachRow(_ body: (TabField) -> Bool) -> Bool {
        withUnsafeBufferPointer { rows in
            for i in rows.indices {
                guard Unmanaged.passUnretained(rows[i])._withUnsafeGuaranteedRef(body) else { return false }
            }
            return true
        }
    }
}

extension Tab {
    /// The fields a snapshot writes, its keys sorted (Swift's String order, as Codable's
    /// sorted keys were).
    static let snapshotFields = fields.filter { $0.snapshot != .never }.sorted { $0.key < $1.key }

    /// The fields `state` shows, by where it shows them.
    static let shownAlways = fields.filter { $0.shown == .always }
    static let shownModern = fields.filter { $0.shown == .modern }
    static let shownInGroups = fields.filter { $0.shown == .group }

    /// The stored fields `==` compares: all but those that say how a description was
    /// written (`keepsHidden`) rather than what the tab is.
    static let comparedFields = fields.filter { $0.path != nil && $0.snapshot != .never }

    /// The rows `update_tab` may change.
    static let updatableFields = fields.indices.filter { fields[$0].accepts == .read && fields[$0].name != "id" }

    /// Two tabs are equal when every field a snapshot keeps is (`keepsHidden` says how a
    /// description was written, not what the tab is: a description decoded from the wire
    /// equals the same tab built in code).
    public static func == (a: Tab, b: Tab) -> Bool {
        comparedFields.eachRow { $0.equal(a, b) }
    }

    /// The tab object in `form`. `controller`: for `state`, to say which child a group shows.
    public func write(to w: inout JSONWriter, _ form: TabForm, in controller: Controller? = nil) {
        w.beginObject()
        switch form {
        case .state:
            writeShown(Tab.shownAlways, to: &w, in: controller)
            if usesModernModel {
                writeShown(Tab.shownModern, to: &w, in: controller)
                if children != nil { writeShown(Tab.shownInGroups, to: &w, in: controller) }
            }
        case .journal, .description:
            Tab.fields.eachRow { f in
                if f.writes(self, .journal) {
                    w.key(literal: f.nameLiteral)
                    f.write(self, &w, form)
                }
                return true
            }
        case .snapshot:
            Tab.snapshotFields.eachRow { f in
                if f.writes(self, .snapshot) {
                    w.key(literal: f.keyLiteral)
                    f.write(self, &w, .snapshot)
                }
                return true
            }
        }
        w.endObject()
    }

    @inline(__always)
    private func writeShown(_ fields: [TabField], to w: inout JSONWriter, in controller: Controller?) {
        fields.eachRow { f in
            if let shows = f.showsIn, !shows(self) { return true }
            w.key(literal: f.nameLiteral)
            f.writeShown(self, controller, &w)
            return true
        }
    }

    /// A tab object in `form`. A description that leaves `hidden` out keeps a kept tab's
    /// value and starts a new one at `hidden_by_default` (R13.8, R13.9).
    public init(json: JSONValue, at path: String, _ form: TabForm) throws(TabFieldError) {
        var r = try TabObjectReader.object(json, at: path, form, orNull: false, expected: Tab.expected)
        self.init(id: "")
        var sawID = false, sawHidden = false
        var failure: TabFieldError?
        Tab.fields.eachRow { f in
            guard f.reads(form) else { return true }
            let name = form == .snapshot ? f.key : f.name
            guard let v = r.take(name) else { return true }
            if f.accepts == .ignored, form == .description { return true }
            do throws(TabFieldError) { try f.read(v, &self, r.place(name), form) } catch { failure = error; return false }
            if f.name == "id" { sawID = true }
            if f.name == "hidden" { sawHidden = true }
            return true
        }
        if let failure { throw failure }
        guard sawID else { throw TabFieldError(r.place("id"), .missing) }
        if form == .description, !sawHidden {
            keepsHidden = true
            hidden = hiddenByDefault
        }
        try r.finish()
    }
}

extension Tab: TabFieldElement {
    public static var expected: String { "a tab object like {\"id\":\"music\"}" }
    public static var plural: String { "tab objects" }
    public func write(to w: inout JSONWriter, _ form: TabForm) { write(to: &w, form, in: nil) }
    public init(json: JSONValue, at path: String, _ form: TabForm, orNull: Bool) throws(TabFieldError) {
        try self.init(json: json, at: path, form)
    }
    public static func other(than value: Self) -> Self { Tab(id: value.id + "x") }
    public static var example: Self { Tab(id: "kid") }
}

// MARK: update_tab

extension TabUpdate {
    /// The changes of an object's members (`update_tab`'s request or record), each read with
    /// `take`; `path`: where they lie ("" for the request's own members).
    public init(_ form: TabForm, path: String = "", take: (String) -> JSONValue?) throws(TabFieldError) {
        self.init()
        for i in Tab.updatableFields {
            let f = Tab.fields[i]
            guard let v = take(f.updateName) else { continue }
            try f.read(v, &values, path.isEmpty ? f.updateName : path + "." + f.updateName, form)
            changed |= 1 &<< UInt64(i)
        }
    }

    /// The changed fields as members, in the fields' order, nulls included.
    public func write(to w: inout JSONWriter, _ form: TabForm) {
        for i in Tab.updatableFields where changed & (1 &<< UInt64(i)) != 0 {
            let f = Tab.fields[i]
            w.key(literal: f.updateLiteral)
            f.write(values, &w, form)
        }
    }

    /// Sets the fields it changes (those that `arrange` the tree, or the others) in `tab`.
    func apply(to tab: inout Tab, arranging: Bool) {
        for i in Tab.updatableFields where changed & (1 &<< UInt64(i)) != 0 && Tab.fields[i].arranges == arranging {
            Tab.fields[i].copy(values, &tab)
        }
    }

    /// Whether the update changes how the tree is arranged (anything of R13 but the subtitle).
    var arranges: Bool {
        for i in Tab.updatableFields where changed & (1 &<< UInt64(i)) != 0 && Tab.fields[i].arranges { return true }
        return false
    }

    static func index(of path: PartialKeyPath<Tab>) -> Int {
        guard let i = Tab.fields.firstIndex(where: { $0.path.map { $0 as AnyKeyPath } == path }), Tab.updatableFields.contains(i) else {
            preconditionFailure("update_tab cannot change \(path)")
        }
        return i
    }

    /// A field's change: `update.title = .set("Inbox")`.
    public subscript<V: Equatable & Sendable>(dynamicMember path: WritableKeyPath<Tab, V>) -> Change<V> {
        get {
            let i = Self.index(of: path)
            return changed & (1 &<< UInt64(i)) != 0 ? .set(values[keyPath: path]) : .keep
        }
        set {
            let i = Self.index(of: path)
            switch newValue {
            case .keep:
                changed &= ~(1 &<< UInt64(i))
                Tab.fields[i].copy(Tab(id: ""), &values)
            case .set(let v):
                changed |= 1 &<< UInt64(i)
                values[keyPath: path] = v
            }
        }
    }
}
