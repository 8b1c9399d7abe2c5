// Short ASCII strings read and made as the two words a `String` keeps them in.
//
// A `String` of at most 15 bytes is stored inside its own two words on 64-bit platforms (a
// "small" string): the bytes from the low word's least significant byte on, and in the high
// word's top byte a discriminator (0xE0 for an ASCII small string) and the length. Tab ids
// and command names are nearly always such strings, and the hot paths that handle them —
// finding a node, writing an id into a reply, making the id a request names — pay the
// standard library's general code (a call, validation, a retain or two) for what a few
// integer operations do on the words (BENCHMARKS-HISTORY.md, "Unsafe flags and unchecked
// references").
//
// The layout is the standard library's, not a promise of the language: it is used only on
// the platforms `enabled` names, `layoutHolds()` checks it on known strings — tabd at every
// start (it refuses to start where the check fails: `layoutRefusal`), the tests on every
// build — and every user has the general path for when it is not used. A string is only ever *made* here from bytes already known to be ASCII,
// so the words made are the very words the standard library would make.

public enum SmallASCII {
    /// Whether strings are read and made here: on the 64-bit little-endian platforms whose
    /// standard library lays small strings out as described above. A constant, so that the
    /// hot paths pay no check for it; `layoutHolds()` is the check itself, which tabd runs
    /// once at start (a runtime that lays strings out otherwise is refused there, before a
    /// string is made) and the tests on every build (SmallASCIITests).
    #if (arch(x86_64) || arch(arm64)) && _endian(little)
    public static var enabled: Bool { true }
    #else
    public static var enabled: Bool { false }
    #endif

    /// Whether `String` is laid out as read and made here, checked on known strings.
    /// `reading`: how a string's two words are read (the tests pass another layout's).
    public static func layoutHolds(reading words: (String) -> (UInt64, UInt64) = { unsafeBitCast($0, to: (UInt64, UInt64).self) }) -> Bool {
        guard MemoryLayout<String>.size == 16 else { return false }
        let ab = words("ab")
        let long = words("abcdefghijklmnopqrstuvwxyz")
        let empty = words("")
        let fifteen = words("abcdefghijklmno")
        return ab == (0x6261, 0xE2 << 56) && empty == (0, 0xE0 << 56)
            && fifteen == (0x6867_6665_6463_6261, 0xEF6F_6E6D_6C6B_6A69) && long.1 >> 60 != 0xE
    }

    /// Why a program that makes strings here must not run, or nil: strings are made here
    /// (`enabled`) and the standard library lays them out otherwise (`layoutHolds`), so every
    /// string made would be invalid. A sentence fragment for the program's refusal.
    public static func layoutRefusal(reading words: (String) -> (UInt64, UInt64) = { unsafeBitCast($0, to: (UInt64, UInt64).self) }) -> String? {
        guard enabled, !layoutHolds(reading: words) else { return nil }
        return "this Swift runtime lays out String otherwise than this build expects (SmallASCII: a small ASCII string as its bytes and 0xE0 | its length in 16 bytes)"
    }

    /// The two words of `s` when it is a small ASCII string (then `count(high)` is its
    /// length and the bytes past it are zero), else nil.
    @inlinable @inline(__always)
    public static func words(_ s: String) -> (low: UInt64, high: UInt64)? {
        guard enabled else { return nil }
        let (low, high) = unsafeBitCast(s, to: (UInt64, UInt64).self)
        guard high >> 60 == 0xE else { return nil }
        return (low, high)
    }

    /// The length of the small ASCII string whose high word is `high`.
    @inlinable @inline(__always)
    public static func count(_ high: UInt64) -> Int {
        Int(truncatingIfNeeded: (high >> 56) & 0x0F)
    }

    /// The `String` of the NUL-terminated bytes at `p` when they are at most 15, all ASCII
    /// (and the layout holds), made as `string(_:count:)` makes it; else nil.
    @inlinable @inline(__always)
    public static func string(cString p: UnsafePointer<UInt8>) -> String? {
        guard enabled else { return nil }
        var words: (low: UInt64, high: UInt64) = (0, 0)
        var i = 0
        while case let b = p[i], b != 0 {
            guard b < 0x80, i < 15 else { return nil }
            if i < 8 { words.low |= UInt64(b) &<< UInt64(i &* 8) } else { words.high |= UInt64(b) &<< UInt64((i &- 8) &* 8) }
            i &+= 1
        }
        words.high |= (0xE0 | UInt64(truncatingIfNeeded: i)) &<< 56
        return unsafeBitCast(words, to: String.self)
    }

    /// The `String` of the `count` bytes at `p`, which must all be ASCII (below 0x80), made
    /// without the standard library's validation when `count` ≤ 15 and the layout holds.
    @inlinable @inline(__always)
    public static func string(_ p: UnsafePointer<UInt8>, count: Int) -> String {
        guard count <= 15, enabled else {
            return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
        }
        var low: UInt64 = 0, high: UInt64 = 0
        var i = 0
        while i < count && i < 8 {
            low |= UInt64(p[i]) &<< UInt64(i &* 8)
            i &+= 1
        }
        while i < count {
            high |= UInt64(p[i]) &<< UInt64((i &- 8) &* 8)
            i &+= 1
        }
        high |= (0xE0 | UInt64(truncatingIfNeeded: count)) &<< 56
        return unsafeBitCast((low, high), to: String.self)
    }
}
