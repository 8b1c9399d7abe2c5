// Issue 32's bounds on what tabd reads, at the parser (what the config loader's fuzz target
// calls): an alias bomb and deep nesting are config errors with their line, never a crash
// or unbounded memory; and the numbers docs/operations.md states are the code's.

import Foundation
import Testing
@testable import TabServer

@Suite struct HostileBoundsTests {
    /// 10^9 nodes from a few hundred bytes: refused at the line where the walk passed the
    /// bound, after at most that many steps.
    @Test func anAliasBombIsRefusedAtItsLine() {
        var yaml = "plugins:\n  load:\n    - path: x.so\n      settings:\n        l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...9 { yaml += "        l\(i): &l\(i) [" + Array(repeating: "*l\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let refusal = ConfigTests.refusal(yaml) ?? ""
        #expect(refusal.contains("more than \(ServerConfig.Limits.yamlNodes) YAML nodes once its aliases are expanded"), "\(refusal)")
        #expect(refusal.hasPrefix("line "), "a line: \(refusal)")
    }

    // (Block sequences nest as deep with `- - - …`: ConfigTests.nestingDeeperThanAnyConfigurationIsRefusedAtItsLine.)
    @Test(arguments: ["[", "{\"a\": "])
    func deepNestingIsRefusedBeforeTheYAMLIsRead(opener: String) {
        let closer = opener == "[" ? "]" : opener == "- " ? "" : "}"
        let yaml = "plugins:\n  load:\n    - path: x.so\n      settings:\n        a: " + String(repeating: opener, count: 50_000) + "1" + String(repeating: closer, count: 50_000) + "\n"
        let refusal = ConfigTests.refusal(yaml) ?? ""
        #expect(refusal.hasPrefix("line 5, column ") && refusal.contains(": the configuration nests more than \(ServerConfig.Limits.yamlDepth) levels deep"), "\(refusal.prefix(200))")
    }

    /// What docs/operations.md says of these bounds is what the code does.
    @Test func theDocumentedBoundsAreTheCodes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let ops = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let nodes = ServerConfig.Limits.yamlNodes.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
        for text in ["at most \(nodes) nodes", "more than \(ServerConfig.Limits.yamlDepth) levels deep",
                     "at most \(ServerConfig.Limits.configFileBytes >> 20) MiB", "would pass \(BigReply.bigBytes >> 10) KiB"] {
            #expect(ops.contains(text), "docs/operations.md does not say \(text)")
        }
    }
}
