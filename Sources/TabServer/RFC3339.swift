// Timestamps as RFC 3339 writes them, in UTC with milliseconds: 2026-11-26T19:02:03.123Z.
// The log (when stderr is not the journal) and `stats`' reload times use it.

import Foundation

enum RFC3339 {
    static func string(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds.rounded(.down))
        let millis = Int((seconds - Double(whole)) * 1000)
        var t = tm()
        gmtime_r(&whole, &t)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(t.tm_year) + 1900, Int(t.tm_mon) + 1, Int(t.tm_mday),
                      Int(t.tm_hour), Int(t.tm_min), Int(t.tm_sec), min(millis, 999))
    }
}
