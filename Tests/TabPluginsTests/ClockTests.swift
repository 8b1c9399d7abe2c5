// The clock host functions (ABI 1.9): wall_clock_ms is the machine's clock, local_time fills
// only the fields a plugin's tabd_local_time has, floors an instant before 1970 to its second
// and refuses what it cannot fill.

import Foundation
import Glibc
import TabCore
import TabPlugins
import Testing

extension PluginTests {
    @Suite struct Clock {
        @Test func wallClockAndLocalTimeFillWhatThePluginsStructHas() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(cPlugin(name: "clock", hooks: """
                static const tabd_host *host;
                static char json[256];
                static tabd_result clock_init(const tabd_host *h, const char *config, void **state, tabd_reply *reply) {
                    (void)config; (void)state; (void)reply;
                    host = h;
                    return TABD_HOST_HAS(h, local_time) && TABD_HOST_HAS(h, wall_clock_ms) ? TABD_OK : TABD_ERROR;
                }
                static tabd_result clock_call(void *state, const tabd_controller *c, const char *method, const char *args, tabd_reply *reply) {
                    (void)state; (void)c; (void)method; (void)args;
                    /* A struct compiled without the fields from utc_offset_seconds on: they stay as set. */
                    tabd_local_time small = { .struct_size = offsetof(tabd_local_time, utc_offset_seconds), .utc_offset_seconds = 12345, .zone = "kept" };
                    tabd_local_time full = { .struct_size = sizeof full };
                    tabd_local_time none = { .struct_size = 0 };
                    int a = host->local_time(host, -1, &small), b = host->local_time(host, 0, &full);
                    int d = host->local_time(host, 0, &none), e = host->local_time(host, 0, NULL);
                    snprintf(json, sizeof json, "[%lld,%d,%lld,%d,%d,%d,%d,\\"%s\\",%d,%d,%d,%d,%d]", (long long)host->wall_clock_ms(host),
                             a, (long long)small.unix_ms, small.second, small.millisecond, small.year >= 1969, small.utc_offset_seconds,
                             small.zone, b, full.unix_ms == 0 && full.year >= 1969 && full.year <= 1970, full.is_dst >= -1 && full.is_dst <= 1,
                             d, e);
                    reply->json = json;
                    return TABD_OK;
                }
                """, fields: ".init = clock_init, .call = clock_call,")
                .replacingOccurrences(of: "#include <string.h>", with: "#include <string.h>\n#include <stdio.h>"),
                named: "clock.so", in: dir)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "clock.so", required: true)])
            let c = try controller(["home"])
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let before = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
            let answer = try host.call(plugin: "clock", method: "m", argsJSON: "{}", controller: c).get()
            clock_gettime(CLOCK_REALTIME, &now)
            let after = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
            let fields = answer.dropFirst().dropLast().split(separator: ",").map(String.init)
            let wall = try #require(Int64(fields[0]), "\(answer)")
            #expect(wall >= before && wall <= after, "\(wall) within \(before)…\(after)")
            // -1 ms: 23:59:59.999 of the day before (in any zone of whole minutes), 1969 or 1970.
            #expect(Array(fields.dropFirst()) == ["0", "-1", "59", "999", "1", "12345", "\"kept\"", "0", "1", "1", "4", "4"], "\(answer)")
        }
    }
}
