// tabd's configuration: one commented YAML file (see tabd.example.yaml). Command-line
// flags override the file; the file overrides the defaults below.

import Foundation
import Logging
import TabCore
import TabPlugins
import TabProtocol
import Yams


public struct ServerConfig: Sendable {
    public struct ControllerSpec: Sendable, Equatable {
        public var name: String
        public var idiom: Idiom
        public var maxVisible: Int?
        /// Which taps pop a tab's stack (R4.3); applies when tabd creates the controller.
        public var tapPops: TapPops = .always
    }

    public var socketPath = "/run/tabd/tabd.sock"
    public var socketMode: mode_t = 0o660
    public var socketGroup: String?
    public var stateDir = "/var/lib/tabd"
    public var fsync: FsyncPolicy = .everysec
    /// Journal size that triggers compaction into a snapshot.
    public var compactBytes = 64 << 20
    public var maxLineBytes = 1 << 20
    public var maxOutputBytes = 8 << 20
    /// nil: as many as the open file limit allows (see `Daemon`).
    public var maxConnections: Int?
    /// What all connections together may hold in unfinished input and unsent output.
    public var memoryBudgetBytes = 256 << 20
    /// Seconds a request line may take from its first byte to its newline.
    public var lineTimeout = 10.0
    /// Seconds a client may leave more than `maxOutputBytes` unread before it is dropped.
    public var outputTimeout = 5.0
    /// What one controller may hold (tabs, id and text lengths, stack depth).
    public var controllerLimits = ControllerLimits()
    /// Controllers tabd holds at most (`controller.create` past it: out_of_range).
    public var maxControllers = 10_000
    public var maxJSONDepth = 64
    /// Peers allowed to run admin commands, besides root.
    public var adminUIDs: [uid_t] = []
    public var adminGIDs: [gid_t] = []
    /// Controllers created at start if they do not exist yet (`main` always exists).
    public var controllers: [ControllerSpec] = []
    public var pluginDirectories: [String] = []
    public var plugins: [PluginSpec] = []
    public var logLevel = "info"
    /// The file this came from, re-read on reload.
    public var path: String?

    public init() {}

    /// What each number may be. Values outside are a `ConfigError` naming the key and the
    /// range, at start and at reload alike (docs/operations.md lists them).
    public enum Limits {
        /// uid_t and gid_t, without (uid_t)-1 (4294967295), which means "no id" to the kernel.
        public static let id: ClosedRange<Int> = 0...4_294_967_294
        /// A socket's permission bits (octal 0000 to 0777).
        public static let socketMode: ClosedRange<Int> = 0...0o777
        public static let maxLineBytes: ClosedRange<Int> = 1024...(1 << 30)            // 1 KiB … 1 GiB
        public static let maxOutputBytes: ClosedRange<Int> = 4096...(1 << 32)          // 4 KiB … 4 GiB
        public static let maxConnections: ClosedRange<Int> = 1...1_048_576             // Linux's default fs.nr_open
        public static let maxJSONDepth: ClosedRange<Int> = 4...1024                    // set_tabs with items needs 4
        public static let compactBytes: ClosedRange<Int> = 4096...(1 << 36)            // 4 KiB … 64 GiB
        public static let memoryBudgetBytes: ClosedRange<Int> = (1 << 20)...(1 << 40)  // 1 MiB … 1 TiB
        public static let seconds: ClosedRange<Double> = 0.01...86_400                  // 10 ms … a day
        public static let maxTabs: ClosedRange<Int> = 1...1_000_000
        public static let maxIDBytes: ClosedRange<Int> = 1...65_536
        public static let maxTextBytes: ClosedRange<Int> = 1...(1 << 20)
        public static let maxStackDepth: ClosedRange<Int> = 1...100_000
        public static let maxControllers: ClosedRange<Int> = 1...1_000_000
        /// Tabs on the bar (More included); TabCore's bounds for controller.create.
        public static func maxVisible(_ idiom: Idiom) -> ClosedRange<Int> { (idiom == .tv ? 1 : 2)...1000 }
    }

    /// Reads a YAML file over the defaults.
    public static func load(path: String) throws -> ServerConfig {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError("cannot read config file \(path): \(error.localizedDescription)")
        }
        var config: ServerConfig
        do {
            config = try parse(text, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        } catch let error as ConfigError {
            throw ConfigError("in \(path), \(error.description)")
        }
        config.path = path
        return config
    }

    /// Parses YAML text. Relative paths in it are taken relative to `baseDirectory`.
    public static func parse(_ text: String, baseDirectory: String = FileManager.default.currentDirectoryPath) throws -> ServerConfig {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigError("the config is not valid YAML: \(yamlProblem(error))")
        }
        var c = ServerConfig()
        guard let root else { return c }
        var r = try Section(root, path: "")
        func resolve(_ p: String) -> String {
            p.hasPrefix("/") ? p : ((baseDirectory as NSString).appendingPathComponent(p) as NSString).standardizingPath
        }

        if let s = try r.string("socket") { c.socketPath = resolve(s) }
        if let s = try r.scalar("socket_mode", expected: "an octal mode from \"0000\" to \"0777\", like \"0660\"") {
            guard let m = Int(s, radix: 8), Limits.socketMode.contains(m) else {
                throw ConfigError("socket_mode must be an octal mode from \"0000\" to \"0777\", like \"0660\" (got \(Section.shown(s)))")
            }
            c.socketMode = mode_t(m)
        }
        c.socketGroup = try r.string("socket_group")
        if let s = try r.string("state_dir") { c.stateDir = resolve(s) }
        if let s = try r.string("fsync") {
            guard let f = FsyncPolicy(rawValue: s) else { throw ConfigError("fsync must be always, everysec or no (got \(s))") }
            c.fsync = f
        }
        if let s = try r.string("log_level") {
            guard Logger.Level(rawValue: s) != nil else {
                throw ConfigError("log_level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")) (got \(Section.shown(s)))")
            }
            c.logLevel = s
        }
        if let limits = try r.section("limits") {
            var l = limits
            if let v = try l.int("max_line_bytes", in: Limits.maxLineBytes) { c.maxLineBytes = v }
            if let v = try l.int("max_output_bytes", in: Limits.maxOutputBytes) { c.maxOutputBytes = v }
            if let v = try l.int("max_connections", in: Limits.maxConnections) { c.maxConnections = v }
            if let v = try l.int("max_json_depth", in: Limits.maxJSONDepth) { c.maxJSONDepth = v }
            if let v = try l.int("compact_bytes", in: Limits.compactBytes) { c.compactBytes = v }
            if let v = try l.int("memory_budget_bytes", in: Limits.memoryBudgetBytes) { c.memoryBudgetBytes = v }
            if let v = try l.seconds("line_timeout_seconds", in: Limits.seconds) { c.lineTimeout = v }
            if let v = try l.seconds("output_timeout_seconds", in: Limits.seconds) { c.outputTimeout = v }
            if let v = try l.int("max_tabs", in: Limits.maxTabs) { c.controllerLimits.maxTabs = v }
            if let v = try l.int("max_id_bytes", in: Limits.maxIDBytes) { c.controllerLimits.maxIDBytes = v }
            if let v = try l.int("max_text_bytes", in: Limits.maxTextBytes) { c.controllerLimits.maxTextBytes = v }
            if let v = try l.int("max_stack_depth", in: Limits.maxStackDepth) { c.controllerLimits.maxStackDepth = v }
            if let v = try l.int("max_controllers", in: Limits.maxControllers) { c.maxControllers = v }
            try l.finish()
        }
        if let access = try r.section("access") {
            var a = access
            c.adminUIDs = try a.ints("admin_uids", in: Limits.id, noun: "uid").map { uid_t($0) }
            c.adminGIDs = try a.ints("admin_gids", in: Limits.id, noun: "gid").map { gid_t($0) }
            try a.finish()
        }
        for (i, node) in try r.list("controllers").enumerated() {
            var s = try Section(node, path: "controllers[\(i)].")
            guard let name = try s.string("name") else { throw ConfigError("controllers[\(i)] needs a name") }
            let idiomName = try s.string("idiom") ?? "phone"
            guard let idiom = Idiom(rawValue: idiomName) else { throw ConfigError("controllers[\(i)].idiom must be phone, pad or tv (got \(Section.shown(idiomName)))") }
            let maxVisible = try s.int("max_visible", in: Limits.maxVisible(idiom), forIdiom: idiom)
            let tapPopsName = try s.string("tap_pops") ?? TapPops.always.rawValue
            guard let tapPops = TapPops(rawValue: tapPopsName) else {
                throw ConfigError("controllers[\(i)].tap_pops must be always or reselect (got \(Section.shown(tapPopsName)))")
            }
            c.controllers.append(ControllerSpec(name: name, idiom: idiom, maxVisible: maxVisible, tapPops: tapPops))
            try s.finish()
        }
        if let plugins = try r.section("plugins") {
            var p = plugins
            c.pluginDirectories = try p.strings("directories").map(resolve)
            for (i, node) in try p.list("load").enumerated() {
                var s = try Section(node, path: "plugins.load[\(i)].")
                guard let file = try s.string("path") else { throw ConfigError("plugins.load[\(i)] needs a path") }
                let settings = try s.node("settings").map { try jsonText(of: $0, resolvingPathsIn: baseDirectory) } ?? "{}"
                c.plugins.append(PluginSpec(name: try s.string("name"), path: file.hasPrefix("/") || file.contains("/") ? resolve(file) : file,
                                            required: try s.bool("required") ?? false, configJSON: settings))
                try s.finish()
            }
            try p.finish()
        }
        try r.finish()
        return c
    }

    /// A YAML error on one line: the problem and where (Yams' own text quotes the source
    /// over several lines).
    private static func yamlProblem(_ error: Error) -> String {
        switch error as? YamlError {
        case .scanner(let context, let problem, let mark, _)?, .parser(let context, let problem, let mark, _)?,
             .composer(let context, let problem, let mark, _)?:
            return "\(problem) at line \(mark.line), column \(mark.column)\(context.map { " (\($0.text) from line \($0.mark.line))" } ?? "")"
        default:
            return "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
        }
    }

    /// A plugin's settings as JSON text. String values that look like relative file paths
    /// (keys ending in `_file` or `_dir`) are resolved against the config's directory.
    static func jsonText(of node: Node, resolvingPathsIn base: String) throws -> String {
        var w = JSONWriter(capacity: 256)
        w.write(try jsonValue(node, key: nil, base: base))
        return String(decoding: w.bytes, as: UTF8.self)
    }

    private static func jsonValue(_ node: Node, key: String?, base: String) throws -> JSONValue {
        switch node {
        case .scalar(let s):
            if s.style == .plain {
                if s.string == "null" || s.string == "~" || s.string.isEmpty { return .null }
                if s.string == "true" { return .bool(true) }
                if s.string == "false" { return .bool(false) }
                if let i = Int64(s.string) { return .int(i) }
                if let d = Double(s.string), d.isFinite { return .double(d) }
            }
            if let key, key.hasSuffix("_file") || key.hasSuffix("_dir"), !s.string.hasPrefix("/") {
                return .string(((base as NSString).appendingPathComponent(s.string) as NSString).standardizingPath)
            }
            return .string(s.string)
        case .sequence(let seq):
            return .array(try seq.map { try jsonValue($0, key: nil, base: base) })
        case .mapping(let map):
            var o = JSONObject([])
            for (k, v) in map {
                guard case .scalar(let ks) = k else { throw ConfigError("plugin settings keys must be strings") }
                o.set(ks.string, try jsonValue(v, key: ks.string, base: base))
            }
            return .object(o)
        }
    }
}

public struct ConfigError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Strict reading of one YAML mapping: unknown keys are errors (a typo must not be ignored).
private struct Section {
    let map: Node.Mapping
    let path: String
    var used: Set<String> = []

    init(_ node: Node, path: String) throws {
        guard case .mapping(let m) = node else { throw ConfigError("\(path.isEmpty ? "the config" : String(path.dropLast())) must be a mapping") }
        map = m
        self.path = path
    }

    mutating func node(_ key: String) throws -> Node? {
        used.insert(key)
        guard let n = map[key] else { return nil }
        if case .scalar(let s) = n, s.style == .plain, s.string == "null" || s.string == "~" || s.string.isEmpty { return nil }
        return n
    }

    mutating func string(_ key: String) throws -> String? {
        guard let n = try node(key) else { return nil }
        guard case .scalar(let s) = n else { throw ConfigError("\(path)\(key) must be a string") }
        return s.string
    }

    /// A scalar's text; a list or a mapping is an error saying what was `expected`.
    mutating func scalar(_ key: String, expected: String) throws -> String? {
        guard let n = try node(key) else { return nil }
        guard case .scalar(let s) = n else { throw ConfigError("\(path)\(key) must be \(expected) (got \(Self.shown(n)))") }
        return s.string
    }

    /// An integer within `range`. Anything else — not a number, a list, a number outside the
    /// range or beyond Int — is one sentence naming the key and the range.
    mutating func int(_ key: String, in range: ClosedRange<Int>, forIdiom idiom: Idiom? = nil) throws -> Int? {
        let expected = "an integer from \(range.lowerBound) to \(range.upperBound)\(idiom.map { " for the \($0.rawValue) idiom" } ?? "")"
        guard let s = try scalar(key, expected: expected) else { return nil }
        guard let i = Self.integer(s), range.contains(i) else { throw ConfigError("\(path)\(key) must be \(expected) (got \(Self.shown(s)))") }
        return i
    }

    /// A number of seconds within `range` (decimals allowed: 0.5).
    mutating func seconds(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        let expected = "a number of seconds from \(range.lowerBound.formatted) to \(range.upperBound.formatted)"
        guard let s = try scalar(key, expected: expected) else { return nil }
        guard let v = Double(s.replacingOccurrences(of: "_", with: "")), range.contains(v) else {
            throw ConfigError("\(path)\(key) must be \(expected) (got \(Self.shown(s)))")
        }
        return v
    }

    mutating func bool(_ key: String) throws -> Bool? {
        guard let s = try string(key) else { return nil }
        switch s {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw ConfigError("\(path)\(key) must be true or false (got \(s))")
        }
    }

    mutating func list(_ key: String) throws -> [Node] {
        guard let n = try node(key) else { return [] }
        guard case .sequence(let seq) = n else { throw ConfigError("\(path)\(key) must be a list") }
        return Array(seq)
    }

    mutating func strings(_ key: String) throws -> [String] {
        try list(key).map {
            guard case .scalar(let s) = $0 else { throw ConfigError("\(path)\(key) must be a list of strings") }
            return s.string
        }
    }

    /// A list of integers within `range`, each a `noun` ("uid"): an element that is not is
    /// named by its index (`access.admin_uids[0]`).
    mutating func ints(_ key: String, in range: ClosedRange<Int>, noun: String) throws -> [Int] {
        let expected = "a \(noun) from \(range.lowerBound) to \(range.upperBound)"
        guard let n = try node(key) else { return [] }
        guard case .sequence(let seq) = n else {
            throw ConfigError("\(path)\(key) must be a list of \(noun)s from \(range.lowerBound) to \(range.upperBound), like [1000] (got \(Self.shown(n)))")
        }
        return try seq.enumerated().map { i, element in
            guard case .scalar(let s) = element, let v = Self.integer(s.string), range.contains(v) else {
                throw ConfigError("\(path)\(key)[\(i)] must be \(expected) (got \(Self.shown(element)))")
            }
            return v
        }
    }

    /// A YAML integer as written in a config: decimal, "_" allowed between digits.
    static func integer(_ s: String) -> Int? {
        Int(s.replacingOccurrences(of: "_", with: ""))
    }

    /// A value as an error message shows it: a scalar's text (cut when long), else its kind.
    static func shown(_ node: Node) -> String {
        switch node {
        case .scalar(let s): return shown(s.string)
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }

    static func shown(_ s: String) -> String {
        if s.isEmpty { return "nothing" }
        let line = s.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? s
        return line.count > 40 || line != s ? String(line.prefix(40)) + "…" : s
    }

    mutating func section(_ key: String) throws -> Section? {
        guard let n = try node(key) else { return nil }
        return try Section(n, path: "\(path)\(key).")
    }

    func finish() throws {
        for (k, _) in map {
            guard case .scalar(let s) = k else { continue }
            if !used.contains(s.string) { throw ConfigError("unknown setting '\(path)\(s.string)'") }
        }
    }
}

extension Double {
    /// Seconds as a config file and a message write them — 0.01, 10, 86400: no trailing ".0".
    var formatted: String { self == rounded() ? String(Int(self)) : String(self) }
}
