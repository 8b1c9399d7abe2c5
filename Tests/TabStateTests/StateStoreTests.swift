// The journal as files on disk: allocated ahead of its records, read back to
// the last record whatever the file's size, a torn or stray tail cut off, damage refused;
// compaction moving on to the next journal at once and finishing off the loop.

import Foundation
import Logging
import TabCore
import Testing
@testable import TabState

@Suite struct StateStoreTests {
    /// A fresh state directory, removed at the end.
    final class Directory {
        let path: String
        init() {
            path = FileManager.default.temporaryDirectory.path + "/tabd-store-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var journal: String { path + "/journal-0.log" }
        var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
        var size: Int { (try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? -1 }
        func bytes() -> [UInt8] { [UInt8](FileManager.default.contents(atPath: journal) ?? Data()) }
        func write(_ bytes: [UInt8]) { _ = FileManager.default.createFile(atPath: journal, contents: Data(bytes)) }
    }

    static func store(_ dir: Directory, _ fsync: FsyncPolicy, compactBytes: Int = 64 << 20) -> StateStore {
        StateStore(directory: dir.path, fsync: fsync, compactBytes: compactBytes, logger: Logger(label: "test"))
    }

    /// Opens the store as tabd does (load, then open the journal) and returns what it read.
    static func open(_ s: StateStore, repair: Bool = false) throws -> [String] {
        let loaded = try s.load(repair: repair)
        try s.openJournal()
        return loaded.records.map { String(decoding: $0, as: UTF8.self) }
    }

    static func append(_ s: StateStore, _ records: [String]) throws {
        for r in records { Array(r.utf8).withUnsafeBytes { s.append($0) } }
        try s.commit()
    }

    static let first = [#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#, #"{"cmd":"select","tab":"b"}"#]

    @Test func alwaysAllocatesTheJournalAheadAndReadsBackOnlyTheRecords() throws {
        let dir = Directory()
        let s = Self.store(dir, .always, compactBytes: 1 << 20)
        #expect(try Self.open(s).isEmpty)
        try Self.append(s, Self.first)
        let used = s.journalBytes
        #expect(used > 0)
        #expect(dir.size == 1 << 20)  // one step: the compaction threshold
        #expect(dir.bytes()[used...].allSatisfy { $0 == 0 })

        // Read back: the records, not the zeros; the next record goes right after them.
        let again = Self.store(dir, .always, compactBytes: 1 << 20)
        #expect(try Self.open(again) == Self.first)
        #expect(again.journalBytes == used)
        try Self.append(again, [#"{"cmd":"badge","tab":"a","value":"1"}"#])
        #expect(dir.size == 1 << 20)
        let third = Self.store(dir, .everysec)
        #expect(try Self.open(third) == Self.first + [#"{"cmd":"badge","tab":"a","value":"1"}"#])
    }

    @Test func recordsBeyondTheAllocatedSpaceAllocateAnotherStep() throws {
        let dir = Directory()
        let s = Self.store(dir, .always, compactBytes: 64 << 10)  // the smallest step
        _ = try Self.open(s)
        let record = #"{"cmd":"select","tab":"a"}"#
        let count = (64 << 10) / record.utf8.count + 10  // more than one step's worth
        for _ in 0..<count { try Self.append(s, [record]) }
        #expect(dir.size == 128 << 10)
        #expect(try Self.open(Self.store(dir, .always, compactBytes: 64 << 10)).count == count)
    }

    @Test(arguments: [FsyncPolicy.everysec, .no])
    func everyPolicyAllocatesAhead(fsync: FsyncPolicy) throws {
        let dir = Directory()
        let s = Self.store(dir, fsync, compactBytes: 1 << 20)
        _ = try Self.open(s)
        try Self.append(s, Self.first)
        #expect(dir.size == 1 << 20)
        #expect(try Self.open(Self.store(dir, fsync)) == Self.first)
    }

    /// A crash in the middle of a write under `always`: part of the record, then the zeros
    /// allocated ahead. Never acknowledged: cut off, kept aside, and the store goes on.
    @Test func aTornRecordBeforeTheZeroTailIsCutOff() throws {
        let dir = Directory()
        let s = Self.store(dir, .always, compactBytes: 1 << 20)
        _ = try Self.open(s)
        try Self.append(s, Self.first)
        var bytes = dir.bytes()
        let torn = Array("0badc0de {\"cmd\":\"sel".utf8)
        bytes.replaceSubrange(s.journalBytes..<(s.journalBytes + torn.count), with: torn)
        dir.write(bytes)

        let again = Self.store(dir, .always, compactBytes: 1 << 20)
        #expect(try Self.open(again) == Self.first)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(files.contains { $0.hasPrefix("journal-0.log.damaged-") })
        // Writing goes on where the records end, and they read back.
        try Self.append(again, [#"{"cmd":"select","tab":"a"}"#])
        #expect(try Self.open(Self.store(dir, .everysec)) == Self.first + [#"{"cmd":"select","tab":"a"}"#])
    }

    /// A valid record after the zeros is not a tail: tabd does not guess which part to trust.
    @Test func aRecordAfterTheZeroTailIsDamageAndIsRefused() throws {
        let dir = Directory()
        let s = Self.store(dir, .always, compactBytes: 1 << 20)
        _ = try Self.open(s)
        try Self.append(s, Self.first)
        let late = #"{"cmd":"select","tab":"a"}"#
        let line = Self.line(late)
        var bytes = dir.bytes()
        bytes.replaceSubrange((bytes.count - line.count)..., with: line)
        dir.write(bytes)

        #expect(throws: StateError.self) { try Self.open(Self.store(dir, .always)) }
        #expect(try Self.open(Self.store(dir, .always), repair: true) == Self.first)
    }

    // MARK: Compaction

    /// A journal line as tabd writes it.
    static func line(_ json: String) -> [UInt8] {
        Array(String(format: "%08x ", CRC32.checksum(Array(json.utf8))).utf8) + Array(json.utf8) + [0x0A]
    }

    static func record(_ i: Int) -> String { #"{"cmd":"badge","tab":"a","value":"\#(i)"}"# }

    @Test(arguments: [FsyncPolicy.always, .everysec, .no])
    func compactionMovesOnToTheNextJournalAtOnceAndReplacesTheOldOne(fsync: FsyncPolicy) throws {
        let dir = Directory()
        let s = Self.store(dir, fsync, compactBytes: 200)
        _ = try Self.open(s)
        var i = 0
        while !s.needsCompaction { try Self.append(s, [Self.record(i)]); i += 1 }
        try s.compact(TabContainers.withDefault())
        #expect(!s.needsCompaction)  // one at a time
        #expect(s.journalBytes == 0)
        // New records go to the next journal while the helper writes the snapshot.
        try Self.append(s, [Self.record(1000), Self.record(1001)])
        s.finishBackgroundWork()
        #expect(dir.files == ["journal-1.log", "snapshot"])

        let again = Self.store(dir, fsync, compactBytes: 200)
        let loaded = try again.load(repair: false)
        #expect(loaded.generation == 1)
        #expect(loaded.snapshot == TabContainers.withDefault())
        #expect(loaded.records.map { String(decoding: $0, as: UTF8.self) } == [Self.record(1000), Self.record(1001)])
    }

    /// A crash before the helper renamed the snapshot: the old snapshot (none here) and both
    /// journals, replayed in order; writing goes on in the newer one.
    @Test func anUnfinishedCompactionReplaysBothJournals() throws {
        let dir = Directory()
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.path + "/journal-0.log", contents: Data(Self.line(Self.record(0)) + Self.line(Self.record(1))))
        _ = FileManager.default.createFile(atPath: dir.path + "/journal-1.log", contents: Data(Self.line(Self.record(2))))
        let s = Self.store(dir, .everysec)
        #expect(try Self.open(s) == [Self.record(0), Self.record(1), Self.record(2)])
        try Self.append(s, [Self.record(3)])
        #expect(try Self.open(Self.store(dir, .everysec)) == (0...3).map(Self.record))
        #expect(dir.files == ["journal-0.log", "journal-1.log"])
    }

    /// The end of an earlier journal is damaged and the next one holds records: not a torn
    /// last write. Refused; --repair keeps what came before the damage and puts the later
    /// journal aside (what it says followed changes that are lost).
    @Test func damageAtTheEndOfAnEarlierJournalIsNotATornTail() throws {
        let dir = Directory()
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.path + "/journal-0.log", contents: Data(Self.line(Self.record(0)) + Array("0badc0de {\"cmd\":\"sel".utf8)))
        _ = FileManager.default.createFile(atPath: dir.path + "/journal-1.log", contents: Data(Self.line(Self.record(2))))
        #expect(throws: StateError.self) { try Self.open(Self.store(dir, .everysec)) }
        let s = Self.store(dir, .everysec)
        #expect(try Self.open(s, repair: true) == [Self.record(0)])
        #expect(dir.files.contains { $0.hasPrefix("journal-1.log.damaged-") })
        #expect(!dir.files.contains("journal-1.log"))
        try Self.append(s, [Self.record(3)])
        #expect(try Self.open(Self.store(dir, .everysec)) == [Self.record(0), Self.record(3)])
    }

    /// An empty newer journal (the crash came right after the switch) leaves a torn end of
    /// the one before a torn end.
    @Test func aTornEndBeforeAnEmptyJournalIsCutOff() throws {
        let dir = Directory()
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.path + "/journal-0.log", contents: Data(Self.line(Self.record(0)) + Array("0badc0de {\"cmd\":\"sel".utf8)))
        _ = FileManager.default.createFile(atPath: dir.path + "/journal-1.log", contents: Data())
        let s = Self.store(dir, .everysec)
        #expect(try Self.open(s) == [Self.record(0)])
        #expect(dir.files.filter { $0.contains(".damaged-") } == dir.files.filter { $0.hasPrefix("journal-0.log.damaged-") })
        try Self.append(s, [Self.record(3)])  // into the newer journal, the one being written
        #expect(try Self.open(Self.store(dir, .everysec)) == [Self.record(0), Self.record(3)])
        #expect(dir.files.contains("journal-1.log"))
    }
}
