// The `config` command: the configuration tabd runs with — the file's values, the flags
// that override them, the defaults for the rest, and for settings only a restart applies the
// values of the start — under the file's own keys, so that `tabctl config` prints a file
// tabd reads back. Plugin settings whose key names a secret are masked.

import Foundation
import TabJSON
import TabPlugins

extension ServerConfig {
    /// What replaces a secret's value.
    public static let masked = "********"

    /// Whether a plugin setting's key names a secret: password, passphrase, secret, token,
    /// or a key (api_key, private_key). A credentials *file*'s name is not one.
    public static func isSecret(_ key: String) -> Bool {
        let k = key.lowercased()
        return ["password", "passwd", "passphrase", "secret", "token"].contains { k.contains($0) } || k == "key" || k.hasSuffix("_key")
    }

    /// A plugin's settings with every secret's value masked, at any depth.
    static func masking(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let o):
            return .object(JSONObject(o.map { k, v in (k, isSecret(k) && v != .null ? .string(masked) : masking(v)) }))
        case .array(let items): return .array(items.map(masking))
        default: return value
        }
    }

    /// `{"file": path or null, "flags": [the command-line overrides], "config": {…}}`
    public func encodeEffective(_ w: inout JSONWriter) {
        w.key(literal: "file"); if let path { w.string(path) } else { w.null() }
        var flags: [String] = []
        if overrides.socketPath != nil { flags.append("--socket") }
        if overrides.stateDir != nil { flags.append("--state-dir") }
        if overrides.fsync != nil { flags.append("--fsync") }
        if overrides.logLevel != nil { flags.append("--log-level") }
        w.key(literal: "flags"); w.beginArray(); for f in flags { w.string(f) }; w.endArray()
        w.key(literal: "config"); w.write(.object(effective))
    }

    var effective: JSONObject {
        func int(_ v: Int) -> JSONValue { .int(Int64(v)) }
        var limits: [(String, JSONValue)] = [
            ("max_line_bytes", int(maxLineBytes)), ("max_output_bytes", int(maxOutputBytes)),
            ("output_timeout_seconds", .double(outputTimeout)), ("memory_budget_bytes", int(memoryBudgetBytes)),
            ("line_timeout_seconds", .double(lineTimeout)),
        ]
        if let maxConnections { limits.append(("max_connections", int(maxConnections))) }
        limits += [
            ("max_tabs", int(controllerLimits.maxTabs)), ("max_id_bytes", int(controllerLimits.maxIDBytes)),
            ("max_text_bytes", int(controllerLimits.maxTextBytes)), ("max_stack_depth", int(controllerLimits.maxStackDepth)),
            ("max_controllers", int(maxControllers)), ("max_json_depth", int(maxJSONDepth)), ("compact_bytes", int(compactBytes)),
        ]
        let controllers: [JSONValue] = self.controllers.map { c in
            var fields: [(String, JSONValue)] = [("name", .string(c.name)), ("idiom", .string(c.idiom.rawValue))]
            if let v = c.maxVisible { fields.append(("max_visible", int(v))) }
            fields.append(("tap_pops", .string(c.tapPops.rawValue)))
            return .object(JSONObject(fields))
        }
        let load: [JSONValue] = plugins.map { p in
            var fields: [(String, JSONValue)] = []
            if let name = p.name { fields.append(("name", .string(name))) }
            fields += [("path", .string(p.path)), ("required", .bool(p.required)), ("isolation", .string(p.isolation.rawValue))]
            if p.isolation != .none {
                fields.append(("deadline_ms", int(p.deadlineMilliseconds)))
                if let user = p.user { fields.append(("user", .string(user))) }
            }
            let settings = (try? JSONParser.parse(p.configJSON)) ?? .object(JSONObject([]))
            fields.append(("settings", Self.masking(settings)))
            return .object(JSONObject(fields))
        }
        var top: [(String, JSONValue)] = [
            ("socket", .string(socketPath)), ("socket_mode", .string(String(format: "%04o", Int(socketMode)))),
        ]
        if let socketGroup { top.append(("socket_group", .string(socketGroup))) }
        top += [
            ("state_dir", .string(stateDir)), ("fsync", .string(fsync.rawValue)), ("log_level", .string(logLevel)),
            ("limits", .object(JSONObject(limits))),
            ("access", .object(JSONObject([("admin_uids", .array(adminUIDs.map { .int(Int64($0)) })),
                                           ("admin_gids", .array(adminGIDs.map { .int(Int64($0)) }))]))),
            ("controllers", .array(controllers)),
            ("plugins", .object(JSONObject([
                ("directories", .array(pluginDirectories.map { .string($0) })),
                ("slow_hook_ms", int(slowHookMilliseconds)), ("quarantine_after", int(quarantineAfter)),
                ("warning_period_seconds", .double(warningPeriod)),
                ("store_bytes_per_second", int(storeBudget.bytesPerSecond)), ("store_burst_bytes", int(storeBudget.burstBytes)),
                ("explain_history", int(explainHistory)),
                ("load", .array(load)),
            ]))),
        ]
        return JSONObject(top)
    }
}
