import Testing
@testable import TabState

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
