// CRC-32 (IEEE 802.3, the zlib/gzip polynomial), table driven (slicing-by-8). Used to detect torn or
// corrupt journal records and snapshots; 20 lines do not justify a dependency.

enum CRC32 {
    /// Slicing-by-8 tables: `tables[k * 256 + b]` is the CRC of byte b followed by k zero
    /// bytes. Eight bytes per step instead of one: the journal checksums every record.
    private static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[i] = c
        }
        for i in 0..<256 {
            for k in 1..<8 { t[k * 256 + i] = (t[(k - 1) * 256 + i] >> 8) ^ t[Int(t[(k - 1) * 256 + i] & 0xFF)] }
        }
        return t
    }()

    static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0)) }) { return crc }
        return Array(bytes).withUnsafeBytes { checksum($0) }
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        // `crc` lives inside the closure: captured from outside, it went through memory on
        // every step (a store and a reload in the loop's dependency chain).
        tables.withUnsafeBufferPointer { t in
            var crc: UInt32 = 0xFFFF_FFFF
            var i = 0
            let n = bytes.count
            while i + 8 <= n {
                let lo = bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian ^ crc
                let hi = bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self).littleEndian
                crc = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                    ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                i += 8
            }
            while i < n {
                crc = t[Int((crc ^ UInt32(bytes[i])) & 0xFF)] ^ (crc >> 8)
                i += 1
            }
            return crc ^ 0xFFFF_FFFF
        }
    }

    /// Eight lowercase hex digits.
    static func hex(_ v: UInt32) -> [UInt8] {
        var digits = hexDigits(v)
        return withUnsafeBytes(of: &digits) { Array($0) }
    }

    /// The eight digits of `v` as the bytes of a UInt64, in memory order, most significant
    /// first: written with one 8-byte store (every journal record has them).
    static func hexDigits(_ v: UInt32) -> UInt64 {
        // Spread the eight nibbles into eight bytes (byte k holds nibble k), most significant
        // first in memory, then turn each 0...15 into '0'...'9', 'a'...'f' in all bytes at once.
        var x = UInt64(v)
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
        x = x.byteSwapped
        let letters = ((x &+ 0x0606_0606_0606_0606) & 0x1010_1010_1010_1010) >> 4  // 1 where ≥ 10
        return (x &+ 0x3030_3030_3030_3030 &+ letters &* 39).littleEndian  // 'a' - '0' - 10 = 39
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
