// FlatScanner's plain strings, read eight bytes at a time (`specialBytes`), against the
// byte-by-byte definition: a quote, then printable ASCII without `"` or `\`, then a quote.
// The requests' fast decoder and the journal's read every key and name with it: a string it
// ends early or late would be a request or a record misread, not refused.

import Testing
import TestRandom
import TabJSON

@Suite("FlatScanner")
struct FlatScannerTests {
    /// The definition, one byte at a time: the bounds after the quotes and the offset after
    /// the closing quote, or nil.
    static func reference(_ bytes: [UInt8]) -> (start: Int, end: Int, next: Int)? {
        guard bytes.first == UInt8(ascii: "\"") else { return nil }
        var i = 1
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { return (1, i, i + 1) }
            guard b >= 0x20, b < 0x7F, b != UInt8(ascii: "\\") else { return nil }
            i += 1
        }
        return nil
    }

    static func scanned(_ bytes: [UInt8]) -> (start: Int, end: Int, next: Int)? {
        bytes.withUnsafeBufferPointer { buffer in
            var p = FlatScanner(base: buffer.baseAddress!, count: buffer.count)
            return p.plainString().map { ($0.start, $0.end, p.i) }
        }
    }

    @Test("a plain string ends where the byte-by-byte definition ends it, over generated strings of every byte")
    func plainStringsAsDefined() {
        var rng = SplitMix64(seed: 42)
        // Bytes that end or refuse a plain string, and plain ones: every one of them in every
        // place of an eight-byte word, the word boundary itself, and the tail read by bytes.
        let special: [UInt8] = [0x00, 0x01, 0x1F, 0x22, 0x5C, 0x7F, 0x80, 0xC3, 0xFF]
        let plain: [UInt8] = [0x20, 0x21, 0x23, 0x41, 0x5B, 0x5D, 0x61, 0x7E]
        var checked = 0, found = 0
        for _ in 0..<100_000 {
            let n = Int.random(in: 1...40, using: &rng)
            var bytes: [UInt8] = [UInt8(ascii: "\"")]
            for _ in 0..<n {
                let pool = Int.random(in: 0..<8, using: &rng) == 0 ? special : plain
                bytes.append(pool[Int.random(in: 0..<pool.count, using: &rng)])
            }
            if Int.random(in: 0..<2, using: &rng) == 0 { bytes.insert(UInt8(ascii: "\""), at: Int.random(in: 1...bytes.count, using: &rng)) }
            let want = Self.reference(bytes), got = Self.scanned(bytes)
            #expect(want?.start == got?.start && want?.end == got?.end && want?.next == got?.next, "\(bytes)")
            checked += 1
            if want != nil { found += 1 }
        }
        // Both outcomes drawn often.
        #expect(found > 20_000 && checked - found > 20_000, "\(found) of \(checked) plain")
    }

    @Test("specialBytes flags the first byte that is not plain, in each of a word's eight places")
    func firstSpecialByte() {
        for place in 0..<8 {
            for b in 0...255 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[place] = UInt8(b)
                let w = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                let special = FlatScanner.specialBytes(w)
                let isSpecial = b < 0x20 || b >= 0x7F || b == 0x22 || b == 0x5C
                if isSpecial {
                    #expect(special.trailingZeroBitCount / 8 == place, "byte \(b) at \(place)")
                } else {
                    #expect(special == 0, "byte \(b) at \(place)")
                }
            }
        }
    }
}
