// JSON values for plugin settings, call arguments, results and events. Small on purpose:
// a plugin links this SDK statically and needs no Foundation.

/// A JSON value. Objects keep no key order; `text` writes keys sorted, so output is stable.
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// Parses JSON text (one value, at most 64 levels deep).
    public init(parsing text: String) throws(PolicyError) {
        var text = text
        self = try text.withUTF8 { JSON.parse($0) }.get()
    }

    /// Parses JSON text that is `count` UTF-8 bytes at `text` (tabd's C strings: parsed where
    /// they are, no String made of them first).
    init(parsing text: UnsafePointer<CChar>, count: Int) throws(PolicyError) {
        self = try text.withMemoryRebound(to: UInt8.self, capacity: count) { JSON.parse(UnsafeBufferPointer(start: $0, count: count)) }.get()
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<JSON, PolicyError> {
        var p = Parser(bytes)
        return Result { () throws(PolicyError) in try p.document() }
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
    public var doubleValue: Double? { if case .number(let n) = self { return n }; return nil }
    /// The number, when it is a whole number that fits an Int.
    public var intValue: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) < 9.0e15 else { return nil }
        return Int(n)
    }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: [String: JSON]? { if case .object(let o) = self { return o }; return nil }

    // MARK: Writing

    /// Compact JSON text (no whitespace, keys sorted).
    public var text: String {
        var out: [UInt8] = []
        write(&out)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(_ out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n):
            if n.rounded() == n, abs(n) < 9.0e15 {
                out.append(contentsOf: String(Int(n)).utf8)
            } else if n.isFinite {
                out.append(contentsOf: String(n).utf8)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case .string(let s): JSON.writeString(s, &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(&out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, k) in o.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeString(k, &out)
                out.append(UInt8(ascii: ":"))
                o[k]!.write(&out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ s: String, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
            case 0x0A: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
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
}

private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0
    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func document() throws(PolicyError) -> JSON {
        let v = try value(depth: 0)
        space()
        guard at == bytes.count else { throw fail("unexpected text after the JSON value") }
        return v
    }

    func fail(_ what: String) -> PolicyError { .invalid("invalid JSON at byte \(at): \(what)") }

    mutating func space() {
        while at < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[at]) { at += 1 }
    }

    mutating func value(depth: Int) throws(PolicyError) -> JSON {
        guard depth < 64 else { throw fail("nested too deeply") }
        space()
        guard at < bytes.count else { throw fail("unexpected end") }
        switch bytes[at] {
        case UInt8(ascii: "{"):
            at += 1
            var o: [String: JSON] = [:]
            space()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(o) }
            while true {
                space()
                let k = try string()
                space()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                at += 1
                o[k] = try value(depth: depth + 1)
                space()
                guard at < bytes.count else { throw fail("unexpected end in an object") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                if bytes[at] == UInt8(ascii: "}") { at += 1; return .object(o) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            at += 1
            var a: [JSON] = []
            space()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(a) }
            while true {
                a.append(try value(depth: depth + 1))
                space()
                guard at < bytes.count else { throw fail("unexpected end in an array") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                if bytes[at] == UInt8(ascii: "]") { at += 1; return .array(a) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default:
            return .number(try number())
        }
    }

    mutating func literal(_ word: String) throws(PolicyError) {
        let w = Array(word.utf8)
        guard at + w.count <= bytes.count, Array(bytes[at..<at + w.count]) == w else { throw fail("expected \(word)") }
        at += w.count
    }

    mutating func number() throws(PolicyError) -> Double {
        let start = at
        while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
        guard at > start, let n = Double(String(decoding: bytes[start..<at], as: UTF8.self)) else { throw fail("expected a value") }
        return n
    }

    mutating func hex4() throws(PolicyError) -> UInt32 {
        guard at + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else {
            throw fail("bad \\u escape")
        }
        at += 4
        return v
    }

    mutating func string() throws(PolicyError) -> String {
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        at += 1
        // Runs of plain bytes are taken whole: a string without escapes is one scan and one
        // copy (into the String); `out` is used only once there is an escape.
        var run = at
        var out: [UInt8] = []
        var escaped = false
        while at < bytes.count {
            let c = bytes[at]
            if c != UInt8(ascii: "\""), c != UInt8(ascii: "\\"), c >= 0x20 {
                at += 1
                continue
            }
            let plain = UnsafeBufferPointer(rebasing: bytes[run..<at])
            at += 1
            switch c {
            case UInt8(ascii: "\""):
                guard escaped else { return String(decoding: plain, as: UTF8.self) }
                out.append(contentsOf: plain)
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                out.append(contentsOf: plain)
                escaped = true
                guard at < bytes.count else { throw fail("unexpected end in a string") }
                let e = bytes[at]
                at += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if scalar >= 0xD800, scalar < 0xDC00, at + 1 < bytes.count,
                       bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") {
                        at += 2
                        let low = try hex4()
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low &- 0xDC00)
                    }
                    out.append(contentsOf: String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8)
                default: out.append(e)
                }
                run = at
            default:
                throw fail("control character in a string")
            }
        }
        throw fail("unterminated string")
    }
}
