// The state directory end to end: older formats load, damage is refused in one sentence or
// set aside by --repair, a missing snapshot is never an empty state, a newer format is
// refused, and journal-only operations are not commands.

import Foundation
import TabJSON
import Testing
import TabProtocol

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct StateDirectoryTests {
    static let fixture = Build.packageRoot.appendingPathComponent("Tests/EndToEndTests/Fixtures/state-v1").path

    /// `state` of each controller, as raw reply lines.
    static func states(_ c: LineClient, _ names: [String]) throws -> [String] {
        try names.map { name in
            try c.write(#"{"cmd":"state","controller":"\#(name)"}"# + "\n")
            guard let line = try c.readLine() else { throw TestFailure("no reply") }
            return line
        }
    }

    /// A tabd that is expected not to start: its exit status and what it said.
    static func failedStart(_ t: TabdProcess, arguments: [String] = []) throws -> (status: Int32, log: String) {
        try t.start(arguments: arguments, waitForSocket: false)
        let deadline = Date().addingTimeInterval(60)
        while t.process?.isRunning == true, Date() < deadline {
            if (try? LineClient(path: t.socket)) != nil { throw TestFailure("tabd started although it should not have: \(t.log)") }
            usleep(20_000)
        }
        let status = t.stop()
        return (status, t.log)
    }

    /// A stopped tabd's directory with a few changes in it (main with tabs a, b, c; b selected).
    static func directoryWithChanges() throws -> TabdProcess {
        let t = try TabdProcess(config: "fsync: always\n")
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b","item":{"title":"B"}},{"id":"c"}]}"#)
        try c.ok(#"{"cmd":"select","tab":"b"}"#)
        try c.ok(#"{"cmd":"badge","tab":"c","value":"7"}"#)
        try c.ok(#"{"cmd":"update_tab","tab":"a","title":"A","item":{"title":"A","image":"a.png"}}"#)
        #expect(t.stop() == 0)
        return t
    }

    static func journal(_ t: TabdProcess) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: t.stateDir).filter { $0.hasPrefix("journal-") && $0.hasSuffix(".log") }
        guard names.count == 1 else { throw TestFailure("expected one journal, found \(names)") }
        return t.stateDir + "/" + names[0]
    }

    /// The journal's lines (its header and records), without the zeros allocated ahead.
    static func journalLines(_ path: String) throws -> [String] {
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)).filter { $0 != 0 }, as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }

    static func writeJournal(_ path: String, _ lines: [String]) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func aStateDirectoryWrittenByTabd010LoadsWithEveryControllerAsItWas() throws {
        let t = try TabdProcess(config: "")
        t.stop()
        try? FileManager.default.removeItem(atPath: t.stateDir)
        try FileManager.default.createDirectory(atPath: t.stateDir, withIntermediateDirectories: true)
        for name in ["snapshot", "journal-2.log"] {
            try FileManager.default.copyItem(atPath: Self.fixture + "/" + name, toPath: t.stateDir + "/" + name)
        }
        try t.start()
        // As tabd 0.1.0 left them, but for one rule since: a regular pad's bar is at the top
        // (SEMANTICS R13.11), which `state`'s `bar.position` says.
        let expected = try String(contentsOfFile: Self.fixture + "/expected-states.jsonl", encoding: .utf8)
            .split(separator: "\n").map(String.init)
            .map { $0.contains(#""idiom":"pad""#) ? $0.replacingOccurrences(of: #""position":"bottom""#, with: #""position":"top""#) : $0 }
        let c = try t.client()
        #expect(try Self.states(c, ["main", "tv1", "pad", "rot"]) == expected)
        #expect(t.log.contains("state.upgraded_from_format=1"))
        // Rewritten in today's format, and it loads again as it was.
        #expect(try String(contentsOfFile: t.stateDir + "/snapshot", encoding: .isoLatin1).hasPrefix("tabd-snapshot 5 "))
        try t.restart()
        #expect(try Self.states(try t.client(), ["main", "tv1", "pad", "rot"]) == expected)
    }

    @Test func theDocumentedCommandsThatOnceBrokeReplayComeBackAfterARestart() throws {
        let t = try TabdProcess(config: "")
        let c = try t.client()
        // An item without a tag (the journal wrote "tag":null, which the client decoder refused).
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"radio","item":{"title":"Radio"}},{"id":"home"}]}"#)
        // docs/protocol.md's update_tab example.
        try c.ok(#"{"cmd":"update_tab","tab":"radio","title":"Live radio","item":{"title":"Live","image":"radio.png"}}"#)
        let before = try Self.states(c, ["main"])
        t.stop(signal: SIGKILL)
        try t.start()
        #expect(try Self.states(try t.client(), ["main"]) == before)
    }

    @Test func journalOnlyOperationsAreUnknownCommands() throws {
        let t = try TabdProcess(config: "")
        let c = try t.client()
        for cmd in ["_set_orientation", "set_orientation"] {
            let e = try c.error(#"{"cmd":"\#(cmd)","orientation":"landscape_left"}"#)
            #expect(e.string("code") == "unknown_command")
        }
        #expect(try c.ok(#"{"cmd":"state"}"#).object("orientation")?.string("current") == "portrait")
    }

    @Test func aDamagedRecordIsRefusedInOneSentenceAndRepairSetsItAsideWithEverythingAfterIt() throws {
        let t = try Self.directoryWithChanges()
        let path = try Self.journal(t)
        var lines = try Self.journalLines(path)
        #expect(lines.count == 5)  // the header and four records
        // Record 2 (the select) damaged in its JSON: its checksum no longer matches.
        lines[2] = lines[2].replacingOccurrences(of: "\"b\"", with: "\"x\"")
        try Self.writeJournal(path, lines)

        let refused = try Self.failedStart(t)
        #expect(refused.status != 0)
        let sentence = refused.log.split(separator: "\n").last(where: { $0.contains("cannot start") }).map(String.init) ?? ""
        #expect(sentence.contains(path))
        #expect(sentence.contains("record 2"))
        #expect(sentence.contains("checksum"))
        #expect(sentence.contains("--repair"))
        #expect(!sentence.contains("Error("))  // a sentence, not a Swift value

        try t.start(arguments: ["--repair"])
        let state = try t.client().ok(#"{"cmd":"state"}"#)
        // The state before record 2: the tabs are there, a is still selected, c has no badge.
        #expect(state.string("selected") == "a")
        #expect(t.log.contains("set aside"))
        let files = try FileManager.default.contentsOfDirectory(atPath: t.stateDir)
        #expect(files.contains { $0.contains(".damaged-") })
        // It starts again without --repair, as it was.
        let before = try Self.states(try t.client(), ["main"])
        try t.restart()
        #expect(try Self.states(try t.client(), ["main"]) == before)
    }

    @Test func aRecordOutOfSequenceIsRefused() throws {
        let t = try Self.directoryWithChanges()
        let path = try Self.journal(t)
        var lines = try Self.journalLines(path)
        lines.insert(lines[2], at: 3)  // record 2 twice: a duplicated record
        try Self.writeJournal(path, lines)
        let refused = try Self.failedStart(t)
        #expect(refused.status != 0)
        #expect(refused.log.contains("record 3"))
        #expect(refused.log.contains("duplicated or reordered"))
    }

    @Test func aMissingSnapshotIsNeverAnEmptyState() throws {
        // Compactions (a small compact_bytes) leave a snapshot and a journal of a later generation.
        let t = try TabdProcess(config: "fsync: always\nlimits:\n  compact_bytes: 65536\n")
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a","navigation":true},{"id":"b"}]}"#)
        var burst = ""
        for i in 0..<2000 { burst += #"{"cmd":"select","tab":"\#(i % 2 == 0 ? "a" : "b")"}"# + "\n" }
        try c.write(burst)
        for _ in 0..<2000 { _ = try c.readLine() }
        try c.ok(#"{"cmd":"select","tab":"b"}"#)
        #expect(t.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: t.stateDir + "/snapshot"))
        try FileManager.default.removeItem(atPath: t.stateDir + "/snapshot")

        let refused = try Self.failedStart(t)
        #expect(refused.status != 0)
        #expect(refused.log.contains("snapshot"))
        #expect(refused.log.contains("is missing"))
        #expect(refused.log.contains("--repair"))

        try t.start(arguments: ["--repair"])
        let state = try t.client().ok(#"{"cmd":"state"}"#)
        #expect(state["tabs"] == .array([]))
        #expect(t.log.contains("everything the snapshot held is lost"))
        #expect(t.log.contains("lost.records="))
    }

    @Test func aFormatNewerThanThisTabdIsRefusedEvenWithRepair() throws {
        let t = try Self.directoryWithChanges()
        let path = try Self.journal(t)
        var lines = try Self.journalLines(path)
        lines[0] = lines[0].replacingOccurrences(of: "tabd-journal 5 ", with: "tabd-journal 6 ")
        try Self.writeJournal(path, lines)
        for arguments in [[], ["--repair"]] {
            let refused = try Self.failedStart(t, arguments: arguments)
            #expect(refused.status != 0)
            #expect(refused.log.contains("newer tabd"))
        }
        // Nothing was set aside or rewritten.
        #expect(try Self.journalLines(path)[0].hasPrefix("tabd-journal 6 "))
    }

    @Test func aTornLastRecordIsCutOffAndTheRestLoads() throws {
        let t = try Self.directoryWithChanges()
        let path = try Self.journal(t)
        var lines = try Self.journalLines(path)
        let torn = String(lines.removeLast().prefix(20))  // a crash in the middle of the last write
        try Data((lines.joined(separator: "\n") + "\n" + torn).utf8).write(to: URL(fileURLWithPath: path))
        try t.start()
        let state = try t.client().ok(#"{"cmd":"state"}"#)
        #expect(state.string("selected") == "b")
        #expect(t.log.contains("torn record"))
    }
}
