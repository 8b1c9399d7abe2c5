// Issue 32, hostile files: a hard-linked `lock` in the state directory, a
// hard-linked or setuid plugin file, and a journal whose orientation record contradicts the
// tabs — each refused in one sentence on a real tabd (the orientation record as damage, which
// --repair sets aside).

import Foundation
import Glibc
import TabProtocol
import Testing

@Suite(.serialized) struct HostileFilesTests {
    /// `ln /tmp/v STATE/lock`: tabd would write its pid into, then truncate, the other file.
    @Test func aHardLinkedLockIsRefusedAndTheOtherFileIsUntouched() throws {
        let t = try TabdProcess(config: "")
        t.stop()
        let victim = t.dir + "/victim"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        unlink(t.stateDir + "/lock")
        #expect(link(victim, t.stateDir + "/lock") == 0)
        let outcome = try StateHostileTests.startOutcome(t)
        let refused = try #require(outcome, "tabd served with a hard-linked lock")
        #expect(refused.status == 1)
        #expect(refused.log.contains("the lock file \(t.stateDir)/lock has 2 hard links"), "\(refused.log)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
    }

    /// A plugin file with a second hard link, and one with the setuid bit: not loaded, each
    /// with its sentence; tabd serves without them.
    @Test func hardLinkedAndSetuidPluginsAreRefused() throws {
        let base = temporaryDirectory("plink")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let dir = try PluginEndToEndTests.gateDirectory(base + "/plugins", "linked.so")
        try Plugins.gate("setuid.so", in: dir, [#"NAME="setuid""#, "RESULT=TABD_DENY", #"REASON="guarded""#])
        #expect(link(dir + "/linked.so", base + "/linked-copy.so") == 0)
        #expect(chmod(dir + "/setuid.so", 0o4755) == 0)
        let t = try TabdProcess(config: "plugins:\n  directories: [\(dir)]\n  load:\n    - path: linked.so\n    - path: setuid.so\n")
        let errors = try PluginEndToEndTests.pluginErrors(t)
        #expect(errors["linked.so"]?.contains("has 2 hard links") == true, "\(errors)")
        #expect(errors["setuid.so"]?.contains("is setuid or setgid") == true, "\(errors)")
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try c.ok(#"{"cmd":"tap","tab":"b"}"#)  // no gate loaded: the tap is allowed
    }

    /// CRC-32 (IEEE) as the journal's records carry it, bit at a time.
    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A `set_orientation` record for an orientation the tabs (as the journal says them) do
    /// not support: damage, refused at start; --repair sets it aside and serves in portrait.
    @Test func anOrientationRecordTheTabsDoNotSupportIsDamage() throws {
        let t = try TabdProcess(config: "fsync: always\n")
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a","orientations":["portrait","landscape_left"]}]}"#)
        #expect(try c.ok(#"{"cmd":"rotate","orientation":"landscape_left"}"#).bool("rotated") == true)
        #expect(t.stop() == 0)
        let path = try StateDirectoryTests.journal(t)
        var lines = try StateDirectoryTests.journalLines(path)
        let index = try #require(lines.firstIndex { $0.contains("\"landscape_left\"") && $0.contains("set_tabs") }, "\(lines)")
        // The set_tabs record now says portrait only, with a checksum that matches.
        let rest = lines[index].dropFirst(9).replacingOccurrences(of: #"["portrait","landscape_left"]"#, with: #"["portrait"]"#)
        lines[index] = String(format: "%08x ", Self.crc32(Array(rest.utf8))) + rest
        try StateDirectoryTests.writeJournal(path, lines)

        let outcome = try StateHostileTests.startOutcome(t)
        let refused = try #require(outcome, "tabd replayed landscape_left for tabs that support only portrait")
        let sentence = refused.log.split(separator: "\n").last(where: { $0.contains("cannot start") }).map(String.init) ?? ""
        #expect(sentence.contains("landscape_left") && sentence.contains("--repair"), "\(refused.log)")
        try t.start(arguments: ["--repair"])
        let state = try t.client().ok(#"{"cmd":"state"}"#)
        #expect(state.object("orientation")?.string("current") == "portrait")
        #expect(t.log.contains("set aside"))
    }
}
