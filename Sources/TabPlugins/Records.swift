// What the host tells the daemon about its plugins: specs in, statuses, decisions and
// timings out. Plain values; `json` renders each one as a JSON object for the wire.

import TabCore

/// One plugin to load, as the configuration lists it.
public struct PluginSpec: Sendable, Equatable {
    /// The name the plugin is known by; nil: the name its descriptor gives.
    /// Set it to load the same file twice with different settings.
    public var name: String?
    /// A file name looked up in the plugin directories, in order, or a path (absolute,
    /// or containing a '/') that must lie inside one of them.
    public var path: String
    /// tabd does not start without a required plugin; after a reload that could not
    /// (re)start it, it refuses every tap until a reload succeeds (fail closed).
    public var required: Bool
    /// The plugin's settings as JSON text (an object); "{}" when none.
    public var configJSON: String
    /// Where the plugin runs: in tabd (fast; a crash is tabd's) or in a sandboxed helper
    /// process (a crash or a hang fails its decisions closed, tabd serves on).
    public var isolation: PluginIsolation = .none
    /// `isolation: process`: how long tabd waits for one hook's answer before the plugin
    /// counts as failed (timed out), in milliseconds.
    public var deadlineMilliseconds = 50
    /// `isolation: process`: the user the helper runs as (when tabd runs as root); nil: tabd's.
    public var user: String?

    public init(name: String? = nil, path: String, required: Bool = false, configJSON: String = "{}",
                isolation: PluginIsolation = .none, deadlineMilliseconds: Int = 50, user: String? = nil) {
        self.name = name; self.path = path; self.required = required; self.configJSON = configJSON
        self.isolation = isolation; self.deadlineMilliseconds = deadlineMilliseconds; self.user = user
    }
}

/// Where a plugin's code runs.
public enum PluginIsolation: String, Sendable, Equatable, CaseIterable {
    /// In tabd's own process (the default): a hook is a function call.
    case none
    /// In a sandboxed helper process, spoken to over a socket pair, each hook with a deadline.
    case process
}

/// Who sent a `plugin.call`: the client connection's peer credentials (SO_PEERCRED). A
/// plugin reads it with the host's `caller` function (ABI 1.1) during its call hook.
public struct PluginCaller: Sendable, Equatable {
    public var uid: UInt32
    public var gid: UInt32
    public var pid: Int32
    /// Whether tabd's access rules count the caller as an administrator (ABI 1.5).
    public var isAdmin: Bool
    /// The caller's supplementary groups, as the kernel gave them at connect (ABI 1.5).
    public var groups: [UInt32]
    /// What the client relays for, as its `hello` said (`tabd-web`), or nil (ABI 1.8).
    public var via: String?

    public init(uid: UInt32, gid: UInt32, pid: Int32, isAdmin: Bool = false, groups: [UInt32] = [], via: String? = nil) {
        self.uid = uid; self.gid = gid; self.pid = pid; self.isAdmin = isAdmin; self.groups = groups; self.via = via
    }
}

/// What `tabd --check-config` found for one configured plugin: the checks made before
/// dlopen (`PluginHost.check`).
public struct PluginCheck: Sendable, Equatable {
    /// The configured name, else the file name.
    public var name: String
    /// Where the file was found, or the configured path when it was not.
    public var path: String
    public var required: Bool
    /// Why it would be refused; nil when its file passes.
    public var error: String?
}

/// A plugin that could not be loaded (or re-initialised) while it was required.
public struct PluginError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The plugin as the configuration names it (its name, else its path).
    public var plugin: String
    /// Why, for people.
    public var message: String

    public init(plugin: String, message: String) { self.plugin = plugin; self.message = message }

    public var description: String { "required plugin '\(plugin)' could not be loaded: \(message)" }
}

/// A plugin of a configuration that does not run (or runs old code), and why: for
/// `--check-config`, `reload`'s reply and the log.
public struct PluginProblem: Sendable, Equatable, CustomStringConvertible {
    /// The configured name, else the descriptor's, else the file name.
    public var plugin: String
    /// The file as found, or as configured when it was not.
    public var path: String
    public var required: Bool
    /// Its position in `plugins.load`.
    public var index: Int
    /// Why, for people.
    public var message: String

    public var description: String { "plugin '\(plugin)' (\(path)): \(message)" }
}

/// What a committed plugin set changed: instances started (new, or with new settings or
/// code), stopped, and kept running untouched.
public struct PluginChanges: Sendable, Equatable {
    public var started: [String] = []
    public var stopped: [String] = []
    public var kept: [String] = []
    /// What the stopped plugins asked for as they stopped (the login gate's logout events).
    public var effects: [PolicyEffect] = []
    public init() {}
}

/// A plugin method's answer (`PluginHost.call`), with what the plugin asked for meanwhile.
public struct PluginCallReply: Sendable {
    /// Compact JSON text that JSONParser accepted, or why there is none.
    public var result: Result<String, TabError>
    /// Events to publish and selections to make, in order, once the call is answered.
    public var effects: [PolicyEffect] = []

    /// The answer, or the error.
    public func get() throws(TabError) -> String { try result.get() }
}

/// A plugin set prepared beside the running one (`PluginHost.prepare`): files checked and
/// loaded, new instances initialised. Commit it or discard it.
public final class PreparedPlugins {
    var entries: [PluginHost.Entry] = []
    let directories: [String]
    public internal(set) var missingDirectories: [String] = []
    /// Instances the preparation started; `discard` stops them.
    var started: [PluginInstance] = []
    /// Running instances the set keeps as they are.
    var carried: Set<ObjectIdentifier> = []
    /// Required plugins that would not run: the set cannot be used.
    public internal(set) var failures: [PluginProblem] = []
    /// Optional plugins that would not run.
    public internal(set) var refused: [PluginProblem] = []
    /// Plugins whose file changed on disk since their running code was loaded from it.
    public internal(set) var stale: [PluginProblem] = []

    init(directories: [String]) { self.directories = directories }

    public var isUsable: Bool { failures.isEmpty }

    /// What `PluginHost.load` throws for the failures (nil when there are none).
    public var requiredError: PluginError? {
        guard let first = failures.first else { return nil }
        return failures.count == 1 ? PluginError(plugin: first.plugin, message: first.message)
            : PluginError(plugin: failures.map(\.plugin).joined(separator: ", "),
                          message: failures.map { "\($0.plugin): \($0.message)" }.joined(separator: "; "))
    }

    /// Every plugin in the set with how it was found: name, version, hooks, loaded or not.
    public var plugins: [PluginStatus] {
        entries.map(\.status)
    }
}

/// What `plugins` shows for one configured plugin, loaded or refused.
public struct PluginStatus: Sendable, Equatable {
    public var name: String
    public var version: String?
    public var description: String?
    /// The file as resolved (real path), or the configured path when it could not be resolved.
    public var path: String
    /// Wire names of the hooks the plugin implements (`should_select`, `call`, …).
    public var hooks: [String]
    /// Whether the plugin is consulted.
    public var loaded: Bool
    /// Why it is not loaded.
    public var error: String?
    public var required: Bool
    /// ABI version the plugin was built against, "major.minor".
    public var abi: String?
    /// Its file changed on disk since the code running was loaded from it (a restart
    /// loads the new code).
    public var stale = false
    /// Where it runs (`none`: in tabd; `process`: in a helper).
    public var isolation: PluginIsolation = .none
    /// Not loaded because it crashed tabd too many times in a row (`error` says why and
    /// how to lift it).
    public var quarantined = false
    /// The helper's crashes, timed-out hooks and restarts (isolated plugins; 0 otherwise).
    public var crashes: UInt64 = 0
    public var timeouts: UInt64 = 0
    public var restarts: UInt64 = 0

    /// `loaded`, `refused` or `quarantined`.
    public var state: String { loaded ? "loaded" : quarantined ? "quarantined" : "refused" }

    /// `{"name":…,"version":…,"description":…,"path":…,"hooks":[…],"loaded":…,"error":…,"required":…,"abi":…}`
    public var json: String {
        var w = JSONText()
        w.beginObject()
            w.field("name", name)
            w.field("version", version)
            w.field("description", description)
            w.field("path", path)
            w.key("hooks"); w.strings(hooks)
            w.field("loaded", loaded)
            w.field("error", error)
            w.field("required", required)
            w.field("abi", abi)
            w.field("stale", stale)
            w.field("status", state)
            w.field("isolation", isolation.rawValue)
            w.field("crashes", Int(clamping: crashes))
            w.field("timeouts", Int(clamping: timeouts))
            w.field("restarts", Int(clamping: restarts))
        w.endObject()
        return w.text
    }
}

/// The hooks of the ABI, by wire name.
public enum PluginHook: String, CaseIterable, Sendable {
    case initialize = "init"
    case fini
    case shouldSelect = "should_select"
    case supportedOrientations = "supported_orientations"
    case preferredOrientation = "preferred_orientation"
    case didSelect = "did_select"
    case willBeginCustomizing = "will_begin_customizing"
    case willEndCustomizing = "will_end_customizing"
    case didEndCustomizing = "did_end_customizing"
    case call
    case willStop = "will_stop"
    case visibilityChanged = "visibility_changed"
    case displayOrderChanged = "display_order_changed"
    case selectionChanged = "selection_changed"
    case timer
    case controllerCreated = "controller_created"
    case controllerDeleted = "controller_deleted"
    case mayOpenDrawer = "may_open_drawer"
    case topColumnForCollapsing = "top_column_for_collapsing"
    case displayModeForExpanding = "display_mode_for_expanding"
    case notify
}

/// One plugin's answer within a decision.
public struct PluginAnswer: Sendable, Equatable {
    public enum Answer: Sendable, Equatable {
        case allow
        case abstain
        case deny(reason: String, message: String?)
        /// The plugin failed (bad return value, error). For should_select this counted as a deny.
        case failed(String)
        /// supported_orientations: the plugin's mask (before intersection).
        case orientations(OrientationMask)
        /// preferred_orientation: the plugin's preference.
        case preferred(Orientation)
        /// timer: the hook ran.
        case ran
        /// top_column_for_collapsing, display_mode_for_expanding: the plugin's answer, which
        /// replaced the proposal.
        case proposal(String)
        /// A split proposal's answer the split cannot take (`why`): the proposal was kept.
        case invalid(String, why: String)
    }
    public var plugin: String
    public var answer: Answer
    /// How long the hook took.
    public var nanoseconds: UInt64

    /// `allow`, `abstain`, `deny`, `failed`, `orientations`, `preferred`, `ran`, `proposal` or
    /// `invalid`.
    public var kind: String {
        switch answer {
        case .allow: return "allow"
        case .abstain: return "abstain"
        case .deny: return "deny"
        case .failed: return "failed"
        case .orientations: return "orientations"
        case .preferred: return "preferred"
        case .ran: return "ran"
        case .proposal: return "proposal"
        case .invalid: return "invalid"
        }
    }

    func write(_ w: inout JSONText) {
        w.beginObject()
            w.field("plugin", plugin)
            w.field("answer", kind)
            switch answer {
            case .allow, .abstain, .ran: break
            case .deny(let reason, let message): w.field("reason", reason); w.field("message", message)
            case .failed(let why): w.field("reason", why)
            case .orientations(let m): w.key("orientations"); w.strings(m.orientations.map(\.rawValue))
            case .preferred(let o): w.field("orientation", o.rawValue)
            case .proposal(let value): w.field("proposal", value)
            case .invalid(let value, let why): w.field("proposal", value); w.field("reason", why)
            }
            w.field("ns", Int(clamping: nanoseconds))
        w.endObject()
    }
}

/// One decision the plugin chain made, for `explain`.
public struct DecisionRecord: Sendable, Equatable {
    public typealias Kind = DecisionKind
    public enum Final: Sendable, Equatable {
        /// A tap (or a drawer's open) allowed; `byDefault`: every plugin abstained and the
        /// default applied.
        case allow(byDefault: Bool)
        /// A tap (or a drawer's open) refused by `plugin`.
        case deny(plugin: String, reason: String, message: String?)
        /// The supported orientations after intersection.
        case orientations(OrientationMask)
        /// The preferred orientation (nil: no plugin had a preference).
        case preferred(Orientation?)
        /// A timer ran its hook: `ok` false when the hook failed (an isolated plugin's helper
        /// crashed or timed out).
        case ran(ok: Bool)
        /// A split proposal after the plugins (top_column_for_collapsing,
        /// display_mode_for_expanding): the wire name of the column or mode.
        case proposal(String)
    }
    /// Increases by one per recorded decision, for the life of the host.
    public var sequence: UInt64
    public var controller: String
    public var kind: Kind
    /// should_select: the tapped tab id, or "more". may_open_drawer: the side (`side` in JSON).
    public var candidate: String?
    /// supported_orientations: what the tabs support, before the plugins.
    public var proposed: OrientationMask?
    /// In the order the plugins were asked. A deny ends the question, so later plugins
    /// are absent.
    public var answers: [PluginAnswer]
    public var final: Final
    /// may_open_drawer: the user's gesture.
    public var gesture: String? = nil
    /// top_column_for_collapsing, display_mode_for_expanding: the split's style, behavior
    /// (display_mode_for_expanding only) and the proposal before the plugins, as wire names.
    public var split: SplitProposal? = nil

    /// What a split proposal's record says of the split and of tabd's proposal.
    public struct SplitProposal: Sendable, Equatable {
        public var style: String
        public var behavior: String?
        public var proposed: String
    }

    /// `{"seq":…,"controller":…,"kind":…,"candidate":…,"answers":[…],"result":…,…}`
    public var json: String {
        var w = JSONText()
        w.beginObject()
            w.field("seq", Int(clamping: sequence))
            w.field("controller", controller.isEmpty ? nil : controller)  // "": a timer of no controller
            w.field("kind", kind.rawValue)
            if kind == .mayOpenDrawer {
                w.field("side", candidate); w.field("gesture", gesture)
            } else if let candidate {
                w.field("candidate", candidate)
            }
            if let proposed { w.key("proposed"); w.strings(proposed.orientations.map(\.rawValue)) }
            if let split {
                w.field("style", split.style)
                if let behavior = split.behavior { w.field("behavior", behavior) }
                w.field("proposed", split.proposed)
            }
            w.key("answers"); w.array(answers) { w, a in a.write(&w) }
            switch final {
            case .allow(let byDefault):
                w.field("result", "allow"); w.field("by_default", byDefault)
            case .deny(let plugin, let reason, let message):
                w.field("result", "deny"); w.field("plugin", plugin); w.field("reason", reason); w.field("message", message)
            case .orientations(let m):
                w.key("result"); w.strings(m.orientations.map(\.rawValue))
            case .preferred(let o):
                w.field("result", o?.rawValue)
            case .ran(let ok):
                w.field("result", ok ? "ran" : "failed")
            case .proposal(let value):
                w.field("result", value)
            }
        w.endObject()
        return w.text
    }
}

/// Timings and counts for one plugin, for `stats`.
public struct PluginStats: Sendable, Equatable {
    public struct Hook: Sendable, Equatable {
        public var hook: PluginHook
        public var calls: UInt64
        public var totalNanoseconds: UInt64
        public var maxNanoseconds: UInt64
        public var averageNanoseconds: UInt64 { calls == 0 ? 0 : totalNanoseconds / calls }
    }
    public var name: String
    /// Hooks called at least once.
    public var hooks: [Hook]
    /// Taps the plugin refused (should_select answered TABD_DENY).
    public var denials: UInt64
    /// Hook calls that failed (errors, invalid values, bad JSON).
    public var failures: UInt64
    /// Where it runs, and (isolated plugins) its helper's crashes, timed-out hooks and restarts.
    public var isolation: PluginIsolation = .none
    public var crashes: UInt64 = 0
    public var timeouts: UInt64 = 0
    public var restarts: UInt64 = 0
    /// Store writes tabd refused for the plugin's budget over time or while the journal waited
    /// for a compaction, and the bytes it wrote (keys, values and their records' cost) (1.7).
    public var storeRefusals: UInt64 = 0
    public var storeBytes: UInt64 = 0
    /// `plugin.call` requests the plugin refused (`denied`): counted apart from `denials`, which
    /// are taps.
    public var callRefusals: UInt64 = 0

    /// `{"name":…,"denials":…,"failures":…,"hooks":{"should_select":{"calls":…,"total_ns":…,"avg_ns":…,"max_ns":…},…}}`
    public var json: String {
        var w = JSONText()
        w.beginObject()
            w.field("name", name)
            w.field("denials", Int(clamping: denials))
            w.field("call_refusals", Int(clamping: callRefusals))
            w.field("failures", Int(clamping: failures))
            w.field("isolation", isolation.rawValue)
            w.field("crashes", Int(clamping: crashes))
            w.field("timeouts", Int(clamping: timeouts))
            w.field("restarts", Int(clamping: restarts))
            w.field("store_refusals", Int(clamping: storeRefusals))
            w.field("store_bytes", Int(clamping: storeBytes))
            w.key("hooks")
            w.beginObject()
                for h in hooks {
                    w.key(h.hook.rawValue)
                    w.beginObject()
                        w.field("calls", Int(clamping: h.calls))
                        w.field("total_ns", Int(clamping: h.totalNanoseconds))
                        w.field("avg_ns", Int(clamping: h.averageNanoseconds))
                        w.field("max_ns", Int(clamping: h.maxNanoseconds))
                    w.endObject()
                }
            w.endObject()
        w.endObject()
        return w.text
    }
}
