// The example client (examples/mirror.py) against a real tabd with both reference plugins:
// it keeps a mirror of `main` from events alone while a seeded random stream of commands
// drives tabd on another connection, and its mirror must equal `state` at every `check`,
// also after tabd is restarted by SIGTERM and by SIGKILL in the middle (the client resyncs
// with the recipe of docs/protocol.md, "Staying in sync", and finds nothing missed: seq
// continues across restarts, R11.4).

import TabJSON
import TestRandom
import Foundation
import Glibc
import TabProtocol
import Testing

/// `python3 examples/mirror.py …` with its stdin and stdout as pipes.
final class MirrorClient {
    let lines: LinesProcess
    var process: Process { lines.process }
    var stderr: String { lines.stderr }

    init(socket: String, dir: String, controller: String = "main") throws {
        let script = Build.packageRoot.appendingPathComponent("examples/mirror.py").path
        lines = try LinesProcess("/usr/bin/env", ["python3", script, "--socket", socket, "--controller", controller, "--reconnect-seconds", "120"],
                                 dir: dir, input: true)
    }

    func send(_ line: String) throws { try lines.send(line) }

    /// The next line it prints, as an object; fails after `timeout` seconds or at its exit.
    func readLine(timeout: Double = 60) throws -> JSONObject { try lines.readLine(timeout: timeout) }

    /// Sends `check` and returns the seq its mirror had, failing on a mismatch.
    @discardableResult
    func check(_ context: String) throws -> Int? {
        try send("check")
        let reply = try readLine()
        guard reply.string("check") == "ok" else {
            throw TestFailure("\(context): the mirror differs from state: \(JSONValue.object(reply).jsonString)")
        }
        return reply.int("seq")
    }
}

/// A random stream of the commands a front end meets, on `main` (phone, 5 visible).
struct MirrorStream {
    var random: SplitMix64
    /// The tab ids as the last reply that listed them said.
    var tabs: [String] = []
    static let pool = ["login", "home", "music", "video", "news", "settings", "radio", "maps", "mail", "photos"]
    static let screens = ["detail", "list", "edit", "photo"]

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    /// A tab; `wide` ones support landscape too, so that a list of them can rotate.
    mutating func tabObject(_ id: String, wide: Bool = false) -> JSONValue {
        var fields: [(String, JSONValue)] = [("id", .string(id))]
        if random.chance(0.6) { fields.append(("title", .string(id.capitalized))) }
        if random.chance(0.5) { fields.append(("navigation", .bool(true))) }
        if random.chance(0.3) {
            fields.append(("item", .object(JSONObject([("title", .string("\(id) item")), ("badge", random.chance(0.5) ? .string("1") : .null)]))))
        }
        if wide || id.hasPrefix("video") || random.chance(0.2) {
            fields.append(("orientations", .array(["portrait", "landscape_left", "landscape_right"].map { .string($0) })))
        }
        if random.chance(0.3) { fields.append(("restoration_id", .string("r-\(id)"))) }
        return .object(JSONObject(fields))
    }

    mutating func tab() -> String { tabs.isEmpty || random.chance(0.1) ? random.pick(Self.pool) : random.pick(tabs) }

    /// The next request: its command (`login` for the plugin call) and its line.
    mutating func next() -> (kind: String, line: String) {
        let kind = random.weighted([
            (tabs.isEmpty ? 40 : 4, "set_tabs"), (10, "select"), (12, "tap"), (8, "badge"), (8, "push"), (5, "pop"),
            (2, "pop_to_root"), (5, "update_tab"), (3, "customizable"), (3, "customize.begin"), (5, "customize.move"),
            (3, "customize.end"), (4, "rotate"), (3, "add_tab"), (3, "remove_tab"), (2, "login"),
        ])
        return (kind, request(kind))
    }

    mutating func request(_ kind: String) -> String {
        func line(_ cmd: String, _ fields: [(String, JSONValue)] = []) -> String {
            JSONValue.object(JSONObject([("cmd", .string(cmd))] + fields)).jsonString
        }
        switch kind {
        case "set_tabs":
            let ids = Array(random.shuffled(Self.pool).prefix(random.int(in: 3...8)))
            let wide = random.chance(0.3)
            var fields: [(String, JSONValue)] = [("tabs", .array(ids.map { tabObject($0, wide: wide) }))]
            if random.chance(0.3) { fields.append(("selected", .string(random.pick(ids)))) }
            if random.chance(0.3) { fields.append(("animated", .bool(true))) }
            return line("set_tabs", fields)
        case "select":
            switch random.below(3) {
            case 0: return line("select", [("tab", .string(tab()))])
            case 1: return line("select", [("index", .int(Int64(random.below(max(1, tabs.count)))))])
            default: return line("select", [("more", .bool(true))])
            }
        case "tap":
            return random.chance(0.15) ? line("tap", [("more", .bool(true))]) : line("tap", [("tab", .string(tab()))])
        case "badge":
            return line("badge", [("tab", .string(tab())), ("value", random.chance(0.7) ? .string(String(random.int(in: 1...99))) : .null)])
        case "push":
            return line("push", [("tab", .string(tab())), ("screen", .object(JSONObject([("id", .string(random.pick(Self.screens)))])))])
        case "pop", "pop_to_root":
            return line(kind, [("tab", .string(tab()))])
        case "update_tab":
            return line("update_tab", [("tab", .string(tab())), ("title", random.chance(0.8) ? .string("T\(random.below(100))") : .null)])
        case "customizable":
            return line("customizable", [("tabs", random.chance(0.2) ? .null : .array(random.subset(tabs, 0.7).map { .string($0) }))])
        case "customize.move":
            return line("customize.move", [("tab", .string(tab())), ("to", .int(Int64(random.below(max(1, tabs.count)))))])
        case "rotate":
            return line("rotate", [("orientation", .string(random.pick(["portrait", "landscape_left", "landscape_right", "portrait_upside_down"])))])
        case "add_tab":
            return line("add_tab", [("tab", tabObject(random.pick(Self.pool), wide: random.chance(0.5))), ("index", .int(Int64(random.below(tabs.count + 1))))])
        case "remove_tab":
            return line("remove_tab", [("tab", .string(tab()))])
        case "login":
            return loginLine(controller: "main")
        default:
            return line(kind)
        }
    }

    /// What a reply says about the tab list.
    mutating func note(_ reply: JSONObject) {
        if let ids = reply.object("result")?.strings("tabs") { tabs = ids }
    }
}

@Suite struct ExampleClientTests {
    static func config(credentials: String) -> String {
        Plugins.config(Plugins.loginGate(credentials: credentials) + """
                - path: libOrientationRules.so
                  settings:
                    rules: [{tab: "video*", orientations: [portrait, landscape_left, landscape_right]}]

            """)
    }

    /// The mirror kept from events equals `state` throughout a random stream, and after a
    /// restart (SIGTERM, then SIGKILL) the client resyncs with a new instance and the same
    /// seq: nothing missed (R11.4).
    @Test(arguments: [UInt64(0x17), 0xC0FFEE])
    func r11_4_mirrorFromEventsStaysInSyncAcrossRestarts(seed: UInt64) throws {
        let dir = temporaryDirectory("py")
        let tabd = try TabdProcess(config: Self.config(credentials: try Plugins.credentials(in: dir)), dir: dir)
        var driver = try tabd.client()
        let mirror = try MirrorClient(socket: tabd.socket, dir: dir)
        let first = try mirror.readLine()
        #expect(first.string("sync") == "initial", "\(JSONValue.object(first).jsonString)")

        var stream = MirrorStream(seed: seed)
        var accepted: [String: Int] = [:]
        try driver.request(loginLine(controller: "main"))
        let steps = 300
        for step in 1...steps {
            let (kind, line) = stream.next()
            let reply = try driver.request(line)
            stream.note(reply)
            if reply.bool("ok") == true { accepted[kind, default: 0] += 1 }
            if reply.object("result")?.bool("rotated") == true { accepted["rotated", default: 0] += 1 }
            if step % 10 == 0 { try mirror.check("seed \(seedText(seed)), step \(step) (\(line))") }
            guard step == steps / 3 || step == 2 * steps / 3 else { continue }

            // Caught up before the restart, so that any seq it misses afterwards is tabd's fault.
            let before = try mirror.check("seed \(seedText(seed)), before a restart")
            let signal = step == steps / 3 ? SIGTERM : SIGKILL
            tabd.stop(signal: signal)
            try tabd.start()
            driver = try tabd.client()
            let resync = try mirror.readLine()
            let how = signal == SIGTERM ? "SIGTERM" : "SIGKILL"
            #expect(resync.string("sync") == "resync", "after \(how): \(JSONValue.object(resync).jsonString)")
            #expect(resync.bool("instance_changed") == true, "after \(how): \(JSONValue.object(resync).jsonString)")
            #expect(resync.bool("nothing_missed") == true, "after \(how): \(JSONValue.object(resync).jsonString)")
            #expect(resync.int("seq") == before, "after \(how): \(JSONValue.object(resync).jsonString)")
            try mirror.check("seed \(seedText(seed)), right after the restart by \(how)")
        }
        // The stream reached what the mirror must follow.
        print("seed \(seedText(seed)): accepted " + accepted.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for kind in ["set_tabs", "tap", "select", "badge", "push", "pop", "update_tab", "customize.end", "add_tab", "remove_tab", "rotated"] {
            #expect(accepted[kind, default: 0] > 0, "seed \(seedText(seed)): no \(kind) was accepted")
        }
        let last = try mirror.check("seed \(seedText(seed)), at the end")
        let state = try driver.ok(#"{"cmd":"state"}"#)
        #expect(state.int("seq") == last)

        try mirror.send("quit")
        mirror.process.waitUntilExit()
        #expect(mirror.process.terminationStatus == 0)
    }

    /// `controller_deleted` ends the mirror (a check then agrees with `state`'s not_found);
    /// when the controller is created again, its next event makes the client resync, and
    /// the seq goes on from where the deleted one stopped (R11.4).
    @Test func r11_4_deletedControllerEndsTheMirrorAndARecreatedOneResyncs() throws {
        let dir = temporaryDirectory("py")
        let tabd = try TabdProcess(dir: dir)
        let driver = try tabd.client()
        try driver.ok(#"{"cmd":"controller.create","controller":"side","idiom":"pad","max_visible":3}"#)
        let mirror = try MirrorClient(socket: tabd.socket, dir: dir, controller: "side")
        #expect(try mirror.readLine().string("sync") == "initial")
        try driver.ok(#"{"cmd":"set_tabs","controller":"side","tabs":[{"id":"a"},{"id":"b","navigation":true},{"id":"c"},{"id":"d"}]}"#)
        try driver.ok(#"{"cmd":"push","controller":"side","tab":"b","screen":{"id":"x"}}"#)
        let before = try mirror.check("before the delete")

        try driver.ok(#"{"cmd":"controller.delete","controller":"side"}"#)
        #expect(try mirror.check("after the delete") == nil)

        try driver.ok(#"{"cmd":"controller.create","controller":"side","idiom":"phone"}"#)
        try driver.ok(#"{"cmd":"set_tabs","controller":"side","tabs":[{"id":"e"},{"id":"f"}]}"#)
        let resync = try mirror.readLine()
        #expect(resync.string("sync") == "resync", "\(JSONValue.object(resync).jsonString)")
        let after = try mirror.check("after creating it again")
        #expect(after != nil && before != nil && after! > before! + 1)  // controller_deleted had before + 1
        try mirror.send("quit")
        mirror.process.waitUntilExit()
        #expect(mirror.process.terminationStatus == 0)
    }

    /// `--once` prints the mirror (what `state` says, with its seq) and exits.
    @Test func oncePrintsTheMirror() throws {
        let tabd = try TabdProcess()
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a","title":"A"},{"id":"b"}]}"#)
        try c.ok(#"{"cmd":"badge","tab":"b","value":"3"}"#)
        let script = Build.packageRoot.appendingPathComponent("examples/mirror.py").path
        let r = try shell("python3 \(script) --once --socket \(tabd.socket)")
        #expect(r.status == 0, "\(r.output)")
        let printed = try object(r.output)
        let state = try c.ok(#"{"cmd":"state"}"#)
        #expect(printed == state)
    }

    /// The socket is --socket, else $TABD_SOCKET (the line `make run` prints), else the
    /// installed service's — as for tabctl, never ./run/tabd.sock in the current directory.
    @Test func theSocketComesFromTABDSocketNeverTheCurrentDirectory() throws {
        let checkout = temporaryDirectory("mir")
        defer { try? FileManager.default.removeItem(atPath: checkout) }
        try FileManager.default.createDirectory(atPath: checkout + "/run", withIntermediateDirectories: false)
        let tabd = try TabdProcess(dir: checkout + "/run")  // listens on ./run/tabd.sock of `checkout`
        let script = Build.packageRoot.appendingPathComponent("examples/mirror.py").path
        let env = try shell("cd \(checkout) && TABD_SOCKET=\(tabd.socket) python3 \(script) --once")
        #expect(env.status == 0 && (try? object(env.output))?.string("controller") == "main", "\(env.output)")
        if !FileManager.default.fileExists(atPath: "/run/tabd/tabd.sock") {
            let none = try shell("cd \(checkout) && env -u TABD_SOCKET python3 \(script) --once --reconnect-seconds 0.2")
            #expect(none.status == 1 && none.output.contains("cannot reach tabd at /run/tabd/tabd.sock"), "\(none.output)")
        }
    }
}
