// The configuration's numbers: every uid, gid, size, count and mode is checked before use,
// at start (ServerConfig.load/parse) and at reload (TabService.reload reads the file with the
// same code). A value out of range, or of the wrong type, is one ConfigError sentence that
// names the key and the allowed range — never a trap.

import Foundation
import Logging
import TabPlugins
import TabJSON
import Testing
@testable import TabServer
import TabState

@Suite struct ConfigTests {
    /// The error `yaml` is refused with, or nil when it parses.
    static func refusal(_ yaml: String) -> String? {
        do {
            _ = try ServerConfig.parse(yaml, baseDirectory: "/")
            return nil
        } catch let error as ConfigError {
            return error.description
        } catch {
            return "not a ConfigError: \(error)"
        }
    }

    /// Refused with a sentence that contains every one of `parts`, on one line.
    static func expectRefused(_ yaml: String, _ parts: String..., sourceLocation: SourceLocation = #_sourceLocation) {
        guard let message = refusal(yaml) else {
            Issue.record("accepted: \(yaml)", sourceLocation: sourceLocation)
            return
        }
        for part in parts {
            #expect(message.contains(part), "\(message) — expected it to contain \(part)", sourceLocation: sourceLocation)
        }
        #expect(!message.contains("\n"), "not one line: \(message)", sourceLocation: sourceLocation)
        #expect(!message.contains("Error("), "a Swift error value: \(message)", sourceLocation: sourceLocation)
    }

    // MARK: what the file itself says

    /// A key or value holding line breaks (quoted YAML can hold any character) is quoted
    /// back escaped: the problem stays one line (found by fuzz/config).
    /// One rule for numbers (tabd.yaml(5)): `_` may group digits, in tabd's own keys and in a
    /// plugin's settings alike (issue 45: `1_000` reached a plugin as the string "1_000").
    /// A `_` that does not stand between two digits makes no number; a quoted value stays a
    /// string.
    @Test func numbersGroupDigitsByOneRuleInTabdsKeysAndPluginSettings() throws {
        let c = try ServerConfig.parse("""
            limits:
              max_tabs: 1_000
            plugins:
              load:
                - path: x.so
                  settings: {a: 1_000, b: -2_500, c: 0.000_5, d: "1_000", e: _1, f: 1_, g: 1__0, h: 1e3, i: 9_223_372_036_854_775_807, j: [1_0, x_1]}
            """, baseDirectory: "/")
        #expect(c.controllerLimits.maxTabs == 1000)
        #expect(c.plugins.first?.configJSON == #"{"a":1000,"b":-2500,"c":0.0005,"d":"1_000","e":"_1","f":"1_","g":"1__0","h":1000.0,"i":9223372036854775807,"j":[10,"x_1"]}"#,
                "\(c.plugins.first?.configJSON ?? "no plugin")")
        for bad in ["_1000", "1000_", "1__000"] {
            Self.expectRefused("limits:\n  max_tabs: \(bad)\n", "limits.max_tabs must be an integer", bad)
        }
        Self.expectRefused("limits:\n  idle_timeout_seconds: 1_\n", "idle_timeout_seconds")
    }

    @Test func keysWithLineBreaksAreQuotedOnOneLine() {
        Self.expectRefused("limits:\n  \"max\\nconnections\": 3\n", #"unknown setting 'limits.max\nconnections'"#)
        Self.expectRefused("fsync: \"every\\r\\nsec\"\n", #"every\r\nsec"#)
    }

    /// Nesting deeper than any configuration needs is refused at its line before Yams
    /// builds a tree (its parser recurses per level: 2.4 KB of `{` overflowed a stack; found
    /// by fuzz/config); the deepest settings a plugin may have still load.
    @Test func nestingDeeperThanAnyConfigurationIsRefusedAtItsLine() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        Self.expectRefused("socket: /tmp/x.sock\nplugins:\n  load:\n    - path: a.so\n      settings: {a: \(deep)}\n",
                           "line 5, column", "nests more than \(YAMLDepth.maxDepth) levels deep")
        Self.expectRefused(String(repeating: "- ", count: 50_000) + "x\n", "nests more than")
        let deepest = String(repeating: "[", count: 1024) + String(repeating: "]", count: 1024)
        #expect(Self.refusal("plugins:\n  load:\n    - path: a.so\n      settings: {a: \(deepest)}\n") == nil)
    }

    // MARK: uids and gids

    @Test(arguments: ["-1", "4294967295", "4294967296", "-4294967296", "99999999999999999999999", "1.5", "root", "0x10", "\"\""])
    func adminUIDsOutOfRangeOrNotNumbers(_ value: String) {
        Self.expectRefused("access:\n  admin_uids: [1000, \(value)]\n", "access.admin_uids[1]", "0 to 4294967294")
        Self.expectRefused("access:\n  admin_gids: [\(value)]\n", "access.admin_gids[0]", "0 to 4294967294")
    }

    @Test func uidListsOfTheWrongShape() {
        Self.expectRefused("access:\n  admin_uids: 1000\n", "access.admin_uids", "list of uids", "(got 1000)")
        Self.expectRefused("access:\n  admin_gids: {a: 1}\n", "access.admin_gids", "list of gids", "(got a mapping)")
        Self.expectRefused("access:\n  admin_uids: [[1]]\n", "access.admin_uids[0]", "(got a list)")
        Self.expectRefused("access: [1]\n", "access must be a mapping")
    }

    @Test func theWholeIDRangeIsAccepted() throws {
        let c = try ServerConfig.parse("access:\n  admin_uids: [0, 65534, 4294967294]\n  admin_gids: [0, 4_294_967_294]\n")
        #expect(c.adminUIDs == [0, 65534, 4_294_967_294])
        #expect(c.adminGIDs == [0, 4_294_967_294])
        #expect(try ServerConfig.parse("access:\n  admin_uids: []\n").adminUIDs.isEmpty)
    }

    // MARK: limits

    /// Each limit: its key, its range, and values just inside and just outside it.
    static let limits: [(key: String, range: ClosedRange<Int>, read: @Sendable (ServerConfig) -> Int)] = [
        ("max_line_bytes", 1024...1_073_741_824, \.maxLineBytes),
        ("max_output_bytes", 4096...4_294_967_296, \.maxOutputBytes),
        ("max_connections", 1...1_048_576, { $0.maxConnections ?? 1 }),
        ("max_json_depth", 4...1024, \.maxJSONDepth),
        ("compact_bytes", 4096...68_719_476_736, \.compactBytes),
        ("memory_budget_bytes", 1_048_576...1_099_511_627_776, \.memoryBudgetBytes),
        ("max_tabs", 1...1_000_000, \.controllerLimits.maxTabs),
        ("max_id_bytes", 1...65_536, \.controllerLimits.maxIDBytes),
        ("max_text_bytes", 1...1_048_576, \.controllerLimits.maxTextBytes),
        ("max_stack_depth", 1...100_000, \.controllerLimits.maxStackDepth),
        ("max_controllers", 1...1_000_000, \.maxControllers),
    ]

    @Test func limitsAreCheckedAgainstTheirRanges() throws {
        for (key, range, read) in Self.limits {
            let sentence = "limits.\(key) must be an integer from \(range.lowerBound) to \(range.upperBound)"
            for bad in [range.lowerBound - 1, range.upperBound + 1, 0, -1, Int.min] {
                Self.expectRefused("limits:\n  \(key): \(bad)\n", sentence, "(got \(bad))")
            }
            for bad in ["99999999999999999999999", "1e6", "\"lots\"", "[1]", "{a: 1}", "true"] {
                Self.expectRefused("limits:\n  \(key): \(bad)\n", sentence)
            }
            for good in [range.lowerBound, range.upperBound] {
                #expect(read(try ServerConfig.parse("limits:\n  \(key): \(good)\n")) == good, "\(key): \(good)")
            }
        }
    }

    @Test func theRangesAreTheOnesTheConfigExposes() {
        #expect(ServerConfig.Limits.maxLineBytes == Self.limits[0].range)
        #expect(ServerConfig.Limits.maxOutputBytes == Self.limits[1].range)
        #expect(ServerConfig.Limits.maxConnections == Self.limits[2].range)
        #expect(ServerConfig.Limits.maxJSONDepth == Self.limits[3].range)
        #expect(ServerConfig.Limits.compactBytes == Self.limits[4].range)
        #expect(ServerConfig.Limits.memoryBudgetBytes == Self.limits[5].range)
        #expect(ServerConfig.Limits.maxTabs == Self.limits[6].range)
        #expect(ServerConfig.Limits.maxIDBytes == Self.limits[7].range)
        #expect(ServerConfig.Limits.maxTextBytes == Self.limits[8].range)
        #expect(ServerConfig.Limits.maxStackDepth == Self.limits[9].range)
        #expect(ServerConfig.Limits.maxControllers == Self.limits[10].range)
        // The defaults are inside them.
        let d = ServerConfig()
        for (_, range, read) in Self.limits { #expect(range.contains(read(d))) }
    }

    /// The timeouts take seconds with decimals, within 10 ms … a day.
    @Test func timeoutsAreSecondsInTheirRange() throws {
        for key in ["line_timeout_seconds", "output_timeout_seconds"] {
            let sentence = "limits.\(key) must be a number of seconds from 0.01 to 86400"
            for bad in ["0", "0.001", "86401", "-1", "\"soon\"", "[1]", "nan", "inf"] {
                Self.expectRefused("limits:\n  \(key): \(bad)\n", sentence)
            }
        }
        let c = try ServerConfig.parse("limits:\n  line_timeout_seconds: 0.5\n  output_timeout_seconds: 30\n")
        #expect(c.lineTimeout == 0.5)
        #expect(c.outputTimeout == 30)
        #expect(ServerConfig().lineTimeout == 10 && ServerConfig().outputTimeout == 5)
        // No max_connections: as many as the open file limit allows (decided at start).
        #expect(ServerConfig().maxConnections == nil)
    }

    // MARK: socket_mode, controllers, log_level

    @Test func socketModeIsAnOctalModeUpTo0777() throws {
        for bad in ["\"0800\"", "\"1777\"", "\"-1\"", "\"rw\"", "\"0o660\"", "[6, 6, 0]", "\"\""] {
            Self.expectRefused("socket_mode: \(bad)\n", "socket_mode must be an octal mode from \"0000\" to \"0777\"")
        }
        #expect(try ServerConfig.parse("socket_mode: \"0777\"\n").socketMode == 0o777)
        #expect(try ServerConfig.parse("socket_mode: 0600\n").socketMode == 0o600)
        #expect(try ServerConfig.parse("socket_mode: \"0\"\n").socketMode == 0)
    }

    @Test func maxVisibleIsCheckedPerIdiom() throws {
        Self.expectRefused("controllers:\n  - name: a\n    max_visible: 1\n", "controllers[0].max_visible", "from 2 to 1000 for the phone idiom", "(got 1)")
        Self.expectRefused("controllers:\n  - name: a\n  - name: b\n    idiom: pad\n    max_visible: 1001\n", "controllers[1].max_visible", "from 2 to 1000 for the pad idiom")
        Self.expectRefused("controllers:\n  - name: a\n    idiom: tv\n    max_visible: 0\n", "controllers[0].max_visible", "from 1 to 1000 for the tv idiom")
        Self.expectRefused("controllers:\n  - name: a\n    max_visible: -9223372036854775808\n", "controllers[0].max_visible")
        Self.expectRefused("controllers:\n  - name: a\n    max_visible: [3]\n", "controllers[0].max_visible", "(got a list)")
        Self.expectRefused("controllers:\n  - name: a\n    idiom: watch\n", "controllers[0].idiom", "(got watch)")
    }

    /// R4.3: a configured controller may be created with `tap_pops: reselect`.
    @Test func tapPopsIsAlwaysOrReselect() throws {
        #expect(try ServerConfig.parse("controllers:\n  - name: a\n").controllers.first?.tapPops == .always)
        #expect(try ServerConfig.parse("controllers:\n  - name: a\n    tap_pops: reselect\n").controllers.first?.tapPops == .reselect)
        Self.expectRefused("controllers:\n  - name: a\n    tap_pops: never\n", "controllers[0].tap_pops", "always or reselect", "(got never)")
        let c = try ServerConfig.parse("controllers:\n  - name: t\n    idiom: tv\n    max_visible: 1\n  - name: p\n    max_visible: 1000\n")
        #expect(c.controllers.map(\.maxVisible) == [1, 1000])
    }

    @Test func logLevelIsOneOfTheLevels() throws {
        Self.expectRefused("log_level: loud\n", "log_level must be one of trace, debug, info, notice, warning, error, critical", "(got loud)")
        #expect(try ServerConfig.parse("log_level: debug\n").logLevel == "debug")
    }

    @Test func longValuesAreCutInTheMessage() {
        let long = String(repeating: "9", count: 200)
        guard let message = Self.refusal("limits:\n  max_connections: \(long)\n") else { Issue.record("accepted"); return }
        #expect(message.count < 200, "\(message)")
        #expect(message.contains("…"))
    }

    @Test func yamlErrorsAreOneLine() {
        Self.expectRefused("a: [1\n", "not valid YAML", "line 2")
    }

    // MARK: Files and reload

    /// A file's errors name the file as well as the key.
    @Test func loadNamesTheFile() throws {
        let path = FileManager.default.temporaryDirectory.path + "/tabd-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).yaml"
        defer { unlink(path) }
        try "access:\n  admin_uids: [-1]\n".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try ServerConfig.load(path: path)
            Issue.record("loaded")
        } catch let error as ConfigError {
            #expect(error.description == "\(path):2:16: access.admin_uids[0] must be a uid from 0 to 4294967294 (got -1)")
        }
    }

    /// A reload reads the file with the same checks; a refused one keeps the running config.
    @Test func reloadRefusesAnOutOfRangeNumberAndKeepsTheRunningConfig() throws {
        let dir = FileManager.default.temporaryDirectory.path + "/tabd-reload-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/tabd.yaml"
        try "access:\n  admin_uids: [1000]\n  admin_gids: [2000]\nlimits:\n  max_json_depth: 32\n".write(toFile: path, atomically: true, encoding: .utf8)
        let config = try ServerConfig.load(path: path)
        let logger = Logger(label: "test")
        let store = StateStore(directory: dir + "/state", fsync: .no, compactBytes: 1 << 20, logger: logger)
        let service = TabService(config: config, store: store, plugins: PluginHost(directories: [], logger: logger), logger: logger, version: "test", ownUID: 4000)
        try service.recover(repair: false)

        for (yaml, key) in [
            ("access:\n  admin_uids: [-1]\n", "access.admin_uids[0]"),
            ("access:\n  admin_gids: [4294967295]\n", "access.admin_gids[0]"),
            ("limits:\n  max_json_depth: 0\n", "limits.max_json_depth"),
            ("controllers:\n  - name: x\n    max_visible: 0\n", "controllers[0].max_visible"),
        ] {
            try yaml.write(toFile: path, atomically: true, encoding: .utf8)
            let result = service.reload()
            guard case .failure(let error) = result else { Issue.record("reloaded: \(yaml)"); continue }
            #expect(error.description.contains(key), "\(error)")
            #expect(service.config.adminUIDs == [1000])
            #expect(service.config.adminGIDs == [2000])
            #expect(service.config.maxJSONDepth == 32)
            #expect(service.containers["x"] == nil)
        }
        // A good file is taken.
        try "access:\n  admin_uids: [4294967294]\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect((try? service.reload().get()) != nil)
        #expect(service.config.adminUIDs == [4_294_967_294])
        service.finish()
    }
}

/// Isolation and the crash watch in plugins (docs/operations.md, "Isolated plugins").
@Suite struct PluginIsolationConfigTests {
    /// isolation, deadline_ms and user are read per plugin; slow_hook_ms and quarantine_after for all.
    @Test func isolationKeysAreRead() throws {
        let c = try ServerConfig.parse("""
            plugins:
              slow_hook_ms: 20
              quarantine_after: 5
              load:
                - {path: a.so, isolation: process, deadline_ms: 200, user: nobody}
                - {path: b.so}
            """)
        #expect(c.plugins[0].isolation == .process && c.plugins[0].deadlineMilliseconds == 200 && c.plugins[0].user == "nobody")
        #expect(c.plugins[1].isolation == .none && c.plugins[1].deadlineMilliseconds == 50 && c.plugins[1].user == nil)
        #expect(c.slowHookMilliseconds == 20 && c.quarantineAfter == 5)
        let d = try ServerConfig.parse("plugins:\n  load: [{path: a.so}]\n")
        #expect(d.slowHookMilliseconds == 10 && d.quarantineAfter == 3)
    }

    /// A wrong value names the key, where it is, and what it may be.
    @Test func isolationProblemsAreNamed() {
        func refused(_ yaml: String, _ parts: String...) {
            do {
                _ = try ServerConfig.parse(yaml, file: "t.yaml")
                Issue.record("accepted: \(yaml)")
            } catch {
                for p in parts { #expect("\(error)".contains(p), "\(error)") }
            }
        }
        refused("plugins:\n  load:\n    - {path: a.so, isolation: fork}\n", "t.yaml:3:", "plugins.load[0].isolation must be none or process (got fork)")
        refused("plugins:\n  load:\n    - {path: a.so, isolation: process, deadline_ms: 0}\n", "plugins.load[0].deadline_ms must be an integer from 1 to 60000")
        refused("plugins:\n  load:\n    - {path: a.so, deadline_ms: 100}\n", "deadline_ms applies only to isolated plugins")
        refused("plugins:\n  load:\n    - {path: a.so, user: nobody}\n", "user applies only to isolated plugins")
        refused("plugins:\n  slow_hook_ms: 0\n", "plugins.slow_hook_ms must be an integer from 1 to 60000")
        refused("plugins:\n  quarantine_after: -1\n", "plugins.quarantine_after must be an integer from 1 to 1000")
    }
}

/// tabd.yaml(5) describes every key the parser reads, by its name in bold, in the section of
/// its parent (limits, access, controllers, plugins, plugins.load's items); and names no
/// bold key the parser does not read.
@Suite struct ConfigManPageTests {
    static let page: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("man/tabd.yaml.5"), encoding: .utf8)) ?? ""
    }()

    @Test func theParserReadsTheKeysThisTestKnows() {
        let keys = ServerConfig.keys
        #expect(keys.count > 35, "\(keys)")
        for key in ["socket", "state_dir", "limits.max_tabs", "controllers[].tap_pops", "plugins.load[].name", "plugins.load[].settings", "access.admin_gids"] {
            #expect(keys.contains(key), "\(key) in \(keys)")
        }
    }

    /// The entries (`.TP` then `.B key` or `.BR key ", " other`) between `from` and `to`.
    static func described(from: String, to: String) -> Set<String> {
        guard let start = page.range(of: from) else { return [] }
        let rest = page[start.upperBound...]
        let region = rest[..<(rest.range(of: to)?.lowerBound ?? rest.endIndex)]
        let lines = region.split(separator: "\n", omittingEmptySubsequences: false)
        var described: Set<String> = []
        for (i, line) in lines.enumerated() where i > 0 && lines[i - 1] == ".TP" {
            guard line.hasPrefix(".B ") || line.hasPrefix(".BR ") else { continue }
            for word in line.split(separator: " ").dropFirst() where !word.contains("\"") {
                described.insert(word.replacingOccurrences(of: "\\-", with: "-"))
            }
        }
        return described
    }

    @Test func everyKeyIsDescribed() {
        #expect(!Self.page.isEmpty)
        // Where each kind of key is described: an item's keys in its list's part of the page.
        let regions: [(prefix: String, described: Set<String>)] = [
            ("plugins.load[].", Self.described(from: ".B plugins.load\n", to: ".RE")),
            ("controllers[].", Self.described(from: ".SH CONTROLLERS", to: ".SH ")),
            ("limits.", Self.described(from: ".SH LIMITS", to: ".SH ")),
            ("", Self.described(from: ".SH DESCRIPTION", to: ".SH EXAMPLE")),
        ]
        // Sections (limits, plugins, controllers …) have their own headings.
        let sections = Set(ServerConfig.keys.flatMap { key in
            key.split(separator: ".").dropLast().map { String($0).replacingOccurrences(of: "[]", with: "") }
        })
        for key in ServerConfig.keys where !sections.contains(key) {
            let region = regions.first { key.hasPrefix($0.prefix) }!
            let leaf = String(key.dropFirst(region.prefix.count))
            #expect(region.described.contains(leaf), "tabd.yaml(5) does not describe \(key)")
        }
        let all = regions.last!.described
        let leaves = Set(ServerConfig.keys.flatMap { [$0, String($0.split(separator: ".").last!)] })
        for word in all where word.allSatisfy({ $0.isLowercase || $0 == "_" || $0 == "." }) {
            #expect(leaves.contains(word), "tabd.yaml(5) describes \(word), which the parser does not read")
        }
    }
}

/// `config`'s answer masks what plugin settings name as secrets, at any depth, and keeps the
/// rest (a credentials file's name is not a secret).
@Suite struct EffectiveConfigTests {
    @Test func secretsAreMasked() throws {
        let c = try ServerConfig.parse("""
            plugins:
              load:
                - path: x.so
                  settings: {credentials_file: /etc/tabd/credentials, password: hunter2, nested: {api_key: k, list: [{token: t}]}, keyboard: qwerty}
            """, baseDirectory: "/")
        var w = JSONWriter()
        w.beginObject()
        c.encodeEffective(&w)
        w.endObject()
        let text = String(decoding: w.bytes, as: UTF8.self)
        for secret in ["hunter2", "\"k\"", "\"t\""] { #expect(!text.contains(secret), "\(secret) shown: \(text)") }
        #expect(text.contains(#""settings":{"credentials_file":"/etc/tabd/credentials","password":"********","nested":{"api_key":"********","list":[{"token":"********"}]},"keyboard":"qwerty"}"#), "\(text)")
        #expect(text.contains(#""socket_mode":"0660""#) && text.contains(#""file":null"#), "\(text)")
    }
}
