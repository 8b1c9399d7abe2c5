// The little JSON the host needs: check what plugins hand over (results, events) and
// write its own records. Plugin JSON goes onto a line-framed wire, so it is checked and
// re-emitted without whitespace: a raw newline can never reach a client.

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

/// Checks JSON text and returns it without insignificant whitespace, or nil when it is
/// not one complete JSON value (or nests deeper than `maxDepth`).
func compactJSON(_ text: UnsafePointer<CChar>, maxDepth: Int = 64, maxBytes: Int = 1 << 20) -> (json: String, isObject: Bool)? {
    var length = 0
    while text[length] != 0 {
        length += 1
        if length > maxBytes { return nil }
    }
    return text.withMemoryRebound(to: UInt8.self, capacity: length) { p in
        var scanner = JSONScanner(input: UnsafeBufferPointer(start: p, count: length), maxDepth: maxDepth)
        guard scanner.value(depth: 0) else { return nil }
        scanner.skipSpace()
        guard scanner.at == length else { return nil }
        return (String(decoding: scanner.out, as: UTF8.self), scanner.out.first == UInt8(ascii: "{"))
    }
}

func compactJSON(_ text: String) -> (json: String, isObject: Bool)? {
    text.withCString { compactJSON($0) }
}

private struct JSONScanner {
    let input: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var at = 0
    var out: [UInt8] = []

    init(input: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.input = input; self.maxDepth = maxDepth
        out.reserveCapacity(input.count)
    }

    var peek: UInt8? { at < input.count ? input[at] : nil }

    mutating func skipSpace() {
        while let c = peek, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { at += 1 }
    }

    mutating func take(_ c: UInt8) -> Bool {
        guard peek == c else { return false }
        out.append(c); at += 1
        return true
    }

    mutating func value(depth: Int) -> Bool {
        guard depth <= maxDepth else { return false }
        skipSpace()
        guard let c = peek else { return false }
        switch c {
        case UInt8(ascii: "{"):
            _ = take(c); skipSpace()
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                skipSpace()
                guard peek == UInt8(ascii: "\""), string() else { return false }
                skipSpace()
                guard take(UInt8(ascii: ":")), value(depth: depth + 1) else { return false }
                skipSpace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            _ = take(c); skipSpace()
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                guard value(depth: depth + 1) else { return false }
                skipSpace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        case UInt8(ascii: "\""):
            return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard at + n <= input.count else { return false }
        for i in 0..<n where input[at + i] != word.utf8Start[i] { return false }
        out.append(contentsOf: UnsafeBufferPointer(start: word.utf8Start, count: n))
        at += n
        return true
    }

    mutating func string() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        while let c = peek {
            switch c {
            case UInt8(ascii: "\""):
                return take(c)
            case UInt8(ascii: "\\"):
                _ = take(c)
                guard let e = peek else { return false }
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    _ = take(e)
                case UInt8(ascii: "u"):
                    _ = take(e)
                    for _ in 0..<4 {
                        guard let h = peek, isHex(h) else { return false }
                        _ = take(h)
                    }
                default:
                    return false
                }
            case 0..<0x20:
                return false  // raw control characters (newlines) are not JSON
            default:
                // A run of plain bytes in one copy: a long string is a scan, not an append per byte.
                var end = at + 1
                while end < input.count, input[end] != UInt8(ascii: "\""), input[end] != UInt8(ascii: "\\"), input[end] >= 0x20 { end += 1 }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: input[at..<end]))
                at = end
            }
        }
        return false
    }

    mutating func number() -> Bool {
        let start = at
        _ = take(UInt8(ascii: "-"))
        guard let first = peek, isDigit(first) else { return false }
        if first == UInt8(ascii: "0") { _ = take(first) } else { digits() }
        if take(UInt8(ascii: ".")) {
            guard let d = peek, isDigit(d) else { return false }
            digits()
        }
        if let e = peek, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            _ = take(e)
            if let s = peek, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { _ = take(s) }
            guard let d = peek, isDigit(d) else { return false }
            digits()
        }
        return at > start
    }

    mutating func digits() { while let d = peek, isDigit(d) { _ = take(d) } }
    func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
    func isHex(_ c: UInt8) -> Bool { isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70) }
}
