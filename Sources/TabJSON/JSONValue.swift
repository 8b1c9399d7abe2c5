// The JSON value tree that requests are decoded into. No Foundation: the daemon parses
// straight from socket bytes (JSONParser) and writes replies straight to bytes (JSONWriter).

/// One JSON value, as RFC 8259 defines it.
///
/// Numbers: an integer literal that fits `Int64` is `.int`; any other number (a fraction, an
/// exponent, or an integer too large for `Int64`) is `.double`. `-0` is `.double(-0.0)`
/// so that the sign survives a round trip (there is no negative zero among integers).
///
/// Equality is structural and order-sensitive for objects (see `JSONObject`). `.int(1)` and
/// `.double(1)` are different values; `.double(0)` equals `.double(-0.0)` as Doubles do.
///
/// `@frozen`: these cases are all there are, for the prebuilt SDK too (sdk/prebuild.sh compiles
/// TabJSON with library evolution, where a switch over a non-frozen enum of another module
/// needs `@unknown default`); it changes nothing in tabd's own build.
@frozen public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON object: key/value members in the order they were written or set.
///
/// Keys are unique. The parser rejects a duplicate key; `init(_:)` and `set(_:_:)` replace
/// the value of an existing key in place. Keys are compared as Swift strings, that is by
/// canonical equivalence, so "é" and "e\u{301}" are the same key (and so a duplicate).
///
/// Equality compares members in order: `{"a":1,"b":2}` is not equal to `{"b":2,"a":1}`.
/// That keeps `==` in step with the encoded text.
public struct JSONObject: Equatable, Sendable, Sequence {
    public typealias Element = (key: String, value: JSONValue)

    /// Lookups scan the members while there are at most this many; bigger objects keep a
    /// hash index so that a 1 MiB request with 100,000 keys stays linear.
    static let linearLimit = 8

    /// One member; a struct rather than the Element tuple so that copies are specialized.
    @usableFromInline
    struct Member: Sendable {
        @usableFromInline var key: String
        @usableFromInline var value: JSONValue

        @usableFromInline
        init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    // Visible to the lookups below, which are inlined into the request decoder (TabProtocol).
    @usableFromInline var members: [Member]
    @usableFromInline var index: [String: Int]?

    public init() {
        members = []
        index = nil
    }

    /// The members in order; a repeated key replaces the earlier value in its place.
    public init(_ pairs: [(String, JSONValue)]) {
        members = []
        members.reserveCapacity(pairs.count)
        index = nil
        for (key, value) in pairs { set(key, value) }
    }

    /// Members already known to have unique keys (the parser checked), with the index the
    /// parser built for big objects.
    init(uniqueMembers: [Member], index: [String: Int]?) {
        members = uniqueMembers
        self.index = index
        if index == nil && members.count > Self.linearLimit { buildIndex() }
    }

    /// Members already known to have unique keys, without the index: for an object made to
    /// be written (JSONValueEncoder's), where building it would cost more than the writing.
    /// Lookups in such an object scan its members until one is added (which builds it).
    init(unindexedMembers: [Member]) {
        members = unindexedMembers
        index = nil
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }
    /// The key of the member at `position` (0 ..< count).
    @inlinable
    public func key(at position: Int) -> String { members[position].key }
    /// The value of the member at `position` (0 ..< count).
    @inlinable
    public func value(at position: Int) -> JSONValue { members[position].value }
    public var values: [JSONValue] { members.map(\.value) }

    /// The value of `key`; setting `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = position(of: key) else { return nil }
            return members[i].value
        }
        set {
            if let newValue { set(key, newValue) } else { removeValue(forKey: key) }
        }
    }

    /// Replaces the value of `key` where it is, or appends the member.
    public mutating func set(_ key: String, _ value: JSONValue) {
        if let i = position(of: key) {
            members[i].value = value
            return
        }
        members.append(Member(key: key, value: value))
        if index != nil {
            index![key] = members.count - 1
        } else if members.count > Self.linearLimit {
            buildIndex()
        }
    }

    /// Removes the member and returns its value; the other members keep their order.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let i = position(of: key) else { return nil }
        let value = members.remove(at: i).value
        if index != nil {
            if members.count > Self.linearLimit { buildIndex() } else { index = nil }
        }
        return value
    }

    public struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[Member]>

        public mutating func next() -> Element? {
            guard let m = base.next() else { return nil }
            return (m.key, m.value)
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(base: members.makeIterator())
    }

    public var underestimatedCount: Int { members.count }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.members.count == b.members.count else { return false }
        for i in 0..<a.members.count {
            guard a.members[i].key == b.members[i].key, a.members[i].value == b.members[i].value else { return false }
        }
        return true
    }

    /// Where `key` is among the members (their order), or nil.
    @inlinable @inline(__always)
    public func position(of key: String) -> Int? {
        if let index { return index[key] }
        for i in 0..<members.count where members[i].key == key { return i }
        return nil
    }

    /// `position(of:)` for a key of ASCII letters, digits, '_' and '.' — the protocol's own
    /// field names. No string of another length is canonically equivalent to such a key
    /// (only K, ` and ; have non-ASCII equivalents), so members whose UTF-8 length differs
    /// are skipped without a full string comparison.
    @inlinable @inline(__always)
    public func position(ofIdentifier key: String) -> Int? {
        if let index { return index[key] }
        let n = key.utf8.count
        for i in 0..<members.count where members[i].key.utf8.count == n && members[i].key == key { return i }
        return nil
    }

    private mutating func buildIndex() {
        var index = [String: Int](minimumCapacity: members.count)
        for i in 0..<members.count { index[members[i].key] = i }
        self.index = index
    }
}

extension JSONValue {
    /// The compact encoding (no spaces), as JSONWriter writes it; for tests and logs.
    public var jsonString: String {
        var w = JSONWriter(capacity: 64)
        w.write(self)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text, so that test failures and logs read as JSON.
    public var description: String { jsonString }
}

extension JSONObject: CustomStringConvertible {
    public var description: String { JSONValue.object(self).jsonString }
}
