// The little JSON the host needs: check what plugins hand over (results, events, settings)
// and write its own records. Plugin JSON is read by the parser client requests go through
// (TabProtocol's JSONParser) and written again compactly: what reaches a client is JSON
// tabd itself would accept, and a raw newline can never reach the line-framed wire.

import Glibc
import TabProtocol

/// Writes compact JSON text.
struct JSONText {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{")); needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}")); needsComma = true
    }

    mutating func array<S: Sequence>(_ items: S, _ each: (inout JSONText, S.Element) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "[")); needsComma = false
        for item in items { each(&self, item) }
        bytes.append(UInt8(ascii: "]")); needsComma = true
    }

    mutating func strings(_ items: [String]) { array(items) { w, s in w.string(s) } }

    mutating func key(_ k: String) {
        string(k)
        bytes.append(UInt8(ascii: ":")); needsComma = false
    }

    mutating func field(_ k: String, _ v: String?) { key(k); if let v { string(v) } else { raw("null") } }
    mutating func field(_ k: String, _ v: Bool) { key(k); raw(v ? "true" : "false") }
    mutating func field(_ k: String, _ v: Int) { key(k); raw(String(v)) }

    mutating func raw(_ s: String) {
        separate()
        bytes.append(contentsOf: s.utf8); needsComma = true
    }

    mutating func string(_ s: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
            case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}

/// JSON a plugin handed over, checked and written again.
struct CheckedJSON {
    /// The value as compact JSON text (JSONWriter's: no whitespace between tokens).
    var text: String
    var isObject: Bool

    /// Reads at most `maxBytes` of NUL-terminated text from a plugin. Refused, with the
    /// reason as a phrase: more bytes, and whatever the strict parser refuses (not JSON,
    /// trailing bytes, duplicate keys, lone surrogates, numbers beyond Double, nesting
    /// deeper than `maxDepth`).
    init(_ text: UnsafePointer<CChar>, maxBytes: Int, maxDepth: Int) throws(Refusal) {
        let length = strnlen(text, maxBytes + 1)
        guard length <= maxBytes else { throw Refusal("it is longer than \(maxBytes) bytes") }
        try self.init { () throws(JSONParseError) in
            try JSONParser.parse(UnsafeRawBufferPointer(start: text, count: length), maxDepth: maxDepth)
        }
    }

    init(_ text: String, maxDepth: Int) throws(Refusal) {
        try self.init { () throws(JSONParseError) in try JSONParser.parse(text, maxDepth: maxDepth) }
    }

    private init(parsing parse: () throws(JSONParseError) -> JSONValue) throws(Refusal) {
        let value: JSONValue
        do {
            value = try parse()
        } catch {
            throw Refusal(error.description)
        }
        var w = JSONWriter(capacity: 256)
        w.write(value)
        text = w.withBytes { String(decoding: $0, as: UTF8.self) }
        if case .object = value { isObject = true } else { isObject = false }
    }
}
