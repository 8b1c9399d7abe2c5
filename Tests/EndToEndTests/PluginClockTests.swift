// Plugin ABI 1.9 against a real tabd: a plugin reads the wall clock and the local time in
// tabd's time zone, the same in process and isolated (issue 45: timers are relative, and a
// screen-time policy needs "after 21:00 local time").

import Foundation
import Glibc
import TabJSON
import Testing

@Suite struct PluginClockTests {
    /// tabd started with TZ set (a zone of fixed offset, so the test needs no tz database):
    /// hello.c's `clock` (wall_clock_ms, local_time) answers an instant within the request's
    /// time, that zone's offset and abbreviation, and the local date, time and weekday that
    /// instant has there — from the plugin in tabd and from the same plugin in its helper.
    @Test(arguments: [("XYZ-5:30", 19_800, "XYZ"), ("ABC3", -10_800, "ABC")])
    func pluginsSeeTabdsTimeZoneInProcessAndIsolated(tz: String, offset: Int, zone: String) throws {
        let dir = try PluginEndToEndTests.helloOutOfTree("clock")
        let load = "    - path: hello.so\n    - path: hello.so\n      name: hello-isolated\n      isolation: process\n      deadline_ms: 60000\n"
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = tz
        let tabd = try TabdProcess(config: Plugins.config(load, extraDirectory: dir), environment: environment)
        defer { tabd.stop() }
        let c = try tabd.client()
        for plugin in ["hello", "hello-isolated"] {
            let before = Self.nowMilliseconds()
            let value = try #require(try c.ok(#"{"cmd":"plugin.call","plugin":"\#(plugin)","method":"clock"}"#).object("value"))
            let after = Self.nowMilliseconds()
            let ms = try #require(value.int("unix_ms").map(Int64.init), "\(plugin): \(value)")
            #expect(ms >= before && ms <= after, "\(plugin): \(ms) not within \(before)…\(after)")
            let expected = Self.local(ms, offset: offset)
            #expect(value.string("local") == expected.text, "\(plugin) in TZ=\(tz): \(value)")
            #expect(value.int("weekday") == expected.weekday && value.string("zone") == zone && value["dst"] == .bool(false), "\(plugin): \(value)")
        }
    }

    static func nowMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// The instant `ms` at `offset` seconds east of UTC, as hello.c writes it
    /// (2026-11-28T21:05:07+05:30), and its weekday (0: Sunday).
    static func local(_ ms: Int64, offset: Int) -> (text: String, weekday: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offset)!
        let date = Date(timeIntervalSince1970: Double(ms.quotientAndRemainder(dividingBy: 1000).quotient))
        let d = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let sign = offset < 0 ? "-" : "+", o = abs(offset)
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d%@%02d:%02d", d.year!, d.month!, d.day!, d.hour!, d.minute!, d.second!,
                          sign, o / 3600, o / 60 % 60)
        return (text, d.weekday! - 1)
    }
}
