import CCRC32

// CRC-32 (IEEE 802.3, the zlib/gzip polynomial). Used to detect torn or corrupt journal
// records and snapshots. Computed in CCRC32: sixteen bytes folded per two carry-less
// multiplies where the CPU has them, slicing-by-8 tables elsewhere; ~170 lines of C do not
// justify a dependency.

enum CRC32 {
    static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0)) }) { return crc }
        return Array(bytes).withUnsafeBytes { checksum($0) }
    }

    /// The carry-less multiplies where the CPU has them, slicing-by-8 tables elsewhere
    /// (CCRC32: the same checksum either way, tested against the bit-at-a-time definition).
    @inline(__always)
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        tabd_crc32(bytes.baseAddress, bytes.count)
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
        // Every journal record's checksum is read here at start: from its bytes, not through
        // the collection's indices.
        if let v = bytes.withContiguousStorageIfAvailable({ parseHex(UnsafeRawBufferPointer($0)) }) { return v }
        return Array(bytes).withUnsafeBytes { parseHex($0) }
    }

    /// Without a branch per digit: the digits of checksums are random, and a mispredicted
    /// branch per digit cost more than the rest of the parse.
    static func parseHex(_ bytes: UnsafeRawBufferPointer) -> UInt32? {
        guard bytes.count == 8 else { return nil }
        var v: UInt32 = 0
        var valid: UInt8 = 1
        for b in bytes {
            let digit = b &- UInt8(ascii: "0"), letter = b &- UInt8(ascii: "a")
            valid &= (digit < 10 ? 1 : 0) | (letter < 6 ? 1 : 0)
            v = v << 4 | UInt32(digit < 10 ? digit : letter &+ 10)
        }
        return valid == 1 ? v : nil
    }
}
