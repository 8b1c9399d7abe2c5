// A strict RFC 8259 parser that reads straight from bytes.
//
// Why hand-written: a request line is ~40 bytes and the daemon answers tens of thousands
// per second; JSONSerialization costs several microseconds per line (Benchmarks/json).
// Why iterative: nesting is tracked on an explicit frame stack, so no input (a million
// '[') can overflow the thread's stack, whatever maxDepth is.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a byte sequence is not the JSON we accept, and where (0-based byte offset).
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// E.g. `invalid JSON at byte 17: expected ':' after object key`.
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// Parses exactly one JSON value (RFC 8259, nothing more) from UTF-8 bytes.
///
/// Rejected: trailing commas, comments, single quotes, leading zeros, NaN/Infinity, raw
/// control characters in strings, unknown escapes, lone surrogates (escaped or encoded),
/// invalid UTF-8 anywhere, whitespace other than space/tab/CR/LF, duplicate object keys,
/// numbers beyond Double's range, nesting deeper than `maxDepth`, and anything but
/// whitespace after the value. Numbers that underflow (1e-400) round to 0 or a subnormal.
public struct JSONParser {
    private let base: UnsafeRawPointer
    private let count: Int
    private let maxDepth: Int
    private var i = 0
    /// Reused for strings with escapes.
    private var scratch: [UInt8] = []
    /// The member of the outermost object whose value's bytes are wanted, and where they are.
    private var spanKey: String?
    private var span: Range<Int>?

    private init(base: UnsafeRawPointer, count: Int, maxDepth: Int) {
        self.base = base
        self.count = count
        self.maxDepth = maxDepth
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        try parse(bytes, maxDepth: maxDepth, spanOfMember: nil).value
    }

    /// `parse`, and where the value of the outermost object's member `key` lies: the bytes
    /// of its text as written, without the whitespace around it (nil when there is no such
    /// member). The request decoder echoes `id` from them.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64,
                             spanOfMember key: String?) throws(JSONParseError) -> (value: JSONValue, span: Range<Int>?) {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw JSONParseError(offset: 0, reason: "empty input, expected a JSON value")
        }
        var parser = JSONParser(base: base, count: bytes.count, maxDepth: maxDepth)
        parser.spanKey = key
        let value = try parser.document()
        return (value, parser.span)
    }

    public static func parse(_ string: String, maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        var string = string
        let result = string.withUTF8 { utf8 -> Result<JSONValue, JSONParseError> in
            do throws(JSONParseError) {
                return .success(try parse(UnsafeRawBufferPointer(utf8), maxDepth: maxDepth))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Structure

    private struct Frame {
        var isObject: Bool
        /// Where this container's members start on the member stack.
        var start: Int
        /// The key this container is the value of, when its parent is an object.
        var keyInParent: String
        /// Key → position, kept once an object has more than JSONObject.linearLimit keys.
        var index: [String: Int]?
    }

    private mutating func document() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard i < count else { throw fail(i, "only whitespace, expected a JSON value") }
        let value = try tree()
        skipWhitespace()
        guard i == count else { throw fail(i, "unexpected \(describe(i)) after the JSON value") }
        return value
    }

    private mutating func tree() throws(JSONParseError) -> JSONValue {
        var frames: [Frame] = []
        // Members of all open containers, innermost last; array elements have key "".
        var members: [JSONObject.Member] = []
        var key = ""
        var value: JSONValue
        // Where the current member of the outermost container began (for `spanKey`).
        var memberStart = 0

        nextValue: while true {
            skipWhitespace()
            guard i < count else { throw fail(i, "unexpected end of input, expected a value") }
            if frames.count == 1 { memberStart = i }
            switch byte(i) {
            case UInt8(ascii: "{"):
                guard frames.count < maxDepth else { throw fail(i, "nesting deeper than \(maxDepth)") }
                i += 1
                skipWhitespace()
                if i < count && byte(i) == UInt8(ascii: "}") {
                    i += 1
                    value = .object(JSONObject())
                } else {
                    if frames.isEmpty {
                        frames.reserveCapacity(8)
                        members.reserveCapacity(16)
                    }
                    frames.append(Frame(isObject: true, start: members.count, keyInParent: key, index: nil))
                    key = try memberKey(&frames[frames.count - 1], members)
                    continue nextValue
                }
            case UInt8(ascii: "["):
                guard frames.count < maxDepth else { throw fail(i, "nesting deeper than \(maxDepth)") }
                i += 1
                skipWhitespace()
                if i < count && byte(i) == UInt8(ascii: "]") {
                    i += 1
                    value = .array([])
                } else {
                    if frames.isEmpty {
                        frames.reserveCapacity(8)
                        members.reserveCapacity(16)
                    }
                    frames.append(Frame(isObject: false, start: members.count, keyInParent: key, index: nil))
                    key = ""
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                value = .string(try string())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try number()
            case UInt8(ascii: "t"):
                try literal("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                value = .null
            default:
                throw unexpectedValueStart()
            }

            // A value is complete: hand it to the enclosing container, closing containers
            // as long as their closing bracket follows.
            while true {
                guard !frames.isEmpty else { return value }
                if frames.count == 1, let spanKey, frames[0].isObject, key == spanKey { span = memberStart..<i }
                members.append(JSONObject.Member(key: key, value: value))
                skipWhitespace()
                guard i < count else {
                    throw fail(i, frames[frames.count - 1].isObject
                        ? "unexpected end of input, expected ',' or '}'"
                        : "unexpected end of input, expected ',' or ']'")
                }
                let c = byte(i)
                if c == UInt8(ascii: ",") {
                    i += 1
                    if frames[frames.count - 1].isObject {
                        key = try memberKey(&frames[frames.count - 1], members)
                    } else {
                        skipWhitespace()
                        if i < count && byte(i) == UInt8(ascii: "]") { throw fail(i, "trailing comma before ']'") }
                        key = ""
                    }
                    continue nextValue
                }
                let frame = frames.removeLast()
                if frame.isObject {
                    guard c == UInt8(ascii: "}") else {
                        throw fail(i, "expected ',' or '}' after an object member, found \(describe(i))")
                    }
                    if frames.isEmpty {
                        // The outermost container: its members are the whole stack.
                        i += 1
                        return .object(JSONObject(uniqueMembers: members, index: frame.index))
                    }
                    value = .object(JSONObject(uniqueMembers: Array(members[frame.start...]), index: frame.index))
                } else {
                    guard c == UInt8(ascii: "]") else {
                        throw fail(i, "expected ',' or ']' after an array element, found \(describe(i))")
                    }
                    var elements: [JSONValue] = []
                    elements.reserveCapacity(members.count - frame.start)
                    for m in frame.start..<members.count { elements.append(members[m].value) }
                    value = .array(elements)
                }
                i += 1
                members.removeSubrange(frame.start...)
                key = frame.keyInParent
            }
        }
    }

    /// At the start of an object member (after '{' or ','): the key, checked for
    /// duplicates, and the ':' after it.
    private mutating func memberKey(_ frame: inout Frame, _ members: [JSONObject.Member]) throws(JSONParseError) -> String {
        skipWhitespace()
        guard i < count, byte(i) == UInt8(ascii: "\"") else {
            if i < count && byte(i) == UInt8(ascii: "}") { throw fail(i, "trailing comma before '}'") }
            if i < count && byte(i) == UInt8(ascii: "'") { throw fail(i, "object keys must use double quotes") }
            throw fail(i, "expected a string key, found \(describe(i))")
        }
        let keyOffset = i
        let key = try string()
        let n = members.count - frame.start
        if let index = frame.index {
            if index[key] != nil { throw duplicate(key, keyOffset) }
            frame.index![key] = n
        } else {
            for m in frame.start..<members.count where members[m].key == key { throw duplicate(key, keyOffset) }
            if n + 1 > JSONObject.linearLimit {
                var index = [String: Int](minimumCapacity: 2 * JSONObject.linearLimit)
                for m in frame.start..<members.count { index[members[m].key] = m - frame.start }
                index[key] = n
                frame.index = index
            }
        }
        skipWhitespace()
        guard i < count, byte(i) == UInt8(ascii: ":") else {
            throw fail(i, "expected ':' after object key, found \(describe(i))")
        }
        i += 1
        return key
    }

    private func duplicate(_ key: String, _ offset: Int) -> JSONParseError {
        let shown = key.count > 40 ? String(key.prefix(40)) + "…" : key
        return fail(offset, "duplicate key \"\(shown)\"")
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        for k in 0..<n {
            guard i + k < count, byte(i + k) == w[k] else {
                throw fail(i, "invalid literal, expected '\(word)'")
            }
        }
        i += n
    }

    private func unexpectedValueStart() -> JSONParseError {
        let b = byte(i)
        switch b {
        case UInt8(ascii: "'"): return fail(i, "strings must use double quotes")
        case UInt8(ascii: "/"), UInt8(ascii: "#"): return fail(i, "comments are not allowed in JSON")
        case UInt8(ascii: "N"), UInt8(ascii: "I"): return fail(i, "NaN and Infinity are not JSON numbers")
        case UInt8(ascii: "+"): return fail(i, "a number cannot start with '+'")
        case UInt8(ascii: "."): return fail(i, "a number needs a digit before '.'")
        case UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ","), UInt8(ascii: ":"):
            return fail(i, "expected a value, found \(describe(i))")
        default: return fail(i, "expected a value, found \(describe(i))")
        }
    }

    // MARK: Bytes

    @inline(__always)
    private func byte(_ offset: Int) -> UInt8 {
        base.load(fromByteOffset: offset, as: UInt8.self)
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while i < count {
            let b = byte(i)
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            i += 1
        }
    }

    private func fail(_ offset: Int, _ reason: String) -> JSONParseError {
        JSONParseError(offset: offset, reason: reason)
    }

    /// Names the byte at `offset` for an error message; invalid UTF-8 is named as such.
    private func describe(_ offset: Int) -> String {
        guard offset < count else { return "end of input" }
        let b = byte(offset)
        if b >= 0x80 {
            if let problem = utf8Problem(at: offset) { return "invalid UTF-8 (\(problem))" }
            return "non-ASCII character"
        }
        if b < 0x20 || b == 0x7F { return "byte 0x\(hex(b))" }
        return "'\(Character(Unicode.Scalar(b)))'"
    }

    private func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: [digits[Int(b >> 4)], digits[Int(b & 15)]], as: UTF8.self)
    }

    // MARK: Strings

    /// At the opening quote: the string's value. Escape-free strings are made straight
    /// from the input bytes, which are validated 8 at a time while they are ASCII.
    private mutating func string() throws(JSONParseError) -> String {
        let start = i + 1
        var j = start
        while true {
            while j + 8 <= count && !needsAttention(base.loadUnaligned(fromByteOffset: j, as: UInt64.self)) {
                j += 8
            }
            guard j < count else { throw fail(start - 1, "unterminated string") }
            let b = byte(j)
            if b == UInt8(ascii: "\"") {
                i = j + 1
                return String(decoding: UnsafeRawBufferPointer(start: base + start, count: j - start), as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") { return try escapedString(start: start, firstEscape: j) }
            if b < 0x20 { throw fail(j, "control character 0x\(hex(b)) must be escaped in a string") }
            if b < 0x80 {
                j += 1
            } else {
                j = try utf8Sequence(at: j)
            }
        }
    }

    /// True when one of the 8 bytes is '"', '\', a control character or non-ASCII.
    @inline(__always)
    private func needsAttention(_ w: UInt64) -> Bool {
        (w | quoteBackslashOrControl(w)) & 0x8080_8080_8080_8080 != 0
    }

    private mutating func escapedString(start: Int, firstEscape: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: firstEscape - start))
        var j = firstEscape
        var run = j
        while true {
            guard j < count else { throw fail(start - 1, "unterminated string") }
            let b = byte(j)
            if b == UInt8(ascii: "\"") {
                scratch.append(contentsOf: UnsafeRawBufferPointer(start: base + run, count: j - run))
                i = j + 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") {
                scratch.append(contentsOf: UnsafeRawBufferPointer(start: base + run, count: j - run))
                j = try escape(at: j)
                run = j
            } else if b < 0x20 {
                throw fail(j, "control character 0x\(hex(b)) must be escaped in a string")
            } else if b < 0x80 {
                j += 1
            } else {
                j = try utf8Sequence(at: j)
            }
        }
    }

    /// At a backslash: appends the escaped character to `scratch`, returns the offset after it.
    private mutating func escape(at j: Int) throws(JSONParseError) -> Int {
        guard j + 1 < count else { throw fail(j, "unterminated escape sequence") }
        let e = byte(j + 1)
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let first = try hex4(at: j + 2, escapeAt: j)
            var scalar = first
            var end = j + 6
            switch first {
            case 0xD800...0xDBFF:
                guard end + 1 < count, byte(end) == UInt8(ascii: "\\"), byte(end + 1) == UInt8(ascii: "u") else {
                    throw fail(j, "lone high surrogate \\u\(hex(UInt8(first >> 8)))\(hex(UInt8(first & 0xFF))) (a low surrogate escape must follow)")
                }
                let second = try hex4(at: end + 2, escapeAt: end)
                guard (0xDC00...0xDFFF).contains(second) else {
                    throw fail(j, "high surrogate not followed by a low surrogate")
                }
                scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                end += 6
            case 0xDC00...0xDFFF:
                throw fail(j, "lone low surrogate \\u\(hex(UInt8(first >> 8)))\(hex(UInt8(first & 0xFF)))")
            default:
                break
            }
            appendUTF8(scalar)
            return end
        default:
            if e < 0x20 || e >= 0x80 { throw fail(j, "invalid escape sequence") }
            throw fail(j, "invalid escape '\\\(Character(Unicode.Scalar(e)))'")
        }
        return j + 2
    }

    private func hex4(at j: Int, escapeAt: Int) throws(JSONParseError) -> UInt32 {
        guard j + 4 <= count else { throw fail(escapeAt, "\\u needs 4 hex digits") }
        var v: UInt32 = 0
        for k in 0..<4 {
            let h = byte(j + k)
            let d: UInt8
            switch h {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = h - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = h - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = h - UInt8(ascii: "A") + 10
            default: throw fail(escapeAt, "\\u needs 4 hex digits")
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    private mutating func appendUTF8(_ s: UInt32) {
        switch s {
        case 0..<0x80:
            scratch.append(UInt8(s))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | s >> 6))
            scratch.append(UInt8(0x80 | s & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | s >> 12))
            scratch.append(UInt8(0x80 | s >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | s & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | s >> 18))
            scratch.append(UInt8(0x80 | s >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | s >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | s & 0x3F))
        }
    }

    /// At a byte ≥ 0x80: the offset after a well-formed UTF-8 sequence, or an error at its
    /// first byte.
    private func utf8Sequence(at j: Int) throws(JSONParseError) -> Int {
        if let problem = utf8Problem(at: j) { throw fail(j, "invalid UTF-8 (\(problem))") }
        let b = byte(j)
        return j + (b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4)
    }

    /// Unicode 15 table 3-7 (well-formed UTF-8 byte sequences); nil when well formed.
    private func utf8Problem(at j: Int) -> String? {
        let b0 = byte(j)
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        var rangeProblem = ""
        switch b0 {
        case 0x80...0xBF: return "unexpected continuation byte 0x\(hex(b0))"
        case 0xC0, 0xC1: return "overlong encoding"
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0; rangeProblem = "overlong encoding"
        case 0xED: length = 3; high = 0x9F; rangeProblem = "encoded surrogate"
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; low = 0x90; rangeProblem = "overlong encoding"
        case 0xF4: length = 4; high = 0x8F; rangeProblem = "code point above U+10FFFF"
        case 0xF1...0xF3: length = 4
        default: return "byte 0x\(hex(b0)) never appears in UTF-8"
        }
        for k in 1..<length {
            guard j + k < count else { return "truncated sequence" }
            let c = byte(j + k)
            guard c & 0xC0 == 0x80 else { return "truncated sequence" }
            if k == 1 && (c < low || c > high) { return rangeProblem }
        }
        return nil
    }

    // MARK: Numbers

    private static let powersOf10: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    @inline(__always)
    private func isDigit(_ offset: Int) -> Bool {
        offset < count && byte(offset) &- UInt8(ascii: "0") < 10
    }

    /// At '-' or a digit. Integers that fit Int64 are exact; other numbers take the exact
    /// fast path (Clinger: ≤ 2^53 significand, |power of ten| ≤ 22) or strtod.
    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = i
        let negative = byte(i) == UInt8(ascii: "-")
        if negative {
            i += 1
            guard isDigit(i) else {
                if i < count && (byte(i) == UInt8(ascii: "I") || byte(i) == UInt8(ascii: "N")) {
                    throw fail(start, "NaN and Infinity are not JSON numbers")
                }
                throw fail(i, "expected a digit after '-'")
            }
        }
        var significand: UInt64 = 0
        var exact = true  // the significand holds every digit
        if byte(i) == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) { throw fail(start, "leading zeros are not allowed") }
        } else {
            while isDigit(i) {
                let (m, o1) = significand.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(UInt64(byte(i) &- UInt8(ascii: "0")))
                if o1 || o2 { exact = false } else { significand = s }
                i += 1
            }
        }
        var isInteger = true
        var power = 0
        if i < count && byte(i) == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard isDigit(i) else { throw fail(i, "expected a digit after the decimal point") }
            while isDigit(i) {
                if exact {
                    let (m, o1) = significand.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.addingReportingOverflow(UInt64(byte(i) &- UInt8(ascii: "0")))
                    if o1 || o2 { exact = false } else { significand = s; power -= 1 }
                }
                i += 1
            }
        }
        if i < count && (byte(i) == UInt8(ascii: "e") || byte(i) == UInt8(ascii: "E")) {
            isInteger = false
            i += 1
            var exponentNegative = false
            if i < count && (byte(i) == UInt8(ascii: "+") || byte(i) == UInt8(ascii: "-")) {
                exponentNegative = byte(i) == UInt8(ascii: "-")
                i += 1
            }
            guard isDigit(i) else { throw fail(i, "expected a digit in the exponent") }
            var exponent = 0
            while isDigit(i) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(byte(i) &- UInt8(ascii: "0")) }
                i += 1
            }
            power += exponentNegative ? -exponent : exponent
        }

        if isInteger && exact {
            if negative {
                if significand == 0 { return .double(-0.0) }
                if significand <= UInt64(Int64.max) { return .int(-Int64(significand)) }
                if significand == UInt64(Int64.max) + 1 { return .int(Int64.min) }
            } else if significand <= UInt64(Int64.max) {
                return .int(Int64(significand))
            }
        }
        if exact && significand <= 1 << 53 && power >= -22 && power <= 22 {
            var d = Double(significand)
            d = power < 0 ? d / Self.powersOf10[-power] : d * Self.powersOf10[power]
            return .double(negative ? -d : d)
        }
        let d = strtod(from: start, to: i)
        guard d.isFinite else { throw fail(start, "number out of range") }
        return .double(d)
    }

    /// strtod on a NUL-terminated copy of the number (on the stack when short), in the C
    /// locale so that '.' is the decimal point whatever the process locale is.
    private func strtod(from start: Int, to end: Int) -> Double {
        let n = end - start
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buffer -> Double in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.copyMemory(from: UnsafeRawBufferPointer(start: base + start, count: n))
            buffer[n] = 0
            let previous = uselocale(cNumericLocale)
            defer { uselocale(previous) }
            return _strtod(buffer.baseAddress!, nil)
        }
    }
}

/// `strtod` under its own name, since JSONParser has a method of that name.
@inline(__always)
private func _strtod(_ s: UnsafePointer<CChar>, _ end: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Double {
    strtod(s, end)
}

/// The C locale's number rules, made once. nonisolated(unsafe) only because locale_t is a
/// plain C pointer: the locale is never changed, and uselocale reads it on any thread.
nonisolated(unsafe) private let cNumericLocale = newlocale(1 << LC_NUMERIC, "C", nil)
