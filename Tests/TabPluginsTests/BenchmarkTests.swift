// How much a decision costs through the plugin chain: prints ns per should_select with
// 0, 1 and 4 plugins and with LoginGate. Speed is not asserted (a shared machine makes
// timed assertions flaky); what is checked is that every configuration decides right.
// The numbers to quote come from a release build (BENCHMARKS.md):
//   swift test -c release -Xswiftc -enable-testing --filter "PluginTests.Benchmark"

import Foundation
import TabCore
import TabPlugins
import TabSystem
import Testing

func nanosecondsPerCall(_ iterations: Int, _ body: () -> Void) -> Double {
    for _ in 0..<1000 { body() }
    let t0 = monotonicNanoseconds()
    for _ in 0..<iterations { body() }
    return Double(monotonicNanoseconds() - t0) / Double(iterations)
}

extension PluginTests {
    @Suite struct Benchmark {
        /// A should_select decision through 0, 1 and 4 plugins (C gates that abstain, and
        /// LoginGate in Swift), timed; each configuration must still decide correctly.
        @Test func decisionOverhead() throws {
            let dir = try temporaryDirectory()
            for i in 0..<4 {
                try compilePlugin(gatePlugin(name: "abstain\(i)", result: "TABD_ABSTAIN"), named: "abstain\(i).so", in: dir)
            }
            _ = try referencePlugin("libLoginGate.so")
            let credentials = dir + "/credentials"
            try "demo:\(demoHash)\n".write(toFile: credentials, atomically: true, encoding: .utf8)
            let c = try controller(["login", "home", "settings", "news"])
            let candidate = tab("settings", of: c)
            let iterations = 200_000

            var results: [(String, Double)] = []
            let baseline = DefaultPolicy()
            results.append(("no host (DefaultPolicy)", nanosecondsPerCall(iterations) { _ = baseline.shouldSelect(candidate, in: c) }))
            let configurations: [(String, [PluginSpec])] = [
                ("host, 0 plugins", []),
                ("host, 1 C plugin", [PluginSpec(path: "abstain0.so")]),
                ("host, 4 C plugins", (0..<4).map { PluginSpec(path: "abstain\($0).so") }),
                ("host, LoginGate (Swift, denies)", [PluginSpec(path: "libLoginGate.so", configJSON: #"{"credentials_file":"\#(credentials)"}"#)]),
            ]
            for (label, specs) in configurations {
                let (host, _) = makeHost([dir, buildDirectory])
                try host.load(specs)
                #expect(host.plugins.allSatisfy { $0.loaded })
                // Abstaining gates fall to the default (allow); LoginGate refuses before a login.
                let expected: Decision = label.contains("LoginGate") ? .deny(by: "login-gate", reason: "not logged in") : .allow
                #expect(host.shouldSelect(candidate, in: c) == expected, "\(label)")
                results.append((label, nanosecondsPerCall(iterations) { _ = host.shouldSelect(candidate, in: c) }))
            }
            let (loggedIn, _) = makeHost([buildDirectory])
            try loggedIn.load([PluginSpec(path: "libLoginGate.so", configJSON: #"{"credentials_file":"\#(credentials)"}"#)])
            _ = try login(loggedIn, c).get()
            #expect(loggedIn.shouldSelect(candidate, in: c) == .allow)
            results.append(("host, LoginGate (Swift, logged in: allows)", nanosecondsPerCall(iterations) { _ = loggedIn.shouldSelect(candidate, in: c) }))
            for (label, ns) in results {
                print("benchmark: should_select, \(label): \(String(format: "%.0f", ns)) ns/decision")
            }
        }
    }
}
