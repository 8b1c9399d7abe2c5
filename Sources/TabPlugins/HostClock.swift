// The wall clock and the local time plugins ask for (plugin ABI 1.9): the machine's clock
// (CLOCK_REALTIME), shown in tabd's time zone — TZ, else /etc/localtime — read again when
// either changes. The helper of an isolated plugin answers from the same table: it inherits
// tabd's environment and sees the same /etc/localtime, so a plugin sees the same time zone
// in process and isolated.

import CTabPolicy
import Glibc

enum HostClock {
    /// Milliseconds since 1970-01-01T00:00:00Z, now.
    static func wallClockMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Fills what `out`'s struct_size holds with `unixMilliseconds` in tabd's time zone; the
    /// zone's abbreviation is kept in `frame` until the hook returns.
    static func localTime(_ unixMilliseconds: Int64, _ out: UnsafeMutablePointer<tabd_local_time>?, frame: CallFrame?) -> tabd_result {
        guard let out, out.pointee.struct_size > 0 else { return TABD_ERROR }
        // Floored: an instant before 1970 has its milliseconds 0…999 too.
        var seconds = time_t(unixMilliseconds / 1000), milliseconds = unixMilliseconds % 1000
        if milliseconds < 0 { seconds -= 1; milliseconds += 1000 }
        // tzset reads TZ again, and /etc/localtime when it changed (glibc compares the file's
        // identity and time): localtime_r alone keeps the zone it read first.
        tzset()
        var tm = Glibc.tm()
        guard localtime_r(&seconds, &tm) != nil else { return TABD_ERROR }
        let size = out.pointee.struct_size
        storeField(out, size: size, \.unix_ms, unixMilliseconds)
        storeField(out, size: size, \.year, Int32(clamping: Int(tm.tm_year) + 1900))
        storeField(out, size: size, \.month, tm.tm_mon + 1)
        storeField(out, size: size, \.day, tm.tm_mday)
        storeField(out, size: size, \.hour, tm.tm_hour)
        storeField(out, size: size, \.minute, tm.tm_min)
        storeField(out, size: size, \.second, tm.tm_sec)
        storeField(out, size: size, \.millisecond, Int32(milliseconds))
        storeField(out, size: size, \.weekday, tm.tm_wday)
        storeField(out, size: size, \.yearday, tm.tm_yday)
        storeField(out, size: size, \.utc_offset_seconds, Int32(clamping: tm.tm_gmtoff))
        storeField(out, size: size, \.is_dst, tm.tm_isdst > 0 ? 1 : tm.tm_isdst == 0 ? 0 : -1)
        storeField(out, size: size, \.zone, tm.tm_zone.flatMap { frame?.keep(String(cString: $0)) })
        return TABD_OK
    }
}

/// Stores `value` in `field` of the plugin's struct at `out` when the struct, as the plugin
/// compiled it (`size` bytes), has that field: a plugin built against an older minor has a
/// smaller struct, and nothing past its end is written.
func storeField<S, T>(_ out: UnsafeMutablePointer<S>, size: Int, _ field: KeyPath<S, T>, _ value: T) {
    guard let offset = MemoryLayout<S>.offset(of: field), offset + MemoryLayout<T>.size <= size else { return }
    UnsafeMutableRawPointer(out).storeBytes(of: value, toByteOffset: offset, as: T.self)
}
