// The restart law (SEMANTICS.md R11.3): every state a client can reach through the protocol
// survives a restart, byte for byte in `state` (and in `controllers`).
//
// A seeded generator drives a real tabd, with both reference plugins loaded, through random
// streams of every command of docs/protocol.md (R13's too: controllers with a mode, trees of
// groups with placement and hiding, set_hidden, reorder, sidebar, nested selections) — valid
// and invalid, one at a time, pipelined,
// split across writes and on connections that half-close — over several controllers, with
// tab ids from a small pool so that commands often meet existing tabs. Every few dozen steps
// it records the raw reply lines of `controllers` and of each controller's `state`, restarts
// tabd on the same state directory (SIGTERM and SIGKILL in turn), and asks again: the lines
// must be the same bytes. (The login gate's session is not persisted: the states are compared
// before logging in again.) Requests that are invalid whatever the state must get their error
// code, `_set_orientation` included: that record is the journal's, never a client's command.
// The same streams run a second time with a connection subscribed to every event, to check
// R11.4: a controller's events are numbered one after the other, and a number is never used
// twice for a name, across restarts and across deleting and re-creating the controller.
// Each seed prints a line: how many requests were accepted, changed the state or were refused
// (by code), and what the restarts met (customizing, More selected, stacks, a group, …).
//
// `make test` runs three fixed seeds; `make soak` runs fresh seeds for SOAK_SECONDS.
// Environment:
//   TABD_SOAK_SEEDS    a comma list of seeds (decimal or 0x…), or a count below 1000 of fresh ones
//   TABD_SOAK_SECONDS  keep running fresh seeds until this many seconds have passed
//   TABD_SOAK_STEPS    requests per seed (default 1000; 2000 under TABD_SOAK_SECONDS)
//   TABD_SOAK_SHRINK=1 on a failure, cut the requests down to a short sequence that still
//                      fails the same way, and print it
//   TABD_SOAK_TRACE=1  print every request and its reply
// Every failure names its seed: TABD_SOAK_SEEDS=<seed> swift test --filter RestartLaw runs it again.

import TabJSON
import TestRandom
import Foundation
import Glibc
import TabProtocol
import Testing

// MARK: - Randomness

/// What the restart law draws with (TestRandom's generator).
extension SplitMix64 {
    /// 0 ..< n.
    mutating func below(_ n: Int) -> Int {
        precondition(n > 0)
        return Int(next() % UInt64(n))
    }

    mutating func int(in r: ClosedRange<Int>) -> Int { r.lowerBound + below(r.count) }

    mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(UInt64(1) << 53) < p }

    mutating func pick<T>(_ a: [T]) -> T { a[below(a.count)] }

    mutating func shuffled<T>(_ a: [T]) -> [T] {
        var a = a
        var i = a.count - 1
        while i > 0 {
            a.swapAt(i, below(i + 1))
            i -= 1
        }
        return a
    }

    /// Each element with probability `p`, in order.
    mutating func subset<T>(_ a: [T], _ p: Double) -> [T] {
        var out: [T] = []
        for x in a where chance(p) { out.append(x) }
        return out
    }

    /// One of `choices`, each as likely as its weight.
    mutating func weighted<T>(_ choices: [(Int, T)]) -> T {
        let total = choices.reduce(0) { $0 + max(0, $1.0) }
        var r = below(total)
        for (w, x) in choices where w > 0 {
            if r < w { return x }
            r -= w
        }
        return choices.last!.1
    }
}

/// A seed as it is printed and read back.
func seedText(_ seed: UInt64) -> String { "0x" + String(seed, radix: 16) }

// MARK: - What a seed decides besides the requests

/// The daemon's settings for one seed: the fsync policy, how soon the journal is compacted
/// into a snapshot (small sizes make restarts meet snapshots and compactions under way), and
/// the orientation rules' preference and lock.
struct LawSettings: Sendable {
    let seed: UInt64
    let fsync: String
    let compactBytes: Int?
    let preferred: String?
    let lock: Bool

    /// Read off the seed's digits (base 3, 4, 3, 4), so that a seed for a given combination is
    /// easy to write down.
    init(seed: UInt64) {
        self.seed = seed
        fsync = ["always", "everysec", "no"][Int(seed % 3)]
        compactBytes = [nil, 4096, 16384, 65536][Int(seed / 3 % 4)]
        preferred = [nil, "portrait", "landscape_left"][Int(seed / 12 % 3)]
        lock = seed / 36 % 4 == 1
    }

    var summary: String {
        "seed \(seedText(seed)) (fsync \(fsync), compact_bytes \(compactBytes.map(String.init) ?? "default"), "
            + "preferred \(preferred ?? "null"), lock \(lock ? "on" : "off"))"
    }

    func config(credentials: String) -> String {
        var text = "fsync: \(fsync)\n"
        if let compactBytes { text += "limits:\n  compact_bytes: \(compactBytes)\n" }
        let gate = Plugins.loginGate(credentials: credentials, extra: ", max_failures: 1000000, lockout_seconds: 0, rate_burst: 1000000, max_hashes_per_second: 1000000")
        let rules = """
                - path: libOrientationRules.so
                  settings:
                    rules: [{tab: "video*", orientations: [portrait, landscape_left, landscape_right]}, {tab: news, orientations: [portrait, portrait_upside_down]}, {tab: login, orientations: [portrait]}]
                    preferred: \(preferred ?? "null")
                    lock: \(lock ? "[portrait, landscape_left, landscape_right]" : "null")

            """
        return text + Plugins.config(gate + rules)
    }
}

// MARK: - Requests

/// What a request must get whatever the state: anything, or an error with this code.
enum LawExpectation {
    case anything
    case error(String)
}

/// What a reply tells the generator's picture of the controllers.
enum LawEffect {
    case none
    case create(String)
    case delete(String)
    case setTabs(String, navigation: Set<String>)
    /// R13: tabs with groups and hiding (`replacing`: set_tabs; else add_tab).
    case setTree(String, navigation: Set<String>, groups: [String: [String]], hideable: [String], replacing: Bool)
    case addTab(String, id: String, navigation: Bool)
    case tabs(String)
    case customizeBegin(String)
    case customizeEnd(String)
    case login(String)
    case logout(String)
    case reload
    case state(String)
    case preserve(String)
    case controllers
    /// R15: a navigation, drawer or custom controller created (its kind in the reply).
    case createComposite(String)
    /// R15: a reply (a command's or `state`'s) that shows a composite's children.
    case composite(String)
}

struct LawRequest {
    /// One request line, without its newline.
    var line: String
    var expect: LawExpectation = .anything
    var effect: LawEffect = .none
}

/// A request before it is written: the command, its controller and its fields, in order.
struct Draft {
    var cmd: String
    var controller: String
    var fields: [(String, JSONValue)] = []
    var effect: LawEffect = .none
    /// Whether to write `"controller"` even for `main` (it is the default).
    var explicitController = false
}

private func jstring(_ s: String) -> JSONValue { .string(s) }
private func jint(_ i: Int) -> JSONValue { .int(Int64(i)) }
private func jstrings(_ a: [String]) -> JSONValue { .array(a.map { .string($0) }) }
private func jobject(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }

/// One request line for `cmd` on `controller` with `fields` (no id, no shuffling).
func requestLine(_ cmd: String, controller: String? = nil, _ fields: [(String, JSONValue)] = []) -> String {
    var pairs: [(String, JSONValue)] = [("cmd", .string(cmd))]
    if let controller { pairs.append(("controller", .string(controller))) }
    return JSONValue.object(JSONObject(pairs + fields)).jsonString
}

func loginLine(controller: String, password: String = "demo") -> String {
    requestLine("plugin.call", controller: controller == "main" ? nil : controller, [
        ("plugin", jstring("login-gate")), ("method", jstring("login")),
        ("args", jobject([("user", jstring("demo")), ("password", jstring(password))])),
    ])
}

/// What the generator believes about one controller, from the replies it saw (`state`
/// replies put it right). It only steers the choices; the test never relies on it.
struct ControllerModel {
    var idiom = "phone"
    var maxVisible = 5
    var tabs: [String] = []
    var navigation: Set<String> = []
    var restorationIDs: [String: String] = [:]
    var customizing = false
    var loggedIn = false
    /// Archives `preserve` returned, newest last.
    var archives: [JSONValue] = []
    /// Tab objects exactly as `state` reported them.
    var reportedTabs: [JSONValue] = []
    /// R13: each group's children, and the tabs that allow hiding (anywhere in the tree).
    var groups: [String: [String]] = [:]
    var hideable: [String] = []
    /// The ids inside groups.
    var nested: [String] { groups.keys.sorted().flatMap { groups[$0]! } }
}

/// Random requests of every command, steered by what the replies say.
struct RequestGenerator {
    var rng: SplitMix64
    var model: [String: ControllerModel] = ["main": ControllerModel()]
    /// R15: the navigation, drawer and custom controllers the replies said exist, by kind,
    /// with the child ids each was last seen holding.
    var composites: [String: (kind: String, children: [String])] = [:]
    /// How likely R13.12's and R14's commands are among modernDraft's (the mirrors' law raises it).
    var r14Weight = 4
    /// Whether compositeDraft draws split view controllers too (R15.15–R15.23; the restart
    /// law and the mirrors' law turn it on). Off, the streams draw what they drew before
    /// splits were built.
    var splits = false

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    static let tabIDs = [
        "login", "home", "music", "video", "video-hd", "news", "settings", "radio", "a", "b", "c", "d", "e",
        "q\"uote", "back\\slash", "ünï", "tab one", "🎵", "#x", "x#y\\z", "ctl\u{1}",
        // The same text to Swift's == (canonically equivalent), different bytes.
        "caf\u{E9}", "cafe\u{301}",
        "f", "g", "h", "i", "nul\u{0}id",
    ]
    static let titles = [
        "Home", "", "Ünïcödé", "say \"hi\"", "line\nbreak", "tab\tbed", "🎶 Music", "x", "\\",
        "nul\u{0}byte", "sep\u{2028}arator", "del\u{7F}", "\u{FEFF}bom",
    ]
    static let images = ["music.png", "", "img/ü.png", "a\\b.png"]
    static let tags: [Int64] = [0, 1, 3, -7, 42, Int64.max, Int64.min]
    static let badges = ["1", "12", "", "new", "🔥", "99+", "\"b\""]
    static let restorationIDs = ["r1", "r2", "shared", "shared", "a#b", "back\\", "ü", "", "caf\u{E9}", "cafe\u{301}"]
    static let screenIDs = ["detail", "list", "x\"y", "deep", "ü", "#s"]
    static let controllerNames = ["main", "kiosk", "living-room", "pad.1", "tv_2"]
    static let badControllerNames = ["bad name", "", "ünï", String(repeating: "x", count: 65), "nowhere"]
    static let orientations = ["portrait", "landscape_left", "landscape_right", "portrait_upside_down"]
    static let eventNames = [
        "selection_changed", "did_select", "content_loaded", "appearance", "containment", "tabs_changed",
        "customizable_changed", "badge_changed", "navigation_changed", "will_begin_customizing",
        "will_end_customizing", "did_end_customizing", "orientation_changed", "tab_updated", "plugin",
    ]

    // MARK: Picking

    /// A controller for the next request: mostly one that exists.
    mutating func controllerName() -> String {
        let known = model.keys.sorted()
        if !known.isEmpty, rng.chance(0.9) {
            // `main` gets about half of the traffic when it exists.
            if model["main"] != nil, rng.chance(0.45) { return "main" }
            return rng.pick(known)
        }
        return rng.chance(0.7) ? rng.pick(Self.controllerNames) : rng.pick(Self.badControllerNames)
    }

    /// A tab id for `c`: mostly one of its tabs, sometimes one of the pool, rarely an impossible one.
    mutating func tabID(_ c: String) -> String {
        let tabs = model[c]?.tabs ?? []
        // R13: sometimes a tab inside a group (only where the controller has groups).
        if let nested = model[c]?.nested, !nested.isEmpty, rng.chance(0.15) { return rng.pick(nested) }
        if !tabs.isEmpty, rng.chance(0.85) { return rng.pick(tabs) }
        if rng.chance(0.04) { return rng.pick(["", "more", "nowhere"]) }
        return rng.pick(Self.tabIDs)
    }

    mutating func navigationTabID(_ c: String) -> String {
        let nav = (model[c]?.navigation ?? []).sorted()
        if !nav.isEmpty, rng.chance(0.8) { return rng.pick(nav) }
        return tabID(c)
    }

    mutating func optionalString(_ pool: [String], _ key: String, present: Double, null: Double, into fields: inout [(String, JSONValue)]) {
        guard rng.chance(present) else { return }
        fields.append((key, rng.chance(null) ? .null : .string(rng.pick(pool))))
    }

    mutating func orientationsValue() -> JSONValue {
        switch rng.below(10) {
        case 0, 1: return .null
        case 2: return .array([])
        case 3: return jstrings(Self.orientations)
        default:
            var names = rng.subset(Self.orientations, 0.5)
            if names.isEmpty { names = [rng.pick(Self.orientations)] }
            names = rng.shuffled(names)
            if rng.chance(0.1) { names.append(names[0]) }  // a repeat is the same set
            return jstrings(names)
        }
    }

    /// An item object with any subset of its fields, each absent, null or set.
    mutating func itemValue() -> JSONValue {
        var pairs: [(String, JSONValue)] = []
        optionalString(Self.titles, "title", present: 0.6, null: 0.3, into: &pairs)
        optionalString(Self.images, "image", present: 0.6, null: 0.3, into: &pairs)
        if rng.chance(0.6) { pairs.append(("tag", rng.chance(0.1) ? .null : .int(rng.pick(Self.tags)))) }
        optionalString(Self.badges, "badge", present: 0.6, null: 0.3, into: &pairs)
        if rng.chance(0.2) { pairs = rng.shuffled(pairs) }
        return jobject(pairs)
    }

    /// A tab object with any combination of its optional fields; whether it is a navigation stack.
    mutating func tabValue(id: String) -> (JSONValue, navigation: Bool) {
        var pairs: [(String, JSONValue)] = [("id", .string(id))]
        if rng.chance(0.005) {
            // Longer than the space a journal file is allocated ahead (64 KiB).
            pairs.append(("title", .string(String(repeating: "long ", count: 14_000 + rng.below(2000)))))
        } else {
            optionalString(Self.titles, "title", present: 0.5, null: 0.25, into: &pairs)
        }
        if rng.chance(0.55) { pairs.append(("item", rng.chance(0.15) ? .null : itemValue())) }
        optionalString(Self.restorationIDs, "restoration_id", present: 0.5, null: 0.2, into: &pairs)
        if rng.chance(0.5) { pairs.append(("orientations", orientationsValue())) }
        if rng.chance(0.4) { pairs.append(("full_screen_layout", .bool(rng.chance(0.5)))) }
        var navigation = false
        if rng.chance(0.6) {
            navigation = rng.chance(0.8)
            pairs.append(("navigation", .bool(navigation)))
        }
        if rng.chance(0.15) { pairs = rng.shuffled(pairs) }
        return (jobject(pairs), navigation)
    }

    mutating func screenValue() -> JSONValue {
        var pairs: [(String, JSONValue)] = [("id", .string(rng.chance(0.03) ? "" : rng.pick(Self.screenIDs)))]
        optionalString(Self.titles, "title", present: 0.5, null: 0.2, into: &pairs)
        return jobject(pairs)
    }

    /// The restoration path of a tab (Controller.restorationPath): '#' and '\' escaped, then '#', then the id.
    static func restorationPath(rid: String, id: String) -> String {
        var path = ""
        for ch in rid {
            if ch == "#" || ch == "\\" { path.append("\\") }
            path.append(ch)
        }
        return path + "#" + id
    }

    /// An archive: one `preserve` returned (perhaps altered), or one made up.
    mutating func archiveValue(_ c: String) -> JSONValue {
        let m = model[c] ?? ControllerModel()
        if let saved = m.archives.isEmpty ? nil : rng.pick(m.archives), rng.chance(0.6) {
            guard rng.chance(0.3), case .object(var o) = saved else { return saved }
            if rng.chance(0.5) { o["selected"] = .null } else { o.removeValue(forKey: "stacks") }
            return .object(o)
        }
        let withRID = m.tabs.filter { m.restorationIDs[$0] != nil }
        var pairs: [(String, JSONValue)] = []
        switch rng.below(6) {
        case 0: break
        case 1: pairs.append(("selected", .null))
        case 2: pairs.append(("selected", .string(rng.pick(["nope#zz", "r1", "shared", "#", "\\#x"]))))
        case 3 where !withRID.isEmpty:
            pairs.append(("selected", .string(m.restorationIDs[rng.pick(withRID)]!)))  // by id only
        default:
            if let id = withRID.isEmpty ? nil : rng.pick(withRID) {
                pairs.append(("selected", .string(Self.restorationPath(rid: m.restorationIDs[id]!, id: id))))
            } else {
                pairs.append(("selected", .string(Self.restorationPath(rid: rng.pick(Self.restorationIDs), id: tabID(c)))))
            }
        }
        switch rng.below(5) {
        case 0: break
        case 1: pairs.append(("stacks", .null))
        default:
            var stacks: [(String, JSONValue)] = []
            for id in rng.subset(withRID, 0.6) {
                let screens = (0..<rng.below(4)).map { _ in screenValue() }
                stacks.append((Self.restorationPath(rid: m.restorationIDs[id]!, id: id), .array(screens)))
            }
            if rng.chance(0.3) { stacks.append(("made-up#path", .array([screenValue()]))) }
            pairs.append(("stacks", jobject(stacks)))
        }
        return jobject(pairs)
    }

    // MARK: Drafts of every command

    enum Kind: CaseIterable {
        case setTabs, addTab, removeTab, updateTab, badge, select, tap, push, pop, popToRoot
        case customizable, customizeBegin, customizeMove, customizeEnd, rotate, restore
        case layout, preserve, state, controllers, create, delete, pluginCall
        case hello, ping, plugins, explain, stats, subscribe, unsubscribe, reload
    }

    mutating func weights(_ c: String) -> [(Int, Kind)] {
        let m = model[c]
        let customizing = m?.customizing ?? false
        let hasTabs = !(m?.tabs.isEmpty ?? true)
        return [
            (hasTabs ? 5 : 14, .setTabs), (6, .addTab), (4, .removeTab), (8, .updateTab), (5, .badge),
            (8, .select), (9, .tap), (6, .push), (3, .pop), (2, .popToRoot),
            (3, .customizable), (customizing ? 1 : 6, .customizeBegin), (customizing ? 16 : 2, .customizeMove),
            (customizing ? 4 : 1, .customizeEnd), (6, .rotate), (4, .restore),
            (2, .layout), (3, .preserve), (5, .state), (1, .controllers), (2, .create), (1, .delete), (4, .pluginCall),
            (1, .hello), (1, .ping), (1, .plugins), (1, .explain), (1, .stats), (1, .subscribe), (1, .unsubscribe),
            (rng.chance(0.3) ? 1 : 0, .reload),
        ]
    }

    /// A request of `kind` that decodes (whether the state accepts it is another matter).
    mutating func draft(_ kind: Kind, _ c: String) -> Draft {
        var d = Draft(cmd: "", controller: c)
        switch kind {
        case .setTabs:
            d.cmd = "set_tabs"
            // Often more than fit (More, customizing), sometimes more than 16 (found through a table).
            let count = rng.weighted([(1, 0), (4, rng.int(in: 1...4)), (7, rng.int(in: 5...9)), (1, rng.int(in: 15...20))])
            var ids = Array(rng.shuffled(Self.tabIDs).prefix(count))
            if rng.chance(0.7), !ids.contains("login") {
                if ids.count == count, !ids.isEmpty { ids.removeLast() }
                ids.insert("login", at: rng.chance(0.6) ? 0 : rng.below(ids.count + 1))
            }
            if rng.chance(0.03), let first = ids.first { ids.append(first) }  // a duplicate: conflict
            if rng.chance(0.02) { ids.append(rng.pick(["", "more"])) }
            var tabs: [JSONValue] = []
            var navigation = Set<String>()
            let reported = model[c]?.reportedTabs ?? []
            for id in ids {
                if !reported.isEmpty, rng.chance(0.05) {
                    tabs.append(rng.pick(reported))  // a tab exactly as `state` reported it
                    continue
                }
                let (t, nav) = tabValue(id: id)
                tabs.append(t)
                if nav { navigation.insert(id) }
            }
            if rng.chance(0.25) {
                // Tabs that all turn (the interface turns only when every tab supports it).
                let turning = jstrings(rng.chance(0.5) ? Self.orientations : ["portrait", "landscape_left", "landscape_right"])
                tabs = tabs.map { t in
                    guard case .object(var o) = t else { return t }
                    o["orientations"] = turning
                    return .object(o)
                }
            }
            d.fields.append(("tabs", .array(tabs)))
            if rng.chance(0.4) { d.fields.append(("animated", .bool(rng.chance(0.5)))) }
            // R2.6: the selection named with the tabs (sometimes one that is not there).
            if rng.chance(0.3), !ids.isEmpty {
                d.fields.append(("selected", rng.chance(0.6) ? jstring(rng.chance(0.9) ? rng.pick(ids) : "nowhere") : jint(rng.below(ids.count + 1))))
            }
            d.effect = .setTabs(c, navigation: navigation)
        case .addTab:
            d.cmd = "add_tab"
            let existing = Set(model[c]?.tabs ?? [])
            let fresh = Self.tabIDs.filter { !existing.contains($0) }
            let id = !fresh.isEmpty && rng.chance(0.7) ? rng.pick(fresh) : tabID(c)
            let reported = model[c]?.reportedTabs ?? []
            var navigation = false
            if !reported.isEmpty, rng.chance(0.05) {
                d.fields.append(("tab", rng.pick(reported)))
            } else {
                let (t, nav) = tabValue(id: id)
                d.fields.append(("tab", t))
                navigation = nav
            }
            if rng.chance(0.5) {
                let n = existing.count
                d.fields.append(("index", jint(rng.chance(0.9) ? rng.int(in: 0...n) : rng.pick([-1, n + 1, n + 3]))))
            }
            d.effect = .addTab(c, id: id, navigation: navigation)
        case .removeTab:
            d.cmd = "remove_tab"
            d.fields = [("tab", jstring(tabID(c)))]
            d.effect = .tabs(c)
        case .updateTab:
            d.cmd = "update_tab"
            d.fields = [("tab", jstring(tabID(c)))]
            optionalString(Self.titles, "title", present: 0.4, null: 0.3, into: &d.fields)
            if rng.chance(0.45) { d.fields.append(("item", rng.chance(0.2) ? .null : itemValue())) }
            optionalString(Self.restorationIDs, "restoration_id", present: 0.35, null: 0.3, into: &d.fields)
            if rng.chance(0.35) { d.fields.append(("orientations", orientationsValue())) }
            if rng.chance(0.3) { d.fields.append(("full_screen_layout", .bool(rng.chance(0.5)))) }
        case .badge:
            d.cmd = "badge"
            d.fields = [("tab", jstring(tabID(c))), ("value", rng.chance(0.3) ? .null : jstring(rng.pick(Self.badges)))]
        case .select:
            d.cmd = "select"
            let n = model[c]?.tabs.count ?? 0
            switch rng.below(20) {
            case 0..<11: d.fields = [("tab", jstring(tabID(c)))]
            case 11..<17: d.fields = [("index", jint(rng.chance(0.85) && n > 0 ? rng.below(n) : rng.pick([-1, n, n + 2])))]
            default: d.fields = [("more", .bool(true))]
            }
        case .tap:
            d.cmd = "tap"
            d.fields = rng.chance(0.8) ? [("tab", jstring(tabID(c)))] : [("more", .bool(true))]
        case .push:
            d.cmd = "push"
            d.fields = [("tab", jstring(navigationTabID(c))), ("screen", screenValue())]
        case .pop:
            d.cmd = "pop"
            d.fields = [("tab", jstring(navigationTabID(c)))]
        case .popToRoot:
            d.cmd = "pop_to_root"
            d.fields = [("tab", jstring(navigationTabID(c)))]
        case .customizable:
            d.cmd = "customizable"
            switch rng.below(10) {
            case 0, 1: d.fields = [("tabs", .null)]
            case 2: d.fields = [("tabs", .array([]))]
            default:
                var ids = rng.shuffled(rng.subset(model[c]?.tabs ?? [], 0.6))
                if rng.chance(0.1) { ids.append(rng.pick(Self.tabIDs)) }
                d.fields = [("tabs", jstrings(ids))]
            }
        case .customizeBegin:
            d.cmd = "customize.begin"
            d.effect = .customizeBegin(c)
        case .customizeMove:
            d.cmd = "customize.move"
            let n = model[c]?.tabs.count ?? 0
            d.fields = [("tab", jstring(tabID(c))), ("to", jint(rng.chance(0.9) && n > 0 ? rng.below(n) : rng.pick([-1, n, n + 4])))]
        case .customizeEnd:
            d.cmd = "customize.end"
            d.effect = .customizeEnd(c)
        case .rotate:
            d.cmd = "rotate"
            d.fields = [("orientation", jstring(rng.pick(Self.orientations)))]
        case .restore:
            d.cmd = "restore"
            d.fields = [("archive", archiveValue(c))]
        case .layout:
            d.cmd = "layout"
            let w: JSONValue = rng.chance(0.7) ? jint(rng.pick([0, 320, 390, 768, 1920])) : .double(Double(rng.below(40000)) / 16)
            let h: JSONValue = rng.chance(0.7) ? jint(rng.pick([0, 30, 568, 844, 1080])) : .double(Double(rng.below(40000)) / 16)
            d.fields = [("width", w), ("height", h)]
            if rng.chance(0.5) { d.fields.append(("status_bar", jint(rng.pick([0, 20, 47, 100])))) }
        case .preserve:
            d.cmd = "preserve"
            d.effect = .preserve(c)
        case .state:
            d.cmd = "state"
            d.effect = .state(c)
        case .controllers:
            d.cmd = "controllers"
            d.effect = .controllers
        case .create:
            d.cmd = "controller.create"
            d.controller = rng.chance(0.9) ? rng.pick(Self.controllerNames) : rng.pick(Self.badControllerNames)
            if rng.chance(0.85) { d.fields.append(("idiom", jstring(rng.pick(["phone", "pad", "tv"])))) }
            if rng.chance(0.5) { d.fields.append(("max_visible", jint(rng.chance(0.9) ? rng.int(in: 2...9) : rng.pick([0, 1, 1001])))) }
            if rng.chance(0.4) { d.fields.append(("tap_pops", jstring(rng.pick(["always", "reselect"])))) }  // R4.3
            d.explicitController = true
            d.effect = .create(d.controller)
        case .delete:
            d.cmd = "controller.delete"
            let others = model.keys.filter { $0 != "main" }.sorted()
            // `main` rarely: everything after it is refused until it is created again.
            d.controller = !others.isEmpty && rng.chance(0.95) ? rng.pick(others) : (rng.chance(0.25) ? "main" : "nowhere")
            d.explicitController = true
            d.effect = .delete(d.controller)
        case .pluginCall:
            d.cmd = "plugin.call"
            let login: [(String, JSONValue)] = [("plugin", jstring("login-gate")), ("method", jstring("login"))]
            switch rng.weighted([(12, 0), (2, 1), (3, 2), (2, 3), (1, 4), (1, 5)]) {
            case 0:
                d.fields = login + [("args", jobject([("user", jstring("demo")), ("password", jstring("demo"))]))]
                d.effect = .login(c)
            case 1:
                d.fields = login + [("args", jobject([("user", jstring(rng.pick(["demo", "root"]))), ("password", jstring("wrong"))]))]
            case 2:
                d.fields = [("plugin", jstring("login-gate")), ("method", jstring("logout"))]
                d.effect = .logout(c)
            case 3:
                d.fields = [("plugin", jstring("login-gate")), ("method", jstring(rng.pick(["status", "nope"])))]
            case 4:
                d.fields = [("plugin", jstring("orientation-rules")), ("method", jstring("status"))]
            default:
                d.fields = [("plugin", jstring("nope")), ("method", jstring("login")), ("args", .null)]
            }
        case .hello: d.cmd = "hello"
        case .ping: d.cmd = "ping"
        case .plugins: d.cmd = "plugins"
        case .explain:
            d.cmd = "explain"
            if rng.chance(0.5) { d.fields = [("limit", jint(rng.int(in: 1...50)))] }
        case .stats: d.cmd = "stats"
        case .subscribe:
            d.cmd = "subscribe"
            if rng.chance(0.7) { d.fields.append(("events", rng.chance(0.4) ? jstrings(["*"]) : jstrings(rng.subset(Self.eventNames, 0.3)))) }
            if rng.chance(0.4) { d.fields.append(("controllers", rng.chance(0.3) ? .null : jstrings(rng.subset(Self.controllerNames, 0.5)))) }
        case .unsubscribe:
            d.cmd = "unsubscribe"
            if rng.chance(0.7) { d.fields.append(("events", rng.chance(0.3) ? jstrings(["*"]) : jstrings(rng.subset(Self.eventNames, 0.4)))) }
        case .reload:
            d.cmd = "reload"
            d.effect = .reload
        }
        return d
    }

    /// The names of every command the stream sends (besides the invalid ones).
    static var commandsSent: Set<String> {
        var g = RequestGenerator(seed: 1)
        // R15's: what compositeDraft sends over containers of every kind, drawn as the streams draw them.
        var r15 = RequestGenerator(seed: 2)
        r15.composites = ["nav-a": ("navigation", ["inbox"]), "nav-b": ("navigation", ["msg"]), "drawer": ("drawer", ["menu"]), "custom": ("custom", ["inbox"]),
                          "split": ("split", ["list", "detail"])]
        r15.splits = true
        let containers = Set((0..<2000).map { _ in r15.compositeDraft().cmd })
        return Set(Kind.allCases.map { g.draft($0, "main").cmd }).union(additionCommands).union(containers)
    }

    static let additionCommands: Set<String> = ["set_hidden", "reorder", "sidebar", "metrics", "config",
                                                // R13.12, R14: modernDraft's case 10.
                                                "set_expanded", "search", "set_enabled", "set_bar_hidden", "set_size_class",
                                                "set_compact_tabs", "set_mode", "edit.begin", "edit.end", "select_child"]

    /// Commands and fields PROTOCOL.md adds beyond docs/protocol.md (R13 and the rest): sent
    /// too, answered however tabd answers them — whatever they do must survive as well.
    mutating func additionDraft(_ c: String) -> Draft {
        var d = Draft(cmd: "", controller: c)
        switch rng.below(7) {
        case 0:
            d = draft(.setTabs, c)
            d.fields.append(("selected", rng.chance(0.5) ? jstring(tabID(c)) : jint(rng.below(6))))
            if case .setTabs(_, let nav) = d.effect { d.effect = .setTabs(c, navigation: nav) }
        case 1:
            d = draft(.create, c)
            d.fields.append(("tap_pops", jstring(rng.pick(["always", "reselect"]))))
            if rng.chance(0.5) { d.fields.append(("mode", jstring(rng.pick(["automatic", "tab_bar", "tab_sidebar"])))) }
        case 2:
            d.cmd = "set_hidden"
            d.fields = [("tab", jstring(tabID(c))), ("hidden", .bool(rng.chance(0.5)))]
        case 3:
            d.cmd = "reorder"
            d.fields = [("order", jstrings(rng.shuffled(model[c]?.tabs ?? [])))]
        case 4:
            d.cmd = "sidebar"
            d.fields = [("visible", .bool(rng.chance(0.5)))]
        case 5:
            // Read only, whatever they answer: metrics in either format, the configuration.
            switch rng.below(3) {
            case 0: d.cmd = "metrics"
            case 1: d.cmd = "metrics"; d.fields = [("format", jstring("prometheus"))]
            default: d.cmd = "config"
            }
        default:
            d = draft(.addTab, c)
            if case .object(var t)? = d.fields.first?.1 {
                t["subtitle"] = jstring("sub")
                t["placement"] = jstring(rng.pick(["automatic", "pinned", "optional"]))
                d.fields[0].1 = .object(t)
            }
        }
        return d
    }

    // MARK: R13: groups, hidden tabs, placement, reorder, mode and the sidebar

    static let childIDs = ["albums", "artists", "songs", "inbox", "sent", "drafts", "g1", "g2", "g3", "g4", "ü2", "c\"q", "n#1", "video-4k"]
    static let placements = ["automatic", "default", "optional", "movable", "pinned", "fixed", "sidebar_only"]

    /// A tab object with R13's fields: placement, hiding, a subtitle and, at times, children
    /// (groups nest down to depth 5 now and then: refused, groups nest at most 4 deep). Ids
    /// are mostly unique in the tree (a repeat is refused). Records the groups and the tabs
    /// that allow hiding.
    mutating func modernTab(id: String, depth: Int, used: inout Set<String>, groups: inout [String: [String]], hideable: inout [String]) -> JSONValue {
        guard case .object(var o) = tabValue(id: id).0 else { return .null }
        if rng.chance(0.35) { o["placement"] = jstring(rng.chance(0.98) ? rng.pick(Self.placements) : "floating") }
        if rng.chance(0.35) {
            let allows = rng.chance(0.85)
            o["allows_hiding"] = .bool(allows)
            if allows { hideable.append(id) }
        }
        if rng.chance(0.2) { o["hidden_by_default"] = .bool(rng.chance(0.6)) }
        if rng.chance(0.1) { o["hidden"] = .bool(rng.chance(0.5)) }
        if rng.chance(0.2) { o["subtitle"] = rng.chance(0.2) ? .null : jstring(rng.pick(Self.titles)) }
        guard depth < 5, rng.chance(depth == 1 ? 0.45 : 0.2) else { return .object(o) }
        var kids: [JSONValue] = [], ids: [String] = []
        for _ in 0..<rng.int(in: 0...4) {
            let cid = rng.pick(Self.childIDs)
            if !used.insert(cid).inserted, rng.chance(0.95) { continue }
            ids.append(cid)
            kids.append(modernTab(id: cid, depth: depth + 1, used: &used, groups: &groups, hideable: &hideable))
        }
        o["children"] = .array(kids)
        if rng.chance(0.4) { o["default_child"] = jstring(ids.isEmpty || rng.chance(0.1) ? "nowhere" : rng.pick(ids)) }
        if rng.chance(0.6) { o["allows_reordering"] = .bool(rng.chance(0.85)) }
        groups[id] = ids
        return .object(o)
    }

    /// A request of R13: a tree for set_tabs or add_tab, controller.create with a mode (mostly
    /// a pad), set_hidden, reorder of a group or of the bar, sidebar, select or tap of a nested tab.
    mutating func modernDraft(_ c: String) -> Draft {
        var d = Draft(cmd: "", controller: c)
        let m = model[c] ?? ControllerModel()
        var groups: [String: [String]] = [:], hideable: [String] = []
        switch rng.weighted([(5, 0), (2, 1), (2, 2), (4, 3), (3, 4), (3, 5), (2, 6), (3, 7), (2, 8), (3, 9), (r14Weight, 10)]) {
        case 10:
            // R13.12 and R14: every new command, on what exists (and now and then on what does not).
            let groups = m.groups.keys.sorted()
            switch rng.below(11) {
            case 0: d.cmd = "set_expanded"; d.fields = [("group", jstring(groups.isEmpty ? tabID(c) : rng.pick(groups))), ("expanded", .bool(rng.chance(0.5)))]
            case 1: d.cmd = "search"; d.fields = [("active", .bool(rng.chance(0.5)))]
            case 2: d.cmd = "set_enabled"; d.fields = [("tab", jstring(tabID(c))), ("enabled", .bool(rng.chance(0.5)))]
            case 3: d.cmd = "set_bar_hidden"; d.fields = [("hidden", .bool(rng.chance(0.5))), ("animated", .bool(rng.chance(0.5)))]
            case 4: d.cmd = "set_size_class"; d.fields = [("size_class", jstring(rng.pick(["regular", "compact"])))]
            case 5: d.cmd = "set_compact_tabs"; d.fields = [("tabs", rng.chance(0.3) ? .null : jstrings(rng.subset(m.tabs, 0.5)))]
            case 6: d.cmd = "set_mode"; d.fields = [("mode", jstring(rng.pick(["automatic", "tab_bar", "tab_sidebar"])))]
            case 7: d.cmd = rng.chance(0.6) ? "edit.begin" : "edit.end"
            case 8:
                let g = groups.isEmpty ? tabID(c) : rng.pick(groups)
                d.cmd = "select_child"; d.fields = [("group", jstring(g)), ("child", jstring(rng.pick((m.groups[g] ?? []) + [tabID(c)])))]
            case 9:
                // A search tab (a second one, or one in a group, is refused).
                d = draft(.addTab, c)
                d.fields[0].1 = .object(JSONObject([("id", jstring(rng.pick(["find", "search"]))), ("role", jstring("search")),
                                                    ("activates_search", .bool(rng.chance(0.6)))]))
                d.effect = .setTree(c, navigation: [], groups: [:], hideable: [], replacing: false)
            default:
                d = draft(.create, c)
                d.fields.removeAll { $0.0 == "idiom" }
                d.fields.append(("idiom", jstring("pad")))
                d.fields.append(("size_class", jstring(rng.pick(["regular", "compact"]))))
                if rng.chance(0.5) { d.fields.append(("compact_tabs", jstrings(rng.subset(Self.tabIDs, 0.3)))) }
            }
        case 8:
            // R13.8: add_tab into a group (or a tab that is not one: refused), at an index in it.
            d = draft(.addTab, c)
            var used = Set(m.tabs + m.nested)
            let id = rng.pick(Self.childIDs.filter { !used.contains($0) } + ["albums"])
            used.insert(id)
            d.fields[0].1 = modernTab(id: id, depth: 2, used: &used, groups: &groups, hideable: &hideable)
            let names = m.groups.keys.sorted()
            d.fields.append(("group", jstring(!names.isEmpty && rng.chance(0.85) ? rng.pick(names) : tabID(c))))
            if rng.chance(0.5) { d.fields.append(("index", jint(rng.below(4) - 1))) }
            d.effect = .setTree(c, navigation: [], groups: groups, hideable: hideable, replacing: false)
        case 9:
            // R13.8: update_tab of R13's fields, on any tab of the tree; new children by identity.
            d.cmd = "update_tab"
            let target = !m.nested.isEmpty && rng.chance(0.5) ? rng.pick(m.nested) : tabID(c)
            d.fields = [("tab", jstring(target))]
            if rng.chance(0.5) { d.fields.append(("hidden", .bool(rng.chance(0.5)))) }
            if rng.chance(0.3) { d.fields.append(("allows_hiding", .bool(rng.chance(0.7)))) }
            if rng.chance(0.3) { d.fields.append(("placement", jstring(rng.pick(Self.placements)))) }
            if rng.chance(0.3) { d.fields.append(("subtitle", rng.chance(0.2) ? .null : jstring(rng.pick(Self.titles)))) }
            if rng.chance(0.3) {
                var used = Set(m.tabs)
                var kids: [JSONValue] = []
                for id in rng.shuffled(m.nested + Self.childIDs).prefix(rng.int(in: 0...3)) where used.insert(id).inserted {
                    kids.append(modernTab(id: id, depth: 2, used: &used, groups: &groups, hideable: &hideable))
                }
                d.fields.append(("children", .array(kids)))
                groups[target] = kids.compactMap { if case .object(let o) = $0 { o.string("id") } else { nil } }
            }
            d.effect = .setTree(c, navigation: [], groups: groups, hideable: hideable, replacing: false)
        case 0:
            d.cmd = "set_tabs"
            var ids = Array(rng.shuffled(Self.tabIDs).prefix(rng.int(in: 1...7)))
            if rng.chance(0.7), !ids.contains("login") { ids.insert("login", at: rng.below(ids.count + 1)) }
            var used = Set(ids)
            let tabs = ids.map { modernTab(id: $0, depth: 1, used: &used, groups: &groups, hideable: &hideable) }
            d.fields = [("tabs", .array(tabs))]
            if rng.chance(0.2) { d.fields.append(("selected", jstring(rng.pick(ids + groups.values.flatMap { $0 })))) }
            d.effect = .setTree(c, navigation: [], groups: groups, hideable: hideable, replacing: true)
        case 1:
            d = draft(.addTab, c)
            let id = rng.pick(Self.tabIDs.filter { !m.tabs.contains($0) } + ["login"])
            var used = Set(m.tabs + m.nested)
            used.insert(id)
            d.fields[0].1 = modernTab(id: id, depth: 1, used: &used, groups: &groups, hideable: &hideable)
            d.effect = .setTree(c, navigation: [], groups: groups, hideable: hideable, replacing: false)
        case 2:
            d = draft(.create, c)
            d.fields.removeAll { $0.0 == "idiom" }
            d.fields.append(("idiom", jstring(rng.weighted([(6, "pad"), (2, "phone"), (1, "tv")]))))
            if rng.chance(0.8) { d.fields.append(("mode", jstring(rng.chance(0.97) ? rng.pick(["automatic", "tab_bar", "tab_sidebar"]) : "sidebar"))) }
        case 3:
            d.cmd = "set_hidden"
            d.fields = [("tab", jstring(!m.hideable.isEmpty && rng.chance(0.75) ? rng.pick(m.hideable) : tabID(c))), ("hidden", .bool(rng.chance(0.55)))]
        case 4:
            d.cmd = "reorder"
            let names = m.groups.keys.sorted()
            let group = !names.isEmpty && rng.chance(0.85) ? rng.pick(names) : tabID(c)
            var order = rng.shuffled(m.groups[group] ?? [])
            if rng.chance(0.1), !order.isEmpty { order.removeLast() }  // not a permutation: refused
            d.fields = [("group", jstring(group)), ("order", jstrings(order))]
        case 5:
            d.cmd = "reorder"
            // The bar: roots the user wants between the fixed and pinned ones (a fixed, pinned
            // or hidden one named, or a movable one left out, is refused).
            var order = rng.shuffled(rng.subset(m.tabs, 0.7))
            if rng.chance(0.15), !m.nested.isEmpty { order.append(rng.pick(m.nested)) }
            d.fields = rng.chance(0.3) ? [("group", .null), ("order", jstrings(order))] : [("order", jstrings(order))]
        case 6:
            d.cmd = "sidebar"
            d.fields = [("visible", .bool(rng.chance(0.5)))]
        default:
            d.cmd = rng.chance(0.6) ? "select" : "tap"
            d.fields = [("tab", jstring(!m.nested.isEmpty && rng.chance(0.8) ? rng.pick(m.nested) : tabID(c)))]
        }
        return d
    }

    /// The line of a draft: `cmd`, then (when not implied) `controller`, then the fields;
    /// sometimes an `id` and sometimes the members in another order.
    mutating func assemble(_ d: Draft) -> String {
        var pairs: [(String, JSONValue)] = [("cmd", .string(d.cmd))]
        if d.controller != "main" || d.explicitController || rng.chance(0.3) { pairs.append(("controller", .string(d.controller))) }
        pairs += d.fields
        if rng.chance(0.15) {
            let id: JSONValue = rng.pick([jint(rng.below(1000)), jstring("req-\(rng.below(100))"), .null, .bool(true), .double(1.5)])
            pairs.append(("id", id))
        }
        if rng.chance(0.1) { pairs = rng.shuffled(pairs) }
        return JSONValue.object(JSONObject(pairs)).jsonString
    }

    // MARK: Requests that are wrong whatever the state

    static let unknownCommands = ["fly", "SELECT", "Select", "select ", "tabs.set", "controller.rename", "_journal", "_set_selection", "_snapshot"]
    static let malformed = [
        "not json", "{", "}", "{\"cmd\":\"ping\"", "{\"cmd\":\"ping\"}}", "[1,2]", "\"ping\"", "42", "null", "true",
        "{\"cmd\":\"select\",\"tab\":\"a\",}", "{'cmd':'ping'}", "{\"cmd\":\"ping\",\"cmd\":\"state\"}",
        "{\"cmd\":\"set_tabs\",\"tabs\":[{\"id\":\"a\"}]", "{\"cmd\":\"select\",\"tab\":\"a\"}garbage", "{\"cmd\":select}",
        "{\"cmd\":\"ping\",\"x\":" + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}",
        "{\"cmd\":\"badge\",\"tab\":\"a\",\"value\":\"\\x\"}", "{\"cmd\":\"layout\",\"width\":01,\"height\":2}",
    ]
    static let incomplete = [
        #"{"cmd":"remove_tab"}"#, #"{"cmd":"badge","tab":"home"}"#, #"{"cmd":"push","tab":"home"}"#,
        #"{"cmd":"push","tab":"home","screen":{"title":"no id"}}"#, #"{"cmd":"customize.move","tab":"home"}"#,
        #"{"cmd":"rotate"}"#, #"{"cmd":"rotate","orientation":"sideways"}"#, #"{"cmd":"layout","width":3}"#,
        #"{"cmd":"layout","width":"3","height":3}"#, #"{"cmd":"restore"}"#, #"{"cmd":"restore","archive":{"stacks":[]}}"#,
        #"{"cmd":"set_tabs"}"#, #"{"cmd":"set_tabs","tabs":[{"title":"no id"}]}"#, #"{"cmd":"add_tab"}"#,
        #"{"cmd":"add_tab","tab":{"id":"x","item":{"tag":1.5}}}"#, #"{"cmd":"select"}"#, #"{"cmd":"tap"}"#,
        #"{"cmd":"customizable"}"#, #"{"cmd":"controller.create","idiom":"watch"}"#, #"{"cmd":"controller.create"}"#,
        #"{"cmd":"controller.delete"}"#, #"{"cmd":"plugin.call","plugin":"login-gate"}"#, #"{"cmd":"update_tab"}"#,
        #"{"cmd":"select","tab":"home","index":0}"#, #"{"cmd":"select","more":false}"#, #"{"cmd":"tap","index":0}"#,
        #"{"cmd":"tap","tab":"home","more":true}"#, #"{"cmd":"ping","id":[1]}"#, #"{"cmd":"ping","id":{"a":1}}"#,
        #"{"cmd":"explain","limit":0}"#, #"{"cmd":"subscribe","events":["nope"]}"#,
        #"{"cmd":"set_tabs","tabs":[{"id":"x","orientations":["up"]}]}"#, #"{"id":1}"#,
        // R13
        #"{"cmd":"set_hidden","tab":"home"}"#, #"{"cmd":"set_hidden","tab":"home","hidden":1}"#, #"{"cmd":"reorder","group":"g"}"#,
        #"{"cmd":"reorder","order":"home"}"#, #"{"cmd":"sidebar"}"#, #"{"cmd":"sidebar","visible":null}"#,
        #"{"cmd":"set_tabs","tabs":[{"id":"g","children":[{"id":"x","colour":1}]}]}"#,
        #"{"cmd":"set_tabs","tabs":[{"id":"x","placement":"floating"}]}"#, #"{"cmd":"set_tabs","tabs":[{"id":"g","children":{}}]}"#,
        #"{"cmd":"add_tab","tab":{"id":"g","children":[{"id":"x","hidden":"yes"}]}}"#, #"{"cmd":"controller.create","mode":"sidebar"}"#,
    ]

    /// A request that no state accepts, with the error code it must get.
    mutating func invalidRequest(_ c: String) -> LawRequest {
        let documented = Kind.allCases.filter { $0 != .reload }
        switch rng.below(20) {
        case 0..<5:
            // An unknown field on a request that would decode: invalid_request, and nothing changes.
            var d = draft(rng.pick(documented), c)
            d.fields.append((rng.pick(["colour", "tabz", "Tab", "_x", "CMD"]), rng.pick([jstring("red"), jint(1), .null, .bool(true)])))
            return LawRequest(line: assemble(d), expect: .error("invalid_request"))
        case 5..<9:
            // A field of the wrong type.
            var d = draft(rng.pick(documented), c)
            var keys = d.fields.map(\.0).filter { $0 != "args" }
            keys.append("controller")
            let key = rng.pick(keys)
            if key == "controller" {
                d.fields.append(("controller", rng.pick([jint(7), jstrings(["main"]), .bool(true)])))
                d.controller = "main"
                d.explicitController = false
                return LawRequest(line: JSONValue.object(JSONObject([("cmd", jstring(d.cmd))] + d.fields)).jsonString, expect: .error("invalid_request"))
            }
            let i = d.fields.firstIndex { $0.0 == key }!
            if case .object = d.fields[i].1 {
                d.fields[i].1 = rng.pick([jint(5), jstring("x"), .array([])])
            } else {
                // Not `{}`: that is a whole (empty) item where an item may be null.
                d.fields[i].1 = rng.pick([jobject([("x", jint(1))]), jobject([("id", jint(1))])])
            }
            return LawRequest(line: assemble(d), expect: .error("invalid_request"))
        case 9..<12:
            // `_set_orientation` is a journal record, not a command: clients get unknown_command.
            var d = Draft(cmd: "_set_orientation", controller: c)
            d.fields = [("orientation", jstring(rng.pick(Self.orientations)))]
            return LawRequest(line: assemble(d), expect: .error("unknown_command"))
        case 12..<14:
            var d = draft(rng.pick(documented), c)
            d.cmd = rng.pick(Self.unknownCommands)
            return LawRequest(line: assemble(d), expect: .error("unknown_command"))
        case 14..<17:
            return LawRequest(line: rng.pick(Self.malformed), expect: .error("parse_error"))
        case 17 where rng.chance(0.3):
            return LawRequest(line: rng.pick(Self.negativeSizes), expect: .error("out_of_range"))
        default:
            var line = rng.pick(Self.incomplete)
            // Another controller (not for controller.create/delete: with a name those are whole).
            if c != "main", rng.chance(0.5), line.hasPrefix("{\"cmd\""), !line.contains("controller.") {
                line = "{\"controller\":" + jstring(c).jsonString + "," + line.dropFirst()
            }
            return LawRequest(line: line, expect: .error("invalid_request"))
        }
    }

    /// R10.1: sizes no state accepts.
    static let negativeSizes = [#"{"cmd":"layout","width":-1,"height":3}"#, #"{"cmd":"layout","width":3,"height":3,"status_bar":-0.5}"#]

    // MARK: The stream

    /// The next request: mostly a documented command, sometimes one that must be refused,
    /// rarely one of PROTOCOL.md's additions.
    mutating func next() -> LawRequest {
        if model["main"] == nil, rng.chance(0.3) {
            var d = draft(.create, "main")
            d.controller = "main"
            d.effect = .create("main")
            return LawRequest(line: assemble(d), effect: d.effect)
        }
        let c = controllerName()
        switch rng.below(100) {
        case 0..<9:
            return invalidRequest(c)
        case 9..<11:
            let d = additionDraft(c)
            return LawRequest(line: assemble(d), effect: d.effect)
        case 18..<26:
            // R15's containers: 8 of every 100, from the documented commands' share.
            let d = compositeDraft()
            return LawRequest(line: assemble(d), effect: d.effect)
        case 12..<18:
            // R13's requests: 6 of every 100, taken from the documented commands' share (89 →
            // 83). No expectation counts on the mix (the summary line only prints it); the
            // documented commands still meet R13's controllers, where some are refused as R13
            // says (customize.begin: not_available).
            let d = modernDraft(c)
            return LawRequest(line: assemble(d), effect: d.effect)
        case 11:
            // Strings written with JSON escapes (surrogate pairs, NUL, U+2028), as a client may.
            let target = c == "main" ? "" : #""controller":\#(jstring(c).jsonString),"#
            let line = rng.pick([
                #"{\#(target)"cmd":"add_tab","tab":{"id":"\u00e9t\u00e9","title":"\ud83c\udfb5 \u2028 \u0000 \/","item":{"badge":"\u0007","image":"a\\b"}}}"#,
                #"{\#(target)"cmd":"update_tab","tab":"\u0068ome","title":"\u0000","restoration_id":"\u0023\u005c"}"#,
                #"{\#(target)"cmd":"badge","tab":"\u006cogin","value":"\ud83d\udd25\r\n"}"#,
                #"{\#(target)"cmd":"select","tab":"\u006cogin"}"#,
                #"{\#(target)"cmd":"push","tab":"h\u006fme","screen":{"id":"\u0000","title":"\b\f"}}"#,
            ])
            return LawRequest(line: line)
        default:
            let d = draft(rng.weighted(weights(c)), c)
            return LawRequest(line: assemble(d), effect: d.effect)
        }
    }

    // MARK: What the replies say

    mutating func observe(_ effect: LawEffect, reply: JSONObject) {
        guard reply.bool("ok") == true, let result = reply.object("result") else { return }
        switch effect {
        case .none:
            break
        case .create(let name):
            var m = ControllerModel()
            m.idiom = result.string("idiom") ?? "phone"
            m.maxVisible = result.int("max_visible") ?? 5
            model[name] = m
        case .delete(let name):
            model[name] = nil
            composites[name] = nil
        case .setTabs(let name, let navigation):
            model[name, default: ControllerModel()].tabs = result.strings("tabs") ?? []
            model[name]!.navigation = navigation
            model[name]!.restorationIDs = [:]
            model[name]!.groups = [:]
            model[name]!.hideable = []
        case .setTree(let name, let navigation, let groups, let hideable, let replacing):
            var m = model[name] ?? ControllerModel()
            m.tabs = result.strings("tabs") ?? []
            if replacing { m.navigation = navigation; m.restorationIDs = [:]; m.groups = [:]; m.hideable = [] }
            m.groups.merge(groups) { $1 }
            m.hideable += hideable
            model[name] = m
        case .addTab(let name, let id, let navigation):
            model[name, default: ControllerModel()].tabs = result.strings("tabs") ?? []
            if navigation { model[name]!.navigation.insert(id) }
        case .tabs(let name):
            model[name, default: ControllerModel()].tabs = result.strings("tabs") ?? []
        case .customizeBegin(let name):
            model[name]?.customizing = true
        case .customizeEnd(let name):
            model[name]?.customizing = false
            if let tabs = result.strings("tabs") { model[name]?.tabs = tabs }
        case .login(let name):
            model[name]?.loggedIn = true
        case .logout(let name):
            model[name]?.loggedIn = false
        case .reload:
            for name in model.keys { model[name]!.loggedIn = false }
        case .state(let name):
            refresh(name, from: result)
        case .preserve(let name):
            if let archive = result["archive"] {
                model[name]?.archives.append(archive)
                if (model[name]?.archives.count ?? 0) > 4 { model[name]!.archives.removeFirst() }
            }
        case .createComposite(let name):
            composites[name] = (result.string("kind") ?? "custom", childIDs(of: result))
        case .composite(let name):
            let ids = childIDs(of: result)
            if composites[name] != nil, !ids.isEmpty { composites[name]!.children = ids }
        case .controllers:
            guard case .array(let list)? = result["controllers"] else { return }
            var seen = Set<String>()
            for case .object(let o) in list {
                guard let name = o.string("name") else { continue }
                if let kind = o.string("kind") {
                    // R15: not a tab controller; kept apart from the tab controllers' model.
                    if composites[name] == nil { composites[name] = (kind, []) }
                    continue
                }
                seen.insert(name)
                if model[name] == nil {
                    var m = ControllerModel()
                    m.idiom = o.string("idiom") ?? "phone"
                    m.maxVisible = o.int("max_visible") ?? 5
                    model[name] = m
                }
            }
            for name in model.keys where !seen.contains(name) { model[name] = nil }
            let listed = Set(list.compactMap { v -> String? in if case .object(let o) = v { o.string("name") } else { nil } })
            for name in composites.keys where !listed.contains(name) { composites[name] = nil }
        }
    }

    // MARK: R15: navigation, drawer and custom controllers

    static let compositeNames = ["nav-a", "nav-b", "drawer", "custom"]
    static let childScreenIDs = ["inbox", "msg", "menu", "tools", "x\"y", "ü"]

    /// The ids of the child objects a composite's `state` or create reply shows.
    func childIDs(of result: JSONObject) -> [String] {
        var ids: [String] = []
        for key in ["stack", "children"] {
            guard case .array(let list)? = result[key] else { continue }
            for v in list {
                if case .object(let o) = v, let id = o.string("id") { ids.append(id) }
                if case .string(let id) = v { ids.append(id) }  // a command's reply lists ids
            }
        }
        for key in ["center", "left", "right"] { if case .object(let o)? = result[key], let id = o.string("id") { ids.append(id) } }
        // A split's columns: child objects in `state`, ids in its commands' replies.
        if case .object(let columns)? = result["columns"] {
            for key in ["primary", "supplementary", "secondary", "compact"] {
                if case .object(let o)? = columns[key], let id = o.string("id") { ids.append(id) }
                if case .string(let id)? = columns[key] { ids.append(id) }
            }
        }
        return ids
    }

    /// A child object: a screen mostly, now and then another of the pool's containers
    /// (attaching: accepted or refused as R15.3 says).
    mutating func childValue(holder: String? = nil) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("id", jstring(rng.pick(Self.childScreenIDs)))]
        if rng.chance(0.3) { pairs.append(("title", jstring(rng.pick(Self.titles)))) }
        if rng.chance(0.2) { pairs.append(("restoration_id", jstring(rng.pick(Self.restorationIDs)))) }
        // Mostly a container that exists (attaching it may succeed), now and then any name.
        let known = composites.keys.sorted().filter { $0 != holder }
        // R15.3, R15.10: now and then a tab controller (attached if it left its window: it
        // then takes the root's environment).
        let tabControllers = model.keys.sorted().filter { $0 != "main" }
        if !tabControllers.isEmpty, rng.chance(0.08) {
            pairs.append(("controller", jstring(rng.pick(tabControllers))))
        } else if !known.isEmpty, rng.chance(0.3) {
            pairs.append(("controller", jstring(rng.pick(known))))
        } else if rng.chance(0.1) {
            pairs.append(("controller", jstring(rng.pick(Self.compositeNames + ["main"]))))
        }
        return jobject(pairs)
    }

    mutating func children(_ n: Int) -> JSONValue { .array((0..<n).map { _ in childValue() }) }

    static let gestures = ["pan_navigation_bar", "pan_center", "bezel_pan_center", "custom", "tap_navigation_bar", "tap_center", "pan_drawer", "button"]

    /// A request of R15: a container's creation, or a command of its kind (or another's:
    /// not_available), with random children and gestures.
    /// How a container's request starts: mostly a command of the container the replies said
    /// exists (its kind and children), else its deletion, else its creation (the caller adds
    /// the kind's fields).
    enum CompositeStart {
        case command(Draft, known: (kind: String, children: [String]))
        case delete(Draft)
        case create(Draft)
    }

    mutating func compositeStart(_ name: String) -> CompositeStart {
        var d = Draft(cmd: "", controller: name)
        d.explicitController = true
        if let known = composites[name], rng.chance(0.93) { return .command(d, known: known) }
        if composites[name] != nil, rng.chance(0.4) {
            d.cmd = "controller.delete"
            d.effect = .delete(name)
            return .delete(d)
        }
        d.cmd = "controller.create"
        d.effect = .createComposite(name)
        return .create(d)
    }

    mutating func compositeDraft() -> Draft {
        if rng.chance(0.12) { return tabContentDraft() }
        if rng.chance(0.05), let t = model.keys.sorted().filter({ $0 != "main" }).first(where: { _ in rng.chance(0.5) }) {
            // R15.4: a tab controller out of its window (then attachable) and back.
            return Draft(cmd: "set_window", controller: t, fields: [("window", .bool(rng.chance(0.6) ? false : true))], effect: .state(t))
        }
        if splits, rng.chance(0.3) { return splitDraft() }
        let name = rng.pick(Self.compositeNames)
        var d: Draft
        let known: (kind: String, children: [String])
        switch compositeStart(name) {
        case .delete(let x): return x
        case .command(let x, let k): d = x; known = k
        case .create(let x):
            d = x
            let kind = name.hasPrefix("nav") ? "navigation" : name == "drawer" ? "drawer" : "custom"
            d.fields = [("kind", jstring(kind))]
            if rng.chance(kind == "drawer" ? 0.5 : 0.15) { d.fields.append(("window", .bool(true))) }
            switch kind {
            case "navigation": d.fields.append(("stack", children(rng.int(in: 1...3))))
            case "drawer":
                d.fields.append(("center", childValue(holder: name)))
                if rng.chance(0.8) { d.fields.append(("left", childValue())) }
                if rng.chance(0.4) { d.fields.append(("right", childValue())) }
                if rng.chance(0.5) { d.fields.append(("open_gestures", jstrings(rng.subset(["pan_center", "bezel_pan_center", "button"], 0.5)))) }
                if rng.chance(0.5) { d.fields.append(("close_gestures", jstrings(rng.subset(Self.gestures, 0.4)))) }
                if rng.chance(0.3) { d.fields.append(("center_interaction", jstring(rng.pick(["navigation_bar_only", "full", "none"])))) }
            default:
                d.fields.append(("children", .array((0..<rng.below(4)).map { _ in childValue(holder: name) })))
                if rng.chance(0.6) { d.fields.append(("shown", jstrings(rng.subset(Self.childScreenIDs, 0.4)))) }
            }
            return d
        }
        let held = known.children.isEmpty ? Self.childScreenIDs : known.children
        if rng.chance(0.08) {
            d.cmd = "set_window"
            d.fields = [("window", .bool(rng.chance(0.5)))]
            return d
        }
        if rng.chance(0.06) {
            d.cmd = "state"
            d.effect = .composite(name)
            return d
        }
        switch known.kind {
        case "navigation":
            switch rng.below(6) {
            case 0, 1: d.cmd = "push"; d.fields = [("screen", childValue())]
            case 2: d.cmd = "pop"; if rng.chance(0.5) { d.fields = [("user", .bool(true))] }
            case 3: d.cmd = "pop_to"; d.fields = [("screen", jstring(rng.pick(held)))]
            case 4: d.cmd = "pop_to_root"
            default: d.cmd = "set_stack"; d.fields = [("stack", children(rng.int(in: 1...3)))]
            }
        case "drawer":
            switch rng.below(8) {
            case 7:
                // A setting that differs from the last (config_changed): the close gestures, drawn anew.
                d.cmd = "configure"; d.fields = [("close_gestures", jstrings(rng.subset(Self.gestures, 0.5)))]
            case 0, 1: d.cmd = "open_drawer"; d.fields = [("side", jstring(rng.pick(["left", "right"])))]
            case 2: d.cmd = "close_drawer"
            case 3: d.cmd = "toggle_drawer"; d.fields = [("side", jstring(rng.pick(["left", "right"])))]
            case 4: d.cmd = "set_center"; d.fields = [("child", childValue(holder: name))]; if rng.chance(0.5) { d.fields.append(("close_drawer", .bool(true))) }
            case 5: d.cmd = "set_drawer"; d.fields = [("side", jstring(rng.pick(["left", "right"]))), ("child", rng.chance(0.3) ? .null : childValue())]
            default: d.cmd = "configure"; d.fields = [("center_interaction", jstring(rng.pick(["navigation_bar_only", "full", "none"]))), ("open_gestures", jstrings(rng.subset(["pan_center", "button"], 0.6)))]
            }
            if ["open_drawer", "close_drawer", "toggle_drawer"].contains(d.cmd), rng.chance(0.5) { d.fields.append(("gesture", jstring(rng.pick(Self.gestures)))) }
        default:
            switch rng.below(4) {
            case 0: d.cmd = "set_children"; d.fields = [("children", children(rng.below(4)))]
            case 1: d.cmd = "set_shown"; d.fields = [("shown", jstrings(rng.subset(held, 0.5)))]
            case 2: d.cmd = "transition"; d.fields = [("from", jstring(rng.pick(held))), ("to", childValue())]
            default:
                d.cmd = "configure"
                d.fields = [("status_bar_child", known.children.isEmpty || rng.chance(0.3) ? .null : jstring(rng.pick(known.children)))]
            }
        }
        d.effect = .composite(name)
        return d
    }

    static let splitColumns = ["primary", "supplementary", "secondary", "compact"]
    static let displayModes = ["automatic", "secondary_only", "one_beside", "one_over", "two_beside", "two_over", "two_displace"]

    /// A child object for a split's column: mostly a screen of its own (a column's ids must
    /// differ), else childValue's (another container: attached or refused).
    mutating func columnValue(_ id: String) -> JSONValue {
        rng.chance(0.8) ? jobject([("id", jstring(id + (rng.chance(0.3) ? "-\(rng.below(3))" : "")))]) : childValue(holder: "split")
    }

    /// A request of a split view controller (R15.15–R15.23): its creation (a pad or a phone,
    /// double or triple, a window's root or to attach), its commands, its configuration and,
    /// as a root, its environment (set_size_class collapses and expands it, rotate derives its
    /// mode); the commands of another kind now and then (not_available).
    mutating func splitDraft() -> Draft {
        let name = "split"
        var d: Draft
        let known: (kind: String, children: [String])
        switch compositeStart(name) {
        case .delete(let x): return x
        case .command(let x, let k): d = x; known = k
        case .create(let x):
            d = x
            let triple = rng.chance(0.35)
            d.fields = [("kind", jstring("split")), ("style", jstring(triple ? "triple" : "double"))]
            d.fields.append(("idiom", jstring(rng.chance(0.7) ? "pad" : "phone")))
            if rng.chance(0.6) { d.fields.append(("window", .bool(true))) }
            d.fields.append(("primary", columnValue("list")))
            if triple || rng.chance(0.05) { d.fields.append(("supplementary", columnValue("sup"))) }
            d.fields.append(("secondary", columnValue("detail")))
            if rng.chance(0.25) { d.fields.append(("compact", columnValue("compact"))) }
            if rng.chance(0.3) { d.fields.append(("preferred_display_mode", jstring(rng.pick(Self.displayModes)))) }
            if rng.chance(0.3) { d.fields.append(("preferred_split_behavior", jstring(rng.pick(["automatic", "tile", "overlay", "displace"])))) }
            if rng.chance(0.2) { d.fields.append(("presents_with_gesture", .bool(false))) }
            return d
        }
        let held = known.children.isEmpty ? ["list", "detail"] : known.children
        switch rng.below(20) {
        case 0, 1, 2:
            d.cmd = "set_column"
            let column = rng.pick(Self.splitColumns)
            d.fields = [("column", jstring(column)), ("child", column == "compact" && rng.chance(0.4) ? .null : columnValue(rng.pick(["list", "detail", "sup", "compact", "other"])))]
        case 3, 4, 5, 6:
            d.cmd = "show_column"
            d.fields = [("column", jstring(rng.pick(Self.splitColumns + ["primary", "secondary"])))]
            if rng.chance(0.3) { d.fields.append(("user", .bool(true))) }
        case 7, 8, 9:
            d.cmd = "hide_column"
            d.fields = [("column", jstring(rng.pick(Self.splitColumns + ["primary", "supplementary"])))]
            if rng.chance(0.3) { d.fields.append(("user", .bool(true))) }
        case 10, 11:
            d.cmd = "show_detail"
            d.fields = [("child", rng.chance(0.2) ? jobject([("id", jstring(rng.pick(held)))]) : columnValue(rng.pick(["detail", "other", "more"])))]
        case 12, 13:
            d.cmd = "configure"
            switch rng.below(3) {
            case 0: d.fields = [("preferred_display_mode", jstring(rng.pick(Self.displayModes)))]
            case 1: d.fields = [("preferred_split_behavior", jstring(rng.pick(["automatic", "tile", "overlay", "displace"])))]
            default: d.fields = [("presents_with_gesture", .bool(rng.chance(0.5)))]
            }
        case 14, 15:
            d.cmd = "set_size_class"
            d.fields = [("size_class", jstring(rng.pick(["compact", "regular"])))]
        case 16:
            d.cmd = "rotate"
            d.fields = [("orientation", jstring(rng.pick(Self.orientations)))]
        case 17:
            d.cmd = "set_window"
            d.fields = [("window", .bool(rng.chance(0.5)))]
        case 18:
            d.cmd = "state"
        default:
            // Another kind's command: not_available.
            d.cmd = rng.pick(["push", "open_drawer", "set_shown"])
            d.fields = d.cmd == "push" ? [("screen", childValue())] : d.cmd == "open_drawer" ? [("side", jstring("left"))] : [("shown", jstrings([]))]
        }
        d.effect = .composite(name)
        return d
    }

    /// R15.2, R15.14: a tab of `main` whose content is one of the pool's containers (attached
    /// as R15.3 allows, else refused), changed, moved to another tab, removed, selected,
    /// tapped (popping a content navigation controller), and a stack command on it
    /// (not_available).
    mutating func tabContentDraft() -> Draft {
        var d = Draft(cmd: "", controller: "main")
        let content = rng.pick(composites.keys.sorted() + ["main", "nav9"])
        let id = rng.pick(["inbox", "feed", "x1"])
        switch rng.below(8) {
        case 0, 1:
            d.cmd = "add_tab"
            d.fields = [("tab", jobject([("id", jstring(id)), ("controller", jstring(content))]))]
            d.effect = .tabs("main")
        case 2:
            d.cmd = "update_tab"
            d.fields = [("tab", jstring(id)), ("content_controller", rng.chance(0.3) ? .null : jstring(content))]
        case 3:
            d.cmd = "remove_tab"
            d.fields = [("tab", jstring(id))]
            d.effect = .tabs("main")
        case 4: d.cmd = "select"; d.fields = [("tab", jstring(id))]
        case 5: d.cmd = "tap"; d.fields = [("tab", jstring(id))]
        case 6:
            // R15.2, R15.4: the content of one tab (if `content` is one) moved to another.
            let other = rng.pick(["inbox", "feed", "x1"].filter { $0 != id })
            d.cmd = "set_tabs"
            d.fields = [("tabs", .array([jobject([("id", jstring(other)), ("controller", jstring(content))]), jobject([("id", jstring(id))])]))]
            d.effect = .tabs("main")
        default: d.cmd = "push"; d.fields = [("tab", jstring(id)), ("screen", jobject([("id", jstring("s1"))]))]
        }
        return d
    }

    /// Everything the generator believes about a controller, put right from its `state`.
    mutating func refresh(_ name: String, from state: JSONObject) {
        var m = model[name] ?? ControllerModel()
        m.idiom = state.string("idiom") ?? m.idiom
        m.maxVisible = state.int("max_visible") ?? m.maxVisible
        m.tabs = []
        m.navigation = []
        m.restorationIDs = [:]
        m.reportedTabs = []
        m.groups = [:]
        m.hideable = []
        /// R13: the groups below the roots, and every tab that allows hiding.
        func visit(_ t: JSONObject) {
            guard let id = t.string("id") else { return }
            if t.bool("allows_hiding") == true { m.hideable.append(id) }
            guard case .array(let kids)? = t["children"] else { return }
            m.groups[id] = []
            for case .object(let k) in kids {
                if let kid = k.string("id") { m.groups[id]!.append(kid) }
                visit(k)
            }
        }
        if case .array(let tabs)? = state["tabs"] {
            for case .object(let t) in tabs {
                guard let id = t.string("id") else { continue }
                m.tabs.append(id)
                if t.bool("navigation") == true { m.navigation.insert(id) }
                if let rid = t.string("restoration_id") { m.restorationIDs[id] = rid }
                m.reportedTabs.append(.object(t))
                visit(t)
            }
        }
        m.customizing = state.bool("customizing") ?? false
        model[name] = m
    }
}

// MARK: - One seed against a real tabd

/// A failure of the law (or of a request's expected error), with what identifies it when the
/// requests are cut down: the same signature is the same failure.
struct LawFailure: Error, CustomStringConvertible {
    enum Kind { case mismatch, startFailed, crash, stopStatus, expectation, events }
    var kind: Kind
    var signature: String
    var description: String
}

/// What `controllers` and every controller's `state` answered: the raw reply lines.
struct RecordedState {
    var controllers: String
    var states: [(name: String, line: String)]
}

/// One step of a run as it can be replayed: a request line, or a restart.
enum LawEntry {
    case line(String)
    case restart(Int32)

    var text: String {
        switch self {
        case .line(let l): return l
        case .restart(let s): return "<restart by \(s == SIGKILL ? "SIGKILL" : "SIGTERM")>"
        }
    }
}

final class RestartLawRun {
    let settings: LawSettings
    let dir: String
    let tabd: TabdProcess
    var client: LineClient
    var generator: RequestGenerator
    /// The last requests and what they got, for failure messages.
    var recent: [String] = []
    /// Every request line and restart, for cutting a failure down.
    var entries: [LawEntry] = []
    var step = 0
    var restarts = 0
    var nextSignal: Int32
    /// Replies by outcome, for the summary: accepted, accepted with `"changed": true`, refused by code.
    var accepted = 0
    var changed = 0
    var refusals: [String: Int] = [:]
    var eventFailures: [String: LawFailure] = [:]
    /// A request generated for a batch it could not join: the first of the next one.
    var carried: LawRequest?
    /// Expected errors that did not come, once each (they repeat).
    var expectationFailures: [String: LawFailure] = [:]

    /// R11.4: a connection subscribed to every event of every controller, whose `seq`s are
    /// checked (nil when the run does not watch events).
    var watcher: LineClient?
    let watchesEvents: Bool
    /// Per controller name, the last event seq the watcher saw, in the life of the state directory.
    var lastEventSeq: [String: Int] = [:]
    /// Names whose next event is the first since a restart (its seq need only be higher).
    var restartedSince: Set<String> = []
    /// Names deleted (and perhaps created again) since their last event: the same.
    var deletedSince: Set<String> = []
    var drains = 0
    /// How many restarts met each kind of state (to see that the stream reaches them).
    var coverage: [String: Int] = [:]

    init(settings: LawSettings, watchesEvents: Bool = false) throws {
        self.settings = settings
        self.watchesEvents = watchesEvents
        dir = temporaryDirectory("law")
        let credentials = try Plugins.credentials(in: dir)
        tabd = try TabdProcess(config: settings.config(credentials: credentials), dir: dir)
        client = try tabd.client()
        generator = RequestGenerator(seed: settings.seed)
        generator.splits = true  // R15.15–R15.23: the restart law drives split view controllers too
        nextSignal = settings.seed & 4 == 0 ? SIGTERM : SIGKILL
        if watchesEvents { try openWatcher() }
    }

    func openWatcher() throws {
        let w = try tabd.client()
        let line = #"{"cmd":"subscribe","events":["*"],"controllers":null}"#
        try w.write(line + "\n")
        _ = try reply(from: w, to: line)
        watcher = w
    }

    /// An event numbering fault, once per kind (it repeats); the run goes on.
    func noteEventFailure(_ failure: LawFailure) {
        if eventFailures[failure.signature] == nil { eventFailures[failure.signature] = failure }
    }

    /// Reads what the watcher was sent so far (a ping's reply comes after every event queued
    /// before it) and checks each event's seq: one more than the last for its controller, or,
    /// first after a restart, at least higher — a seq never repeats for a name (R11.4).
    func drainWatcher() throws {
        guard let w = watcher else { return }
        drains += 1
        let id = "drain-\(drains)"
        try w.write(#"{"cmd":"ping","id":"\#(id)"}"# + "\n")
        while true {
            guard let raw = try w.readLine() else { throw TestFailure("the event watcher's connection closed") }
            let o = try object(raw)
            if o["ok"] != nil {
                if o.string("id") == id { break }
                continue
            }
            guard let c = o.string("controller"), let n = o.int("seq") else {
                throw LawFailure(kind: .events, signature: "an event without controller or seq", description: "\(prefix): an event without controller or seq: \(raw)")
            }
            if let last = lastEventSeq[c] {
                if deletedSince.contains(c) {
                    if n <= last {
                        noteEventFailure(LawFailure(kind: .events, signature: "event seq repeats after deleting and re-creating a controller",
                                         description: "\(prefix): controller '\(c)', deleted and created again, numbered an event \(n), but the events of that name were numbered up to \(last) before: a seq must never repeat for a name in the life of a state directory, across deleting and re-creating (SEMANTICS R11.4)\n\(raw)\n\(recentText)"))
                    }
                } else if restartedSince.contains(c) {
                    if n != last + 1 {
                        noteEventFailure(LawFailure(kind: .events, signature: "event seq does not continue after a restart",
                                         description: "\(prefix): controller '\(c)' numbered an event \(n) after the restart, but its events were numbered up to \(last) before it: numbering continues across restarts, one more than the last (SEMANTICS R11.4)\n\(raw)\n\(recentText)"))
                    }
                } else if n != last + 1 {
                    noteEventFailure(LawFailure(kind: .events, signature: "event seq not one more than the last",
                                     description: "\(prefix): controller '\(c)' numbered an event \(n) after \(last) (seq grows by one per controller for every event)\n\(raw)\n\(recentText)"))
                }
            }
            lastEventSeq[c] = n
            restartedSince.remove(c)
            // The last event of a deleted controller: a controller created again with that name
            // numbers its events above it, not necessarily one more.
            if o.string("event") == "controller_deleted" { deletedSince.insert(c) } else { deletedSince.remove(c) }
        }
    }

    var prefix: String { "restart law, \(settings.summary), step \(step)" }

    var recentText: String {
        "the last \(recent.count) requests (→ sent, ← reply):\n" + recent.joined(separator: "\n")
    }

    func logTail(_ lines: Int = 15) -> String {
        tabd.log.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// Runs `steps` requests with restarts between; the first failure of the law ends it.
    func run(steps: Int) -> [LawFailure] {
        do {
            var untilRestart = generator.rng.int(in: 15...80)
            while step < steps {
                try perform()
                untilRestart -= 1
                if untilRestart <= 0 {
                    try restartAndCompare()
                    untilRestart = generator.rng.int(in: 15...80)
                }
            }
            try restartAndCompare()  // the state the stream ended in survives too
        } catch let failure as LawFailure {
            keepStateDirectory()
            return noted + [failure]
        } catch {
            keepStateDirectory()
            return noted + [LawFailure(kind: .crash, signature: "crash", description: "\(prefix): \(error)\n\(recentText)\ntabd's log:\n\(logTail())")]
        }
        return noted
    }

    /// The failures that did not end the run, in a stable order.
    var noted: [LawFailure] {
        (expectationFailures.merging(eventFailures) { a, _ in a }).sorted { $0.key < $1.key }.map(\.value)
    }

    var keptDirectory: String { "/tmp/tabd-restart-law-\(seedText(settings.seed))" }

    /// The state directory of a failed run, for a look (the process's directory is removed).
    func keepStateDirectory() {
        _ = try? shell("rm -rf \(keptDirectory) && cp -a \(tabd.stateDir) \(keptDirectory)")
    }

    /// One request alone, or several in one write, or split across writes, or on a connection
    /// of its own that half-closes after it.
    func perform() throws {
        var batch = [carried ?? generator.next()]
        carried = nil
        let mode = generator.rng.below(100)
        if mode < 15 {
            for _ in 0..<generator.rng.int(in: 1...6) {
                let next = generator.next()
                // A deletion goes first in a batch of its own (next time round): the event
                // watcher must know where in the stream of events a controller was deleted.
                if case .delete = next.effect {
                    carried = next
                    break
                }
                batch.append(next)
            }
        }
        if case .delete = batch[0].effect { try drainWatcher() }
        let crlf = generator.rng.chance(0.1)
        let bytes = batch.map { $0.line + (crlf ? "\r\n" : "\n") }.joined()
        var replies: [(String, JSONObject)] = []
        do {
            if mode >= 15 && mode < 18 {
                // A connection that sends its request without the newline and shuts down writing.
                let c = try tabd.client()
                try c.write(batch[0].line)
                c.shutdownWrite()
                replies.append(try reply(from: c, to: batch[0].line))
                if !(try c.readsEndOfStream()) {
                    throw LawFailure(kind: .crash, signature: "half-close", description: "\(prefix): after a half-closed request tabd sent more than its reply")
                }
            } else if mode >= 18 && mode < 22 {
                let utf8 = Array(bytes.utf8)
                let cut = generator.rng.int(in: 1...max(1, utf8.count - 1))
                try client.write(Array(utf8[..<cut]))
                try client.write(Array(utf8[cut...]))
                for r in batch { replies.append(try reply(from: client, to: r.line)) }
            } else {
                try client.write(bytes)
                for r in batch { replies.append(try reply(from: client, to: r.line)) }
            }
        } catch let failure as LawFailure {
            throw failure
        } catch {
            throw LawFailure(kind: .crash, signature: "crash",
                             description: "\(prefix): tabd did not answer (\(error))\nthe requests: \(batch.map(\.line))\n\(recentText)\ntabd's log:\n\(logTail())")
        }
        for (request, (raw, reply)) in zip(batch, replies) {
            step += 1
            entries.append(.line(request.line))
            remember("→ \(Self.cut(request.line, 2000))\n  ← \(Self.cut(raw, 240))")
            check(request, reply: reply, raw: raw)
            if reply.bool("ok") == true {
                accepted += 1
                if reply.object("result")?.bool("changed") == true { changed += 1 }
            } else {
                refusals[reply.object("error")?.string("code") ?? "?", default: 0] += 1
            }
            if RestartLawLane.environment["TABD_SOAK_TRACE"] == "1" { print("\(seedText(settings.seed)) → \(request.line)\n  ← \(raw)") }
            if case .delete(let name) = request.effect, reply.bool("ok") == true { deletedSince.insert(name) }
            generator.observe(request.effect, reply: reply)
        }
    }

    static func cut(_ text: String, _ limit: Int) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    func remember(_ text: String) {
        recent.append(text)
        if recent.count > 20 { recent.removeFirst() }
    }

    /// The next reply line on `c` (events that come before it are skipped).
    func reply(from c: LineClient, to line: String) throws -> (String, JSONObject) {
        while true {
            guard let raw = try c.readLine() else { throw TestFailure("the connection closed instead of answering \(line)") }
            let o = try object(raw)
            if o["ok"] == nil, o["event"] != nil { continue }
            guard o.bool("ok") != nil else { throw TestFailure("a reply without \"ok\": \(raw)") }
            return (raw, o)
        }
    }

    func check(_ request: LawRequest, reply: JSONObject, raw: String) {
        guard case .error(let code) = request.expect else { return }
        let got = reply.bool("ok") == true ? "success" : (reply.object("error")?.string("code") ?? "no code")
        guard got != code else { return }
        let cmd = (try? object(request.line))?.string("cmd") ?? "(not an object)"
        let key = "\(cmd): \(code) expected, \(got)"
        guard expectationFailures[key] == nil else { return }
        expectationFailures[key] = LawFailure(
            kind: .expectation, signature: key,
            description: "\(prefix): \(request.line)\nmust be refused with \(code) whatever the state; tabd answered\n\(raw)")
    }

    /// `controllers` and each controller's `state`, on a connection of its own.
    func record() throws -> RecordedState {
        let c = try tabd.client()
        let controllersLine = #"{"cmd":"controllers"}"#
        try c.write(controllersLine + "\n")
        let (list, o) = try reply(from: c, to: controllersLine)
        var names: [String] = []
        if case .array(let a)? = o.object("result")?["controllers"] {
            for case .object(let entry) in a { if let n = entry.string("name") { names.append(n) } }
        }
        var states: [(String, String)] = []
        for name in names {
            let line = requestLine("state", controller: name)
            try c.write(line + "\n")
            states.append((name, try reply(from: c, to: line).0))
            // What the login gate keeps in its store for the controller: who is logged in, until when.
            let login = requestLine("plugin.call", controller: name, [("plugin", jstring("login-gate")), ("method", jstring("status"))])
            try c.write(login + "\n")
            states.append((name + " (login-gate status)", try reply(from: c, to: login).0))
        }
        return RecordedState(controllers: list, states: states)
    }

    /// Counts the kinds of state a restart met.
    func tally(_ recorded: RecordedState) {
        var seen = Set<String>()
        for (_, line) in recorded.states {
            guard let state = (try? object(line))?.object("result") else { continue }
            var tabs: [JSONObject] = []
            if case .array(let a)? = state["tabs"] { for case .object(let t) in a { tabs.append(t) } }
            if state.bool("customizing") == true { seen.insert("customizing") }
            if state.string("selected") == "more" { seen.insert("More selected") }
            if state.string("idiom") == "tv" { seen.insert("tv") }
            if tabs.count > 16 { seen.insert("over 16 tabs") }
            if tabs.contains(where: { if case .array(let st)? = $0["stack"] { return !st.isEmpty } else { return false } }) { seen.insert("a stack") }
            if tabs.contains(where: { $0.string("badge") != nil }) { seen.insert("a badge") }
            if tabs.contains(where: { $0.string("restoration_id") != nil }) { seen.insert("a restoration id") }
            if let o = state.object("orientation"), o.string("current") != "portrait" { seen.insert("turned") }
            if (state.strings("customizable")?.count ?? 0) != tabs.count { seen.insert("customizable set") }
            // R13
            if tabs.contains(where: { $0["children"] != nil }) { seen.insert("a group") }
            if (state.strings("selected_path")?.count ?? 0) > 1 { seen.insert("a nested selection") }
            if tabs.contains(where: { $0.bool("hidden") == true }) { seen.insert("a hidden tab") }
            if state.object("sidebar")?.bool("available") == true { seen.insert(state.object("sidebar")?.bool("visible") == true ? "a sidebar" : "a sidebar hidden") }
            // R15
            if let kind = state.string("kind") { seen.insert("a \(kind) controller") }
            if state.object("parent") != nil { seen.insert("a nested controller") }
            if let side = state.string("open_side"), side != "none" { seen.insert("an open drawer") }
        }
        for k in seen { coverage[k, default: 0] += 1 }
    }

    var coverageText: String {
        coverage.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    /// Records, restarts tabd (SIGTERM and SIGKILL in turn), records again and compares;
    /// then logs in again where a session was open.
    func restartAndCompare() throws {
        let signal = nextSignal
        nextSignal = signal == SIGTERM ? SIGKILL : SIGTERM
        let how = signal == SIGKILL ? "SIGKILL" : "SIGTERM"
        try drainWatcher()
        let before = try record()
        tally(before)
        entries.append(.restart(signal))
        restarts += 1
        let status = tabd.stop(signal: signal)
        if signal == SIGTERM && status != 0 {
            throw LawFailure(kind: .stopStatus, signature: "SIGTERM exit status \(status)",
                             description: "\(prefix): tabd exited with status \(status) on SIGTERM (0 expected)\ntabd's log:\n\(logTail())")
        }
        do {
            try tabd.start()
        } catch {
            throw LawFailure(kind: .startFailed, signature: Self.startSignature(tabd.log),
                             description: "\(prefix): after a restart by \(how) tabd does not start again on its state directory (kept as \(keptDirectory)):\n\(Self.cannotStartLine(tabd.log))\n\(recentText)")
        }
        client = try tabd.client()
        let after = try record()
        if let diff = Self.compare(before, after) {
            throw LawFailure(kind: .mismatch, signature: diff.signature,
                             description: "\(prefix): after a restart by \(how) the state is not what it was (state directory kept as \(keptDirectory)):\n\(diff.text)\n\(recentText)")
        }
        remember("<restart by \(how): controllers and \(before.states.count) state(s) the same>")
        if watchesEvents {
            restartedSince = Set(lastEventSeq.keys)
            try openWatcher()
        }
        // The login gate's sessions are in its store (plugin ABI 1.6): `record` compared them,
        // and nobody logs in again.
    }

    static func cannotStartLine(_ log: String) -> String {
        log.split(separator: "\n").last { $0.contains("cannot start") }.map(String.init) ?? log
    }

    /// What a start failure says, without the numbers that change from run to run.
    static func startSignature(_ log: String) -> String {
        "does not start: " + cannotStartLine(log).replacingOccurrences(of: "[0-9]+", with: "#", options: .regularExpression)
    }

    // MARK: Comparing

    /// Nil when the lines are the same bytes; else what differs, by JSON path, and the lines.
    static func compare(_ a: RecordedState, _ b: RecordedState) -> (signature: String, text: String)? {
        var paths: [String] = []
        var text = ""
        if a.controllers != b.controllers {
            paths += differences(a.controllers, b.controllers, path: "controllers")
            text += "controllers before: \(a.controllers)\ncontrollers after:  \(b.controllers)\n"
        }
        let after = Dictionary(b.states.map { ($0.name, $0.line) }, uniquingKeysWith: { x, _ in x })
        for (name, line) in a.states {
            guard let other = after[name] else {
                paths.append("state(\(name)): gone")
                continue
            }
            guard other != line else { continue }
            paths += differences(line, other, path: "state(\(name))")
            text += "state of \(name) before: \(cut(line, 3000))\nstate of \(name) after:  \(cut(other, 3000))\n" + bytesDiff(line, other) + "\n"
        }
        guard !paths.isEmpty || !text.isEmpty else { return nil }
        let first = paths.first ?? "bytes"
        let signature = "differs: " + first
            .replacingOccurrences(of: #"state\([^)]*\)"#, with: "state", options: .regularExpression)
            .replacingOccurrences(of: "\\[[0-9]+\\]", with: "[#]", options: .regularExpression)
            .components(separatedBy: ":").first!
        return (signature, "what differs (before → after):\n  " + paths.prefix(20).joined(separator: "\n  ") + "\n" + text)
    }

    static func differences(_ a: String, _ b: String, path: String) -> [String] {
        guard let x = try? JSONParser.parse(a), let y = try? JSONParser.parse(b) else { return ["\(path): not JSON"] }
        var out: [String] = []
        differences(x, y, path: path, into: &out)
        if out.isEmpty { out.append("\(path): the same values written differently") }
        return out
    }

    static func differences(_ a: JSONValue, _ b: JSONValue, path: String, into out: inout [String]) {
        guard out.count < 40 else { return }
        switch (a, b) {
        case (.object(let x), .object(let y)):
            if x.keys != y.keys, Set(x.keys) == Set(y.keys) { out.append("\(path): members in another order") }
            for key in x.keys {
                if let v = y[key] { differences(x[key]!, v, path: "\(path).\(key)", into: &out) } else { out.append("\(path).\(key): gone") }
            }
            for key in y.keys where x[key] == nil { out.append("\(path).\(key): new, \(y[key]!.jsonString)") }
        case (.array(let x), .array(let y)):
            if x.count != y.count { out.append("\(path): \(x.count) elements → \(y.count)") }
            for i in 0..<min(x.count, y.count) { differences(x[i], y[i], path: "\(path)[\(i)]", into: &out) }
        default:
            if a != b { out.append("\(path): \(a.jsonString) → \(b.jsonString)") }
        }
    }

    /// Where two lines first differ, with some context.
    static func bytesDiff(_ a: String, _ b: String) -> String {
        let x = Array(a.utf8), y = Array(b.utf8)
        var i = 0
        while i < min(x.count, y.count), x[i] == y[i] { i += 1 }
        let from = max(0, i - 60)
        func around(_ s: [UInt8]) -> String { String(decoding: s[min(from, s.count)..<min(s.count, i + 60)], as: UTF8.self) }
        return "first difference at byte \(i):\n  before …\(around(x))…\n  after  …\(around(y))…"
    }
}

// MARK: - Cutting a failure down

/// Replays entries on a fresh tabd (request lines in order, restarts where they were), then
/// restarts it by `finalSignal` and compares: the signature of the failure, or nil.
func reproduceRestartLaw(_ entries: [LawEntry], settings: LawSettings, finalSignal: Int32) -> String? {
    guard let run = try? RestartLawRun(settings: settings) else { return nil }
    defer { run.tabd.stop(signal: SIGKILL) }
    do {
        var pending: [String] = []
        func flush() throws {
            guard !pending.isEmpty else { return }
            try run.client.write(pending.map { $0 + "\n" }.joined())
            for line in pending { _ = try run.reply(from: run.client, to: line) }
            pending = []
        }
        for entry in entries {
            switch entry {
            case .line(let line):
                pending.append(line)
                if pending.count >= 64 { try flush() }
            case .restart(let signal):
                try flush()
                run.tabd.stop(signal: signal)
                do { try run.tabd.start() } catch { return RestartLawRun.startSignature(run.tabd.log) }
                run.client = try run.tabd.client()
            }
        }
        try flush()
        run.nextSignal = finalSignal
        try run.restartAndCompare()
        return nil
    } catch let failure as LawFailure {
        return failure.signature
    } catch {
        return "crash"
    }
}

/// The shortest run of entries found (chunks taken out while the same failure remains), or
/// nil when the entries alone, without the seed's timing, do not fail that way.
func shrinkRestartLaw(_ entries: [LawEntry], settings: LawSettings, finalSignal: Int32, signature: String, seconds: Double = 240) -> [LawEntry]? {
    guard reproduceRestartLaw(entries, settings: settings, finalSignal: finalSignal) == signature else { return nil }
    let deadline = Date().addingTimeInterval(seconds)
    var current = entries
    var chunk = max(1, current.count / 2)
    while true {
        var i = 0
        while i < current.count, Date() < deadline {
            var candidate = current
            candidate.removeSubrange(i..<min(current.count, i + chunk))
            if reproduceRestartLaw(candidate, settings: settings, finalSignal: finalSignal) == signature {
                current = candidate
            } else {
                i += chunk
            }
        }
        if chunk == 1 || Date() >= deadline { break }
        chunk = max(1, chunk / 2)
    }
    return current
}

// MARK: - The suite

/// Which seeds a test argument runs: a list, and perhaps fresh ones until a deadline.
struct RestartLawLane: Sendable, CustomTestStringConvertible {
    var seeds: [UInt64]
    var steps: Int
    /// Keep running fresh seeds until this many seconds after the first lane began.
    var seconds: Double?
    var laneSeed: UInt64

    var testDescription: String {
        seconds == nil ? "seeds \(seeds.map(seedText).joined(separator: ","))" : "fresh seeds from \(seedText(laneSeed))"
    }

    /// When the first lane began: lanes that wait for a free core share the time budget.
    static let soakStart = Date()

    /// The end of the `share` of the time budget a lane has, counted from `soakStart` (the
    /// state law's lanes stop at two thirds, the event numbers' at the end: whether the two
    /// tests run side by side or one after the other, the whole takes about `seconds`).
    func deadline(share: Double) -> Date? { seconds.map { Self.soakStart.addingTimeInterval($0 * share) } }

    static let environment = ProcessInfo.processInfo.environment

    static func parseSeed(_ text: String) -> UInt64? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        return t.hasPrefix("0x") ? UInt64(t.dropFirst(2), radix: 16) : UInt64(t)
    }

    /// From the environment; without it, three fixed seeds of 300 requests each.
    static var lanes: [RestartLawLane] {
        let seconds = environment["TABD_SOAK_SECONDS"].flatMap(Double.init)
        let steps = environment["TABD_SOAK_STEPS"].flatMap(Int.init) ?? (seconds == nil ? 1000 : 2000)
        var fresh = SplitMix64(seed: UInt64(Date().timeIntervalSince1970 * 1_000_000) ^ UInt64(getpid()))
        var listed: [UInt64] = []
        var freshCount = 0
        if let text = environment["TABD_SOAK_SEEDS"], !text.isEmpty {
            if !text.contains(","), let n = Int(text), n < 1000 {
                freshCount = n
            } else {
                listed = text.split(separator: ",").compactMap { parseSeed(String($0)) }
            }
        } else if seconds == nil {
            // fsync always, compaction at 4 KiB, landscape preferred; everysec, the default
            // compaction, the lock; no fsync, compaction at 16 KiB, portrait preferred.
            listed = [27, 37, 20]
        }
        var lanes = listed.map { RestartLawLane(seeds: [$0], steps: steps, seconds: nil, laneSeed: $0) }
        lanes += (0..<freshCount).map { _ in let s = fresh.next(); return RestartLawLane(seeds: [s], steps: steps, seconds: nil, laneSeed: s) }
        if let seconds {
            // Two lanes of fresh seeds (one per core of the machines this runs on) until the deadline.
            lanes += (0..<2).map { _ in RestartLawLane(seeds: [], steps: steps, seconds: seconds, laneSeed: fresh.next()) }
        }
        return lanes
    }
}

@Suite struct RestartLawTests {
    /// Whatever a stream of requests did, `controllers` and every `state` answer the same bytes
    /// after tabd is stopped (SIGTERM or SIGKILL) and started again on its state directory.
    @Test(arguments: RestartLawLane.lanes)
    func everyStateSurvivesARestart(_ lane: RestartLawLane) throws {
        try Self.run(lane, watchingEvents: false)
    }

    /// R11.4: the same streams with a connection subscribed to every event of every
    /// controller: a controller's events are numbered one more than the last, also across a
    /// restart (SIGTERM or SIGKILL), and a controller deleted and created again never numbers
    /// an event as one before.
    @Test(arguments: RestartLawLane.lanes)
    func eventNumbersNeverRepeat(_ lane: RestartLawLane) throws {
        try Self.run(lane, watchingEvents: true)
    }

    /// The streams send every command tabd knows: `hello` lists none the generator leaves out.
    @Test func theStreamsSendEveryCommand() throws {
        let tabd = try TabdProcess()
        let hello = try tabd.client().ok(#"{"cmd":"hello"}"#)
        let known = hello.strings("commands") ?? []
        #expect(!known.isEmpty, "hello lists no commands")
        let missing = known.filter { !RequestGenerator.commandsSent.contains($0) }
        #expect(missing.isEmpty, "tabd knows commands the restart law's streams never send: \(missing); add them to RequestGenerator")
    }

    static func run(_ lane: RestartLawLane, watchingEvents: Bool) throws {
        var seeds = lane.seeds
        var fresh = SplitMix64(seed: lane.laneSeed)
        var ran = 0
        while true {
            let seed: UInt64
            if !seeds.isEmpty {
                seed = seeds.removeFirst()
            } else if let deadline = lane.deadline(share: watchingEvents ? 1 : 2.0 / 3), Date() < deadline || ran == 0 {
                seed = fresh.next()
            } else {
                break
            }
            ran += 1
            let settings = LawSettings(seed: seed)
            let started = Date()
            let run = try RestartLawRun(settings: settings, watchesEvents: watchingEvents)
            let failures = run.run(steps: lane.steps).filter { ($0.kind == .events) == watchingEvents }
            print("restart law\(watchingEvents ? " (event numbers)" : ""): \(settings.summary): \(run.step) requests (\(run.accepted) accepted, "
                  + "\(run.changed) changed the state; refused: \(run.refusals.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))), "
                  + "\(run.restarts) restarts (meeting: \(run.coverageText)), "
                  + "\(failures.isEmpty ? "ok" : "\(failures.count) failure(s)") in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
            for failure in failures {
                var message = failure.description
                if failure.kind != .expectation {
                    message += "\nrun it again: TABD_SOAK_SEEDS=\(seedText(seed)) swift test --filter RestartLaw"
                    if shrinking, failure.kind != .events {
                        let final: Int32
                        if case .restart(let s)? = run.entries.last { final = s } else { final = SIGTERM }
                        var body = run.entries
                        if case .restart? = body.last { body.removeLast() }
                        if let small = shrinkRestartLaw(body, settings: settings, finalSignal: final, signature: failure.signature) {
                            message += "\ncut down to \(small.count) step(s), then a restart by \(final == SIGKILL ? "SIGKILL" : "SIGTERM") (\(failure.signature)):\n"
                                + small.map(\.text).joined(separator: "\n")
                        } else {
                            message += "\n(the requests replayed alone do not fail the same way; not cut down)"
                        }
                    }
                }
                print(message)
                Issue.record(Comment(rawValue: message))
            }
        }
        #expect(ran > 0, "no seed ran (TABD_SOAK_SEEDS=\(RestartLawLane.environment["TABD_SOAK_SEEDS"] ?? ""))")
    }

    static var shrinking: Bool { RestartLawLane.environment["TABD_SOAK_SHRINK"] == "1" }
}
