// tabd end to end: a real daemon on a temporary socket, spoken to in JSON lines.

import Foundation
import TabJSON
import Testing
import TabProtocol

#if canImport(Glibc)
import Glibc
#endif

let sixTabs = #"[{"id":"home"},{"id":"login"},{"id":"music","item":{"title":"Music","image":"music.png","tag":3}},{"id":"video","orientations":["portrait","landscape_left"]},{"id":"settings","navigation":true,"restoration_id":"settings"},{"id":"about","title":"About"}]"#

@Suite(.serialized)
struct ProtocolTests {
    /// hello names the daemon, protocol 1 and every command and event.
    @Test func helloListsCommandsAndEvents() throws {
        let tabd = try TabdProcess()
        let r = try tabd.client().ok(#"{"cmd":"hello","id":1}"#)
        #expect(r.string("name") == "tabd")
        #expect(r.int("protocol") == 1)
        #expect(r.strings("commands")?.contains("tap") == true)
        #expect(r.strings("events")?.contains("selection_changed") == true)
    }

    /// Replies echo the id verbatim, whatever scalar it is; a reply without id has none.
    @Test func repliesEchoTheID() throws {
        let tabd = try TabdProcess()
        let c = try tabd.client()
        try c.write(#"{"cmd":"ping","id":"abc"}"# + "\n" + #"{"cmd":"ping","id":42}"# + "\n" + #"{"cmd":"ping"}"# + "\n" + #"{"cmd":"ping","id":null}"# + "\n")
        #expect(try c.readLine() == #"{"id":"abc","ok":true,"result":{}}"#)
        #expect(try c.readLine() == #"{"id":42,"ok":true,"result":{}}"#)
        #expect(try c.readLine() == #"{"ok":true,"result":{}}"#)
        #expect(try c.readLine() == #"{"id":null,"ok":true,"result":{}}"#)
    }

    /// Ids come back byte for byte as sent, on the fast path and the general one, in
    /// replies and in errors (of the decoder and of the command).
    @Test func repliesEchoTheIDByteForByte() throws {
        let tabd = try TabdProcess()
        let c = try tabd.client()
        _ = try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let ids = ["123456789012345678901234567890", "-0", "1.0", "1E+2", #""\u0041""#, #""a\/b""#, "true", "null", "7", #""x""#]
        for id in ids {
            try c.write(#"{"cmd":"ping","id":\#(id)}"# + "\n")
            #expect(try c.readLine() == #"{"id":\#(id),"ok":true,"result":{}}"#)
            try c.write(#"{"cmd":"select","tab":"b","id":\#(id)}"# + "\n")
            #expect(try c.readLine()?.hasPrefix(#"{"id":\#(id),"ok":true,"result":{"selected":"b""#) == true, "select with id \(id)")
            try c.write(#"{"cmd":"select","tab":"nowhere","id":\#(id)}"# + "\n")
            #expect(try c.readLine()?.hasPrefix(#"{"id":\#(id),"ok":false,"error":{"code":"not_found""#) == true, "not_found with id \(id)")
            try c.write(#"{"cmd":"fly","id":\#(id)}"# + "\n")
            #expect(try c.readLine()?.hasPrefix(#"{"id":\#(id),"ok":false,"error":{"code":"unknown_command""#) == true, "unknown_command with id \(id)")
        }
    }

    /// The whole command set works through the socket, and state reflects each step.
    /// `state` is answered from a memo while its controller is unchanged: every change shows
    /// in the next `state` (which differs from the one before), a `state` with no change
    /// between gives the same bytes, and after a restart (an empty memo) the same bytes again.
    @Test func stateFollowsEveryChangeThroughItsMemo() throws {
        let tabd = try TabdProcess()
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":\#(sixTabs)}"#)
        func state() throws -> String {
            try c.write(#"{"cmd":"state"}"# + "\n")
            return try #require(try c.readLine())
        }
        let changes = [
            #"{"cmd":"select","tab":"music"}"#, #"{"cmd":"badge","tab":"video","value":"3"}"#,
            #"{"cmd":"push","tab":"settings","screen":{"id":"wifi"}}"#, #"{"cmd":"select","tab":"video"}"#,
            #"{"cmd":"update_tab","tab":"about","title":"About us"}"#, #"{"cmd":"select","tab":"settings"}"#,
            #"{"cmd":"pop","tab":"settings"}"#, #"{"cmd":"badge","tab":"video","value":null}"#,
            #"{"cmd":"remove_tab","tab":"login"}"#, #"{"cmd":"add_tab","tab":{"id":"news"}}"#,
            #"{"cmd":"select","tab":"home"}"#, #"{"cmd":"customizable","tabs":["music","video"]}"#,
        ]
        var before = try state()
        for change in changes {
            #expect(try state() == before, "a state with no change between")
            try c.ok(change)
            let after = try state()
            #expect(after != before, "\(change) shows in the next state")
            before = after
        }
        _ = tabd.stop()
        try tabd.restart()
        let fresh = try tabd.client()
        try fresh.write(#"{"cmd":"state"}"# + "\n")
        #expect(try fresh.readLine() == before, "the state after a restart")
    }

    /// What the plugins decide is not state (a restart asks them again) but a `state` shows
    /// it: a reload to other orientation rules changes nothing else, and the next `state`
    /// must show the new supported orientations, not the memo's.
    @Test func stateShowsOrientationsAReloadDecided() throws {
        func config(_ orientations: String) -> String {
            Plugins.config("""
                    - path: libOrientationRules.so
                      settings:
                        rules: [{tab: "*", orientations: \(orientations)}]

                """)
        }
        let tabd = try TabdProcess(config: config("[portrait]"))
        let c = try tabd.client()
        let all = #"["portrait","landscape_left","landscape_right"]"#
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"home","orientations":"# + all + "}]}")
        func supported() throws -> [String]? { try c.ok(#"{"cmd":"state"}"#).object("orientation")?.strings("supported") }
        #expect(try supported() == ["portrait"])
        #expect(try supported() == ["portrait"])  // the second from the memo
        try config("[portrait, landscape_left]").write(toFile: tabd.configPath, atomically: true, encoding: .utf8)
        try c.ok(#"{"cmd":"reload"}"#)
        #expect(try supported() == ["portrait", "landscape_left"])
    }

    @Test func everyCommand() throws {
        let tabd = try TabdProcess()
        let c = try tabd.client()
        var r = try c.ok(#"{"cmd":"set_tabs","tabs":\#(sixTabs)}"#)
        #expect(r.string("selected") == "home")
        var s = try c.ok(#"{"cmd":"state"}"#)
        #expect(s.object("bar")?.strings("visible") == ["home", "login", "music", "video", "more"])
        #expect(s.object("bar")?.strings("more") == ["settings", "about"])
        r = try c.ok(#"{"cmd":"select","index":5}"#)
        #expect(r.string("selected") == "about")
        s = try c.ok(#"{"cmd":"state"}"#)
        #expect(s.object("bar")?.string("selected") == "more")
        r = try c.ok(#"{"cmd":"select","more":true}"#)
        #expect(r.string("selected") == "more")
        #expect(r.isNull("selected_index"))
        r = try c.ok(#"{"cmd":"tap","tab":"music"}"#)
        #expect(r.string("selected") == "music")
        try c.ok(#"{"cmd":"badge","tab":"music","value":"3"}"#)
        s = try c.ok(#"{"cmd":"state"}"#)
        guard case .array(let tabs)? = s["tabs"], case .object(let music) = tabs[2] else { Issue.record("no tabs"); return }
        #expect(music.object("item")?.string("badge") == "3")
        try c.ok(#"{"cmd":"add_tab","tab":{"id":"news"},"index":1}"#)
        try c.ok(#"{"cmd":"update_tab","tab":"news","title":"News","full_screen_layout":true}"#)
        try c.ok(#"{"cmd":"remove_tab","tab":"news"}"#)
        r = try c.ok(#"{"cmd":"push","tab":"settings","screen":{"id":"wifi","title":"Wi-Fi"}}"#)
        #expect(r["stack"] != nil)
        try c.ok(#"{"cmd":"pop","tab":"settings"}"#)
        #expect(try c.error(#"{"cmd":"pop","tab":"settings"}"#).string("code") == "conflict")
        try c.ok(#"{"cmd":"pop_to_root","tab":"settings"}"#)
        try c.ok(#"{"cmd":"customizable","tabs":["music","video","settings","about"]}"#)
        try c.ok(#"{"cmd":"customize.begin"}"#)
        #expect(try c.error(#"{"cmd":"customize.begin"}"#).string("code") == "conflict")
        try c.ok(#"{"cmd":"customize.move","tab":"about","to":2}"#)
        r = try c.ok(#"{"cmd":"customize.end"}"#)
        #expect(r.strings("tabs") == ["home", "login", "about", "music", "video", "settings"])
        r = try c.ok(#"{"cmd":"rotate","orientation":"landscape_left"}"#)
        #expect(r.bool("rotated") == false)  // home and others are portrait only (R9.1)
        r = try c.ok(#"{"cmd":"layout","width":390,"height":844}"#)
        #expect(r.object("bar")?["y"] == .double(795) || r.object("bar")?["y"] == .int(795))
        let archive = try c.ok(#"{"cmd":"preserve"}"#)
        #expect(archive.object("archive") != nil)
        try c.ok(#"{"cmd":"select","tab":"settings"}"#)
        let archived = try c.ok(#"{"cmd":"preserve"}"#)
        try c.ok(#"{"cmd":"select","tab":"home"}"#)
        var w = JSONWriter()
        w.write(archived["archive"]!)
        r = try c.ok(#"{"cmd":"restore","archive":\#(String(decoding: w.bytes, as: UTF8.self))}"#)
        #expect(r.string("selected") == "settings")
        try c.ok(#"{"cmd":"controller.create","controller":"tv1","idiom":"tv"}"#)
        let list = try c.ok(#"{"cmd":"controllers"}"#)
        guard case .array(let names)? = list["controllers"] else { Issue.record("no controllers"); return }
        #expect(names.count == 2)
        #expect(try c.error(#"{"cmd":"select","more":true,"controller":"tv1"}"#).string("code") == "not_available")
        try c.ok(#"{"cmd":"controller.delete","controller":"tv1"}"#)
        #expect(try c.error(#"{"cmd":"state","controller":"tv1"}"#).string("code") == "not_found")
        let stats = try c.ok(#"{"cmd":"stats"}"#)
        #expect((stats.int("commands_total") ?? 0) > 20)
        // Per command: its count and latency, whatever the order commands came in.
        let commands = stats.object("commands")
        #expect(commands?.object("controller.create")?.int("count") == 1)
        #expect(commands?.object("controller.delete")?.int("count") == 1)
        #expect(commands?.object("controllers")?.int("count") == 1)
        #expect((commands?.object("controllers")?.double("max_us") ?? 0) > 0)
        try c.ok(#"{"cmd":"plugins"}"#)
        try c.ok(#"{"cmd":"explain"}"#)
        try c.ok(#"{"cmd":"reload"}"#)
    }

    /// Bad input gets the right error, the connection stays usable, and nothing changes.
    @Test func badInputIsRejectedAndLosesNothing() throws {
        let tabd = try TabdProcess()
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let before = try c.ok(#"{"cmd":"state"}"#)
        let cases: [(String, String, String?)] = [
            ("not json", "parse_error", nil),
            ("[1,2,3]", "parse_error", nil),
            (#"{"cmd":"tap","tab":"b""#, "parse_error", nil),
            (#"{"cmd":"nope"}"#, "unknown_command", nil),
            (#"{"cmd":"select","tab":"b","colour":"red"}"#, "invalid_request", "colour"),
            (#"{"cmd":"select","tab":3}"#, "invalid_request", "tab"),
            (#"{"cmd":"select","index":99999999999999999999999}"#, "invalid_request", "index"),
            (#"{"cmd":"select","index":1e400}"#, "parse_error", nil),
            (#"{"cmd":"select","tab":"b","index":1}"#, "invalid_request", nil),
            (#"{"cmd":"select","tab":"zzz"}"#, "not_found", nil),
            (#"{"cmd":"select","index":7}"#, "out_of_range", nil),
            (#"{"cmd":"set_tabs","tabs":[{"id":"x"},{"id":"x"}]}"#, "conflict", nil),
            (#"{"cmd":"set_tabs","tabs":[{"id":"x","bogus":1}]}"#, "invalid_request", "tabs[0].bogus"),
            (#"{"cmd":"customize.begin"}"#, "not_available", nil),
            (#"{"cmd":"ping","id":[1]}"#, "invalid_request", "id"),
            (String(repeating: "[", count: 5000), "parse_error", nil),
            (#"{"cmd":"ping","x":""# + "\u{1}" + #""}"#, "parse_error", nil),
        ]
        for (line, code, field) in cases {
            let e = try c.error(line)
            #expect(e.string("code") == code, "\(line.prefix(60))")
            #expect((e.string("message") ?? "").count > 10)
            if let field { #expect(e.string("field") == field, "\(line.prefix(60))") }
        }
        // Invalid UTF-8 and binary garbage.
        try c.write([0x7B, 0x22, 0x63, 0x6D, 0x64, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D, 0x0A])
        #expect(try object(c.readLine()!).object("error")?.string("code") == "parse_error")
        try c.write((0..<200).map { _ in UInt8.random(in: 0x80...0xFF) } + [0x0A])
        #expect(try object(c.readLine()!).object("error")?.string("code") == "parse_error")
        let after = try c.ok(#"{"cmd":"state"}"#)
        #expect(JSONValue.object(before) == JSONValue.object(after))
    }

    /// 10,000 pipelined requests in one write are all answered, in order.
    @Test func pipelining10000() throws {
        let tabd = try TabdProcess()
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        var batch = ""
        for i in 0..<10_000 { batch += #"{"cmd":"select","tab":"\#(i % 2 == 0 ? "a" : "b")","id":\#(i)}"# + "\n" }
        try c.write(batch)
        for i in 0..<10_000 {
            let r = try object(c.readLine()!)
            #expect(r.int("id") == i)
            if r.int("id") != i { break }
        }
        #expect(try c.ok(#"{"cmd":"state"}"#).string("selected") == "b")
    }

    /// A client that half-closes still gets every answer, including a last line without newline.
    @Test func halfCloseIsAnswered() throws {
        let tabd = try TabdProcess()
        let c = try tabd.client()
        try c.write(#"{"cmd":"ping","id":1}"# + "\n" + #"{"cmd":"ping","id":2}"#)
        c.shutdownWrite()
        #expect(try c.readLine() == #"{"id":1,"ok":true,"result":{}}"#)
        #expect(try c.readLine() == #"{"id":2,"ok":true,"result":{}}"#)
        #expect(try c.readLine() == nil)
        let socat = try shell("printf '%s\\n%s' '{\"cmd\":\"ping\",\"id\":1}' '{\"cmd\":\"ping\",\"id\":2}' | socat - UNIX-CONNECT:\(tabd.socket)")
        #expect(socat.output == "{\"id\":1,\"ok\":true,\"result\":{}}\n{\"id\":2,\"ok\":true,\"result\":{}}\n")
        let nc = try shell("printf '%s\\n' '{\"cmd\":\"ping\",\"id\":3}' | nc -N -U \(tabd.socket)")
        #expect(nc.output == "{\"id\":3,\"ok\":true,\"result\":{}}\n")
    }

    /// A 2 MiB line gets too_large and the connection is closed; others are served.
    @Test func tooLargeLine() throws {
        let tabd = try TabdProcess()
        let other = try tabd.client()
        let c = try tabd.client()
        try? c.write(Array(repeating: UInt8(ascii: "x"), count: 2 << 20))
        let reply = try c.readLine()
        #expect(reply.map { (try? object($0))?.object("error")?.string("code") } == "too_large")
        // Closed; tabd left the rest of the 2 MiB unread, so the end may read as a reset.
        #expect(try c.readsEndOfStream())
        try other.ok(#"{"cmd":"ping"}"#)
    }

    /// 5,000 connections opened and dropped leave tabd serving, without leaking descriptors.
    @Test func manyConnectionsOpenedAndDropped() throws {
        let tabd = try TabdProcess()
        let fdsBefore = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(tabd.pid)/fd").count
        for i in 0..<5000 {
            let c = try tabd.client()
            if i % 2 == 0 { try c.write(#"{"cmd":"ping"}"#) }
        }
        let c = try tabd.client()
        try c.ok(#"{"cmd":"ping"}"#)
        // Once tabd has closed them all (stats counts what is open: this client alone), not
        // after a fixed pause a loaded machine may outlast.
        #expect(try HostileClientTests.eventually { try c.ok(#"{"cmd":"stats"}"#).int("connections") == 1 })
        let fdsAfter = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(tabd.pid)/fd").count
        #expect(fdsAfter <= fdsBefore + 2)
    }

    /// A subscriber that never reads (more than max_output_bytes unread for longer than
    /// output_timeout_seconds) is dropped; the loop keeps serving and the others get every event.
    @Test func slowSubscriberIsDropped() throws {
        let tabd = try TabdProcess(config: "limits:\n  max_output_bytes: 65536\n  output_timeout_seconds: 0.1\n")
        let slow = try tabd.client()
        try slow.ok(#"{"cmd":"subscribe","events":["*"]}"#)
        let good = try tabd.client()
        try good.ok(#"{"cmd":"subscribe","events":["did_select"]}"#)
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        var got = 0
        for i in 0..<3000 {
            try c.ok(#"{"cmd":"tap","tab":"\#(i % 2 == 0 ? "a" : "b")"}"#)
            if try good.readLine() != nil { got += 1 }
        }
        #expect(got == 3000)
        // The sweep drops it once it has been stalled `output_timeout_seconds`: a fast (release)
        // tabd serves the 3,000 taps before that.
        #expect(try HostileClientTests.eventually { try c.ok(#"{"cmd":"stats"}"#).int("subscribers") == 1 })
    }

    /// Events carry the controller and a per-controller seq increasing by one.
    @Test func eventsHaveSequenceNumbers() throws {
        let tabd = try TabdProcess()
        let sub = try tabd.client()
        try sub.ok(#"{"cmd":"subscribe","events":["selection_changed","did_select"]}"#)
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try c.ok(#"{"cmd":"tap","tab":"b"}"#)
        let e1 = try object(sub.readLine()!)
        let e2 = try object(sub.readLine()!)
        let e3 = try object(sub.readLine()!)
        #expect(e1.string("event") == "selection_changed")
        #expect(e2.string("event") == "selection_changed")
        #expect(e2.object("data")?.string("cause") == "tap")
        #expect(e3.string("event") == "did_select")
        #expect(e1["ok"] == nil)
        let seqs = [e1, e2, e3].compactMap { $0.int("seq") }
        #expect(seqs.count == 3 && seqs[1] > seqs[0] && seqs[2] == seqs[1] + 1)
    }

    /// Every controller's state survives a restart, exactly.
    @Test func restartKeepsState() throws {
        let tabd = try TabdProcess()
        var c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":\#(sixTabs)}"#)
        try c.ok(#"{"cmd":"select","tab":"video"}"#)
        try c.ok(#"{"cmd":"badge","tab":"music","value":"7"}"#)
        try c.ok(#"{"cmd":"push","tab":"settings","screen":{"id":"wifi"}}"#)
        try c.ok(#"{"cmd":"customize.begin"}"#)
        try c.ok(#"{"cmd":"customize.move","tab":"about","to":0}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"pad","idiom":"pad","max_visible":6}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"x"}]}"#)
        let before = try c.ok(#"{"cmd":"state"}"#)
        let padBefore = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(tabd.stop() == 0)
        try tabd.start()
        c = try tabd.client()
        #expect(JSONValue.object(try c.ok(#"{"cmd":"state"}"#)) == JSONValue.object(before))
        #expect(JSONValue.object(try c.ok(#"{"cmd":"state","controller":"pad"}"#)) == JSONValue.object(padBefore))
        try c.ok(#"{"cmd":"customize.end"}"#)
    }

    /// Streams 20,000 badge updates, kills tabd with SIGKILL once `acknowledged` were
    /// answered, restarts it, and expects the badge to be at least the last answered one.
    private func killNineMidStream(_ tabd: TabdProcess, after acknowledgedBeforeKill: Int) throws {
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"t"}]}"#)
        // A writer thread pipelines badge updates; we kill tabd while it streams.
        let batch = (1...20_000).map { #"{"cmd":"badge","tab":"t","value":"\#($0)","id":\#($0)}"# + "\n" }.joined()
        // The thread only writes while this one only reads: LineClient's two sides share
        // nothing but the descriptor.
        nonisolated(unsafe) let writingSide = c
        let writer = Thread { try? writingSide.write(batch) }
        writer.start()
        var acknowledged = 0
        while acknowledged < acknowledgedBeforeKill, let line = try c.readLine() {
            if let id = try object(line).int("id") { acknowledged = id }
        }
        kill(tabd.pid, SIGKILL)
        while let line = try? c.readLine() {
            if let id = try? object(line).int("id") { acknowledged = id }
        }
        try tabd.start()
        let s = try tabd.client().ok(#"{"cmd":"state"}"#)
        guard case .array(let tabs)? = s["tabs"], case .object(let t) = tabs[0], let badge = t.string("badge") else {
            Issue.record("no badge after restart"); return
        }
        #expect(Int(badge)! >= acknowledged)
    }

    /// kill -9 in the middle of a stream of mutations loses none that were acknowledged.
    @Test(arguments: ["everysec", "always"])
    func killNineLosesNothingAcknowledged(fsync: String) throws {
        let tabd = try TabdProcess(config: "fsync: \(fsync)\n")
        try killNineMidStream(tabd, after: 3000)
        // The journal is allocated ahead of its records, 4 MiB at a time.
        let journal = try FileManager.default.contentsOfDirectory(atPath: tabd.stateDir).first { $0.hasSuffix(".log") }!
        let size = try FileManager.default.attributesOfItem(atPath: tabd.stateDir + "/" + journal)[.size] as! Int
        let records = try tabd.client().ok(#"{"cmd":"stats"}"#).object("journal")?.int("bytes") ?? -1
        #expect(records > 0)
        #expect(size == 4 << 20)  // one allocation step
    }

    /// Compactions follow one another while a client streams changes (a small
    /// compact_bytes), then kill -9 at whatever moment of one: nothing acknowledged is lost,
    /// and at most the journals of one unfinished compaction are left.
    @Test(arguments: ["everysec", "always"])
    func killNineDuringCompactionsLosesNothing(fsync: String) throws {
        let tabd = try TabdProcess(config: "fsync: \(fsync)\nlimits:\n  compact_bytes: 8192\n")
        try killNineMidStream(tabd, after: 5000)
        let files = try FileManager.default.contentsOfDirectory(atPath: tabd.stateDir)
        #expect(files.contains("snapshot"))
        #expect((1...2).contains(files.filter { $0.hasPrefix("journal-") }.count))
        #expect(!files.contains { $0.contains(".damaged-") })
    }

    /// A second tabd on the same socket refuses to start; a stale socket file is replaced.
    @Test func socketOwnership() throws {
        let tabd = try TabdProcess()
        let second = Process()
        second.executableURL = URL(fileURLWithPath: Build.tabd)
        second.arguments = ["--socket", tabd.socket, "--state-dir", tabd.dir + "/other"]
        let pipe = Pipe()
        second.standardError = pipe
        try second.run()
        second.waitUntilExit()
        #expect(second.terminationStatus != 0)
        let message = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains(tabd.socket))
        var st = stat()
        stat(tabd.socket, &st)
        #expect(st.st_mode & 0o777 == 0o660)
        // kill -9 leaves the socket file behind; the next start replaces it.
        tabd.stop(signal: SIGKILL)
        #expect(FileManager.default.fileExists(atPath: tabd.socket))
        try tabd.start()
        try tabd.client().ok(#"{"cmd":"ping"}"#)
    }

    /// SIGTERM answers what was received and exits 0.
    @Test func sigtermDrains() throws {
        let tabd = try TabdProcess()
        let c = try tabd.client()
        var batch = ""
        for i in 0..<2000 { batch += #"{"cmd":"ping","id":\#(i)}"# + "\n" }
        try c.write(batch)
        _ = try c.readLine()
        #expect(tabd.stop(signal: SIGTERM) == 0)
    }

    /// A corrupt journal is detected and not trusted; --repair keeps it aside.
    @Test func corruptJournalIsDetected() throws {
        let tabd = try TabdProcess()
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try c.ok(#"{"cmd":"select","tab":"b"}"#)
        try c.ok(#"{"cmd":"badge","tab":"a","value":"1"}"#)
        tabd.stop()
        let journal = try FileManager.default.contentsOfDirectory(atPath: tabd.stateDir).first { $0.hasPrefix("journal-") }!
        let path = tabd.stateDir + "/" + journal
        var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        let headerEnd = bytes.firstIndex(of: 0x0A)!  // the journal's header line
        let firstNL = bytes[(headerEnd + 1)...].firstIndex(of: 0x0A)!
        bytes[firstNL + 20] ^= 0x01   // damage the second record; a valid one follows
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        #expect(throws: (any Error).self) { try tabd.start() }
        #expect(tabd.log.contains("damaged"))
        try tabd.start(arguments: ["--repair"])
        let files = try FileManager.default.contentsOfDirectory(atPath: tabd.stateDir)
        #expect(files.contains { $0.contains(".damaged-") })
        let s = try tabd.client().ok(#"{"cmd":"state"}"#)
        #expect(s.strings("customizable") == ["a", "b"])
    }

    /// A torn last record (a crash during a write) is cut off with a warning; tabd starts.
    @Test func tornTailIsCutOff() throws {
        let tabd = try TabdProcess()
        try tabd.client().ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        tabd.stop()
        let journal = try FileManager.default.contentsOfDirectory(atPath: tabd.stateDir).first { $0.hasPrefix("journal-") }!
        let h = FileHandle(forWritingAtPath: tabd.stateDir + "/" + journal)!
        h.seekToEndOfFile()
        h.write(Data("0badc0de {\"cmd\":\"sel".utf8))
        try h.close()
        try tabd.start()
        #expect(try tabd.client().ok(#"{"cmd":"state"}"#).string("selected") == "a")
        #expect(tabd.log.contains("torn"))
    }
}
