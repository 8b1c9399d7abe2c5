// The plugin ABI's version as the docs state it is the header's (policy.h): the ABI rules'
// "now 1.N" sentence, and every `abi` in an example (plugins' JSON, --check-plugin's table).
// Stale ABI text was a finding of issue 29 ("plugins.md still says 1.1"). Every hook and host
// function of the header is in plugins.md's tables, for C and for Swift, with the minor that
// added it (issue 45: selection_changed, timer, the store and the timers were missing).

import Foundation
import Testing

@Suite struct ABIDocsTests {
    /// Each doc, and each place in it that names the ABI a plugin reports or tabd speaks.
    @Test func docsStateTheHeadersABI() throws {
        let abi = Build.headerABI
        #expect(abi.range(of: #"^\d+\.\d+$"#, options: .regularExpression) != nil, "policy.h's version: \(abi)")
        let patterns = [#""abi":"(\d+\.\d+)""#, #"abi {2,}(\d+\.\d+)"#, #"plugin ABI (\d+\.\d+) \(tabd/policy.h\)"#, #"TABD_POLICY_ABI_MINOR` \(now (\d+\.\d+)"#]
        var found = 0
        for file in ["README.md", "docs/plugins.md", "docs/protocol.md", "docs/operations.md", "man/tabd.8.roff"] {
            let url = Build.packageRoot.appendingPathComponent(file)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            for pattern in patterns {
                let re = try NSRegularExpression(pattern: pattern)
                for m in re.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let stated = (text as NSString).substring(with: m.range(at: 1))
                    found += 1
                    #expect(stated == abi, "\(file) says ABI \(stated) where policy.h says \(abi): \((text as NSString).substring(with: m.range))")
                }
            }
        }
        #expect(found >= 3, "the ABI is stated in plugins.md's rules and in the examples")
    }

    /// The store's and the timers' limits as plugins.md's table and text state them are the
    /// header's #defines (which tabd's code reads: PluginStoreData, PluginTimer).
    @Test func docsStateTheHeadersStoreAndTimerLimits() throws {
        let header = try String(contentsOf: Build.packageRoot.appendingPathComponent("Sources/CTabPolicy/include/tabd/policy.h"), encoding: .utf8)
        let docs = try String(contentsOf: Build.packageRoot.appendingPathComponent("docs/plugins.md"), encoding: .utf8)
        func define(_ name: String) -> Int? {
            header.split(separator: "\n").first { $0.hasPrefix("#define \(name) ") }
                .flatMap { Int($0.split(separator: " ")[2].trimmingCharacters(in: CharacterSet(charactersIn: "u"))) }
        }
        for name in ["TABD_STORE_MAX_KEY_BYTES", "TABD_STORE_MAX_VALUE_BYTES", "TABD_STORE_MAX_KEYS", "TABD_STORE_MAX_TOTAL_BYTES", "TABD_STORE_WRITE_COST_BYTES"] {
            let value = try #require(define(name), "policy.h defines \(name)")
            #expect(docs.contains("| `\(name)` | \(value) "), "plugins.md's store table gives \(name) as \(value)")
        }
        let timers = try #require(define("TABD_TIMER_MAX"))
        #expect(docs.contains("`TABD_TIMER_MAX` (\(timers))"), "plugins.md gives TABD_TIMER_MAX as \(timers)")
        let ms = try #require(define("TABD_TIMER_MAX_MS"))
        #expect(ms == 86_400_000 && docs.contains("`TABD_TIMER_MAX_MS`, 24 hours"), "plugins.md says the longest delay is 24 hours")
    }

    /// The hooks (descriptor) and host functions (host table) policy.h declares, each with the
    /// minor of its "since 1.N" section, and the header's static inline functions.
    struct HeaderABI {
        var hooks: [(name: String, minor: Int)] = []
        var hostFunctions: [(name: String, minor: Int)] = []
        var inlineFunctions: [String] = []

        init(_ header: String) throws {
            // Comments go, but their "since 1.N" section markers stay as lines of their own.
            var text = ""
            var rest = header[...]
            while let open = rest.range(of: "/*") {
                text += rest[..<open.lowerBound]
                guard let close = rest[open.upperBound...].range(of: "*/") else { break }
                let comment = rest[open.upperBound..<close.lowerBound]
                if let m = comment.firstMatch(of: #/^ *---- since 1\.(\d+)/#) { text += "\n@since \(m.output.1)\n" }
                rest = rest[close.upperBound...]
            }
            text += rest
            func members(of start: String, until end: String) throws -> [(String, Int)] {
                let body = try #require(text.components(separatedBy: start).dropFirst().first?.components(separatedBy: end).first,
                                        "policy.h has \(start)")
                var minor = 0, found: [(String, Int)] = []
                for line in body.split(separator: "\n") {
                    if let m = line.firstMatch(of: #/^@since (\d+)$/#) { minor = Int(m.output.1)!; continue }
                    for m in line.matches(of: #/\(\*\s*([a-z_]+)\)\s*\(/#) { found.append((String(m.output.1), minor)) }
                }
                return found
            }
            hooks = try members(of: "typedef struct tabd_policy_descriptor {", until: "} tabd_policy_descriptor;")
            hostFunctions = try members(of: "struct tabd_host {", until: "\n};")
            inlineFunctions = text.matches(of: #/static inline [a-z_ ]+?\**\b([a-z_]+)\(/#).map { String($0.output.1) }
        }
    }

    /// The rows of the Markdown table whose header row is `header`, as cells.
    static func table(_ header: String, in doc: String) throws -> [[String]] {
        let lines = doc.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: header) else { throw TestFailure("plugins.md has no table \(header)") }
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            // Cells split on `|` outside code spans (`RTLD_NOW \| RTLD_LOCAL` stays whole).
            var cells: [String] = [], cell = "", code = false, previous: Character = " "
            for ch in line.dropFirst() {
                if ch == "`" { code.toggle() }
                if ch == "|" && !code && previous != "\\" { cells.append(cell.trimmingCharacters(in: .whitespaces)); cell = "" } else { cell.append(ch) }
                previous = ch
            }
            return cells
        }
    }

    /// Names a Markdown cell gives in code spans: `name(…)` or `name`, each span's first word.
    static func codeNames(_ cell: String) -> [String] {
        cell.matches(of: #/`([A-Za-z_][A-Za-z0-9_]*)/#).map { String($0.output.1) }
    }

    /// The minor a cell marks with "(1.N)", or 0.
    static func minor(_ cell: String) -> Int {
        cell.firstMatch(of: #/\(1\.(\d+)\)/#).map { Int($0.output.1)! } ?? 0
    }

    static func header() throws -> HeaderABI {
        try HeaderABI(String(contentsOf: Build.packageRoot.appendingPathComponent("Sources/CTabPolicy/include/tabd/policy.h"), encoding: .utf8))
    }

    static func sdkSources() throws -> String {
        let dir = Build.packageRoot.appendingPathComponent("Sources/TabPolicy")
        return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }.sorted()
            .map { try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
    }

    /// Whether the SDK declares `name`: a member (`func`, `var`, `let`, `case`) when it starts
    /// lower-case, else a type.
    static func sdkDeclares(_ name: String, in sdk: String) -> Bool {
        let kinds = name.first!.isLowercase ? ["func", "var", "let", "case"] : ["struct", "enum", "class", "protocol", "typealias"]
        return kinds.contains { kind in
            sdk.contains("\(kind) \(name)(") || sdk.contains("\(kind) \(name) ") || sdk.contains("\(kind) \(name):")
                || sdk.contains("\(kind) \(name)<") || sdk.contains("\(kind) \(name),") || sdk.contains("\(kind) \(name)\n")
        }
    }

    @Test func hooksTablesHaveEveryHookOfTheHeader() throws {
        let header = try Self.header()
        #expect(header.hooks.count >= 17 && header.hooks.contains { $0 == ("timer", 6) }, "policy.h's hooks: \(header.hooks)")
        let docs = try String(contentsOf: Build.packageRoot.appendingPathComponent("docs/plugins.md"), encoding: .utf8)
        let sdk = try Self.sdkSources()
        // C: each hook in the first column of a row, with the minor that added it.
        var c: [String: Int] = [:]
        for row in try Self.table("| hook | when | answers |", in: docs) {
            for name in Self.codeNames(row[0]) { c[name] = Self.minor(row[0]) }
        }
        // Swift: each hook in the "C hook" column of the protocols' table (and init in the plugin
        // type's), its protocol one the SDK declares.
        var swift: [String: Int] = [:]
        for row in try Self.table("| protocol | method | C hook |", in: docs) {
            for name in Self.codeNames(row[2]) { swift[name] = Self.minor(row[2]) }
            for name in Self.codeNames(row[0]) { #expect(Self.sdkDeclares(name, in: sdk), "plugins.md names \(name), which the SDK does not declare") }
        }
        for row in try Self.table("| requirement | what it is |", in: docs) where row[0].hasPrefix("`init(") {
            for name in Self.codeNames(row[1]) where name == "init" { swift[name] = 0 }
        }
        for (hook, minor) in header.hooks {
            #expect(c[hook] == minor, "plugins.md's C hooks table: \(hook) (since 1.\(minor)) is \(c[hook].map { "there as 1.\($0)" } ?? "missing")")
            #expect(swift[hook] == minor, "plugins.md's Swift hooks table: \(hook) (since 1.\(minor)) is \(swift[hook].map { "there as 1.\($0)" } ?? "missing")")
        }
        let known = Set(header.hooks.map(\.name))
        for name in c.keys { #expect(known.contains(name), "plugins.md's C hooks table names \(name), which policy.h does not have") }
        for name in swift.keys { #expect(known.contains(name), "plugins.md's Swift hooks table names \(name), which policy.h does not have") }
    }

    @Test func hostFunctionsTableHasEveryFunctionOfTheHeader() throws {
        let header = try Self.header()
        #expect(header.hostFunctions.count >= 50 && header.hostFunctions.contains { $0 == ("store_get", 6) } && header.hostFunctions.contains { $0 == ("caller", 1) },
                "policy.h's host functions: \(header.hostFunctions)")
        #expect(header.inlineFunctions.sorted() == ["tabd_candidate_has_field_at", "tabd_host_has_function_at"], "\(header.inlineFunctions)")
        let docs = try String(contentsOf: Build.packageRoot.appendingPathComponent("docs/plugins.md"), encoding: .utf8)
        let sdk = try Self.sdkSources()
        var documented: [String: String] = [:]
        for row in try Self.table("| function | since | what it does | in Swift |", in: docs) {
            #expect(row.count == 4 && !row[3].isEmpty, "a row without its Swift: \(row)")
            for name in Self.codeNames(row[0]) { documented[name] = row[1] }
            // What the Swift column names is the SDK's: each member after a dot, each type.
            let spans = row[3].matches(of: #/`([^`]+)`/#).map { String($0.output.1) }
            for span in spans {
                for m in span.matches(of: #/\.([a-z][A-Za-z]*)/#) where m.output.1 != "field" {
                    #expect(Self.sdkDeclares(String(m.output.1), in: sdk), "plugins.md's Swift for \(row[0]) names \(m.output.1), which the SDK does not declare")
                }
                for m in span.matches(of: #/\b([A-Z][a-z][A-Za-z]*)\b/#) {
                    #expect(Self.sdkDeclares(String(m.output.1), in: sdk), "plugins.md's Swift for \(row[0]) names \(m.output.1), which the SDK does not declare")
                }
            }
        }
        for (function, minor) in header.hostFunctions {
            #expect(documented[function] == "1.\(minor)", "plugins.md's host functions table: \(function) (since 1.\(minor)) is \(documented[function].map { "there as \($0)" } ?? "missing")")
        }
        for function in header.inlineFunctions {
            #expect(documented[function] == "header", "plugins.md's host functions table: \(function) is \(documented[function].map { "there as \($0)" } ?? "missing")")
        }
        let known = Set(header.hostFunctions.map(\.name) + header.inlineFunctions)
        for name in documented.keys { #expect(known.contains(name), "plugins.md's host functions table names \(name), which policy.h does not have") }
    }
}
