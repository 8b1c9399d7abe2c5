// The little JSON the host needs: check what plugins hand over (results, events, settings)
// and write its own records, both with TabJSON, the codec client requests go through. Plugin
// JSON is read by the strict parser and written again compactly: what reaches a client is
// JSON tabd itself would accept, and a raw newline can never reach the line-framed wire.

import Glibc
import TabJSON

/// What the host's records (`plugins`, `explain`, `stats`) are written with: TabJSON's writer
/// and the member helpers below.
typealias JSONText = JSONWriter

extension JSONWriter {
    /// What was written, as a String.
    var text: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    mutating func array<S: Sequence>(_ items: S, _ each: (inout JSONWriter, S.Element) -> Void) {
        beginArray()
        for item in items { each(&self, item) }
        endArray()
    }

    mutating func strings(_ items: [String]) { array(items) { w, s in w.string(s) } }

    mutating func field(_ k: String, _ v: String?) { key(k); if let v { string(v) } else { null() } }
    mutating func field(_ k: String, _ v: Bool) { key(k); bool(v) }
    mutating func field(_ k: String, _ v: Int) { key(k); int(v) }
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
        text = w.text
        if case .object = value { isObject = true } else { isObject = false }
    }
}
