// SmallASCII (TabStrings): the standard library's small-string layout holds where it is used,
// strings made from words are the strings the standard library makes, and the writer's
// path for them writes what its general path writes.

import Testing
import TabJSON
import TabStrings
import TestRandom

@Suite struct SmallASCIITests {
    /// Where `enabled` says the words are used, the layout they are read by must hold: a
    /// toolchain that lays strings out otherwise fails here, not in tabd.
    @Test func theLayoutHoldsWhereItIsUsed() {
        #expect(!SmallASCII.enabled || SmallASCII.layoutHolds())
        #expect(SmallASCII.layoutRefusal() == nil)
    }

    /// Another layout (read here as zeros, or with the length elsewhere) fails the check tabd
    /// runs at start, and the refusal says why (ConfigAndLockTests: tabd's one line and exit 1).
    @Test func anotherLayoutIsRefused() throws {
        #expect(!SmallASCII.layoutHolds(reading: { _ in (0, 0) }))
        let real: (String) -> (UInt64, UInt64) = { unsafeBitCast($0, to: (UInt64, UInt64).self) }
        #expect(!SmallASCII.layoutHolds(reading: { let w = real($0); return (w.0, w.1 & 0x00FF_FFFF_FFFF_FFFF | 0xF0 << 56) }))
        #expect(!SmallASCII.layoutHolds(reading: { let w = real($0); return (w.1, w.0) }))
        if SmallASCII.enabled {
            let why = try #require(SmallASCII.layoutRefusal(reading: { _ in (0, 0) }))
            #expect(why.hasPrefix("this Swift runtime lays out String otherwise than this build expects"))
        }
    }

    /// Every ASCII string of up to 15 bytes made from its bytes equals (and hashes as) the
    /// one the standard library decodes; longer ones and non-small ones go the general way.
    @Test func madeStringsAreTheStandardLibrarys() {
        var random = SplitMix64(seed: 0x5A11_A5C1)
        for _ in 0..<20_000 {
            let n = Int(random.next() % 20)
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: random.next() % 0x80) }
            let expected = String(decoding: bytes, as: UTF8.self)
            let made = bytes.withUnsafeBufferPointer { SmallASCII.string($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: n) }
            #expect(made == expected)
            #expect(made.hashValue == expected.hashValue)
            #expect(Array(made.utf8) == bytes)
            if SmallASCII.enabled, n <= 15 {
                let words = SmallASCII.words(made)
                #expect(words != nil)
                if let words { #expect(SmallASCII.count(words.high) == n) }
            }
        }
        #expect(SmallASCII.words(String(repeating: "a", count: 16)) == nil)
        #expect(SmallASCII.words("é") == nil)  // small, but not ASCII
    }

    /// From a C string: the strings `string(_:count:)` makes (the standard library's) for
    /// ASCII of up to 15 bytes; nil for longer ones and for any byte past ASCII.
    @Test func madeFromCStrings() {
        var random = SplitMix64(seed: 0xC57A_1D5)
        for _ in 0..<5_000 {
            let n = Int(random.next() % 20)
            // Bytes 1...0xFF: no NUL inside; some past ASCII.
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: 1 + random.next() % (random.next() % 8 == 0 ? 0xFF : 0x7F)) }
            let made = (bytes + [0]).withUnsafeBufferPointer { SmallASCII.string(cString: $0.baseAddress!) }
            guard SmallASCII.enabled, n <= 15, bytes.allSatisfy({ $0 < 0x80 }) else {
                #expect(made == nil)
                continue
            }
            let expected = String(decoding: bytes, as: UTF8.self)
            #expect(made == expected)
            #expect(made.map { SmallASCII.words($0)! == SmallASCII.words(expected)! } == true, "the very words")
        }
    }

    /// A small ASCII string is written straight from its words: the same text as the general
    /// path writes for the same characters held in a large string, escapes included (those
    /// go the general way), as a key and as a value, after a value and first in an object.
    @Test func theWriterWritesSmallStringsAsItWritesOthers() {
        var random = SplitMix64(seed: 0xC0FF_EE15)
        let alphabet = Array("ab\"\\\n\t\u{1}zZ09 /:{}".utf8)
        for _ in 0..<5_000 {
            let n = Int(random.next() % 16)
            let s = String(decoding: (0..<n).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
            // The same characters, padded past 15 bytes and cut back: no longer small.
            var large = s + String(repeating: "x", count: 20)
            large.removeLast(20)
            #expect(large == s)
            #expect(SmallASCII.words(large) == nil, "the comparison string must take the general path")
            var small = JSONWriter(), general = JSONWriter()
            for w in [0, 1] {
                func write(_ text: String, _ writer: inout JSONWriter) {
                    writer.beginObject()
                    if w == 1 { writer.key(literal: "first"); writer.int(1) }
                    writer.key(text); writer.string(text)
                    writer.endObject()
                    writer.newline()
                }
                write(s, &small)
                write(large, &general)
            }
            #expect(small.bytes == general.bytes, "\(s.debugDescription)")
        }
    }
}
