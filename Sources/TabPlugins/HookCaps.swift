// What one hook call of one plugin may make tabd do or hold, whether the plugin runs in
// process or isolated (docs/plugins.md, "Limits"). A plugin tabd does not trust (an
// isolated one) can loop on the host functions or hand back huge strings; without caps one
// hook call could log 100,000 warnings, stall every client, or put megabytes into a reply.

import CTabPolicy
import Glibc

public enum HookCaps {
    /// Log lines per hook call; the rest are dropped with one warning.
    public static let logLines = 100
    /// Events (`emit`) per hook call.
    public static let events = 100
    /// Selections asked for (`request_select`) per hook call.
    public static let selections = 16
    /// Bytes of a refusal's reason or message, or of an error message, a plugin hands tabd.
    public static let textBytes = 1024
    /// Bytes of one log line.
    public static let logBytes = 4096

    /// At most `limit` bytes of the C string `p`, cut at a character boundary and marked as
    /// cut: never more than that is read (strnlen), however long the plugin's text is.
    static func text(_ p: UnsafePointer<CChar>, limit: Int = textBytes) -> String {
        let n = strnlen(p, limit + 1)
        if n <= limit { return String(cString: p) }
        return p.withMemoryRebound(to: UInt8.self, capacity: limit) { cut(UnsafeBufferPointer(start: $0, count: limit + 1), limit: limit) }
    }

    /// `s`, or its first `limit` bytes marked as cut.
    static func text(_ s: String, limit: Int = textBytes) -> String {
        guard s.utf8.count > limit else { return s }
        var contiguous = s
        return contiguous.withUTF8 { cut($0, limit: limit) }
    }

    /// The first `limit` bytes of `bytes` (which holds more), back to the start of a UTF-8
    /// character, and the mark.
    private static func cut(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> String {
        var end = limit
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self) + " … (cut: longer than \(limit) bytes)"
    }
}
