// JSON values for plugin settings, call arguments, results and events. Read and written by
// TabJSON, the codec tabd itself uses: a plugin accepts exactly the JSON tabd accepts (and
// so refuses what tabd would refuse: duplicate keys, lone surrogates, 1e999, +1, 01, .5),
// and needs no Foundation.

import TabJSON

/// A JSON value. Objects keep no key order; `text` writes keys sorted, so output is stable.
///
/// Numbers: a number written without a fraction or exponent that fits Int64 is `.integer`,
/// exactly (ids and counters above 2^53 keep every digit); any other number is `.number`.
/// Equality compares numbers by value, so `.integer(3) == .number(3)`; `intValue` and
/// `doubleValue` read either case.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case integer(Int64)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// Parses JSON text (one value, at most 64 levels deep) as tabd does.
    public init(parsing text: String) throws(PolicyError) {
        do throws(JSONParseError) {
            self = JSON(try JSONParser.parse(text, maxDepth: 64))
        } catch {
            throw .invalid(error.description)
        }
    }

    /// Parses JSON text that is `count` UTF-8 bytes at `text` (tabd's C strings: parsed where
    /// they are, no String made of them first).
    init(parsing text: UnsafePointer<CChar>, count: Int) throws(PolicyError) {
        do throws(JSONParseError) {
            self = JSON(try JSONParser.parse(UnsafeRawBufferPointer(start: text, count: count), maxDepth: 64))
        } catch {
            throw .invalid(error.description)
        }
    }

    /// The value the parser read.
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .integer(i)
        case .double(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .array(let elements): self = .array(elements.map(JSON.init))
        case .object(let members):
            var object = [String: JSON](minimumCapacity: members.count)
            for (key, value) in members { object[key] = JSON(value) }
            self = .object(object)
        }
    }

    // MARK: Reading

    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public subscript(index: Int) -> JSON? {
        if case .array(let a) = self, index >= 0, index < a.count { return a[index] }
        return nil
    }

    public var isNull: Bool { self == .null }
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The number, either case (an integer beyond 2^53 rounds to the nearest Double).
    public var doubleValue: Double? {
        switch self {
        case .number(let n): return n
        case .integer(let i): return Double(i)
        default: return nil
        }
    }
    /// An `.integer`, or a `.number` that is a whole number below 9e15 in magnitude.
    public var intValue: Int? {
        switch self {
        case .integer(let i): return Int(exactly: i)
        case .number(let n) where n.rounded() == n && abs(n) < 9.0e15: return Int(n)
        default: return nil
        }
    }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: [String: JSON]? { if case .object(let o) = self { return o }; return nil }

    // MARK: Writing

    /// Compact JSON text (no whitespace, keys sorted). A `.number` that is a whole number
    /// below 9e15 in magnitude is written without a fraction (`3`, not `3.0`); NaN and
    /// infinities, which JSON cannot hold, are written as null.
    public var text: String {
        var w = JSONWriter(capacity: 128)
        write(&w)
        return w.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    private func write(_ w: inout JSONWriter) {
        switch self {
        case .null: w.null()
        case .bool(let b): w.bool(b)
        case .integer(let i): w.int(Int(i))
        case .number(let n):
            if n.rounded() == n, abs(n) < 9.0e15 { w.int(Int(n)) } else { w.double(n) }
        case .string(let s): w.string(s)
        case .array(let a):
            w.beginArray()
            for v in a { v.write(&w) }
            w.endArray()
        case .object(let o):
            w.beginObject()
            for k in o.keys.sorted() {
                w.key(k)
                o[k]!.write(&w)
            }
            w.endObject()
        }
    }
}

extension JSON: Equatable {
    /// Structural, except that numbers are equal when their values are: `.integer(3)` and
    /// `.number(3)` are the same number.
    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.integer(let i), .number(let d)), (.number(let d), .integer(let i)): return Int64(exactly: d) == i
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x == y
        default: return false
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSON {
    /// A string, or null for nil.
    public init(_ s: String?) { self = s.map(JSON.string) ?? .null }

    /// An integer: `.integer`, exactly, when it fits Int64 (beyond, the nearest `.number`).
    public init<I: BinaryInteger>(_ i: I) {
        if let exact = Int64(exactly: i) { self = .integer(exact) } else { self = .number(Double(i)) }
    }
}
