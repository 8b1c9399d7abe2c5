// The cursor of the fast decoders: the requests clients send most (TabProtocol's
// FastRequest) and the journal's flat records (TabState's JournalCodec) are read straight
// from their bytes with it — no JSON tree, no key strings, no array of members.
//
// It reads a narrow subset of JSON and only ever accepts: anything outside it (an escape, a
// non-ASCII byte, a number that is not a small integer …) is a nil, and the caller leaves
// the bytes to JSONParser, which decides, with its errors. Inlined into its callers (the
// request path's instruction count is what it is for).

import TabStrings

// @frozen: its layout is part of the prebuilt SDK's interface (sdk/prebuild.sh compiles TabJSON
// with library evolution, which refuses an @inlinable init of a resilient struct). In tabd's own
// build its one effect is that `i`'s initial value is no longer a function of its own.
@frozen public struct FlatScanner {
    public let base: UnsafePointer<UInt8>
    public let count: Int
    /// The offset of the next byte to read.
    public var i = 0

    @inlinable
    public init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    @inlinable
    public var atEnd: Bool { i == count }

    /// The byte `b` next: taken.
    @inlinable
    public mutating func take(_ b: UInt8) -> Bool {
        guard i < count, base[i] == b else { return false }
        i += 1
        return true
    }

    /// JSON's whitespace: space, tab, LF, CR.
    @inlinable
    public mutating func skipWhitespace() {
        while i < count {
            switch base[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    /// A quoted run of printable ASCII without `"` or `\`: its bounds, after the quotes.
    @inlinable @inline(__always)
    public mutating func plainString() -> (start: Int, end: Int)? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = i
        // Eight bytes at a time while eight remain (a request's keys and names: one word each),
        // then the last few one by one.
        while i &+ 8 <= count {
            let w = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let special = Self.specialBytes(w)
            if special == 0 {
                i &+= 8
                continue
            }
            i &+= special.trailingZeroBitCount &>> 3
            // The first byte that is not plain: the closing quote, or one the general way reads.
            guard base[i] == UInt8(ascii: "\"") else { return nil }
            i &+= 1
            return (start, i &- 1)
        }
        while i < count {
            let b = base[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return (start, i - 1)
            }
            // Escapes, control characters and non-ASCII go the general way.
            guard b >= 0x20, b < 0x7F, b != UInt8(ascii: "\\") else { return nil }
            i += 1
        }
        return nil
    }

    /// The high bit of each byte of `w` (little-endian: the first byte lowest) that is `"`,
    /// `\\`, a control character, DEL or not ASCII — what ends a plain string — and perhaps of
    /// bytes after such a byte (a borrow runs on from a true one). The lowest bit set is
    /// exact: each test's first hit is true, and its false ones lie above it.
    @inlinable @inline(__always)
    public static func specialBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroBytes(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        let control = (w &- ones &* 0x20) & ~w & highs  // below 0x20
        return control | (w & highs) | zeroBytes(w ^ (ones &* 0x22)) | zeroBytes(w ^ (ones &* 0x5C)) | zeroBytes(w ^ (ones &* 0x7F))
    }

    /// The `String` of a plain string's bounds (printable ASCII, as `plainString` checked):
    /// made as a small string's words.
    @inlinable @inline(__always)
    public func string(_ bounds: (start: Int, end: Int)) -> String {
        SmallASCII.string(base + bounds.start, count: bounds.end - bounds.start)
    }

    /// The first `n` (≤ 8) bytes from `s` as a little-endian word, the rest zero: a key
    /// or command name compared as one integer (no memcmp call per candidate).
    @inlinable @inline(__always)
    public func word(_ s: Int, _ n: Int) -> UInt64 {
        if s &+ 8 <= count {
            let w = UInt64(littleEndian: UnsafeRawPointer(base + s).loadUnaligned(as: UInt64.self))
            return n == 8 ? w : w & ((1 &<< UInt64(n &* 8)) &- 1)
        }
        var w: UInt64 = 0
        for k in 0..<n { w |= UInt64(base[s &+ k]) &<< UInt64(k &* 8) }
        return w
    }

    /// A scalar as JSONParser makes it, when it is one these methods read: a plain string,
    /// an integer `integer()` reads, `true`, `false` or `null`.
    @inlinable
    public mutating func scalar() -> JSONValue? {
        guard i < count else { return nil }
        switch base[i] {
        case UInt8(ascii: "\""):
            return plainString().map { .string(string($0)) }
        case UInt8(ascii: "t"):
            guard count &- i >= 4, word(i, 4) == 0x6575_7274 /* "true" */ else { return nil }
            i &+= 4
            return .bool(true)
        case UInt8(ascii: "f"):
            guard count &- i >= 5, word(i, 5) == 0x65_736c_6166 /* "false" */ else { return nil }
            i &+= 5
            return .bool(false)
        case UInt8(ascii: "n"):
            guard count &- i >= 4, word(i, 4) == 0x6c6c_756e /* "null" */ else { return nil }
            i &+= 4
            return .null
        default:
            return integer().map { .int(Int64($0)) }
        }
    }

    /// An integer of at most 18 digits without sign tricks: `-0`, leading zeros,
    /// fractions and exponents are left to the general decoder.
    @inlinable
    public mutating func integer() -> Int? {
        guard i < count else { return nil }
        let negative = base[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let start = i
        var n = 0
        while i < count, base[i] >= UInt8(ascii: "0"), base[i] <= UInt8(ascii: "9") {
            guard i - start < 18 else { return nil }  // 18 digits cannot overflow an Int
            n = n * 10 + Int(base[i] - UInt8(ascii: "0"))
            i += 1
        }
        let digits = i - start
        guard digits > 0 else { return nil }
        if base[start] == UInt8(ascii: "0"), digits > 1 || negative { return nil }
        if i < count {
            switch base[i] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        return negative ? -n : n
    }
}
