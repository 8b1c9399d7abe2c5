// Codable over JSONValue, for the state tabd keeps on disk: a type's `encode(to:)` makes a
// JSONValue that JSONWriter writes, and a JSONValue JSONParser made is decoded back into the
// type. The same parser and writer as the wire, instead of Foundation's JSONEncoder and
// JSONDecoder (a second codec, with its own idea of what JSON is, at ~6 µs per tab).
//
// Numbers: integers are `.int`, exact up to Int64 (an unsigned value above Int64.max cannot
// be encoded: JSONParser would read it back as a Double). Doubles must be finite. Decoding
// an integer type accepts a Double that holds a whole number in its range (1e3, 2.0), as
// JSONDecoder does. A value that encodes nothing is `{}`, as with JSONEncoder.

/// Encodes an `Encodable` value as a JSONValue.
public struct JSONValueEncoder {
    /// Objects' members sorted by key (Swift's String order), so that dictionaries, whose
    /// order changes from one process to the next, are written the same way every time.
    /// Otherwise members are in the order they were encoded.
    public var sortedKeys: Bool

    public init(sortedKeys: Bool = false) {
        self.sortedKeys = sortedKeys
    }

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = EncodingBox()
        try value.encode(to: ValueEncoder(box: root, path: nil))
        return root.value(sortedKeys: sortedKeys)
    }
}

/// Decodes a `Decodable` value from a JSONValue.
public struct JSONValueDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, path: nil))
    }
}

// MARK: Coding paths

/// A coding path as a list from the innermost key out: made only when a container is
/// entered, turned into `[CodingKey]` only when asked for (an error message).
final class PathNode {
    let key: CodingKey
    let parent: PathNode?

    init(_ key: CodingKey, _ parent: PathNode?) {
        self.key = key
        self.parent = parent
    }

    static func keys(_ node: PathNode?) -> [CodingKey] {
        var keys: [CodingKey] = []
        var n = node
        while let k = n {
            keys.append(k.key)
            n = k.parent
        }
        return keys.reversed()
    }
}

/// An array element's position as a coding key.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue!)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// The key `superEncoder()` and `superDecoder()` use.
struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { guard stringValue == "super" else { return nil } }
    init?(intValue: Int) { nil }
}

// MARK: Primitive values

/// The primitive types, which the containers turn into JSONValue and back themselves.
protocol JSONPrimitive {
    /// nil when `json` is not a value of this type (the caller throws).
    init?(json: JSONValue)
    /// nil when JSON, as JSONParser reads it, cannot hold the value exactly (the caller throws).
    var json: JSONValue? { get }
}

extension Bool: JSONPrimitive {
    init?(json: JSONValue) {
        guard case .bool(let b) = json else { return nil }
        self = b
    }
    var json: JSONValue? { .bool(self) }
}

extension String: JSONPrimitive {
    init?(json: JSONValue) {
        guard case .string(let s) = json else { return nil }
        self = s
    }
    var json: JSONValue? { .string(self) }
}

extension Double: JSONPrimitive {
    init?(json: JSONValue) {
        switch json {
        case .int(let i): self = Double(i)
        case .double(let d): self = d
        default: return nil
        }
    }
    /// NaN and the infinities are not JSON numbers.
    var json: JSONValue? { isFinite ? .double(self) : nil }
}

extension Float: JSONPrimitive {
    init?(json: JSONValue) {
        guard let d = Double(json: json) else { return nil }
        self = Float(d)
    }
    var json: JSONValue? { Double(self).json }
}

extension JSONPrimitive where Self: FixedWidthInteger {
    /// An integer in range, or a Double that holds one (as JSONDecoder reads 1e3 or 2.0).
    init?(json: JSONValue) {
        switch json {
        case .int(let i): self.init(exactly: i)
        case .double(let d): self.init(exactly: d)
        default: return nil
        }
    }
    /// Above Int64.max, JSONParser would read the number back as a Double.
    var json: JSONValue? { Int64(exactly: self).map { .int($0) } }
}

extension Int: JSONPrimitive {}
extension Int8: JSONPrimitive {}
extension Int16: JSONPrimitive {}
extension Int32: JSONPrimitive {}
extension Int64: JSONPrimitive {}
extension UInt: JSONPrimitive {}
extension UInt8: JSONPrimitive {}
extension UInt16: JSONPrimitive {}
extension UInt32: JSONPrimitive {}
extension UInt64: JSONPrimitive {}

// MARK: Encoding

/// What one value encoded to so far: a single value, or an object or array whose members are
/// still being written (a nested container writes into its box after the parent went on).
///
/// Its fields unchecked: a box belongs to one encode call on one thread, and each access is
/// a single read or write or an append, never open across another. TabJSON is part of the
/// Swift SDK, which must build without unsafe flags (Package.swift), so it no longer has
/// `-enforce-exclusivity=unchecked`; these were the only dynamic checks that flag removed
/// from it (BENCHMARKS-HISTORY.md, "The Swift SDK as a package").
final class EncodingBox {
    enum Kind { case unset, single, object, array }

    @exclusivity(unchecked) var kind = Kind.unset
    @exclusivity(unchecked) var single = JSONValue.null
    /// An object's keys, and the values of an object or array, in the order written.
    @exclusivity(unchecked) var keys: [String] = []
    @exclusivity(unchecked) var slots: [Slot] = []

    /// A member or element: finished, or a container still open.
    enum Slot {
        case value(JSONValue)
        case box(EncodingBox)
    }

    func value(sortedKeys: Bool) -> JSONValue {
        switch kind {
        case .unset: return .object(JSONObject())
        case .single: return single
        case .array: return .array(slots.map { $0.value(sortedKeys: sortedKeys) })
        case .object:
            var members: [JSONObject.Member] = []
            members.reserveCapacity(slots.count)
            for i in 0..<slots.count { members.append(JSONObject.Member(key: keys[i], value: slots[i].value(sortedKeys: sortedKeys))) }
            guard sortedKeys else {
                // A key written twice keeps its first place and its last value.
                return .object(JSONObject(members.map { ($0.key, $0.value) }))
            }
            // Stable: of members with the same key, the last written is last.
            members.sort { $0.key < $1.key }
            var unique: [JSONObject.Member] = []
            unique.reserveCapacity(members.count)
            for m in members {
                if let last = unique.last, last.key == m.key { unique[unique.count - 1] = m } else { unique.append(m) }
            }
            return .object(JSONObject(unindexedMembers: unique))
        }
    }
}

extension EncodingBox.Slot {
    func value(sortedKeys: Bool) -> JSONValue {
        switch self {
        case .value(let v): return v
        case .box(let b): return b.value(sortedKeys: sortedKeys)
        }
    }
}

/// The error for a value JSON (or its reading by JSONParser) cannot hold exactly.
private func unrepresentable(_ value: Any, _ path: [CodingKey]) -> EncodingError {
    .invalidValue(value, .init(codingPath: path, debugDescription: "\(value) cannot be written as a JSON number that reads back the same"))
}

/// The JSONValue of `value`: the primitive types directly, anything else through its
/// `encode(to:)` into a box of its own.
private func encoded<T: Encodable>(_ value: T, at path: PathNode?) throws -> EncodingBox.Slot {
    if T.self == String.self { return .value(.string(value as! String)) }
    let box = EncodingBox()
    try value.encode(to: ValueEncoder(box: box, path: path))
    if box.kind == .single { return .value(box.single) }
    return .box(box)
}

struct ValueEncoder: Encoder {
    let box: EncodingBox
    let path: PathNode?

    var codingPath: [CodingKey] { PathNode.keys(path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if box.kind != .object {
            precondition(box.kind == .unset, "a value asked for a keyed container after encoding something else")
            box.kind = .object
            box.keys.reserveCapacity(16)
            box.slots.reserveCapacity(16)
        }
        return KeyedEncodingContainer(KeyedEncoder<Key>(box: box, path: path))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if box.kind != .array {
            precondition(box.kind == .unset, "a value asked for an unkeyed container after encoding something else")
            box.kind = .array
        }
        return ElementEncoder(box: box, path: path, single: false)
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        ElementEncoder(box: box, path: path, single: true)
    }
}

struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: EncodingBox
    let path: PathNode?

    var codingPath: [CodingKey] { PathNode.keys(path) }

    private func put(_ key: Key, _ slot: EncodingBox.Slot) {
        box.keys.append(key.stringValue)
        box.slots.append(slot)
    }

    private func put(_ key: Key, _ value: JSONValue) { put(key, .value(value)) }

    private func put<T: JSONPrimitive>(_ value: T, _ key: Key) throws {
        guard let v = value.json else { throw unrepresentable(value, PathNode.keys(path) + [key]) }
        put(key, v)
    }

    mutating func encodeNil(forKey key: Key) throws { put(key, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        put(key, try encoded(value, at: PathNode(key, path)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingBox()
        put(key, .box(child))
        return ValueEncoder(box: child, path: PathNode(key, path)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        let child = EncodingBox()
        put(key, .box(child))
        return ValueEncoder(box: child, path: PathNode(key, path)).unkeyedContainer()
    }

    mutating func superEncoder() -> Encoder {
        let child = EncodingBox()
        box.keys.append(SuperKey().stringValue)
        box.slots.append(.box(child))
        return ValueEncoder(box: child, path: PathNode(SuperKey(), path))
    }

    mutating func superEncoder(forKey key: Key) -> Encoder {
        let child = EncodingBox()
        put(key, .box(child))
        return ValueEncoder(box: child, path: PathNode(key, path))
    }
}

/// The unkeyed container, and the single value container (`single`): the same writes, which
/// append an element to an array, or set the one value.
struct ElementEncoder: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let box: EncodingBox
    let path: PathNode?
    let single: Bool

    var codingPath: [CodingKey] { PathNode.keys(path) }
    var count: Int { box.slots.count }

    /// Where the next value goes, for an error.
    private var here: [CodingKey] { single ? codingPath : codingPath + [IndexKey(count)] }

    private func put(_ value: JSONValue) {
        if single {
            precondition(box.kind == .unset, "a single value container encoded twice, or after a keyed or unkeyed container")
            box.kind = .single
            box.single = value
        } else {
            box.slots.append(.value(value))
        }
    }

    private func put<T: JSONPrimitive>(_ value: T) throws {
        guard let v = value.json else { throw unrepresentable(value, here) }
        put(v)
    }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { try put(value) }
    mutating func encode(_ value: String) throws { try put(value) }
    mutating func encode(_ value: Double) throws { try put(value) }
    mutating func encode(_ value: Float) throws { try put(value) }
    mutating func encode(_ value: Int) throws { try put(value) }
    mutating func encode(_ value: Int8) throws { try put(value) }
    mutating func encode(_ value: Int16) throws { try put(value) }
    mutating func encode(_ value: Int32) throws { try put(value) }
    mutating func encode(_ value: Int64) throws { try put(value) }
    mutating func encode(_ value: UInt) throws { try put(value) }
    mutating func encode(_ value: UInt8) throws { try put(value) }
    mutating func encode(_ value: UInt16) throws { try put(value) }
    mutating func encode(_ value: UInt32) throws { try put(value) }
    mutating func encode(_ value: UInt64) throws { try put(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if single {
            precondition(box.kind == .unset, "a single value container encoded twice, or after a keyed or unkeyed container")
            try value.encode(to: ValueEncoder(box: box, path: path))
        } else {
            box.slots.append(try encoded(value, at: PathNode(IndexKey(count), path)))
        }
    }

    // Unkeyed only: each opens the next element.

    private mutating func nextElement() -> ValueEncoder {
        let child = EncodingBox()
        let key = IndexKey(count)
        box.slots.append(.box(child))
        return ValueEncoder(box: child, path: PathNode(key, path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nextElement().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        nextElement().unkeyedContainer()
    }

    mutating func superEncoder() -> Encoder {
        nextElement()
    }
}

// MARK: Decoding

/// What a JSON value is called in an error message.
private func kindName(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool: return "a boolean"
    case .int, .double: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [CodingKey]) -> DecodingError {
    .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(kindName(value))"))
}

struct ValueDecoder: Decoder {
    let value: JSONValue
    let path: PathNode?

    var codingPath: [CodingKey] { PathNode.keys(path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch([String: Any].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedDecoder<Key>(object: object, path: path))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([Any].self, value, codingPath) }
        return UnkeyedDecoder(elements: elements, path: path)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        SingleDecoder(value: value, path: path)
    }
}

/// Decodes `T` from `value`: the primitive types directly, anything else through `init(from:)`.
private func decoded<T: Decodable>(_ type: T.Type, _ value: JSONValue, at path: PathNode?) throws -> T {
    if type == String.self {
        guard case .string(let s) = value else { throw mismatch(type, value, PathNode.keys(path)) }
        return s as! T
    }
    return try T(from: ValueDecoder(value: value, path: path))
}

struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let path: PathNode?

    var codingPath: [CodingKey] { PathNode.keys(path) }
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object.position(of: key.stringValue) != nil }

    private func at(_ key: Key) -> [CodingKey] { PathNode.keys(path) + [key] }

    private func member(_ key: Key) throws -> JSONValue {
        guard let i = object.position(of: key.stringValue) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \"\(key.stringValue)\""))
        }
        return object.value(at: i)
    }

    private func scalar<T: JSONPrimitive>(_ type: T.Type, _ key: Key) throws -> T {
        let value = try member(key)
        guard let v = T(json: value) else { throw mismatch(type, value, at(key)) }
        return v
    }

    /// nil for a missing member or null, as JSONDecoder's decodeIfPresent.
    private func scalarIfPresent<T: JSONPrimitive>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let i = object.position(of: key.stringValue) else { return nil }
        let value = object.value(at: i)
        if value == .null { return nil }
        guard let v = T(json: value) else { throw mismatch(type, value, at(key)) }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try scalarIfPresent(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoded(type, try member(key), at: PathNode(key, path))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let i = object.position(of: key.stringValue) else { return nil }
        let value = object.value(at: i)
        if value == .null { return nil }
        return try decoded(type, value, at: PathNode(key, path))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try member(key), path: PathNode(key, path)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        try ValueDecoder(value: try member(key), path: PathNode(key, path)).unkeyedContainer()
    }

    func superDecoder() throws -> Decoder {
        let i = object.position(of: SuperKey().stringValue)
        return ValueDecoder(value: i.map { object.value(at: $0) } ?? .null, path: PathNode(SuperKey(), path))
    }

    func superDecoder(forKey key: Key) throws -> Decoder {
        let i = object.position(of: key.stringValue)
        return ValueDecoder(value: i.map { object.value(at: $0) } ?? .null, path: PathNode(key, path))
    }
}

struct UnkeyedDecoder: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let path: PathNode?
    var currentIndex = 0

    init(elements: [JSONValue], path: PathNode?) {
        self.elements = elements
        self.path = path
    }

    var codingPath: [CodingKey] { PathNode.keys(path) }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> JSONValue {
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "the array has no more elements"))
        }
        defer { currentIndex += 1 }
        return elements[currentIndex]
    }

    private mutating func scalar<T: JSONPrimitive>(_ type: T.Type) throws -> T {
        let value = try next(type)
        guard let v = T(json: value) else { throw mismatch(type, value, codingPath + [IndexKey(currentIndex - 1)]) }
        return v
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    mutating func decode(_ type: String.Type) throws -> String { try scalar(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try next(type)
        return try decoded(type, value, at: PathNode(IndexKey(currentIndex - 1), path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try next([String: Any].self)
        return try ValueDecoder(value: value, path: PathNode(IndexKey(currentIndex - 1), path)).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
        let value = try next([Any].self)
        return try ValueDecoder(value: value, path: PathNode(IndexKey(currentIndex - 1), path)).unkeyedContainer()
    }

    mutating func superDecoder() throws -> Decoder {
        let value = try next(Any.self)
        return ValueDecoder(value: value, path: PathNode(IndexKey(currentIndex - 1), path))
    }
}

struct SingleDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    let path: PathNode?

    var codingPath: [CodingKey] { PathNode.keys(path) }

    private func scalar<T: JSONPrimitive>(_ type: T.Type) throws -> T {
        guard let v = T(json: value) else { throw mismatch(type, value, codingPath) }
        return v
    }

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    func decode(_ type: String.Type) throws -> String { try scalar(type) }
    func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoded(type, value, at: path)
    }
}
