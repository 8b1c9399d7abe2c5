// Facts written in more than one place, compared with the one the code has: the exit
// statuses (TabProtocol/ExitStatus.swift) with --help, the man pages and
// docs/operations.md; the error codes (ProtocolError.Code) with docs/protocol.md; the exit
// statuses any document or page states with the table. (The configuration keys of
// tabd.yaml(5) are compared with the parser's in TabServerTests.ConfigTests.)

import Foundation
import TabProtocol
import Testing

@Suite struct DocTablesTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: Build.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func operationsListsTheExitStatusesOfTheTable() throws {
        let doc = try Self.text("docs/operations.md")
        let rows = doc.split(separator: "\n").filter { $0.hasPrefix("| `tabd` | ") || $0.hasPrefix("| `tabctl` | ") }.map(String.init)
        let expected = TabdExit.all.map { "| `tabd` | \($0.code) | \($0.meaning) |" } + TabctlExit.all.map { "| `tabctl` | \($0.code) | \($0.meaning) |" }
        #expect(rows == expected)
    }

    @Test func helpSaysTheExitStatusesOfTheTable() throws {
        for (tool, table) in [(Build.tabd, TabdExit.all), (Build.tabctl, TabctlExit.all)] {
            let help = try shell("COLUMNS=10000 \(tool) --help").output.replacingOccurrences(of: "\n", with: " ")
                .replacing(#/ +/#, with: " ")
            #expect(help.contains(ExitStatus.summary(table)), "\(tool) --help: \(help)")
        }
    }

    /// Whatever number a document or a page gives as an exit status is one of the table's.
    @Test func everyExitStatusADocumentStatesIsInTheTable() throws {
        let codes = Set((TabdExit.all + TabctlExit.all).map(\.code))
        let files = ["README.md", "docs/operations.md", "docs/protocol.md", "docs/plugins.md", "man/tabd.yaml.5",
                     "man/tabd.8.roff", "man/tabctl.1.roff", "examples/README.md", "systemd/tabd.service"]
        var found = 0
        for file in files {
            let text = try Self.text(file)
            for m in text.matches(of: #/(?i)exit(?:s| status| code)?\s+(?:with\s+)?(?:status\s+)?\(?(\d+)/#) {
                found += 1
                #expect(codes.contains(Int32(m.output.1)!), "\(file) states exit status \(m.output.1): \(text[m.range])")
            }
        }
        #expect(found > 5)
        #expect(try Self.text("man/tabd.yaml.5").contains("exit status \(TabdExit.config.code)"))
    }

    /// docs/protocol.md's table of error codes is the code's list, in its order.
    @Test func protocolListsTheErrorCodesOfTheCode() throws {
        let doc = try Self.text("docs/protocol.md")
        let section = doc.components(separatedBy: "\n## Errors\n").last?.components(separatedBy: "\n## ").first ?? ""
        let codes = section.split(separator: "\n").compactMap { line -> String? in
            guard let m = line.firstMatch(of: #/^\| `([a-z_]+)` \|/#) else { return nil }
            return String(m.output.1)
        }
        #expect(codes == ProtocolError.Code.allCases.map(\.rawValue))
    }
}
