// CRC-32 (IEEE 802.3, the zlib/gzip polynomial), table driven. Used to detect torn or
// corrupt journal records and snapshots; 20 lines do not justify a dependency.

enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { i -> UInt32 in
        var c = UInt32(i)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { t in
            for b in bytes { crc = t[Int((crc ^ UInt32(b)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// Eight lowercase hex digits.
    static func hex(_ v: UInt32) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return (0..<8).reversed().map { digits[Int((v >> (UInt32($0) * 4)) & 0xF)] }
    }

    static func parseHex<C: Collection>(_ bytes: C) -> UInt32? where C.Element == UInt8 {
        guard bytes.count == 8 else { return nil }
        var v: UInt32 = 0
        for b in bytes {
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }
}
