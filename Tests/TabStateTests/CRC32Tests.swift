import Testing
@testable import TabState
import CCRC32

@Suite struct CRC32Tests {
    /// The bit-at-a-time definition (IEEE 802.3, reflected 0xEDB88320).
    static func reference(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func checkValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func slicingMatchesTheDefinitionAtEveryLengthAndAlignment() {
        var rng = SystemRandomNumberGenerator()
        let data = (0..<300).map { _ in UInt8.random(in: 0...255, using: &rng) }
        for start in 0..<9 {
            for end in stride(from: start, through: data.count, by: 7) {
                let slice = data[start..<end]
                #expect(CRC32.checksum(slice) == Self.reference(Array(slice)), "bytes \(start)..<\(end)")
            }
        }
    }

    /// Both paths of CCRC32 (the carry-less multiply, when this CPU has it, and the tables)
    /// against the definition: every length up to 80 at every alignment, then random buffers
    /// up to 4 KiB. The multiply's tail (the last 1...7 bytes read as the end of the last
    /// eight) is where a mistake would hide: each length mod 8 is covered.
    @Test func bothPathsMatchTheDefinition() {
        var rng = SystemRandomNumberGenerator()
        let data = (0..<4200).map { _ in UInt8.random(in: 0...255, using: &rng) }
        func check(_ slice: ArraySlice<UInt8>) -> Bool {
            let expected = Self.reference(Array(slice))
            return slice.withUnsafeBytes { raw in
                tabd_crc32(raw.baseAddress, raw.count) == expected && tabd_crc32_tables(raw.baseAddress, raw.count) == expected
            }
        }
        for start in 0..<16 {  // every alignment, every partial block (16 + r, r < 16), a few blocks
            for length in 0...100 where !check(data[start..<start + length]) {
                Issue.record("bytes \(start)..<\(start + length)"); return
            }
        }
        for _ in 0..<2_000 {
            let start = Int.random(in: 0..<100, using: &rng), length = Int.random(in: 0...4_096, using: &rng)
            guard check(data[start..<start + length]) else { Issue.record("bytes \(start)..<\(start + length)"); return }
        }
        #if arch(x86_64)
        // Every x86-64 CPU made since 2010 has it: without this, the test above would check the
        // tables twice and a broken multiply path could pass unseen.
        #expect(tabd_crc32_uses_clmul() != 0, "this x86-64 CPU reports no PCLMULQDQ/SSE4.1")
        #endif
    }

    @Test func hexRoundTrip() {
        for v: UInt32 in [0, 1, 0xCBF4_3926, 0xFFFF_FFFF] {
            #expect(CRC32.parseHex(CRC32.hex(v)) == v)
        }
        #expect(CRC32.parseHex(Array("CBF43926".utf8)) == nil)  // lowercase only
        var digits = CRC32.hexDigits(0xCBF4_3926)
        #expect(withUnsafeBytes(of: &digits) { String(decoding: $0, as: UTF8.self) } == "cbf43926")
        #expect(CRC32.hex(0x0000_00AF) == Array("000000af".utf8))
    }

    /// The digits computed eight at a time are those of the textbook conversion, for every
    /// digit in every position (each nibble value at each place) and for random values.
    @Test func hexDigitsMatchTheTextbookConversion() {
        var values: [UInt32] = [0, 0xFFFF_FFFF, 0x0123_4567, 0x89AB_CDEF, 0x9A9A_9A9A, 0xA9A9_A9A9]
        for place in 0..<8 { for nibble: UInt32 in 0...15 { values.append(nibble << (4 * UInt32(place))) } }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<10_000 { values.append(UInt32.random(in: 0...UInt32.max, using: &rng)) }
        for v in values {
            var digits = CRC32.hexDigits(v)
            let text = withUnsafeBytes(of: &digits) { String(decoding: $0, as: UTF8.self) }
            let expected = String(repeating: "0", count: 8 - String(v, radix: 16).count) + String(v, radix: 16)
            guard text == expected else { Issue.record("\(v): \(text), expected \(expected)"); return }
        }
    }
}
