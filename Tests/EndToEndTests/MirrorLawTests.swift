// The mirrors' law (issue 45, item 1): both client libraries' mirrors — TabClient's `Mirror`
// (Swift) and tabd_client's `Follower` (Python, driven through Fixtures/follower-check.py) —
// equal a fresh `state` of every controller after every request of the restart law's
// generated streams (split view controllers among R15's containers here: the Mirror holds
// each navigation, split, drawer and custom controller as a `CompositeView`), and TabClient's
// `CompositeView` of every navigation, split, drawer and custom controller, kept from the
// watcher's events, equals its `state` after every request of the Swift law's (RequestGenerator: every command of docs/protocol.md, phones, pads with
// groups, tvs, R13 and R14 made likelier here), with tabd restarted by SIGTERM and by SIGKILL
// in the middle. A watcher connection counts the events the streams made: every event of
// docs/protocol.md's table must have come, so a new command or event that a mirror does not
// follow fails here.
//
// Environment: TABD_MIRROR_SEEDS (a comma list, decimal or 0x…), TABD_MIRROR_STEPS (requests
// per seed, default 400). A failure names its seed:
//   TABD_MIRROR_SEEDS=<seed> swift test --filter TabClientTests/mirrorLaw

import Foundation
import Glibc
import TabClient
import TabJSON
import TabProtocol
import TestRandom
import Testing

/// One seed's stream against a real tabd, checked after every request by `check`.
final class MirrorLawRun {
    let seed: UInt64
    let dir: String
    let tabd: TabdProcess
    var driver: LineClient
    var watcher: LineClient
    var generator: RequestGenerator
    var step = 0
    var recent: [String] = []
    /// Events the watcher saw, by name.
    var events: [String: Int] = [:]
    /// Controllers no mirror can know yet (created, no event since): their seq when they appeared.
    var appeared: [String: Int] = [:]
    var known: Set<String> = []
    var restarts = 0
    /// Controllers where a `select_child` changed a group off the selected path, which no
    /// event announces (docs/clients.md): their groups' remembered child is not compared
    /// until a restart makes the mirrors read `state` again.
    var unannounced: Set<String> = []
    /// R15's containers as CompositeView keeps them from the watcher's events (the Swift law).
    var composites: [String: CompositeView] = [:]
    /// How often a CompositeView read `state` again, by event name; and applied an event.
    var compositeRereads: [String: Int] = [:]
    var compositeApplied: [String: Int] = [:]
    /// How many times the Mirror's picture of a container was compared with its `state`.
    var mirroredComposites = 0

    init(seed: UInt64) throws {
        self.seed = seed
        dir = temporaryDirectory("mlaw")
        let settings = LawSettings(seed: seed)
        tabd = try TabdProcess(config: settings.config(credentials: try Plugins.credentials(in: dir)), dir: dir)
        driver = try tabd.client()
        watcher = try tabd.client()
        generator = RequestGenerator(seed: seed)
        generator.r14Weight = 16
        generator.splits = true
        try openWatcher()
    }

    func openWatcher() throws {
        watcher = try tabd.client()
        try watcher.ok(#"{"cmd":"subscribe","events":["*"],"controllers":null}"#)
    }

    /// Reads what the watcher was sent so far (a ping's reply follows every event before it).
    @discardableResult
    func drainWatcher() throws -> [TabEvent] {
        try watcher.write(#"{"cmd":"ping","id":"drain"}"# + "\n")
        var out: [TabEvent] = []
        while let raw = try watcher.readLine() {
            let o = try object(raw)
            if o["ok"] != nil { return out }
            if let name = o.string("event") { events[name, default: 0] += 1 }
            if let e = TabEvent(o) { out.append(e) }
        }
        throw TestFailure("the watcher's connection closed")
    }

    /// Applies the watcher's events since the last check to the CompositeViews (reading
    /// `state` again, from `states`, where one is unsure, skips a seq or is new), then
    /// compares each with `states`: the difference, nil when they are equal. `restarted`:
    /// every view is read again (the events before the restart were drained).
    func followComposites(_ states: [String: JSONObject], restarted: Bool) throws -> String? {
        let batch = try drainWatcher()
        if restarted { composites = [:] }
        for e in batch {
            guard let s = states[e.controller], CompositeView.isComposite(s) else { continue }
            guard var view = composites[e.controller] else {
                composites[e.controller] = CompositeView(state: s, name: e.controller)
                continue
            }
            guard e.seq > view.seq else { continue }
            let outcome = e.seq == view.seq + 1 ? view.apply(event: e.name, seq: e.seq, data: e.data) : .unsure
            switch outcome {
            case .unsure:
                compositeRereads[e.name, default: 0] += 1
                view = CompositeView(state: s, name: e.controller)
            case .deleted:
                continue
            case .applied:
                compositeApplied[e.name, default: 0] += 1
            }
            composites[e.controller] = view
        }
        composites = composites.filter { states[$0.key].map(CompositeView.isComposite) == true }
        for (name, s) in states.sorted(by: { $0.key < $1.key }) where CompositeView.isComposite(s) {
            guard let view = composites[name] else {
                composites[name] = CompositeView(state: s, name: name)  // created, no event since
                continue
            }
            let fresh = CompositeView(state: s, name: name)
            if lawComparable(view) != lawComparable(fresh) {
                return "\(prefix): the CompositeView of '\(name)' differs from state (view ≠ state):\n  "
                    + fieldDifferences(lawComparable(view), lawComparable(fresh)).joined(separator: "\n  ")
                    + "\nstate's JSON \(JSONValue.object(s).jsonString)"
            }
        }
        return nil
    }

    var prefix: String { "mirror law, seed \(seedText(seed)), step \(step)" }
    var rerun: String { "run it again: TABD_MIRROR_SEEDS=\(seedText(seed)) swift test --filter TabClientTests/mirrorLaw" }
    var recentText: String {
        "the last \(recent.count) requests:\n" + recent.joined(separator: "\n")
            + "\ntabd's log:\n" + tabd.log.split(separator: "\n").suffix(30).joined(separator: "\n")
    }

    /// What every stream starts with, so that the seeds meet every event: a login on `main`,
    /// More and a customizing session, a tap; a pad with a group and a search tab, an editing
    /// session, a rotation; a controller deleted; R15's containers nested, changed and taken
    /// out of their window.
    static let prelude: [LawRequest] = [
        LawRequest(line: loginLine(controller: "main"), effect: .login("main")),
        LawRequest(line: #"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"f","navigation":true}]}"#,
                   effect: .setTabs("main", navigation: ["f"])),
        LawRequest(line: #"{"cmd":"tap","tab":"b"}"#),
        LawRequest(line: #"{"cmd":"customize.begin"}"#, effect: .customizeBegin("main")),
        LawRequest(line: #"{"cmd":"customize.move","tab":"e","to":1}"#),
        LawRequest(line: #"{"cmd":"customize.end"}"#, effect: .customizeEnd("main")),
        LawRequest(line: #"{"cmd":"controller.create","controller":"cover","idiom":"pad","mode":"tab_sidebar"}"#, effect: .create("cover")),
        LawRequest(line: #"{"cmd":"set_tabs","controller":"cover","tabs":[{"id":"login"},{"id":"lib","children":[{"id":"songs"},{"id":"albums"}]},{"id":"find","role":"search"}]}"#),
        LawRequest(line: #"{"cmd":"edit.begin","controller":"cover"}"#),
        LawRequest(line: #"{"cmd":"edit.end","controller":"cover"}"#),
        LawRequest(line: #"{"cmd":"set_size_class","controller":"cover","size_class":"compact"}"#),
        LawRequest(line: #"{"cmd":"rotate","controller":"cover","orientation":"landscape_left"}"#),
        // Search is activated on the search tab, selected (so logged in) first.
        LawRequest(line: loginLine(controller: "cover"), effect: .login("cover")),
        LawRequest(line: #"{"cmd":"select","controller":"cover","tab":"find"}"#),
        LawRequest(line: #"{"cmd":"search","controller":"cover","active":true}"#),
        LawRequest(line: #"{"cmd":"controller.delete","controller":"cover"}"#, effect: .delete("cover")),
        LawRequest(line: #"{"cmd":"controller.create","controller":"nav-a","kind":"navigation","stack":[{"id":"inbox"}]}"#, effect: .createComposite("nav-a")),
        LawRequest(line: #"{"cmd":"controller.create","controller":"drawer","kind":"drawer","window":true,"center":{"id":"center","controller":"nav-a"},"left":{"id":"menu"}}"#,
                   effect: .createComposite("drawer")),
        LawRequest(line: #"{"cmd":"push","controller":"nav-a","screen":{"id":"msg"}}"#, effect: .composite("nav-a")),
        LawRequest(line: #"{"cmd":"open_drawer","controller":"drawer","side":"left"}"#, effect: .composite("drawer")),
        LawRequest(line: #"{"cmd":"configure","controller":"drawer","center_interaction":"full"}"#, effect: .composite("drawer")),
        LawRequest(line: #"{"cmd":"controller.create","controller":"custom","kind":"custom","children":[{"id":"a"}]}"#, effect: .createComposite("custom")),
        LawRequest(line: #"{"cmd":"set_shown","controller":"custom","shown":["a"]}"#, effect: .composite("custom")),
        LawRequest(line: #"{"cmd":"set_window","controller":"drawer","window":false}"#, effect: .composite("drawer")),
        // A pad split, a window's root: secondary_only in portrait, one_beside in landscape
        // (display_mode_will_change), collapsed by a compact size class and expanded again.
        LawRequest(line: #"{"cmd":"controller.create","controller":"split","kind":"split","style":"double","idiom":"pad","window":true,"primary":{"id":"list"},"secondary":{"id":"detail"}}"#,
                   effect: .createComposite("split")),
        LawRequest(line: #"{"cmd":"rotate","controller":"split","orientation":"landscape_left"}"#, effect: .composite("split")),
        LawRequest(line: #"{"cmd":"hide_column","controller":"split","column":"primary"}"#, effect: .composite("split")),
        LawRequest(line: #"{"cmd":"show_detail","controller":"split","child":{"id":"detail-1"}}"#, effect: .composite("split")),
        LawRequest(line: #"{"cmd":"configure","controller":"split","preferred_display_mode":"one_over"}"#, effect: .composite("split")),
        LawRequest(line: #"{"cmd":"set_size_class","controller":"split","size_class":"compact"}"#, effect: .composite("split")),
        LawRequest(line: #"{"cmd":"show_column","controller":"split","column":"primary"}"#, effect: .composite("split")),
        LawRequest(line: #"{"cmd":"set_column","controller":"split","column":"compact","child":{"id":"compact"}}"#, effect: .composite("split")),
        LawRequest(line: #"{"cmd":"set_size_class","controller":"split","size_class":"regular"}"#, effect: .composite("split")),
    ]

    /// The prelude, then a split's request one time in eight, R13's and R14's drafts a third
    /// of the rest, else the restart law's mix.
    func nextLine() -> LawRequest {
        if step <= Self.prelude.count { return Self.prelude[step - 1] }
        if generator.rng.chance(0.125) {
            let d = generator.splitDraft()
            return LawRequest(line: generator.assemble(d), effect: d.effect)
        }
        if generator.rng.chance(0.35) {
            let d = generator.modernDraft(generator.controllerName())
            return LawRequest(line: generator.assemble(d), effect: d.effect)
        }
        return generator.next()
    }

    /// Every controller's `state` now (read on the driver's connection: nothing else sends).
    func states() throws -> [String: JSONObject] {
        let list = try driver.ok(#"{"cmd":"controllers"}"#)
        var out: [String: JSONObject] = [:]
        if case .array(let a)? = list["controllers"] {
            for case .object(let entry) in a {
                guard let name = entry.string("name") else { continue }
                out[name] = try driver.ok(requestLine("state", controller: name))
            }
        }
        // A controller created since the last check: a mirror hears of it with its first event.
        for (name, s) in out where !known.contains(name) { appeared[name] = s.int("seq") }
        known = Set(out.keys)
        appeared = appeared.filter { known.contains($0.key) }
        return out
    }

    /// Whether a mirror may not have `name`: no event since it was created.
    func mayBeUnknown(_ name: String, _ state: JSONObject) -> Bool {
        appeared[name] != nil && appeared[name] == state.int("seq")
    }

    /// The stream: a request, its check; restarts by SIGTERM and SIGKILL in turn.
    func run(steps: Int, check: ([String: JSONObject], _ restarted: Bool) async throws -> Void) async throws {
        var untilRestart = generator.rng.int(in: 20...80)
        var signal = seed & 1 == 0 ? SIGTERM : SIGKILL
        try await check(try states(), false)
        while step < steps {
            step += 1
            let request = nextLine()
            try driver.write(request.line + "\n")
            let reply = try readReply(request.line)
            recent.append("→ \(RestartLawRun.cut(request.line, 600))\n  ← \(RestartLawRun.cut(reply.1, 200))")
            if recent.count > 12 { recent.removeFirst() }
            generator.observe(request.effect, reply: reply.0)
            if let o = try? object(request.line), o.string("cmd") == "select_child", reply.0.bool("ok") == true,
               let group = o.string("group"), reply.0.object("result")?.strings("selected_path")?.contains(group) != true {
                unannounced.insert(o.string("controller") ?? "main")
            }
            try await check(try states(), false)
            untilRestart -= 1
            if untilRestart == 0 {
                untilRestart = generator.rng.int(in: 20...80)
                try drainWatcher()
                tabd.stop(signal: signal)
                try tabd.start()
                restarts += 1
                recent.append("<restart by \(signal == SIGKILL ? "SIGKILL" : "SIGTERM")>")
                signal = signal == SIGKILL ? SIGTERM : SIGKILL
                driver = try tabd.client()
                unannounced = []
                try openWatcher()
                try await check(try states(), true)
            }
        }
        try drainWatcher()
    }

    /// The reply to `line` on the driver (events it subscribed to are skipped).
    func readReply(_ line: String) throws -> (JSONObject, String) {
        while true {
            guard let raw = try driver.readLine() else { throw TestFailure("\(prefix): the connection closed instead of answering \(line)\ntabd's log:\n\(tabd.log.suffix(2000))") }
            let o = try object(raw)
            if o["ok"] == nil, o["event"] != nil || o["events"] != nil { continue }
            return (o, raw)
        }
    }

    /// Every event of docs/protocol.md's table the streams did not make.
    static func unseen(_ runs: [MirrorLawRun]) throws -> [String] {
        let seen = Set(runs.flatMap(\.events.keys))
        return try documentedEvents(protocolDocument()).subtracting(seen).sorted()
    }
}

/// The seeds the mirrors' law runs.
enum MirrorLawSeeds {
    static let environment = ProcessInfo.processInfo.environment
    static var seeds: [UInt64] {
        if let text = environment["TABD_MIRROR_SEEDS"], !text.isEmpty {
            return text.split(separator: ",").compactMap { RestartLawLane.parseSeed(String($0)) }
        }
        return [0x45A1, 0x45B2]
    }
    static var steps: Int { environment["TABD_MIRROR_STEPS"].flatMap(Int.init) ?? 400 }
}

extension CompositeView {
    /// Whether `state` is a navigation, split, drawer or custom controller's.
    static func isComposite(_ s: JSONObject) -> Bool { s.string("kind").map { $0 != "tab" } ?? false }
}

/// A container's picture without what events do not announce (CompositeView's comment): a
/// hidden root's status bar path, and whether an attached container that shows nothing is
/// visible.
func lawComparable(_ v: CompositeView) -> CompositeView {
    var v = announced(v)
    if v.parent != nil && v.shownChildren.isEmpty { v.visible = false }
    return v
}

/// A picture without what events do not announce, and each group's remembered child as the
/// child it shows (`state` names a remembered child only when it differs from the fallback;
/// `remembered: false`: not at all); a sidebar's wish only where a sidebar exists.
func comparable(_ v: ControllerView?, remembered: Bool = true) -> ControllerView? {
    guard var v = announced(v) else { return nil }
    func strip(_ t: inout TabView) {
        t.remembered = remembered ? t.shownChild : nil; t.rememberedKnown = false
        if t.children != nil { for i in t.children!.indices { strip(&t.children![i]) } }
    }
    for i in v.tabs.indices { strip(&v.tabs[i]) }
    // Where no sidebar exists `state` does not report whether it is wanted (R13.6 remembers
    // it for when it comes back): a fresh picture takes the default.
    if !v.sidebarAvailable { v.sidebarWanted = true }
    return v
}

/// Where two values differ, field by field (Swift's reflection), as `path: a ≠ b` lines.
func fieldDifferences(_ a: Any, _ b: Any, _ path: String = "") -> [String] {
    let x = Swift.Mirror(reflecting: a), y = Swift.Mirror(reflecting: b)
    let xs = Array(x.children), ys = Array(y.children)
    if xs.isEmpty || xs.count != ys.count || x.displayStyle == .enum {
        let l = String(reflecting: a), r = String(reflecting: b)
        return l == r ? [] : ["\(path): \(l.prefix(300)) ≠ \(r.prefix(300))"]
    }
    var out: [String] = []
    for (i, (l, r)) in zip(xs, ys).enumerated() {
        out += fieldDifferences(l.value, r.value, path + "." + (l.label ?? "[\(i)]"))
    }
    return out
}

extension TabClientTests {
    /// TabClient's Mirror of every controller — a tab controller's ControllerView, a
    /// container's CompositeView — equals `state` after every request.
    @Test func mirrorLawSwift() async throws {
        var runs: [MirrorLawRun] = []
        for seed in MirrorLawSeeds.seeds {
            let run = try MirrorLawRun(seed: seed)
            runs.append(run)
            let log = MirrorLog(Mirror(path: run.tabd.socket, reconnect: .init(giveUpAfter: .seconds(120), retryFirstConnect: true)))
            var failure: String?
            var syncs = 1
            do {
                try await run.run(steps: MirrorLawSeeds.steps) { states, restarted in
                    defer { if failure != nil { failure! += "\n" + run.recentText } }
                    // After a restart: synced again (the seqs alone may be the ones it had).
                    if restarted, !(await eventually { log.syncs.count > syncs }) {
                        failure = "\(run.prefix): the mirror did not sync again after the restart"
                        throw TestFailure("stop")
                    }
                    syncs = log.syncs.count
                    // Caught up: every controller at its seq (or unknown, with no event since it
                    // was created), none that is gone.
                    let caughtUp = await eventually {
                        let seqs = log.seqs
                        return Set(seqs.keys).isSubset(of: states.keys)
                            && states.allSatisfy { name, s in seqs[name] == s.int("seq") || (seqs[name] == nil && run.mayBeUnknown(name, s)) }
                    }
                    if let difference = try run.followComposites(states, restarted: restarted) {
                        failure = difference
                        throw TestFailure("stop")
                    }
                    let views = log.views, composites = log.composites
                    if !caughtUp {
                        failure = "\(run.prefix): the mirror did not catch up with state: mirror seqs \(log.seqs.sorted { $0.key < $1.key }), "
                            + "state seqs \(states.mapValues { $0.int("seq") ?? -1 }.sorted { $0.key < $1.key })"
                        throw TestFailure("stop")
                    }
                    for (name, s) in states.sorted(by: { $0.key < $1.key }) {
                        // A container: the Mirror's CompositeView, kept by the same `apply` as the
                        // watcher's (followComposites), equals state but for what no event announces.
                        if CompositeView.isComposite(s) {
                            if views[name] != nil {
                                failure = "\(run.prefix): the mirror holds '\(name)', a \(s.string("kind") ?? "?") controller, as a tab controller"
                                throw TestFailure("stop")
                            }
                            guard let view = composites[name] else { continue }  // not yet known: its seq is held above
                            let fresh = CompositeView(state: s, name: name)
                            if lawComparable(view) != lawComparable(fresh) {
                                failure = "\(run.prefix): the mirror's CompositeView of '\(name)' differs from state (mirror ≠ state):\n  "
                                    + fieldDifferences(lawComparable(view), lawComparable(fresh)).joined(separator: "\n  ")
                                    + "\nstate's JSON \(JSONValue.object(s).jsonString)"
                                throw TestFailure("stop")
                            }
                            run.mirroredComposites += 1
                            continue
                        }
                        if composites[name] != nil {
                            failure = "\(run.prefix): the mirror holds the tab controller '\(name)' as a container"
                            throw TestFailure("stop")
                        }
                        guard let view = views[name] else { continue }
                        let fresh = ControllerView(state: s, name: name)
                        let sure = !run.unannounced.contains(name)
                        if comparable(view, remembered: sure) != comparable(fresh, remembered: sure) {
                            failure = "\(run.prefix): the mirror of '\(name)' differs from state (mirror ≠ state):\n  "
                            + fieldDifferences(comparable(view, remembered: sure)!, comparable(fresh, remembered: sure)!).joined(separator: "\n  ")
                            + "\nstate's JSON \(JSONValue.object(s).jsonString)"
                            throw TestFailure("stop")
                        }
                    }
                }
            } catch {
                if failure == nil { failure = "\(run.prefix): \(error)\n" + run.recentText }
            }
            print("mirror law (Swift), seed \(seedText(seed)): \(run.step) requests, \(run.restarts) restarts, \(log.resyncs.count) resyncs, \(log.changes) changes; \(failure == nil ? "ok" : "failed")")
            print("  Mirror's composites compared with state \(run.mirroredComposites) times")
            print("  CompositeView: applied \(run.compositeApplied.sorted { $0.key < $1.key }), read state again after \(run.compositeRereads.sorted { $0.key < $1.key })")
            await log.stop()
            run.tabd.stop(signal: SIGKILL)
            if let failure { Issue.record(Comment(rawValue: failure + "\n" + run.rerun)); return }
        }
        #expect(runs.allSatisfy { $0.mirroredComposites > 0 }, "the Mirror held no container to compare with state")
        let unseen = try MirrorLawRun.unseen(runs)
        #expect(unseen.isEmpty, "the mirrors' law's streams made none of these events of docs/protocol.md: \(unseen); make RequestGenerator send what makes them")
    }

    /// tabd_client's Follower of every controller equals `state` after every request: its own
    /// `check` compares them on its connection (Fixtures/follower-check.py).
    @Test func mirrorLawPython() async throws {
        var runs: [MirrorLawRun] = []
        for seed in MirrorLawSeeds.seeds {
            let run = try MirrorLawRun(seed: seed)
            runs.append(run)
            let script = Build.packageRoot.appendingPathComponent("Tests/EndToEndTests/Fixtures/follower-check.py").path
            let follower = try LinesProcess("/usr/bin/env", ["python3", script, run.tabd.socket], dir: run.dir, input: true)
            var failure: String?
            var resyncs = 0, changed = 0
            do {
                try await run.run(steps: MirrorLawSeeds.steps) { states, _ in
                    defer { if failure != nil { failure! += "\n" + run.recentText } }
                    try follower.send("check " + states.keys.sorted().joined(separator: " "))
                    let answer = try follower.readLine()
                    resyncs += answer.strings("resyncs")?.count ?? 0
                    changed = answer.int("changed") ?? 0
                    guard let checked = answer.object("checked") else {
                        failure = "\(run.prefix): the follower answered \(JSONValue.object(answer).jsonString)"
                        throw TestFailure("stop")
                    }
                    for (name, value) in checked.sorted(by: { $0.key < $1.key }) {
                        guard case .object(let c) = value else { continue }
                        let differences = (c.strings("differences") ?? []).filter { !(run.unannounced.contains(name) && $0.hasSuffix(".selected_child")) }
                        if c.bool("mirrored") != true, let s = states[name], run.mayBeUnknown(name, s) { continue }
                        if !differences.isEmpty {
                            failure = "\(run.prefix): the Python mirror of '\(name)' differs from state at \(differences)"
                                + (c["mirror"].map { "\nmirror \($0.jsonString)" } ?? "")
                                + (states[name].map { "\nstate  \(JSONValue.object($0).jsonString)" } ?? "")
                            throw TestFailure("stop")
                        }
                    }
                }
            } catch {
                if failure == nil { failure = "\(run.prefix): \(error)\n" + run.recentText }
            }
            print("mirror law (Python), seed \(seedText(seed)): \(run.step) requests, \(run.restarts) restarts, \(resyncs) resyncs, \(changed) changes; \(failure == nil ? "ok" : "failed")")
            try? follower.send("quit")
            run.tabd.stop(signal: SIGKILL)
            if let failure { Issue.record(Comment(rawValue: failure + "\n" + run.rerun + "\nfollower's stderr: \(follower.stderr)")); return }
        }
        let unseen = try MirrorLawRun.unseen(runs)
        #expect(unseen.isEmpty, "the mirrors' law's streams made none of these events of docs/protocol.md: \(unseen); make RequestGenerator send what makes them")
    }
}

extension TabClientTests {
    /// A command's events come as one unit (tabd marks the last, issue 45, item 2): the Mirror
    /// applies them together and tells one `changed` per command, however many events a
    /// set_tabs sends.
    @Test func mirrorTellsOneChangePerCommand() async throws {
        let tabd = try TabdProcess()
        let driver = try tabd.client()
        let log = MirrorLog(Mirror(path: tabd.socket, controllers: ["main"]))
        #expect(await eventually { log.syncs.count == 1 })
        for i in 0..<8 {
            let before = log.changes
            let tabs = (0..<(3 + i % 4)).map { #"{"id":"t\#(i * 10 + $0)"}"# }.joined(separator: ",")
            try driver.ok(#"{"cmd":"set_tabs","tabs":[\#(tabs)]}"#)
            let seq = try driver.ok(#"{"cmd":"state"}"#).int("seq")
            #expect(await eventually { log.views["main"]?.seq == seq }, "the mirror did not reach seq \(seq ?? -1)")
            #expect(log.changes == before + 1, "set_tabs #\(i) made \(log.changes - before) changes")
        }
        #expect(log.resyncs.isEmpty, "in doubt: \(log.resyncs)")
        await log.stop()

        // TabClient reads a grouped line as the command's batch; a marked stream, batch by batch.
        for grouped in [true, false] {
            let client = try TabClient(path: tabd.socket)
            defer { client.close() }
            _ = try await client.request("subscribe", [("controllers", .array([.string("main")])), ("grouped", .bool(grouped))])
            let ids = grouped ? ["x", "y", "z"] : ["u", "v", "w"]
            try driver.ok(#"{"cmd":"set_tabs","tabs":[\#(ids.map { #"{"id":"\#($0)"}"# }.joined(separator: ","))]}"#)
            let seq = try driver.ok(#"{"cmd":"state"}"#).int("seq")
            let batch = await client.nextEvents()
            #expect(batch.count > 3 && batch.last?.seq == seq, "grouped \(grouped): \(batch.map(\.name))")
            #expect(batch.filter(\.last).count == (grouped ? 0 : 1) && (grouped || batch.last?.last == true), "grouped \(grouped): \(batch.map(\.last))")
        }
    }
}
