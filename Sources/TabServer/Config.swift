// tabd's configuration: one commented YAML file (see tabd.example.yaml). Command-line
// flags override the file; the file overrides the defaults below.

import Foundation
import Logging
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import TabSystem
import Yams
import TabState


public struct ServerConfig: Sendable {
    /// A controller the configuration names: created when it does not exist.
    public struct ControllerSpec: Sendable, Equatable {
        public var name: String
        /// The tab controller's configuration (`controller.create`'s).
        public var options: TabBarOptions
        public var idiom: Idiom { options.idiom }
        public var maxVisible: Int? { options.maxVisible }
        public var tapPops: TapPops { options.tapPops }
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
    /// Connections one uid may hold (nil: half of the connections tabd serves; see `Daemon`).
    public var maxConnectionsPerUID: Int?
    /// Connection slots kept for root and admins (nil: a tenth of them, at most 10).
    public var adminReservedConnections: Int?
    /// Seconds a connection may neither send nor subscribe before it is closed.
    public var idleTimeout = 300.0
    /// What one controller may hold (tabs, id and text lengths, stack depth).
    public var controllerLimits = ControllerLimits()
    /// Controllers tabd holds at most (`controller.create` past it: out_of_range).
    public var maxControllers = 10_000
    /// Tabs all controllers hold together (`set_tabs`, `add_tab` past it: out_of_range).
    public var maxTotalTabs = 100_000
    public var maxJSONDepth = 64
    /// Peers allowed to run admin commands, besides root.
    public var adminUIDs: [uid_t] = []
    public var adminGIDs: [gid_t] = []
    /// Controllers created at start if they do not exist yet (`main` always exists).
    public var controllers: [ControllerSpec] = []
    public var pluginDirectories: [String] = []
    public var plugins: [PluginSpec] = []
    /// An in-process hook slower than this is logged (warning, with plugin, hook and time).
    public var slowHookMilliseconds = 10
    /// A non-required plugin that was in a hook when tabd died this many starts in a row is
    /// not loaded again until its file changes or an operator clears it.
    public var quarantineAfter = 3
    /// What tabd says of a plugin's behaviour (a cap passed, output refused) is said once per
    /// this many seconds per plugin and kind, then with how many more times it happened.
    public var warningPeriod = PluginWarnings.defaultPeriod
    /// What each plugin may write to its store over time (bytes per second, after a burst).
    public var storeBudget = PluginStoreBudget()
    /// Decision records `explain` keeps of each kind group (taps; orientations; timers).
    public var explainHistory = PluginHost.explainCapacity
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
        public static let adminReservedConnections: ClosedRange<Int> = 0...1_048_575
        public static let maxJSONDepth: ClosedRange<Int> = 4...1024                    // set_tabs with items needs 4
        public static let compactBytes: ClosedRange<Int> = 4096...(1 << 36)            // 4 KiB … 64 GiB
        public static let memoryBudgetBytes: ClosedRange<Int> = (1 << 20)...(1 << 40)  // 1 MiB … 1 TiB
        public static let seconds: ClosedRange<Double> = 0.01...86_400                  // 10 ms … a day
        public static let maxTabs: ClosedRange<Int> = 1...1_000_000
        public static let maxIDBytes: ClosedRange<Int> = 1...65_536
        public static let maxTextBytes: ClosedRange<Int> = 1...(1 << 20)
        public static let maxStackDepth: ClosedRange<Int> = 1...100_000
        public static let maxControllers: ClosedRange<Int> = 1...1_000_000
        public static let maxTotalTabs: ClosedRange<Int> = 1...100_000_000
        /// An isolated plugin's hook deadline: 1 ms … 60 s.
        public static let deadlineMilliseconds: ClosedRange<Int> = 1...60_000
        public static let slowHookMilliseconds: ClosedRange<Int> = 1...60_000
        public static let quarantineAfter: ClosedRange<Int> = 1...1000
        public static let storeBytesPerSecond: ClosedRange<Int> = 1...(1 << 30)
        /// `explain`'s records per kind group: at most a few MB in all.
        public static let explainHistory: ClosedRange<Int> = 1...10_000
        /// At least one write of the largest key and value (PluginStoreBudget.leastBurstBytes).
        public static let storeBurstBytes: ClosedRange<Int> = PluginStoreBudget.leastBurstBytes...(1 << 32)
        /// The most tabd reads of its configuration file: far beyond any real one.
        public static let configFileBytes = 1 << 20
        /// The most YAML nodes a configuration may hold, its aliases expanded.
        public static let yamlNodes = 100_000
        /// The deepest a configuration may nest (YAMLDepth counts it over libyaml's events):
        /// a plugin's settings as deep as the largest max_json_depth, under the four levels
        /// that lead to them, with room to spare.
        public static let yamlDepth = maxJSONDepth.upperBound + 16
        /// Tabs on the bar (More included); TabCore's bounds for controller.create.
        public static func maxVisible(_ idiom: Idiom) -> ClosedRange<Int> { TabBarOptions.maxVisibleRange(idiom) }
    }

    /// Where each plugin spec was configured (`plugins.load[i]`), for messages about it.
    public var pluginLocations: [ConfigLocation] = []
    /// Where each setting given in the file is (`state_dir`, `limits.max_tabs`, …): what is
    /// checked after reading (the state directory, the socket's) names its line too.
    public var keyLocations: [String: ConfigLocation] = [:]

    /// Where `key` is in the file; the file alone when the key is not in it (a default or a flag).
    public func location(of key: String) -> ConfigLocation {
        keyLocations[key] ?? ConfigLocation(file: path)
    }

    /// Every key the parser reads, as tabd.yaml(5) names them (`plugins.load[].path`): read
    /// from the parser itself, by parsing a file with every section present.
    public static let keys: [String] = {
        let problems = ConfigProblems(file: nil)
        _ = try? parse("limits: {}\naccess: {}\ncontrollers: [{}]\nplugins: {load: [{}]}\n", recording: problems)
        return problems.keys.sorted()
    }()

    /// What the command line set (`--socket`, `--state-dir`, `--fsync`, `--log-level`): it
    /// wins over the file, at start and at every reload.
    public struct Overrides: Sendable {
        public var socketPath: String?
        public var stateDir: String?
        public var fsync: FsyncPolicy?
        public var logLevel: String?
        public init() {}
    }
    public var overrides = Overrides() {
        didSet { applyOverrides() }
    }

    private mutating func applyOverrides() {
        if let v = overrides.socketPath { socketPath = v }
        if let v = overrides.stateDir { stateDir = v }
        if let v = overrides.fsync { fsync = v }
        if let v = overrides.logLevel { logLevel = v }
    }

    /// Settings a reload applies, by key, each with its value as text for comparison.
    static let reloadable: [(key: String, value: @Sendable (ServerConfig) -> String)] = [
        ("access.admin_uids", { "\($0.adminUIDs)" }), ("access.admin_gids", { "\($0.adminGIDs)" }),
        ("controllers", { "\($0.controllers)" }),
        ("limits.max_json_depth", { "\($0.maxJSONDepth)" }), ("limits.max_tabs", { "\($0.controllerLimits.maxTabs)" }),
        ("limits.max_id_bytes", { "\($0.controllerLimits.maxIDBytes)" }), ("limits.max_text_bytes", { "\($0.controllerLimits.maxTextBytes)" }),
        ("limits.max_stack_depth", { "\($0.controllerLimits.maxStackDepth)" }), ("limits.max_controllers", { "\($0.maxControllers)" }),
        ("limits.max_total_tabs", { "\($0.maxTotalTabs)" }),
        ("plugins.directories", { "\($0.pluginDirectories)" }), ("plugins.load", { "\($0.plugins)" }),
        ("plugins.slow_hook_ms", { "\($0.slowHookMilliseconds)" }),
        ("plugins.warning_period_seconds", { "\($0.warningPeriod)" }),
        ("plugins.store_bytes_per_second", { "\($0.storeBudget.bytesPerSecond)" }),
        ("plugins.store_burst_bytes", { "\($0.storeBudget.burstBytes)" }),
        ("plugins.explain_history", { "\($0.explainHistory)" }),
    ]

    /// Settings only a restart applies (the socket, the state directory, the transport's
    /// limits, logging): a reload keeps their running values and says so.
    static let restartOnly: [(key: String, value: @Sendable (ServerConfig) -> String)] = [
        ("socket", { $0.socketPath }), ("socket_mode", { String($0.socketMode, radix: 8) }), ("socket_group", { $0.socketGroup ?? "" }),
        ("state_dir", { $0.stateDir }), ("fsync", { $0.fsync.rawValue }), ("log_level", { $0.logLevel }),
        ("limits.compact_bytes", { "\($0.compactBytes)" }), ("limits.max_line_bytes", { "\($0.maxLineBytes)" }),
        ("limits.max_output_bytes", { "\($0.maxOutputBytes)" }), ("limits.output_timeout_seconds", { "\($0.outputTimeout)" }),
        ("limits.memory_budget_bytes", { "\($0.memoryBudgetBytes)" }), ("limits.line_timeout_seconds", { "\($0.lineTimeout)" }),
        ("limits.max_connections", { "\($0.maxConnections.map(String.init) ?? "")" }),
        ("limits.max_connections_per_uid", { "\($0.maxConnectionsPerUID.map(String.init) ?? "")" }),
        ("limits.admin_reserved_connections", { "\($0.adminReservedConnections.map(String.init) ?? "")" }),
        ("limits.idle_timeout_seconds", { "\($0.idleTimeout)" }),
        ("plugins.quarantine_after", { "\($0.quarantineAfter)" }),
    ]

    /// The keys whose values differ in `next`: those a reload applies, and those that need
    /// a restart.
    public func differences(to next: ServerConfig) -> (applied: [String], restartRequired: [String]) {
        (Self.reloadable.filter { $0.value(self) != $0.value(next) }.map(\.key),
         Self.restartOnly.filter { $0.value(self) != $0.value(next) }.map(\.key))
    }

    /// Where plugin spec `index` was configured (the file alone when not known).
    public func pluginLocation(_ index: Int) -> ConfigLocation {
        pluginLocations.indices.contains(index) ? pluginLocations[index] : ConfigLocation(file: path)
    }

    /// The problems a plugin set's refused required plugins make, each at its `plugins.load`
    /// entry (start, reload and --check-config say the same).
    public func problems(requiredFailures failures: [PluginProblem]) -> [ConfigProblem] {
        failures.map { ConfigProblem(pluginLocation($0.index), "required plugin '\($0.plugin)' (\($0.path)) cannot run: \($0.message)") }
    }

    /// Reads a YAML file over the defaults. Throws a `ConfigError` listing every problem,
    /// each with the file, line and column.
    public static func load(path: String) throws -> ServerConfig {
        let text: String
        do throws(RegularFileRefusal) {
            // Non-blocking and checked on its descriptor: a FIFO put in its place cannot hold
            // the loop at a reload, nor a huge file its memory.
            let bytes = try RegularFile.read(path, what: "the configuration file", limit: Limits.configFileBytes)
            guard let utf8 = String(validating: bytes, as: UTF8.self) else {
                throw RegularFileRefusal("cannot read the configuration file: it is not UTF-8 text")
            }
            text = utf8
        } catch {
            throw ConfigError([ConfigProblem(ConfigLocation(file: path), error.description)])
        }
        var config = try parse(text, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path, file: path)
        config.path = path
        return config
    }

    /// Parses YAML text. Relative paths in it are taken relative to `baseDirectory`; `file`
    /// names the text in messages.
    public static func parse(_ text: String, baseDirectory: String = FileManager.default.currentDirectoryPath, file: String? = nil) throws -> ServerConfig {
        try parse(text, baseDirectory: baseDirectory, recording: ConfigProblems(file: file))
    }

    static func parse(_ text: String, baseDirectory: String = FileManager.default.currentDirectoryPath, recording problems: ConfigProblems) throws -> ServerConfig {
        let file = problems.file
        let root: Node?
        if let (line, column) = YAMLDepth.tooDeep(text) {
            throw ConfigError([ConfigProblem(ConfigLocation(file: file, line: line, column: column),
                                             "the configuration nests more than \(Limits.yamlDepth) levels deep; tabd reads no deeper (its YAML reader would run out of stack): flatten the settings")])
        }
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            let (message, mark) = yamlProblem(error)
            throw ConfigError([ConfigProblem(ConfigLocation(file: file, mark: mark), "the configuration is not valid YAML: \(message)")])
        }
        var c = ServerConfig()
        guard let root else { return c }
        if let mark = overNodeLimit(root) {
            throw ConfigError([ConfigProblem(ConfigLocation(file: file, mark: mark), "the configuration has more than \(Limits.yamlNodes) YAML nodes once its aliases are expanded; tabd reads no more (an alias bomb?): write the settings out instead of nesting aliases")])
        }
        defer { withExtendedLifetime(problems) {} }
        guard var r = Section(root, path: "", problems: problems) else { throw ConfigError(problems.list) }
        func resolve(_ p: String) -> String {
            p.hasPrefix("/") ? p : ((baseDirectory as NSString).appendingPathComponent(p) as NSString).standardizingPath
        }

        if let s = r.string("socket") { c.socketPath = resolve(s) }
        if let s = r.scalar("socket_mode", expected: "an octal mode from \"0000\" to \"0777\", like \"0660\"") {
            if let m = Int(s, radix: 8), Limits.socketMode.contains(m) {
                c.socketMode = mode_t(m)
            } else {
                r.problem("socket_mode", "socket_mode must be an octal mode from \"0000\" to \"0777\", like \"0660\" (got \(Section.shown(s)))")
            }
        }
        c.socketGroup = r.string("socket_group")
        if let s = r.string("state_dir") { c.stateDir = resolve(s) }
        if let s = r.string("fsync") {
            if let f = FsyncPolicy(rawValue: s) { c.fsync = f } else { r.problem("fsync", "fsync must be always, everysec or no (got \(Section.shown(s)))") }
        }
        if let s = r.string("log_level") {
            if Logger.Level(rawValue: s) != nil {
                c.logLevel = s
            } else {
                r.problem("log_level", "log_level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")) (got \(Section.shown(s)))")
            }
        }
        if var l = r.section("limits") {
            if let v = l.int("max_line_bytes", in: Limits.maxLineBytes) { c.maxLineBytes = v }
            if let v = l.int("max_output_bytes", in: Limits.maxOutputBytes) { c.maxOutputBytes = v }
            if let v = l.int("max_connections", in: Limits.maxConnections) { c.maxConnections = v }
            if let v = l.int("max_connections_per_uid", in: Limits.maxConnections) { c.maxConnectionsPerUID = v }
            if let v = l.int("admin_reserved_connections", in: Limits.adminReservedConnections) { c.adminReservedConnections = v }
            if let v = l.seconds("idle_timeout_seconds", in: Limits.seconds) { c.idleTimeout = v }
            if let v = l.int("max_json_depth", in: Limits.maxJSONDepth) { c.maxJSONDepth = v }
            if let v = l.int("compact_bytes", in: Limits.compactBytes) { c.compactBytes = v }
            if let v = l.int("memory_budget_bytes", in: Limits.memoryBudgetBytes) { c.memoryBudgetBytes = v }
            if let v = l.seconds("line_timeout_seconds", in: Limits.seconds) { c.lineTimeout = v }
            if let v = l.seconds("output_timeout_seconds", in: Limits.seconds) { c.outputTimeout = v }
            if let v = l.int("max_tabs", in: Limits.maxTabs) { c.controllerLimits.maxTabs = v }
            if let v = l.int("max_id_bytes", in: Limits.maxIDBytes) { c.controllerLimits.maxIDBytes = v }
            if let v = l.int("max_text_bytes", in: Limits.maxTextBytes) { c.controllerLimits.maxTextBytes = v }
            if let v = l.int("max_stack_depth", in: Limits.maxStackDepth) { c.controllerLimits.maxStackDepth = v }
            if let v = l.int("max_controllers", in: Limits.maxControllers) { c.maxControllers = v }
            if let v = l.int("max_total_tabs", in: Limits.maxTotalTabs) { c.maxTotalTabs = v }
            l.finish()
        }
        if var a = r.section("access") {
            c.adminUIDs = a.ints("admin_uids", in: Limits.id, noun: "uid").map { uid_t($0) }
            c.adminGIDs = a.ints("admin_gids", in: Limits.id, noun: "gid").map { gid_t($0) }
            a.finish()
        }
        for (i, node) in r.list("controllers").enumerated() {
            guard var s = Section(node, path: "controllers[\(i)].", problems: problems) else { continue }
            let idiomName = s.string("idiom") ?? "phone"
            let idiom = Idiom(rawValue: idiomName)
            if idiom == nil { s.problem("idiom", "controllers[\(i)].idiom must be phone, pad or tv (got \(Section.shown(idiomName)))") }
            let maxVisible = idiom.flatMap { s.int("max_visible", in: Limits.maxVisible($0), forIdiom: $0) }
            let tapPopsName = s.string("tap_pops") ?? TapPops.always.rawValue
            let tapPops = TapPops(rawValue: tapPopsName)
            if tapPops == nil { s.problem("tap_pops", "controllers[\(i)].tap_pops must be always or reselect (got \(Section.shown(tapPopsName)))") }
            let name = s.string("name")
            if name == nil { s.problem(nil, "controllers[\(i)] needs a name") }
            if idiom == nil { _ = s.node("max_visible") }
            s.finish()
            if let name, let idiom, let tapPops {
                c.controllers.append(ControllerSpec(name: name, options: TabBarOptions(idiom: idiom, maxVisible: maxVisible, tapPops: tapPops)))
            }
        }
        if var p = r.section("plugins") {
            c.pluginDirectories = p.strings("directories").map(resolve)
            if let v = p.int("slow_hook_ms", in: Limits.slowHookMilliseconds) { c.slowHookMilliseconds = v }
            if let v = p.int("quarantine_after", in: Limits.quarantineAfter) { c.quarantineAfter = v }
            if let v = p.seconds("warning_period_seconds", in: Limits.seconds) { c.warningPeriod = v }
            if let v = p.int("store_bytes_per_second", in: Limits.storeBytesPerSecond) { c.storeBudget.bytesPerSecond = v }
            if let v = p.int("store_burst_bytes", in: Limits.storeBurstBytes) { c.storeBudget.burstBytes = v }
            if let v = p.int("explain_history", in: Limits.explainHistory) { c.explainHistory = v }
            for (i, node) in p.list("load").enumerated() {
                guard var s = Section(node, path: "plugins.load[\(i)].", problems: problems) else { continue }
                let file = s.string("path")
                if file == nil { s.problem(nil, "plugins.load[\(i)] needs a path: the plugin's file name in plugins.directories") }
                var settings = "{}"
                if let node = s.node("settings") {
                    do { settings = try jsonText(of: node, resolvingPathsIn: baseDirectory) } catch {
                        s.problem("settings", "plugins.load[\(i)].settings: \(error)")
                    }
                }
                let name = s.string("name"), required = s.bool("required") ?? false
                var isolation = PluginIsolation.none
                if let v = s.string("isolation") {
                    if let i = PluginIsolation(rawValue: v) { isolation = i } else {
                        s.problem("isolation", "plugins.load[\(i)].isolation must be none or process (got \(Section.shown(v)))")
                    }
                }
                let deadline = s.int("deadline_ms", in: Limits.deadlineMilliseconds)
                let user = s.string("user")
                if isolation == .none {
                    if deadline != nil { s.problem("deadline_ms", "plugins.load[\(i)].deadline_ms applies only to isolated plugins; add isolation: process or remove deadline_ms") }
                    if user != nil { s.problem("user", "plugins.load[\(i)].user applies only to isolated plugins; add isolation: process or remove user") }
                }
                s.finish()
                if let file {
                    c.plugins.append(PluginSpec(name: name, path: file.hasPrefix("/") || file.contains("/") ? resolve(file) : file,
                                                required: required, configJSON: settings, isolation: isolation,
                                                deadlineMilliseconds: deadline ?? 50, user: user))
                    c.pluginLocations.append(ConfigLocation(file: problems.file, mark: node.mark))
                }
            }
            p.finish()
        }
        r.finish()
        c.keyLocations = problems.locations
        if !problems.list.isEmpty {
            // In file order, as the file is read.
            let ordered = problems.list.enumerated().sorted { a, b in
                let la = (a.element.location.line ?? 0, a.element.location.column ?? 0), lb = (b.element.location.line ?? 0, b.element.location.column ?? 0)
                return la != lb ? la < lb : a.offset < b.offset
            }
            throw ConfigError(ordered.map(\.element))
        }
        return c
    }

    /// Where the walk of `root`, aliases expanded (Yams composes an alias as its anchor's
    /// node again, shared, so a few lines can stand for billions of nodes), passes
    /// `Limits.yamlNodes`; nil when the whole tree stays within it. The walk stops there: it
    /// costs at most that many steps, whatever the file.
    static func overNodeLimit(_ root: Node) -> Mark? {
        var budget = Limits.yamlNodes
        var stack: [Node] = [root]
        while let node = stack.popLast() {
            budget -= 1
            if budget < 0 { return node.mark }
            switch node {
            case .scalar: break
            case .sequence(let seq): stack.append(contentsOf: seq)
            case .mapping(let map):
                for (key, value) in map { stack.append(key); stack.append(value) }
            }
        }
        return nil
    }

    /// A YAML error on one line, and where (Yams' own text quotes the source over several lines).
    private static func yamlProblem(_ error: Error) -> (String, Mark?) {
        switch error as? YamlError {
        case .scanner(let context, let problem, let mark, _)?, .parser(let context, let problem, let mark, _)?,
             .composer(let context, let problem, let mark, _)?:
            return ("\(problem)\(context.map { " (\($0.text) from line \($0.mark.line))" } ?? "")", mark)
        default:
            return ("\(error)".split(whereSeparator: \.isNewline).joined(separator: " "), nil)
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
                // Numbers by tabd's own rule: `1_000` is 1000 here as in tabd's keys.
                if let n = Section.ungrouped(s.string) {
                    if let i = Int64(n) { return .int(i) }
                    if let d = Double(n), d.isFinite { return .double(d) }
                }
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

/// Where in the configuration something is: the file, and the line and column of the
/// value (or key) when known.
public struct ConfigLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String?
    public var line: Int?
    public var column: Int?

    public init(file: String?, line: Int? = nil, column: Int? = nil) {
        self.file = file; self.line = line; self.column = column
    }

    init(file: String?, mark: Mark?) {
        self.init(file: file, line: mark?.line, column: mark?.column)
    }

    /// `file:line:column` as compilers write it (editors jump there); without a file,
    /// `line L, column C`; empty when nothing is known.
    public var description: String {
        if let file {
            return [file, line.map(String.init), column.map(String.init)].compactMap { $0 }.joined(separator: ":")
        }
        guard let line else { return "" }
        return "line \(line)" + (column.map { ", column \($0)" } ?? "")
    }
}

/// One thing wrong with a configuration: where, and one sentence naming the setting.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    public var location: ConfigLocation
    public var message: String

    /// A problem's message is one line: it may quote a key or value of the file, which may
    /// hold any character (found by fuzz/config).
    public init(_ location: ConfigLocation, _ message: String) { self.location = location; self.message = message.oneLine }

    public var description: String {
        let at = location.description
        return at.isEmpty ? message : "\(at): \(message)"
    }
}

/// A configuration tabd cannot use: every problem found, in file order.
public struct ConfigError: Error, CustomStringConvertible {
    public var problems: [ConfigProblem]

    public init(_ problems: [ConfigProblem]) { self.problems = problems }
    /// One problem without a place (a flag, a setting checked outside the file).
    public init(_ description: String) { self.problems = [ConfigProblem(ConfigLocation(file: nil), description)] }

    /// The problems on one line, separated by "; " (a reply, a log line).
    public var description: String { problems.map(\.description).joined(separator: "; ") }
}

/// The problems found while reading one file.
final class ConfigProblems {
    let file: String?
    var list: [ConfigProblem] = []
    /// Every key asked for, a list's index written `[]` (`plugins.load[].path`).
    var keys: Set<String> = []
    /// Where each key given in the file is, by its full name (`plugins.load[0].path`).
    var locations: [String: ConfigLocation] = [:]
    init(file: String?) { self.file = file }

    func add(_ node: Node?, _ message: String) {
        list.append(ConfigProblem(ConfigLocation(file: file, mark: node?.mark), message))
    }
}

/// Strict reading of one YAML mapping: unknown keys are problems (a typo must not be
/// ignored). A value that is not what its key needs is recorded as a problem, naming the
/// key, where it is and what is allowed, and read as absent, so reading goes on and every
/// problem of a file is reported at once.
private struct Section {
    let map: Node.Mapping
    let node: Node
    let path: String
    let problems: ConfigProblems
    var used: Set<String> = []

    /// nil (and a problem recorded) when `node` is not a mapping.
    init?(_ node: Node, path: String, problems: ConfigProblems) {
        guard case .mapping(let m) = node else {
            problems.add(node, "\(path.isEmpty ? "the configuration" : String(path.dropLast())) must be a mapping of settings (got \(Self.shown(node)))")
            return nil
        }
        map = m
        self.node = node
        self.path = path
        self.problems = problems
    }

    /// Records a problem at `key`'s value (the mapping itself when nil or absent).
    func problem(_ key: String?, _ message: String) {
        problems.add(key.flatMap { map[$0] } ?? node, message)
    }

    mutating func node(_ key: String) -> Node? {
        used.insert(key)
        problems.keys.insert((path + key).replacing(#/\[[0-9]+\]/#, with: "[]"))
        guard let n = map[key] else { return nil }
        problems.locations[path + key] = ConfigLocation(file: problems.file, mark: n.mark)
        if case .scalar(let s) = n, s.style == .plain, s.string == "null" || s.string == "~" || s.string.isEmpty { return nil }
        return n
    }

    mutating func string(_ key: String) -> String? {
        guard let n = node(key) else { return nil }
        guard case .scalar(let s) = n else {
            problems.add(n, "\(path)\(key) must be a string (got \(Self.shown(n)))")
            return nil
        }
        return s.string
    }

    /// A scalar's text; a list or a mapping is a problem saying what was `expected`.
    mutating func scalar(_ key: String, expected: String) -> String? {
        guard let n = node(key) else { return nil }
        guard case .scalar(let s) = n else {
            problems.add(n, "\(path)\(key) must be \(expected) (got \(Self.shown(n)))")
            return nil
        }
        return s.string
    }

    /// An integer within `range`. Anything else — not a number, a list, a number outside the
    /// range or beyond Int — is one sentence naming the key and the range.
    mutating func int(_ key: String, in range: ClosedRange<Int>, forIdiom idiom: Idiom? = nil) -> Int? {
        let expected = "an integer from \(range.lowerBound) to \(range.upperBound)\(idiom.map { " for the \($0.rawValue) idiom" } ?? "")"
        guard let s = scalar(key, expected: expected) else { return nil }
        guard let i = Self.integer(s), range.contains(i) else {
            problem(key, "\(path)\(key) must be \(expected) (got \(Self.shown(s)))")
            return nil
        }
        return i
    }

    /// A number of seconds within `range` (decimals allowed: 0.5).
    mutating func seconds(_ key: String, in range: ClosedRange<Double>) -> Double? {
        let expected = "a number of seconds from \(range.lowerBound.formatted) to \(range.upperBound.formatted)"
        guard let s = scalar(key, expected: expected) else { return nil }
        guard let v = Self.ungrouped(s).flatMap({ Double($0) }), range.contains(v) else {
            problem(key, "\(path)\(key) must be \(expected) (got \(Self.shown(s)))")
            return nil
        }
        return v
    }

    mutating func bool(_ key: String) -> Bool? {
        guard let s = string(key) else { return nil }
        switch s {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            problem(key, "\(path)\(key) must be true or false (got \(Self.shown(s)))")
            return nil
        }
    }

    mutating func list(_ key: String) -> [Node] {
        guard let n = node(key) else { return [] }
        guard case .sequence(let seq) = n else {
            problems.add(n, "\(path)\(key) must be a list (got \(Self.shown(n)))")
            return []
        }
        return Array(seq)
    }

    mutating func strings(_ key: String) -> [String] {
        list(key).enumerated().compactMap { i, element in
            guard case .scalar(let s) = element else {
                problems.add(element, "\(path)\(key)[\(i)] must be a string (got \(Self.shown(element)))")
                return nil
            }
            return s.string
        }
    }

    /// A list of integers within `range`, each a `noun` ("uid"): an element that is not is
    /// named by its index (`access.admin_uids[0]`).
    mutating func ints(_ key: String, in range: ClosedRange<Int>, noun: String) -> [Int] {
        let expected = "a \(noun) from \(range.lowerBound) to \(range.upperBound)"
        guard let n = node(key) else { return [] }
        guard case .sequence(let seq) = n else {
            problems.add(n, "\(path)\(key) must be a list of \(noun)s from \(range.lowerBound) to \(range.upperBound), like [1000] (got \(Self.shown(n)))")
            return []
        }
        return seq.enumerated().compactMap { i, element in
            guard case .scalar(let s) = element, let v = Self.integer(s.string), range.contains(v) else {
                problems.add(element, "\(path)\(key)[\(i)] must be \(expected) (got \(Self.shown(element)))")
                return nil
            }
            return v
        }
    }

    /// A YAML integer as written in a config: decimal, "_" allowed between digits.
    static func integer(_ s: String) -> Int? {
        ungrouped(s).flatMap { Int($0) }
    }

    /// The one rule for numbers in the configuration, tabd's keys and plugins' settings alike
    /// (tabd.yaml(5)): `_` may group digits (1_048_576, 0.000_5). The text without them, or nil
    /// when a `_` is not between two digits (`_1`, `1_`, `1__0` are not numbers).
    static func ungrouped(_ s: String) -> String? {
        guard s.utf8.contains(UInt8(ascii: "_")) else { return s }
        let bytes = Array(s.utf8)
        func digit(_ i: Int) -> Bool { i >= 0 && i < bytes.count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9") }
        for i in bytes.indices where bytes[i] == UInt8(ascii: "_") {
            guard digit(i - 1), digit(i + 1) else { return nil }
        }
        return String(decoding: bytes.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
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

    mutating func section(_ key: String) -> Section? {
        guard let n = node(key) else { return nil }
        return Section(n, path: "\(path)\(key).", problems: problems)
    }

    /// Records every key that was not read as unknown, at the key.
    func finish() {
        for (k, _) in map {
            guard case .scalar(let s) = k else {
                problems.add(k, "\(path.isEmpty ? "the configuration" : String(path.dropLast()))'s keys must be names (got \(Self.shown(k)))")
                continue
            }
            if !used.contains(s.string) {
                problems.add(k, "unknown setting '\(path)\(s.string)'\(Self.suggestion(for: s.string, in: used))")
            }
        }
    }

    /// ", did you mean 'x'?" when a known key is one edit or transposition away.
    static func suggestion(for key: String, in known: Set<String>) -> String {
        let a = Array(key)
        for k in known.sorted() {
            let b = Array(k)
            if a.count == b.count {
                let diff = zip(a, b).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
                if diff.count == 1 || (diff.count == 2 && diff[1] == diff[0] + 1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]) {
                    return "; did you mean '\(k)'?"
                }
            } else if abs(a.count - b.count) == 1 {
                let (long, short) = a.count > b.count ? (a, b) : (b, a)
                if (0..<long.count).contains(where: { i in Array(long[..<i] + long[(i + 1)...]) == short }) {
                    return "; did you mean '\(k)'?"
                }
            }
        }
        return ""
    }
}

extension Double {
    /// Seconds as a config file and a message write them — 0.01, 10, 86400: no trailing ".0".
    var formatted: String { self == rounded() ? String(Int(self)) : String(self) }
}
