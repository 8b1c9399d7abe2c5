// tabd's configuration: one commented YAML file (see tabd.example.yaml). Command-line
// flags override the file; the file overrides the defaults below.

import Foundation
import TabCore
import TabPlugins
import TabProtocol
import Yams


public struct ServerConfig: Sendable {
    public struct ControllerSpec: Sendable, Equatable {
        public var name: String
        public var idiom: Idiom
        public var maxVisible: Int?
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
    public var maxConnections = 100_000
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

    /// Reads a YAML file over the defaults.
    public static func load(path: String) throws -> ServerConfig {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError("cannot read config file \(path): \(error.localizedDescription)")
        }
        var config = try parse(text, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        config.path = path
        return config
    }

    /// Parses YAML text. Relative paths in it are taken relative to `baseDirectory`.
    public static func parse(_ text: String, baseDirectory: String = FileManager.default.currentDirectoryPath) throws -> ServerConfig {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigError("the config is not valid YAML: \(error)")
        }
        var c = ServerConfig()
        guard let root else { return c }
        var r = try Section(root, path: "")
        func resolve(_ p: String) -> String {
            p.hasPrefix("/") ? p : ((baseDirectory as NSString).appendingPathComponent(p) as NSString).standardizingPath
        }

        if let s = try r.string("socket") { c.socketPath = resolve(s) }
        if let s = try r.string("socket_mode") {
            guard let m = mode_t(s, radix: 8), m <= 0o777 else { throw ConfigError("socket_mode must be an octal mode like \"0660\" (got \(s))") }
            c.socketMode = m
        }
        c.socketGroup = try r.string("socket_group")
        if let s = try r.string("state_dir") { c.stateDir = resolve(s) }
        if let s = try r.string("fsync") {
            guard let f = FsyncPolicy(rawValue: s) else { throw ConfigError("fsync must be always, everysec or no (got \(s))") }
            c.fsync = f
        }
        if let s = try r.string("log_level") { c.logLevel = s }
        if let limits = try r.section("limits") {
            var l = limits
            if let v = try l.int("max_line_bytes") { c.maxLineBytes = try positive(v, "limits.max_line_bytes") }
            if let v = try l.int("max_output_bytes") { c.maxOutputBytes = try positive(v, "limits.max_output_bytes") }
            if let v = try l.int("max_connections") { c.maxConnections = try positive(v, "limits.max_connections") }
            if let v = try l.int("max_json_depth") { c.maxJSONDepth = try positive(v, "limits.max_json_depth") }
            if let v = try l.int("compact_bytes") { c.compactBytes = try positive(v, "limits.compact_bytes") }
            try l.finish()
        }
        if let access = try r.section("access") {
            var a = access
            c.adminUIDs = try a.ints("admin_uids").map { uid_t($0) }
            c.adminGIDs = try a.ints("admin_gids").map { gid_t($0) }
            try a.finish()
        }
        for (i, node) in try r.list("controllers").enumerated() {
            var s = try Section(node, path: "controllers[\(i)].")
            guard let name = try s.string("name") else { throw ConfigError("controllers[\(i)] needs a name") }
            let idiomName = try s.string("idiom") ?? "phone"
            guard let idiom = Idiom(rawValue: idiomName) else { throw ConfigError("controllers[\(i)].idiom must be phone, pad or tv") }
            c.controllers.append(ControllerSpec(name: name, idiom: idiom, maxVisible: try s.int("max_visible")))
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

    private static func positive(_ v: Int, _ name: String) throws -> Int {
        guard v > 0 else { throw ConfigError("\(name) must be positive") }
        return v
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

    mutating func int(_ key: String) throws -> Int? {
        guard let s = try string(key) else { return nil }
        guard let i = Int(s.replacingOccurrences(of: "_", with: "")) else { throw ConfigError("\(path)\(key) must be an integer (got \(s))") }
        return i
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

    mutating func ints(_ key: String) throws -> [Int] {
        try strings(key).map {
            guard let i = Int($0) else { throw ConfigError("\(path)\(key) must be a list of integers (got \($0))") }
            return i
        }
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
