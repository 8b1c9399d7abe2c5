// Compact JSON straight into a byte buffer. Replies are built with the low-level appenders
// (no intermediate JSONValue tree); `write(_:)` encodes a whole tree.

import TabStrings

/// Appends compact JSON (no spaces) to its buffer.
///
/// Commas are placed automatically: a value or key written after a complete value gets a
/// comma first. That is decided from the last byte written (none after `{`, `[`, `:`, a
/// newline, or at the start), so `reset()` starts afresh and the writer needs no other state.
///
/// Strings: `"` and `\` are escaped, control characters as `\n \r \t \b \f` or `\u00XX`;
/// everything else (all non-ASCII) is copied as UTF-8. Doubles are written in the shortest
/// form that reads back to the same Double; NaN and ±infinity, which JSON cannot hold, are
/// written as `null`.
///
/// The buffer is the writer's own (a pointer, a count, a capacity) rather than a `[UInt8]`:
/// a reply is dozens of small appends, and `Array.append(contentsOf:)` costs about 11 ns
/// each where a bounds check and a memcpy cost 2 (measured: a `state` reply spent 16% of
/// its time in Array's append). The writer cannot be copied (`~Copyable`): there is no
/// shared buffer to guard, so an append checks the capacity and nothing else (a
/// copy-on-write check on every append cost a `select` 390 of its 6,580 instructions, and a
/// 6-tab `state` 3,700 of 33,700: callgrind, `make bench-instructions`).
public struct JSONWriter: ~Copyable {
    // Internal to the module, visible to inlined code: the hot appenders below are
    // @inlinable, so that a fixed key written from another module is a few stores, not a call.
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var used = 0
    @usableFromInline var capacity: Int

    public init(capacity: Int = 256) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Gives up the buffer without a copy: what was written is the first `count` bytes at
    /// the pointer, which the caller now owns (and frees with `deallocate()`).
    public consuming func takeBuffer() -> (pointer: UnsafeMutablePointer<UInt8>, count: Int) {
        let taken = (base, used)
        discard self
        return taken
    }

    /// What was written, as an array (a copy; `withBytes` reads without one).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: used)) }

    /// How many bytes were written.
    public var count: Int { used }

    /// Reads what was written, in place.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: used))
    }

    /// Replaces bytes already written, from `offset` on (framing whose content is known only
    /// after what follows it, such as a checksum before a record).
    @inlinable @inline(__always)
    public mutating func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) {
        precondition(offset >= 0 && offset + bytes.count <= used)
        (base + offset).update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }

    /// Forgets what was written from `count` on (a text kept elsewhere once written).
    public mutating func truncate(to count: Int) {
        precondition(count >= 0 && count <= used)
        used = count
    }

    /// Forgets what was written and keeps the buffer: the next value starts a new text.
    public mutating func reset() {
        used = 0
    }

    /// Forgets what was written and gives back a buffer grown past `limit` bytes (by one
    /// huge reply), starting again at `limit`: a writer kept for the life of the process
    /// must not keep its largest text's memory forever.
    public mutating func reset(keepingAtMost limit: Int) {
        used = 0
        guard capacity > limit else { return }
        base.deallocate()
        capacity = Swift.max(limit, 16)
        base = .allocate(capacity: capacity)
    }

    @usableFromInline
    mutating func grow(toAtLeast needed: Int) {
        var c = capacity
        while c < needed { c *= 2 }
        let b = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        b.initialize(from: base, count: used)
        base.deallocate()
        base = b
        capacity = c
    }

    /// Room for `n` more bytes: where they go. Commit them with `used += k`.
    @inlinable @inline(__always)
    mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if used &+ n > capacity { grow(toAtLeast: used &+ n) }
        return base + used
    }

    @inlinable @inline(__always)
    mutating func byte(_ b: UInt8) {
        reserve(1).pointee = b
        used &+= 1
    }

    @inlinable @inline(__always)
    mutating func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n).update(from: p, count: n)
        used &+= n
    }

    // MARK: Structure

    @inlinable @inline(__always)
    public mutating func beginObject() {
        separate()
        byte(UInt8(ascii: "{"))
    }

    @inlinable @inline(__always)
    public mutating func endObject() {
        byte(UInt8(ascii: "}"))
    }

    @inlinable @inline(__always)
    public mutating func beginArray() {
        separate()
        byte(UInt8(ascii: "["))
    }

    @inlinable @inline(__always)
    public mutating func endArray() {
        byte(UInt8(ascii: "]"))
    }

    /// A member's key and its ':'; the value follows with any appender.
    public mutating func key(_ k: String) {
        quoted(k, comma: needsComma, colon: true)
    }

    /// A key written as is: for the fixed names of the protocol on hot paths. It must need no
    /// escaping (checked in debug builds).
    @inlinable @inline(__always)
    public mutating func key(literal k: StaticString) {
        plainQuoted(k, colon: true)
    }

    /// A string value written as is (a fixed protocol name; no escapes, checked in debug).
    @inlinable @inline(__always)
    public mutating func string(literal v: StaticString) {
        plainQuoted(v, colon: false)
    }

    /// `,"text"` or `,"text":` (comma as needed) in one piece, for text that needs no escapes.
    @inlinable @inline(__always)
    mutating func plainQuoted(_ text: StaticString, colon: Bool) {
        assert(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount).allSatisfy {
            $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
        }, "key(literal:) and string(literal:) need text without escapes")
        let n = text.utf8CodeUnitCount
        let comma = needsComma
        let p = reserve(n + 4)
        var j = 0
        if comma { p[0] = UInt8(ascii: ","); j = 1 }
        p[j] = UInt8(ascii: "\"")
        (p + j + 1).update(from: text.utf8Start, count: n)
        j += n + 1
        p[j] = UInt8(ascii: "\""); j += 1
        if colon { p[j] = UInt8(ascii: ":"); j += 1 }
        used &+= j
    }

    /// Pre-encoded JSON text known at compile time, appended as is (no separator logic): the
    /// caller keeps the text well-formed.
    @inlinable @inline(__always)
    public mutating func literal(_ text: StaticString) {
        append(text)
    }

    /// Bytes as they are, with no comma before them (unlike `raw`, which places one value):
    /// framing around encoded text, such as the journal's record header, or the text itself.
    @inlinable @inline(__always)
    public mutating func append(bytes: UnsafeRawBufferPointer) {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return }
        append(p.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// Ends a line (one reply or event per line); the next value starts without a comma.
    @inlinable @inline(__always)
    public mutating func newline() {
        byte(UInt8(ascii: "\n"))
    }

    // MARK: Scalars

    public mutating func string(_ s: String) {
        quoted(s, comma: needsComma, colon: false)
    }

    /// The strings of `a` as a JSON array.
    public mutating func strings(_ a: [String]) {
        stringArray(a, stringAt: 0)
    }

    /// A JSON array of the `String` stored `offset` bytes into each element of `elements` (a
    /// stored property's `MemoryLayout<T>.offset(of:)`: the ids of a list of tabs, without an
    /// array of ids made). Small ASCII strings without escapes — nearly every id — are read
    /// from their two words where they lie and written with one reservation for the whole
    /// array (no retain, release or call per string: writing a 1,000-id list cost about 110
    /// instructions an id through `string(_:)`); any other string from where it is on, the
    /// general way.
    @inlinable
    public mutating func stringArray<T>(_ elements: [T], stringAt offset: Int) {
        beginArray()
        elements.withUnsafeBufferPointer { buffer in
            guard let first = buffer.baseAddress else { return }
            let n = buffer.count, stride = MemoryLayout<T>.stride
            var i = 0
            if SmallASCII.enabled {
                // Each string: a comma, two quotes and at most 15 bytes.
                let p = reserve(n &* 18)
                var k = 0
                var at = UnsafeRawPointer(first) + offset
                while i < n {
                    let low = at.loadUnaligned(as: UInt64.self), high = at.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    guard high >> 60 == 0xE else { break }
                    let count = SmallASCII.count(high)
                    // Eight bytes at a time. The flags of the bytes past `count` (zero, and the
                    // count byte) are masked off: a byte's flag can be set falsely only by a
                    // byte below it that is flagged truly, and those bytes are above the text.
                    let lowMask: UInt64 = count >= 8 ? ~0 : (1 &<< UInt64(truncatingIfNeeded: count &* 8)) &- 1
                    let highMask: UInt64 = count <= 8 ? 0 : (1 &<< UInt64(truncatingIfNeeded: (count &- 8) &* 8)) &- 1
                    let escapes = (quoteBackslashOrControl(low) & lowMask) | (quoteBackslashOrControl(high) & highMask)
                    if escapes & 0x8080_8080_8080_8080 != 0 { break }
                    if i > 0 { p[k] = UInt8(ascii: ","); k &+= 1 }
                    p[k] = UInt8(ascii: "\"")
                    // The words as they are (their bytes past `count` are zero; the count
                    // byte, past 15, is overwritten by what follows or left past `used`).
                    let q = UnsafeMutableRawPointer(p + (k &+ 1))
                    q.storeBytes(of: low, as: UInt64.self)
                    q.storeBytes(of: high, toByteOffset: 8, as: UInt64.self)
                    k &+= count &+ 1
                    p[k] = UInt8(ascii: "\"")
                    k &+= 1
                    i &+= 1
                    at += stride
                }
                used &+= k
            }
            while i < n {
                let at = UnsafeRawPointer(first + i) + offset
                string(at.assumingMemoryBound(to: String.self).pointee)
                i &+= 1
            }
        }
        endArray()
    }

    /// A one-digit value (an index among a few tabs, most often) is one byte, inline.
    @inlinable @inline(__always)
    public mutating func int(_ i: Int) {
        separate()
        if UInt(bitPattern: i) < 10 { byte(UInt8(truncatingIfNeeded: i) &+ UInt8(ascii: "0")) } else { integer(Int64(i)) }
    }

    /// `true` or `false` with one eight-byte store (room for it reserved; `used` counts the
    /// four or five that are the value).
    @inlinable @inline(__always)
    public mutating func bool(_ b: Bool) {
        separate()
        let p = reserve(8)
        let word: UInt64 = b ? 0x6575_7274 : 0x65_736C_6166  // "true", "false", little-endian
        UnsafeMutableRawPointer(p).storeBytes(of: word.littleEndian, as: UInt64.self)
        used &+= b ? 4 : 5
    }

    public mutating func null() {
        separate()
        append("null")
    }

    public mutating func double(_ d: Double) {
        separate()
        floatingPoint(d)
    }

    /// Pre-encoded JSON: exactly one complete value, without surrounding whitespace.
    public mutating func raw(_ json: some Collection<UInt8>) {
        separate()
        let n = json.count
        let p = reserve(n)
        _ = UnsafeMutableBufferPointer(start: p, count: n).initialize(from: json)
        used &+= n
    }

    /// Reads what was written as a NUL-terminated C string (for a C API), without a copy.
    /// The text must hold no NUL of its own (JSON text never does: a NUL in a string is
    /// written `\u0000`).
    public mutating func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        let end = reserve(1)
        end.pointee = 0
        return try body(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self))
    }

    /// A whole value tree.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let b): bool(b)
        case .int(let i):
            separate()
            integer(i)
        case .double(let d): double(d)
        case .string(let s): string(s)
        case .array(let elements):
            beginArray()
            for e in elements { write(e) }
            endArray()
        case .object(let object):
            beginObject()
            for m in object.members {
                key(m.key)
                write(m.value)
            }
            endObject()
        }
    }

    // MARK: Encoding

    /// Whether the next value or key follows a complete value at the same level.
    @inline(__always)
    @inlinable
    var needsComma: Bool {
        guard used > 0 else { return false }
        switch base[used &- 1] {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: ":"), UInt8(ascii: "\n"): return false
        default: return true
        }
    }

    @inlinable @inline(__always)
    mutating func separate() {
        if needsComma { byte(UInt8(ascii: ",")) }
    }

    @inlinable @inline(__always)
    mutating func append(_ s: StaticString) {
        append(s.utf8Start, s.utf8CodeUnitCount)
    }

    /// Digits written backwards into a stack buffer, then appended: no String made.
    @usableFromInline
    mutating func integer(_ value: Int64) {
        var magnitude = value.magnitude
        if value < 0 { byte(UInt8(ascii: "-")) }
        if magnitude < 10 {
            byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var k = 20
            while magnitude > 0 {
                let (q, r) = magnitude.quotientAndRemainder(dividingBy: 10)
                k -= 1
                digits[k] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: r)
                magnitude = q
            }
            append(digits.baseAddress! + k, 20 - k)
        }
    }

    private mutating func floatingPoint(_ d: Double) {
        guard d.isFinite else {
            append("null")
            return
        }
        // Whole numbers below 2^53 are exact: digits and ".0", as Swift would print them,
        // without making a String.
        if d.magnitude < 9_007_199_254_740_992, d == d.rounded(.towardZero) {
            if d == 0 && d.sign == .minus {
                append("-0.0")
            } else {
                integer(Int64(d))
                append(".0")
            }
            return
        }
        // Swift's description is the shortest text that reads back to the same Double
        // ("0.1", "1e-05", "1.7976931348623157e+308"), always valid JSON for finite values.
        var text = d.description
        text.withUTF8 { append($0.baseAddress!, $0.count) }
    }

    /// A small ASCII string (`SmallASCII`: at most 15 bytes, in the String's two words) that
    /// needs no escape, quoted straight from its words: two 8-byte stores where the general
    /// path finds the bytes, checks them one by one and copies them (a tab id in a select's
    /// reply and its journal record, ~70 instructions each). False, having written nothing,
    /// when a byte needs escaping.
    @inline(__always)
    private mutating func smallQuoted(_ low: UInt64, _ high: UInt64, comma: Bool, colon: Bool) -> Bool {
        let n = SmallASCII.count(high)
        // Byte by byte: ids are short, and eight bytes at once cost more below eight.
        var w = low, i = 0
        while i < n {
            if i == 8 { w = high }
            let b = UInt8(truncatingIfNeeded: w)
            if b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return false }
            w &>>= 8
            i &+= 1
        }
        let p = reserve(n &+ 20)
        var k = 0
        if comma { p[0] = UInt8(ascii: ","); k = 1 }
        p[k] = UInt8(ascii: "\""); k &+= 1
        // The words as they are (their bytes past `n` are zero, the count byte is past 15).
        let q = UnsafeMutableRawPointer(p + k)
        q.storeBytes(of: low, as: UInt64.self)
        q.storeBytes(of: high, toByteOffset: 8, as: UInt64.self)
        k &+= n
        p[k] = UInt8(ascii: "\""); k &+= 1
        if colon { p[k] = UInt8(ascii: ":"); k &+= 1 }
        used &+= k
        return true
    }

    /// `,"s":` with the comma and colon as asked: a small ASCII string from its words
    /// (`smallQuoted`), any other from its bytes. Inlined into `key` and `string`, so that
    /// the short ids of the hot paths never reach the general path's call.
    @inline(__always)
    private mutating func quoted(_ s: String, comma: Bool, colon: Bool) {
        if let (low, high) = SmallASCII.words(s), smallQuoted(low, high, comma: comma, colon: colon) { return }
        quotedBytes(s, comma: comma, colon: colon)
    }

    /// Short strings (nearly all keys and values) are assembled on the stack, escapes
    /// included, and appended at once.
    private mutating func quotedBytes(_ s: String, comma: Bool, colon: Bool) {
        // The bytes in place (a small string's from a stack copy): `withUTF8` would need a
        // mutable copy of `s`, a retain and a release per string written.
        if let done: Void = s.utf8.withContiguousStorageIfAvailable({ quoted($0, comma: comma, colon: colon) }) { return done }
        var s = s
        s.withUTF8 { quoted($0, comma: comma, colon: colon) }
    }

    private mutating func quoted(_ utf8: UnsafeBufferPointer<UInt8>, comma: Bool, colon: Bool) {
        let n = utf8.count
        guard n <= 120 else { return longQuoted(utf8, comma: comma, colon: colon) }
        // Worst case: every byte becomes \u00XX.
        let p = reserve(6 * n + 4)
        var k = 0
        if comma { p[k] = UInt8(ascii: ","); k += 1 }
        p[k] = UInt8(ascii: "\""); k += 1
        for j in 0..<n {
            let b = utf8[j]
            if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") {
                p[k] = b
                k += 1
            } else {
                k += Self.escape(b, into: p + k)
            }
        }
        p[k] = UInt8(ascii: "\""); k += 1
        if colon { p[k] = UInt8(ascii: ":"); k += 1 }
        used &+= k
    }

    private mutating func longQuoted(_ utf8: UnsafeBufferPointer<UInt8>, comma: Bool, colon: Bool) {
        if comma { byte(UInt8(ascii: ",")) }
        byte(UInt8(ascii: "\""))
        let n = utf8.count
        var run = 0
        while run < n {
            let j = firstEscape(utf8, from: run)
            append(utf8.baseAddress! + run, j - run)
            if j < n {
                let p = reserve(6)
                used &+= Self.escape(utf8[j], into: p)
            }
            run = j + 1
        }
        byte(UInt8(ascii: "\""))
        if colon { byte(UInt8(ascii: ":")) }
    }

    /// The offset of the first byte at or after `j` that must be escaped, or `utf8.count`.
    @inline(__always)
    private func firstEscape(_ utf8: UnsafeBufferPointer<UInt8>, from j: Int) -> Int {
        let n = utf8.count
        var j = j
        while j < n {
            // 8 bytes at a time while none needs escaping.
            if j + 8 <= n && !needsEscape(UnsafeRawPointer(utf8.baseAddress! + j).loadUnaligned(as: UInt64.self)) {
                j += 8
                continue
            }
            let b = utf8[j]
            if b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return j }
            j += 1
        }
        return n
    }

    /// True when one of the 8 bytes is '"', '\' or a control character.
    @inline(__always)
    private func needsEscape(_ w: UInt64) -> Bool {
        quoteBackslashOrControl(w) & 0x8080_8080_8080_8080 != 0
    }

    /// Writes the escape for `b` (a quote, backslash or control character) at `p`; returns
    /// its length.
    @inline(__always)
    private static func escape(_ b: UInt8, into p: UnsafeMutablePointer<UInt8>) -> Int {
        p[0] = UInt8(ascii: "\\")
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): p[1] = b
        case 0x0A: p[1] = UInt8(ascii: "n")
        case 0x0D: p[1] = UInt8(ascii: "r")
        case 0x09: p[1] = UInt8(ascii: "t")
        case 0x08: p[1] = UInt8(ascii: "b")
        case 0x0C: p[1] = UInt8(ascii: "f")
        default:
            let digits: StaticString = "0123456789abcdef"
            p[1] = UInt8(ascii: "u")
            p[2] = UInt8(ascii: "0")
            p[3] = UInt8(ascii: "0")
            p[4] = digits.utf8Start[Int(b >> 4)]
            p[5] = digits.utf8Start[Int(b & 0xF)]
            return 6
        }
        return 2
    }
}

/// Eight bytes at once (the has-zero-byte test on `w` xor '"', `w` xor '\', and `w` - 0x20):
/// some high bit is set when one of the bytes is '"', '\' or a control character, and none is
/// when all 8 are other ASCII. Bytes at or above 0x80 may set bits too, so the result only
/// says where to look closer: the writer then checks byte by byte, the parser stops anyway.
@inline(__always)
@usableFromInline
func quoteBackslashOrControl(_ w: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let quote = w ^ (ones &* 0x22)
    let backslash = w ^ (ones &* 0x5C)
    let zeroInQuote = (quote &- ones) & ~quote
    let zeroInBackslash = (backslash &- ones) & ~backslash
    let control = (w &- ones &* 0x20) & ~w
    return zeroInQuote | zeroInBackslash | control
}

extension String {
    /// The text as one line: line breaks and other control characters (C0, DEL, C1 — NEL
    /// among them —, LS, PS) written as JSON escapes (\n, \r, \t, \u0008, \u009b …), the
    /// rest as it is. For messages that quote what someone else wrote (a client's field name,
    /// a config file's key), so that a reply's message, tabctl's output and a log line stay
    /// one line and hold no control sequence for a terminal. No copy is made when there is
    /// nothing to escape.
    public var oneLine: String {
        func breaks(_ u: Unicode.Scalar) -> Bool {
            u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
        }
        guard unicodeScalars.contains(where: breaks) else { return self }
        var out = String.UnicodeScalarView()
        for u in unicodeScalars {
            guard breaks(u) else { out.append(u); continue }
            let escape: String
            switch u {
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            default:
                let hex = String(u.value, radix: 16)
                escape = "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }
}
