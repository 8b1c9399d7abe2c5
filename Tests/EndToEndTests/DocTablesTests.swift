// Facts written in more than one place, compared with the one the code has: the exit
// statuses (TabProtocol/ExitStatus.swift) with --help, the man pages and
// docs/operations.md; the error codes (ProtocolError.Code) with docs/protocol.md; the exit
// statuses any document or page states with the table; the reference plugins' settings (the
// plugins' own lists, as they state them refusing an unknown key) with tabd.yaml(5) and
// docs/plugins.md. (The configuration keys of tabd.yaml(5) are compared with the parser's in
// TabServerTests.ConfigTests.) And the man pages `make man` writes from a checkout are whole.

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

    /// The settings a reference plugin knows, as it says when it refuses an unknown key
    /// ("unknown setting 'x' (known: a, b)"), asked through `tabd --check-plugin`.
    static func knownSettings(_ plugin: String, _ settings: String) throws -> Set<String> {
        let r = try shell("\(Build.tabd) --check-plugin \(Build.plugin(plugin)) --settings '\(settings)' 2>&1")
        let m = try #require(r.output.firstMatch(of: #/\(known: ([a-z_, ]+)\)/#), "\(plugin) refuses \(settings) naming what it knows: \(r.output)")
        return Set(m.output.1.components(separatedBy: ", "))
    }

    /// tabd.yaml(5) and plugins.md name every setting of each reference plugin, and no other
    /// (issue 45: tabd.yaml(5) left out LoginGate's session_seconds).
    @Test func referencePluginsSettingsAreTheirOwn() throws {
        let gate = try Self.knownSettings("LoginGate", #"{"zz_unknown": 1}"#)
        let rules = try Self.knownSettings("OrientationRules", #"{"zz_unknown": 1}"#)
            .union(try Self.knownSettings("OrientationRules", #"{"rules": [{"tab": "a", "orientations": "all", "zz_unknown": 1}]}"#))
        #expect(gate.contains("session_seconds") && gate.contains("credentials_file") && gate.count >= 12, "\(gate)")
        #expect(rules == ["rules", "tab", "orientations", "lock", "preferred"], "\(rules)")
        // tabd.yaml(5): the `settings` entry, a sentence per plugin.
        let man = try Self.text("man/tabd.yaml.5")
        let entry = try #require(man.components(separatedBy: "\n.B settings\n").dropFirst().first?.components(separatedBy: "\n.TP\n").first)
        let gatePart = try #require(entry.components(separatedBy: #"\fBlibLoginGate.so\fR takes"#).dropFirst().first?
            .components(separatedBy: #"\fBlibOrientationRules.so\fR"#).first, "\(entry)")
        let rulesPart = try #require(entry.components(separatedBy: #"\fBlibOrientationRules.so\fR takes"#).dropFirst().first, "\(entry)")
        func bold(_ text: String) -> Set<String> { Set(text.matches(of: #/\\fB([a-z_]+)\\fR/#).map { String($0.output.1) }) }
        #expect(bold(gatePart) == gate, "tabd.yaml(5) names LoginGate's settings \(bold(gatePart).sorted()); the plugin knows \(gate.sorted())")
        #expect(bold(rulesPart) == rules, "tabd.yaml(5) names OrientationRules' settings \(bold(rulesPart).sorted()); the plugin knows \(rules.sorted())")
        // plugins.md: LoginGate's table and each plugin's example configuration.
        let doc = try Self.text("docs/plugins.md")
        let table = doc.components(separatedBy: "\n| setting | default | meaning |\n").dropFirst().first?
            .split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") } ?? []
        let rows = Set(table.compactMap { $0.firstMatch(of: #/^\| `([a-z_]+)` \|/#).map { String($0.output.1) } })
        #expect(rows == gate, "plugins.md's LoginGate table: \(rows.sorted()); the plugin knows \(gate.sorted())")
        for (heading, known) in [("### LoginGate", gate), ("### OrientationRules", rules)] {
            let section = try #require(doc.components(separatedBy: "\n" + heading).dropFirst().first?.components(separatedBy: "\n## ").first)
            let yaml = try #require(section.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
            let keys = Set(yaml.matches(of: #/(?m)^[ -]*([a-z_]+):/#).map { String($0.output.1) }).subtracting(["path", "settings", "required"])
            #expect(keys == known, "plugins.md's example for \(heading): \(keys.sorted()); the plugin knows \(known.sorted())")
        }
    }

    /// `make man-files` (what `make man` runs once it has built the binaries) writes whole
    /// pages from a checkout: a title, NAME, SYNOPSIS and DESCRIPTION, then for tabd(8) and
    /// tabctl(1) the hand-written sections of man/*.roff, which alone are fragments.
    @Test func manFromACheckoutWritesWholePages() throws {
        let out = temporaryDirectory("man")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let make = try shell("make -s -C \(Build.packageRoot.path) man-files BIN_DIR=\(Build.binDirectory.path) MAN_DIR=\(out)")
        #expect(make.status == 0, "\(make.output)")
        for (page, title, roff) in [("tabd.8", "TABD(8)", "man/tabd.8.roff"), ("tabctl.1", "TABCTL(1)", "man/tabctl.1.roff"), ("tabd.yaml.5", "TABD.YAML(5)", nil)] {
            let source = try String(contentsOfFile: out + "/" + page, encoding: .utf8)
            #expect(source.contains("\n.TH ") && !source.contains("@VERSION@"), "\(page): \(source.prefix(300))")
            let warnings = try shell("MANWIDTH=80 man --warnings -l \(out)/\(page) 2>&1 >/dev/null")
            #expect(warnings.status == 0 && warnings.output.isEmpty, "\(page): \(warnings.output)")
            let rendered = try shell("MANWIDTH=80 man -l \(out)/\(page) 2>/dev/null | col -bx").output
            #expect(rendered.hasPrefix(title), "\(page): \(rendered.prefix(200))")
            let headings = rendered.split(separator: "\n").filter { $0.first?.isUppercase == true && $0.allSatisfy { $0.isUppercase || $0 == " " } }.map(String.init)
            #expect(Array(headings.prefix(3)) == ["NAME", "SYNOPSIS", "DESCRIPTION"], "\(page): \(headings)")
            guard let roff else { continue }
            let handWritten = try Self.text(roff).split(separator: "\n").filter { $0.hasPrefix(".SH ") }.map { String($0.dropFirst(4)) }
            #expect(handWritten.count >= 3 && Array(headings.suffix(handWritten.count)) == handWritten, "\(page): \(headings); \(roff) has \(handWritten)")
        }
    }
}
