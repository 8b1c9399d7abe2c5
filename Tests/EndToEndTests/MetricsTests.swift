// `metrics` (issue 15, item 7): a real tabd with the login gate answers with an
// OpenMetrics exposition that a strict reader accepts and whose counters and histograms
// say what the test did to it.

import Foundation
import TabJSON
import TabProtocol
import Testing

@Suite struct MetricsTests {
    /// The reader itself: each of these breaks one rule and must be refused.
    @Test(arguments: [
        ("no EOF", "# TYPE a gauge\na 1\n"),
        ("counter sample without _total", "# TYPE a counter\na 1\n# EOF\n"),
        ("sample before its TYPE", "a 1\n# TYPE a gauge\n# EOF\n"),
        ("a family twice", "# TYPE a gauge\na 1\n# TYPE a gauge\n# EOF\n"),
        ("a series twice", "# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n# EOF\n"),
        ("UNIT not the name's suffix", "# TYPE a gauge\n# UNIT a seconds\na 1\n# EOF\n"),
        ("a timestamp", "# TYPE a gauge\na 1 1700000000\n# EOF\n"),
        ("a bad escape", "# TYPE a gauge\na{x=\"\\t\"} 1\n# EOF\n"),
        ("an unescaped quote", "# TYPE a gauge\na{x=\"\"\"} 1\n# EOF\n"),
        ("type info", "# TYPE a info\na_info 1\n# EOF\n"),
        ("another comment", "# TYPE a gauge\n# hello\na 1\n# EOF\n"),
        ("negative counter", "# TYPE a counter\na_total -1\n# EOF\n"),
        ("buckets not cumulative", "# TYPE h histogram\nh_bucket{le=\"1.0\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum 0.5\n# EOF\n"),
        ("+Inf is not _count", "# TYPE h histogram\nh_bucket{le=\"1.0\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 3\nh_sum 0.5\n# EOF\n"),
        ("no +Inf", "# TYPE h histogram\nh_bucket{le=\"1.0\"} 1\nh_count 1\nh_sum 0.5\n# EOF\n"),
        ("le not increasing", "# TYPE h histogram\nh_bucket{le=\"2.0\"} 1\nh_bucket{le=\"1.0\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum 0.5\n# EOF\n"),
        ("points interleaved", "# TYPE h histogram\nh_bucket{c=\"a\",le=\"+Inf\"} 1\nh_count{c=\"a\"} 1\nh_sum{c=\"a\"} 1\nh_bucket{c=\"b\",le=\"+Inf\"} 1\nh_count{c=\"b\"} 1\nh_sum{c=\"b\"} 1\nh_created{c=\"a\"} 1\n# EOF\n"),
        ("sample names that clash", "# TYPE a counter\na_total 1\n# TYPE a_total gauge\na_total 1\n# EOF\n"),
    ])
    func theReaderRefuses(_ what: String, _ text: String) {
        #expect(throws: OpenMetricsExposition.Failure.self, "\(what)") { try OpenMetricsExposition(text) }
    }

    @Test func theReaderAcceptsTheSpecificationsShapes() throws {
        let text = """
            # TYPE a_seconds counter
            # UNIT a_seconds seconds
            # HELP a_seconds Some text and \\n some \\" escaping
            a_seconds_total{x="q\\"uote\\\\ and \\n"} 1.5e-06
            # TYPE b gauge
            # TYPE h_seconds histogram
            h_seconds_bucket{c="a",le="0.001"} 0
            h_seconds_bucket{c="a",le="+Inf"} 2
            h_seconds_count{c="a"} 2
            h_seconds_sum{c="a"} 0.25
            # EOF

            """
        let e = try OpenMetricsExposition(text)
        #expect(e.value("a_seconds_total", ["x": "q\"uote\\ and \n"]) == 1.5e-06)
        #expect(e.types == ["a_seconds": "counter", "b": "gauge", "h_seconds": "histogram"])
    }

    @Test func metricsCountWhatTabdDid() throws {
        let dir = temporaryDirectory("metrics")
        let tabd = try TabdProcess(config: Plugins.config(Plugins.loginGate(credentials: try Plugins.credentials(in: dir))), dir: dir)
        let c = try tabd.client()
        let watcher = try tabd.client()
        try watcher.ok(#"{"cmd":"subscribe","events":["selection_changed"]}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"home"},{"id":"settings"}]}"#)
        for tab in ["login", "login", "login", "login", "login"] { try c.ok(#"{"cmd":"select","tab":"\#(tab)"}"#) }
        #expect(try c.error(#"{"cmd":"tap","tab":"settings"}"#).string("code") == "denied")
        #expect(try c.error("not json").string("code") == "parse_error")
        #expect(try c.error(#"{"cmd":"no_such_command"}"#).string("code") == "unknown_command")
        let hello = try c.ok(#"{"cmd":"hello"}"#)
        guard case .array(let names)? = hello["commands"] else { throw TestFailure("hello has no commands") }
        #expect(names.contains(.string("metrics")))

        let reply = try c.ok(#"{"cmd":"metrics"}"#)
        let text = try #require(reply.string("text"))
        #expect(reply.count == 1, "the result is {\"text\": …} alone")
        #expect(text.hasSuffix("\n# EOF\n"))
        let m: OpenMetricsExposition
        do { m = try OpenMetricsExposition(text) } catch {
            Issue.record("not a valid exposition: \(error)\n\(text)")
            return
        }
        let select = ["command": "select"]
        #expect(m.value("tabd_commands_total", select) == 5)
        #expect(m.value("tabd_commands_total", ["command": "set_tabs"]) == 1)
        #expect(m.value("tabd_commands_total", ["command": "tap"]) == 1)
        #expect(m.value("tabd_commands_total", ["command": "subscribe"]) == 1)
        #expect(m.value("tabd_commands_total", ["command": "hello"]) == 1)
        // Lines that decode to no command (not JSON, an unknown name) are one label.
        #expect(m.value("tabd_commands_total", ["command": "invalid"]) == 2)
        // `metrics` itself is counted once it has been answered.
        #expect(m.value("tabd_commands_total", ["command": "metrics"]) == nil)
        // And the ping that found tabd serving.
        #expect((m.value("tabd_commands_total", ["command": "ping"]) ?? 0) >= 1)
        #expect(m.samples(named: "tabd_commands_total").count == 7)

        #expect(m.types["tabd_command_duration_seconds"] == "histogram")
        #expect(m.value("tabd_command_duration_seconds_count", select) == 5)
        #expect(m.value("tabd_command_duration_seconds_bucket", ["command": "select", "le": "+Inf"]) == 5)
        let les = m.samples(named: "tabd_command_duration_seconds_bucket").filter { $0.labels["command"] == "select" }.map { $0.labels["le"]! }
        #expect(les == ["1e-06", "2e-06", "5e-06", "1e-05", "2e-05", "5e-05", "0.0001", "0.0002", "0.0005", "0.001", "0.002",
                        "0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1.0", "2.0", "5.0", "10.0", "+Inf"])
        let sum = try #require(m.value("tabd_command_duration_seconds_sum", select))
        #expect(sum > 0 && sum < 5, "five selects took \(sum) s")

        // By code: every code is there from the start.
        #expect(m.value("tabd_errors_total", ["code": "denied"]) == 1)
        #expect(m.value("tabd_errors_total", ["code": "parse_error"]) == 1)
        #expect(m.value("tabd_errors_total", ["code": "unknown_command"]) == 1)
        #expect(m.value("tabd_errors_total", ["code": "config_invalid"]) == 0)
        #expect(m.samples(named: "tabd_errors_total").count == ProtocolError.Code.allCases.count)
        #expect(m.value("tabd_denials_total") == 1)
        #expect(m.value("tabd_plugin_denials_total", ["plugin": "login-gate"]) == 1)
        #expect(m.value("tabd_plugin_failures_total", ["plugin": "login-gate"]) == 0)
        #expect((m.value("tabd_plugin_hook_calls_total", ["plugin": "login-gate", "hook": "should_select"]) ?? 0) >= 1)
        #expect((m.value("tabd_plugin_hook_duration_seconds_total", ["plugin": "login-gate", "hook": "should_select"]) ?? 0) > 0)

        #expect(m.value("tabd_connections") == 2)
        #expect((m.value("tabd_connections_accepted_total") ?? 0) >= 2)
        #expect(m.value("tabd_subscribers") == 1)
        // set_tabs selected login; the selects of login changed nothing.
        #expect((m.value("tabd_events_sent_total") ?? 0) >= 1)
        #expect((m.value("tabd_max_connections") ?? 0) > 0)
        #expect((m.value("tabd_memory_budget_bytes") ?? 0) == 268_435_456)
        for limit in ["line_timeout_seconds", "max_line_bytes", "max_output_bytes", "memory_budget_bytes"] {
            #expect(m.value("tabd_limits_hit_total", ["limit": limit]) == 0)
        }
        #expect((m.value("tabd_journal_records_total") ?? 0) >= 1)
        #expect((m.value("tabd_journal_bytes") ?? 0) > 0)
        #expect(m.value("tabd_journal_fsync_mode", ["mode": "everysec"]) == 1)
        #expect(m.value("tabd_journal_degraded") == 0)
        #expect(m.value("tabd_journal_faults_total") == 0)
        // The start time alone (an uptime gauge would say the same thing again).
        #expect(m.types["tabd_uptime_seconds"] == nil)
        let start = try #require(m.value("tabd_start_time_seconds"))
        #expect(start <= Date().timeIntervalSince1970 && start > Date().timeIntervalSince1970 - 600)
        let build = m.samples(named: "tabd_build_info")
        #expect(build.count == 1 && build.first?.labels["version"] == TabdVersion.string && build.first?.labels["abi"]?.hasPrefix("1.") == true
                && build.first?.labels["swift"]?.hasPrefix("6.") == true && build.first?.value == 1, "\(build)")
        #expect(m.value("tabd_controllers") == 1)
        #expect(m.value("tabd_reload_total", ["result": "success"]) == 0 && m.value("tabd_reload_total", ["result": "failure"]) == 0)
        #expect(m.value("tabd_last_reload_successful") == 1)
        #expect(m.value("tabd_last_reload_success_timestamp_seconds") == start)
        for family in ["crashes", "timeouts", "restarts"] {
            #expect(m.value("tabd_plugin_\(family)_total", ["plugin": "login-gate"]) == 0, "\(family)")
        }

        // Counters only grow: a second exposition counts the first `metrics`, and `stats`
        // agrees with it.
        let again = try OpenMetricsExposition(try #require(try c.ok(#"{"cmd":"metrics"}"#).string("text")))
        #expect(again.value("tabd_commands_total", ["command": "metrics"]) == 1)
        #expect(again.value("tabd_commands_total", select) == 5)
        let stats = try c.ok(#"{"cmd":"stats"}"#).object("commands")?.object("select")
        #expect(stats?.int("count") == 5)
        let p99 = try #require(stats?.double("p99_us")), maxUs = try #require(stats?.double("max_us"))
        #expect(p99 > 0 && p99 <= maxUs)
    }

    /// Both formats read by prometheus_client's own parsers (pip-installed when missing): the
    /// OpenMetrics one for the default, the Prometheus one (what node_exporter's textfile
    /// collector reads the same way) for `format: prometheus`. Every family keeps its type
    /// and its samples; none is `unknown`; both say the same.
    @Test func bothFormatsReadByPrometheusClientsParsers() throws {
        let available = try shell("python3 -c 'import prometheus_client' 2>&1 || python3 -m pip install -q prometheus_client 2>&1")
        let check = try shell("python3 -c 'import prometheus_client'")
        guard check.status == 0 else { throw TestFailure("prometheus_client cannot be installed: \(available.output)") }
        let dir = temporaryDirectory("prom")
        let tabd = try TabdProcess(config: Plugins.config(Plugins.loginGate(credentials: try Plugins.credentials(in: dir))), dir: dir)
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"home"}]}"#)
        _ = try c.error(#"{"cmd":"tap","tab":"home"}"#)
        try "limits:\n  max_tabz: 1\n".write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        #expect(try c.error(#"{"cmd":"reload"}"#).string("code") == "config_invalid")
        let om = try #require(try c.ok(#"{"cmd":"metrics","format":"openmetrics"}"#).string("text"))
        let prom = try #require(try c.ok(#"{"cmd":"metrics","format":"prometheus"}"#).string("text"))
        #expect(try c.error(#"{"cmd":"metrics","format":"json"}"#).string("field") == "format")
        #expect(om.hasSuffix("# EOF\n") && !prom.contains("# EOF") && !prom.contains("# UNIT"))
        try om.write(toFile: dir + "/om.txt", atomically: true, encoding: .utf8)
        try prom.write(toFile: dir + "/prom.txt", atomically: true, encoding: .utf8)
        let script = #"""
            import json, sys
            from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
            from prometheus_client.parser import text_string_to_metric_families as prometheus
            def read(parser, path):
                out = {}
                for f in parser(open(path).read()):
                    assert f.name not in out, "family %s twice" % f.name
                    # The second scrape has counted the first: the metrics command's own samples are left out.
                    out[f.name] = {"type": f.type, "samples": sorted("%s%s=%r" % (s.name, sorted(s.labels.items()), float(s.value))
                                                                    for s in f.samples if s.labels.get("command") != "metrics")}
                return out
            a, b = read(openmetrics, sys.argv[1]), read(prometheus, sys.argv[2])
            print(json.dumps({"openmetrics": a, "prometheus": b}))
            """#
        try script.write(toFile: dir + "/read.py", atomically: true, encoding: .utf8)
        let r = try shell("python3 \(dir)/read.py \(dir)/om.txt \(dir)/prom.txt 2>&1")
        #expect(r.status == 0, "\(r.output)")
        let both = try object(r.output)
        let a = try #require(both.object("openmetrics")), b = try #require(both.object("prometheus"))
        #expect(a.count >= 30, "\(a.keys)")
        #expect(Set(a.keys) == Set(b.keys), "the same families: \(Set(a.keys).symmetricDifference(b.keys))")
        for (name, _) in a {
            let fa = try #require(a.object(name)), fb = try #require(b.object(name))
            #expect(fa.string("type") != "unknown" && fa.string("type") == fb.string("type"), "\(name): \(fa.string("type") ?? "") / \(fb.string("type") ?? "")")
            #expect(fa.strings("samples")?.isEmpty == false, "\(name) has no samples")
            // The same samples, but OpenMetrics' counters add a _created sample when given one (tabd gives none).
            #expect(fa.strings("samples") == fb.strings("samples"), "\(name)")
        }
        let reload = try #require(a.object("tabd_reload")?.strings("samples"))
        #expect(reload.contains("tabd_reload_total[('result', 'failure')]=1.0"), "\(reload)")
        #expect(a.object("tabd_last_reload_successful")?.strings("samples") == ["tabd_last_reload_successful[]=0.0"])
        #expect(a.object("tabd_errors")?.strings("samples")?.contains("tabd_errors_total[('code', 'config_invalid')]=1.0") == true)
        #expect(a.object("tabd_build_info")?.string("type") == "gauge")
    }
}
