// What a plugin hands over as JSON (call results, emitted events, its settings) goes through
// the parser client requests go through: what it refuses never reaches a client, and the
// refusal names the plugin (and, for a call, the method).

import TabCore
import TabPlugins
import Testing
import TestLogging

/// Tests/EndToEndTests/Fixtures/output.c, built into a fresh directory: a plugin named
/// "output" whose methods answer with the JSON their names say.
func buildOutputPlugin() throws -> String { try buildFixture("output") }

extension PluginTests {
    @Suite struct Output {
        static func host() throws -> (PluginHost, LogRecorder, Controller) {
            let (host, log) = makeHost([try buildOutputPlugin()])
            try host.load([PluginSpec(path: "output.so")])
            return (host, log, try controller(["home"]))
        }

        /// Call results the strict parser refuses are an `internal` error naming the plugin
        /// and the method, with the parser's reason, and a log line saying the same.
        @Test(arguments: [
            ("duplicate", #"duplicate key "a""#),
            ("surrogate", #"lone high surrogate \uD800"#),
            ("huge", "number out of range"),
            ("garbage", "after the JSON value"),
            ("deep", "nesting deeper than 64"),
        ])
        func refusedCallResultsNameThePluginAndMethod(_ method: String, _ reason: String) throws {
            let (host, log, c) = try Self.host()
            let error = try #require(host.call(plugin: "output", method: method, argsJSON: "{}", controller: c).failure)
            #expect(error.code == .internal)
            #expect(error.plugin == "output")
            #expect(error.method == method)
            #expect(error.message.hasPrefix("plugin 'output' answered '\(method)' with JSON tabd does not accept ("), "\(error.message)")
            #expect(error.message.contains(reason), "\(error.message)")
            #expect(log.all.contains { $0.contains("plugin answered a call with JSON tabd does not accept")
                && $0.contains("plugin.name=output") && $0.contains("plugin.method=\(method)") && $0.contains(reason) }, "\(log.all)")
            #expect(host.stats.first?.failures == 1)
        }

        /// Accepted results are written again compactly (escapes the writer keeps are its own),
        /// and the depth limit is the host's, as the daemon sets it from max_json_depth.
        @Test func acceptedResultsAreCompactAndTheDepthLimitIsTheHosts() throws {
            let (host, _, c) = try Self.host()
            #expect(try host.call(plugin: "output", method: "spaced", argsJSON: "{}", controller: c).get() == #"{"a":[1,2],"b":"xA"}"#)
            #expect(try host.call(plugin: "output", method: "deep64", argsJSON: "{}", controller: c).get().count == 128)
            host.maxJSONDepth = 8
            #expect(host.call(plugin: "output", method: "deep64", argsJSON: "{}", controller: c).failure?.message.contains("nesting deeper than 8") == true)
        }

        /// Emitted events the strict parser refuses are dropped (emit answers TABD_ERROR) with
        /// a warning naming the plugin; the one it accepts is queued compactly.
        @Test func refusedEventsAreDroppedWithAWarning() throws {
            let (host, log, c) = try Self.host()
            // Each one said (by default, one per plugins.warning_period_seconds: HostilePluginTests).
            host.warnings.period = 0
            let emitted = host.call(plugin: "output", method: "emit", argsJSON: "{}", controller: c)
            #expect(try emitted.get() == "[0,0,0,1]")
            #expect(emitted.events.map(\.dataJSON) == [#"{"a":[1,2]}"#])
            let warnings = log.all.filter { $0.contains("plugin emitted an event tabd does not accept; dropped") && $0.contains("plugin.name=output") }
            #expect(warnings.count == 3, "\(log.all)")
            #expect(warnings.contains { $0.contains(#"duplicate key "a""#) })
            #expect(warnings.contains { $0.contains(#"lone low surrogate \uDC00"#) })
            #expect(warnings.contains { $0.contains("number out of range") })
        }

        /// Settings go through the same parser: a duplicate key refuses the plugin.
        @Test func settingsWithADuplicateKeyAreRefused() throws {
            let (host, _) = makeHost([try buildOutputPlugin()])
            try host.load([PluginSpec(path: "output.so", configJSON: #"{"a":1,"a":2}"#)])
            #expect(host.status("output")?.loaded == false)
            #expect(host.status("output")?.error?.hasPrefix(#"its settings are not JSON tabd accepts (invalid JSON at byte 7: duplicate key "a")"#) == true,
                    "\(host.status("output")?.error ?? "loaded")")
        }
    }
}
