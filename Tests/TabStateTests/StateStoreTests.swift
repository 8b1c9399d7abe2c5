// The state files on disk: the journal allocated ahead of its records and read back to the
// last record whatever the file's size; its header and sequence numbers; a torn tail cut
// off, damage refused in one sentence or set aside by --repair; a missing snapshot never an
// empty state; formats older and newer than this tabd; compaction moving on to the next
// journal at once; a failed write or fsync refused and undone, and retried.

import Foundation
import Logging
import TabCore
import TabProtocol
import Testing
@testable import TabState

@Suite struct StateStoreTests {
    static let main = TabContainers.defaultName
    static let setTabs = JournalRecord.command(controller: main, .setTabs([Tab(id: "a"), Tab(id: "b", navigation: true)], animated: false))
    static let first: [JournalRecord] = [setTabs, .command(controller: main, .select(.tab("b")))]
    static func badge(_ i: Int) -> JournalRecord { .command(controller: main, .badge(tab: "a", value: "\(i)")) }
    static func state(_ records: [JournalRecord]) throws -> TabContainers { try Replayer.state(records) }
    /// The start of record 3 as a crash leaves it: no end, and a checksum that cannot match.
    static let torn = Array("0badc0de ".utf8) + Journal.json(badge(9), seq: 3).prefix(12)

    // MARK: Allocation ahead, read back whatever the file size

    @Test func alwaysAllocatesTheJournalAheadAndReadsBackOnlyTheRecords() throws {
        let dir = StateDir()
        let s = Session(dir, .always, compactBytes: 1 << 20)
        let fresh = try s.open()
        #expect(fresh.applied == 0 && fresh.lastSeq == 0 && fresh.generation == 0)
        #expect(dir.files == ["journal-0.log"])
        #expect(dir.bytes("journal-0.log") == Journal.header(generation: 0, firstSeq: 1))  // a header, nothing else yet
        try s.run(Self.first)
        let used = s.store.journalBytes
        #expect(used == Journal.file(generation: 0, firstSeq: 1, Self.first).count)
        #expect(dir.size("journal-0.log") == 1 << 20)  // one step: the compaction threshold
        #expect(dir.bytes("journal-0.log")[used...].allSatisfy { $0 == 0 })
        #expect(Array(dir.bytes("journal-0.log")[..<used]) == Journal.file(generation: 0, firstSeq: 1, Self.first))

        // Read back: the records, not the zeros; the next record goes right after them.
        let again = Session(dir, .always, compactBytes: 1 << 20)
        let r = try again.open()
        #expect(r.applied == 2 && r.lastSeq == 2 && r.tornBytes == 0)
        #expect(again.replayed.records == Self.first)
        #expect(again.state == (try Self.state(Self.first)))
        #expect(again.store.journalBytes == used)
        try again.run([Self.badge(1)])
        #expect(dir.size("journal-0.log") == 1 << 20)
        let third = Session(dir, .everysec)
        #expect(try third.open().lastSeq == 3)
        #expect(third.replayed.records == Self.first + [Self.badge(1)])
        #expect(dir.files == ["journal-0.log"])
    }

    @Test func recordsBeyondTheAllocatedSpaceAllocateAnotherStep() throws {
        let dir = StateDir()
        let s = Session(dir, .always, compactBytes: 64 << 10)  // the smallest step
        try s.open()
        try s.run(Self.first)
        var count = 2
        while s.store.journalBytes <= 64 << 10 {  // more than one step's worth, ten records a turn
            try s.run((0..<10).map { Self.badge(count + $0) })
            count += 10
        }
        #expect(dir.size("journal-0.log") == 128 << 10)
        let again = Session(dir, .always, compactBytes: 64 << 10)
        #expect(try again.open().applied == count)
        #expect(again.state == s.state)
    }

    @Test(arguments: [FsyncPolicy.everysec, .no])
    func everyPolicyAllocatesAhead(fsync: FsyncPolicy) throws {
        let dir = StateDir()
        let s = Session(dir, fsync, compactBytes: 1 << 20)
        try s.open()
        try s.run(Self.first)
        #expect(dir.size("journal-0.log") == 1 << 20)
        let again = Session(dir, fsync)
        try again.open()
        #expect(again.replayed.records == Self.first)
    }

    /// A journal cut at its last record (no zero tail) and one with two steps of zeros read
    /// back the same.
    @Test func theRecordsReadBackWithOrWithoutAZeroTail() throws {
        let dir = StateDir()
        let records = Self.first + [Self.badge(1)]
        let exact = Journal.file(generation: 0, firstSeq: 1, records)
        for tail in [0, 1, 4096, 2 << 20] {
            dir.write("journal-0.log", exact + [UInt8](repeating: 0, count: tail))
            let s = Session(dir)
            let r = try s.open()
            #expect(r.applied == 3 && r.tornBytes == 0, "tail \(tail)")
            #expect(s.replayed.records == records, "tail \(tail)")
            #expect(s.store.journalBytes == exact.count, "tail \(tail)")
        }
    }

    // MARK: Torn tails and damage

    /// A crash in the middle of a write under `always`: part of the record, then the zeros
    /// allocated ahead. Never acknowledged: cut off, kept aside, and the store goes on.
    @Test func aTornRecordBeforeTheZeroTailIsCutOff() throws {
        let dir = StateDir()
        let s = Session(dir, .always, compactBytes: 1 << 20)
        try s.open()
        try s.run(Self.first)
        var bytes = dir.bytes("journal-0.log")
        let torn = Self.torn
        bytes.replaceSubrange(s.store.journalBytes..<(s.store.journalBytes + torn.count), with: torn)
        dir.write("journal-0.log", bytes)

        let again = Session(dir, .always, compactBytes: 1 << 20)
        let r = try again.open()
        #expect(r.tornBytes == torn.count)
        #expect(r.setAside.isEmpty && r.lostRecords == 0)
        #expect(again.replayed.records == Self.first)
        #expect(dir.files.contains { $0.hasPrefix("journal-0.log.torn-") })
        #expect(dir.bytes(dir.files.first { $0.hasPrefix("journal-0.log.torn-") }!) == torn)
        #expect(dir.size("journal-0.log") == s.store.journalBytes)  // cut off in place
        // Writing goes on where the records end, with the torn record's number, and they read back.
        try again.run([Self.badge(1)])
        let third = Session(dir, .everysec)
        #expect(try third.open().lastSeq == 3)
        #expect(third.replayed.records == Self.first + [Self.badge(1)])
    }

    /// A torn record without a zero tail (appended, no allocation): the file just ends.
    @Test func aTornRecordAtTheEndOfTheFileIsCutOff() throws {
        let dir = StateDir()
        let good = Journal.file(generation: 0, firstSeq: 1, Self.first)
        let full = Journal.line(Self.badge(1), seq: 3)
        for cut in [1, 9, full.count / 2, full.count - 1] {  // every kind of partial line
            dir.write("journal-0.log", good + full.prefix(cut))
            let s = Session(dir)
            let r = try s.open()
            #expect(r.tornBytes == cut, "cut at \(cut)")
            #expect(s.replayed.records == Self.first, "cut at \(cut)")
            #expect(dir.size("journal-0.log") == good.count, "cut at \(cut)")
        }
    }

    /// A valid record after the zeros is not a tail: tabd does not guess which part to trust.
    @Test func aRecordAfterTheZeroTailIsDamageAndIsRefused() throws {
        let dir = StateDir()
        let s = Session(dir, .always, compactBytes: 1 << 20)
        try s.open()
        try s.run(Self.first)
        let late = Journal.line(Self.badge(9), seq: 3)
        var bytes = dir.bytes("journal-0.log")
        bytes.replaceSubrange((bytes.count - late.count)..., with: late)
        dir.write("journal-0.log", bytes)

        let message = refusal { try Session(dir, .always).open() }
        #expect(message?.contains("the journal \(dir.journal(0)) is damaged at record 3") == true, "\(message ?? "nil")")
        #expect(message?.contains("valid records follow") == true)
        #expect(message?.contains("--repair") == true)
        #expect(dir.files == ["journal-0.log"])  // a refusal changes nothing
        let repaired = Session(dir, .always)
        let r = try repaired.open(repair: true)
        #expect(repaired.replayed.records == Self.first)
        #expect(r.setAside.count == 1 && r.setAside[0].hasPrefix(dir.journal(0) + ".damaged-"))
        let clean = Session(dir, .always)
        #expect(try clean.open().setAside.isEmpty)
        #expect(clean.state == (try Self.state(Self.first)))
    }

    // MARK: Header and sequence numbers

    @Test func eachJournalStartsWithItsHeaderAndEachRecordHasTheNextNumber() throws {
        let dir = StateDir()
        let s = Session(dir)
        try s.open()
        try s.run(Self.first)
        try s.run([Self.badge(1)])
        try s.run(.setTabs([Tab(id: "x")], animated: true))
        #expect(s.store.committedSeq == 4)
        let text = String(decoding: dir.bytes("journal-0.log").prefix(s.store.journalBytes), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "tabd-journal \(JournalCodec.version) 0 1")
        #expect(lines.count == 5)
        for (i, line) in lines.dropFirst().enumerated() {
            let json = Array(line.utf8.dropFirst(9))
            #expect(CRC32.parseHex(line.utf8.prefix(8)) == CRC32.checksum(json))
            let decoded = try json.withUnsafeBytes { raw in try JournalCodec.decode(raw, version: JournalCodec.version) }
            #expect(decoded.seq == UInt64(i + 1))
        }
        #expect(lines[1].contains(#"{"op":"set_tabs","tabs":[{"id":"a","title":null,"item":null,"restoration_id":null,"orientations":null,"full_screen_layout":false,"navigation":false}"#))
    }

    /// Three ways a journal's records can be out of sequence; each is refused in a sentence
    /// naming the file, the record and what is wrong, and pointing at --repair.
    @Test(arguments: [
        ([1, 2, 2, 3] as [UInt64], 3, "its sequence number 2 comes again or goes back (3 expected): a duplicated or reordered record"),
        ([1, 2, 4, 5], 3, "its sequence number is 4 where 3 was expected: records are missing"),
        ([1, 3, 2, 4], 2, "its sequence number is 3 where 2 was expected: records are missing"),
        ([1, 2, 3, 1], 4, "its sequence number 1 comes again or goes back (4 expected): a duplicated or reordered record"),
    ])
    func aRecordOutOfSequenceIsRefused(seqs: [UInt64], bad: Int, what: String) throws {
        let dir = StateDir()
        let records = Self.first + [Self.badge(1), Self.badge(2)]
        var bytes = Journal.header(generation: 0, firstSeq: 1)
        var offsets: [Int] = []
        for (r, seq) in zip(records, seqs) {
            offsets.append(bytes.count)
            bytes += Journal.line(r, seq: seq)
        }
        dir.write("journal-0.log", bytes)
        let message = refusal { try Session(dir).open() }
        #expect(message == "the journal \(dir.journal(0)) is damaged at record \(bad) (byte \(offsets[bad - 1])): \(what). The \(bad - 1) record(s) before it are good. Start tabd with --repair to set record \(bad) and everything after it aside and start from the state before it, or restore the state directory from a backup")
        #expect(dir.files == ["journal-0.log"])
    }

    /// --repair: the bad record and everything after it go aside (renamed), the state before
    /// it becomes a new snapshot, what was lost is reported and logged, and the directory
    /// then loads without --repair and goes on numbering after the last good record.
    @Test func repairSetsTheBadRecordAndEverythingAfterItAside() throws {
        let dir = StateDir()
        let pad = JournalRecord.createController(name: "pad", idiom: .pad, maxVisible: nil)
        let records = Self.first + [pad, .command(controller: "pad", .setTabs([Tab(id: "p")], animated: false)), Self.badge(5)]
        var bytes = Journal.header(generation: 0, firstSeq: 1)
        for (r, seq) in zip(records, [1, 2, 2, 3, 4] as [UInt64]) { bytes += Journal.line(r, seq: seq) }  // record 3 repeats 2
        dir.write("journal-0.log", bytes)

        let s = Session(dir)
        let r = try s.open(repair: true)
        #expect(s.state == (try Self.state(Self.first)))
        #expect(r.applied == 2 && r.lastSeq == 2)
        #expect(r.lostRecords == 3)
        #expect(r.lostControllers == ["main", "pad"])
        #expect(r.setAside.count == 1)
        let aside = r.setAside.first ?? ""
        #expect(aside.hasPrefix(dir.journal(0) + ".damaged-"))
        #expect(FileManager.default.contents(atPath: aside).map { [UInt8]($0) } == bytes)  // renamed whole, not copied
        #expect(dir.files.filter { !$0.contains(".damaged-") } == ["journal-1.log", "snapshot"])
        #expect(dir.text("snapshot").hasPrefix("tabd-snapshot \(JournalCodec.version) 1 2 "))
        #expect(dir.bytes("journal-1.log").prefix(Journal.header(generation: 1, firstSeq: 3).count) == ArraySlice(Journal.header(generation: 1, firstSeq: 3)))
        #expect(s.logs.entries.contains { $0.level == .critical && $0.line.contains("record 3") && $0.line.contains("lost.records=3") })

        try s.run([Self.badge(7)])  // record 3 again, in the new journal
        let clean = Session(dir)
        let again = try clean.open()
        #expect(again.setAside.isEmpty && again.formatRead == JournalCodec.version)
        #expect(again.generation == 1 && again.lastSeq == 3)
        #expect(clean.state == (try Self.state(Self.first + [Self.badge(7)])))
    }

    /// A record that reads well but cannot be applied (what tabd 0.1.0 could write) is
    /// refused like damage, naming the operation and why; --repair sets it aside with what follows.
    @Test func aRecordThatCannotBeAppliedIsRefusedAndSetAsideByRepair() throws {
        let dir = StateDir()
        let records = Self.first + [.command(controller: Self.main, .select(.tab("nowhere"))), Self.badge(1)]
        let bytes = Journal.file(generation: 0, firstSeq: 1, records)
        dir.write("journal-0.log", bytes)
        let message = refusal { try Session(dir).open() }
        #expect(message?.hasPrefix("the journal \(dir.journal(0)) is damaged at record 3 (byte ") == true, "\(message ?? "nil")")
        #expect(message?.contains("select on controller 'main' cannot be applied: no tab 'nowhere' in this controller. The 2 record(s) before it are good. Start tabd with --repair") == true)

        let s = Session(dir)
        let r = try s.open(repair: true)
        #expect(s.state == (try Self.state(Self.first)))
        #expect(r.lostRecords == 2 && r.lostControllers == ["main"])
        #expect(try Session(dir).open().setAside.isEmpty)
    }

    /// The one who replays may refuse a record too (a reason, not a TabError).
    @Test func aRecordTheReplayRefusesIsRefused() throws {
        let dir = StateDir()
        dir.write("journal-0.log", Journal.file(generation: 0, firstSeq: 1, Self.first + [Self.badge(1)]))
        let s = Session(dir)
        s.replayed.refuse = { $0 == Self.badge(1) ? "badges are not wanted here" : nil }
        let message = refusal { try s.open() }
        #expect(message?.contains("damaged at record 3") == true)
        #expect(message?.contains("badge on controller 'main' cannot be applied: badges are not wanted here") == true, "\(message ?? "nil")")
        let repaired = Session(dir)
        repaired.replayed.refuse = s.replayed.refuse
        let r = try repaired.open(repair: true)
        #expect(r.lostRecords == 1 && repaired.replayed.records == Self.first)
    }

    @Test func aRecordThatCannotBeReadIsRefused() throws {
        let dir = StateDir()
        var bytes = Journal.file(generation: 0, firstSeq: 1, Self.first)
        var unknown = Journal.json(.command(controller: Self.main, .select(.tab("a"))), seq: 3)
        unknown.insert(contentsOf: Array(#","frobnicate":1"#.utf8), at: unknown.count - 1)
        bytes += Journal.line(unknown)
        bytes += Journal.line(Self.badge(1), seq: 4)
        dir.write("journal-0.log", bytes)
        let message = refusal { try Session(dir).open() }
        #expect(message?.contains("damaged at record 3") == true)
        #expect(message?.contains("it cannot be read: 'select' has a field this tabd does not know: 'frobnicate'") == true, "\(message ?? "nil")")
    }

    /// The header names the journal's generation and its first record: a journal that does
    /// not start where the snapshot ends, or whose header contradicts its name, is refused.
    @Test func aJournalThatDoesNotStartWhereTheSnapshotEndsIsRefused() throws {
        let dir = StateDir()
        dir.write("snapshot", try Journal.snapshot(try Self.state(Self.first), generation: 1, lastSeq: 2))
        dir.write("journal-1.log", Journal.file(generation: 1, firstSeq: 4, [Self.badge(1)]))
        let message = refusal { try Session(dir).open() }
        #expect(message?.contains("the journal \(dir.journal(1)) is damaged at record 1 (byte 0): it starts at record 4 where 3 was expected") == true, "\(message ?? "nil")")

        dir.write("journal-1.log", Journal.file(generation: 5, firstSeq: 3, [Self.badge(1)]))
        let other = refusal { try Session(dir).open() }
        #expect(other?.contains("its header says generation 5, its name 1") == true, "\(other ?? "nil")")

        let s = Session(dir)
        let r = try s.open(repair: true)
        #expect(s.state == (try Self.state(Self.first)))
        #expect(r.lostRecords == 1)
    }

    // MARK: A missing snapshot

    /// Journal generation 2: snapshot 2 was written, and it is gone. Not an empty state.
    @Test func aMissingSnapshotIsRefusedWhenAJournalOfALaterGenerationShowsOneExisted() throws {
        let dir = StateDir()
        let records: [JournalRecord] = [.createController(name: "pad", idiom: .pad, maxVisible: 4),
                                        .command(controller: "pad", .setTabs([Tab(id: "p")], animated: false)), Self.badge(2)]
        dir.write("journal-2.log", Journal.file(generation: 2, firstSeq: 7, records))
        let message = refusal { try Session(dir).open() }
        #expect(message?.hasPrefix("the snapshot \(dir.file("snapshot")) is missing, but \(dir.journal(2)) is of generation 2") == true, "\(message ?? "nil")")
        #expect(message?.contains("--repair") == true)
        #expect(dir.files == ["journal-2.log"])

        let s = Session(dir)
        let r = try s.open(repair: true)
        #expect(s.state == .withDefault())
        #expect(r.lostRecords == 3)
        #expect(r.lostControllers == ["main", "pad"])
        #expect(r.setAside.count == 1 && r.setAside[0].hasPrefix(dir.journal(2) + ".damaged-"))
        #expect(s.logs.entries.contains { $0.level == .critical && $0.line.contains("missing") })
        // Then it loads without --repair: an empty state, on purpose now.
        let clean = Session(dir)
        #expect(try clean.open().setAside.isEmpty)
        #expect(clean.state == .withDefault())
    }

    /// Journal 0 that starts at record 5: records 1–4 were compacted into a snapshot that is gone.
    @Test func aMissingSnapshotIsRefusedWhenTheJournalStartsAfterRecordOne() throws {
        let dir = StateDir()
        dir.write("journal-0.log", Journal.file(generation: 0, firstSeq: 5, [Self.setTabs]))
        let message = refusal { try Session(dir).open() }
        #expect(message?.contains("\(dir.journal(0)) starts at record 5, after a snapshot") == true, "\(message ?? "nil")")
        let s = Session(dir)
        let r = try s.open(repair: true)
        #expect(s.state == .withDefault() && r.lostRecords == 1)
        #expect(r.lostControllers == ["main"])
        #expect(try Session(dir).open().setAside.isEmpty)
    }

    /// A journal 0 from record 1 on needs no snapshot: it holds everything.
    @Test func aFirstJournalFromRecordOneNeedsNoSnapshot() throws {
        let dir = StateDir()
        dir.write("journal-0.log", Journal.file(generation: 0, firstSeq: 1, Self.first))
        let s = Session(dir)
        let r = try s.open()
        #expect(r.applied == 2 && r.setAside.isEmpty)
        #expect(s.state == (try Self.state(Self.first)))
    }

    @Test func aDamagedSnapshotIsRefusedAndRepairStartsEmpty() throws {
        let dir = StateDir()
        var snapshot = try Journal.snapshot(try Self.state(Self.first), generation: 1, lastSeq: 2)
        snapshot[snapshot.count - 3] ^= 0x20
        dir.write("snapshot", snapshot)
        dir.write("journal-1.log", Journal.file(generation: 1, firstSeq: 3, [Self.badge(1)]))
        let message = refusal { try Session(dir).open() }
        #expect(message == "the snapshot \(dir.file("snapshot")) is damaged (checksum mismatch); tabd will not trust it. Restore it from a backup, or start tabd with --repair to set it and the journals aside and start from an empty state")
        let s = Session(dir)
        let r = try s.open(repair: true)
        #expect(s.state == .withDefault())
        #expect(r.setAside.count == 2)
        #expect(r.lostControllers == ["(everything)"])
        let clean = Session(dir)
        #expect(try clean.open().setAside.isEmpty)
        #expect(clean.state == .withDefault())
    }

    /// A snapshot whose checksum is right but whose state no controller could reach (a tab id
    /// twice, a bar of 0 items, a customization order naming a tab that is not there, a
    /// controller under another's name) is damage: tabd must not serve it, since the state
    /// machine traps on it (Controller.customizeEnd's Dictionary(uniqueKeysWithValues:), the
    /// bar's prefix(maxVisible - 1), customizeMove's firstIndex(of:)!). Found by fuzz/journal.
    @Test(arguments: [
        ("a tab id twice", #""maxVisible":5,"name":"main","orientation":"portrait","selection":{"tab":{"_0":"a"}},"tabs":[\#(tab("a")),\#(tab("b")),\#(tab("b"))]"#),
        ("a bar of no items", #""maxVisible":0,"name":"main","orientation":"portrait","selection":{"tab":{"_0":"a"}},"tabs":[\#(tab("a")),\#(tab("b"))]"#),
        ("a customization naming no tab", #""customizingOrder":["a","zz"],"customizingStart":["a","b"],"maxVisible":5,"name":"main","orientation":"portrait","selection":{"tab":{"_0":"a"}},"tabs":[\#(tab("a")),\#(tab("b"))]"#),
        ("another controller's name", #""maxVisible":5,"name":"other","orientation":"portrait","selection":{"tab":{"_0":"a"}},"tabs":[\#(tab("a")),\#(tab("b"))]"#),
    ])
    func aSnapshotWhoseStateIsInconsistentIsDamage(what: String, members: String) throws {
        let dir = StateDir()
        let body = #"{"controllers":{"main":{"customizable":["a","b"],"idiom":"phone",\#(members)}}}"#
        dir.write("snapshot", Journal.snapshot(body: Array(body.utf8), generation: 1, lastSeq: 0))
        let s = Session(dir)
        do {
            let message = refusal { try s.open() }
            #expect(message?.hasPrefix("the snapshot \(dir.file("snapshot")) is damaged") == true, "\(what): \(message ?? "loaded")")
        }
    }

    static func tab(_ id: String) -> String {
        #"{"contentLoaded":false,"fullScreenLayout":false,"id":"\#(id)","navigation":false,"stack":[]}"#
    }

    // MARK: Formats

    /// A format 2 journal (before issue 17's amended rules) replays its commands under the
    /// rules they were accepted under: a tab that stays across set_tabs loses its stack
    /// (no R2.5), tabs without a common orientation load (no R9.4), More is selected while not
    /// shown (no R3.7) — none of it refused, so the upgrade starts, in the state clients were
    /// told. It is then rewritten in format 3.
    @Test func aFormatTwoJournalReplaysUnderTheRulesItWasWrittenUnder() throws {
        let dir = StateDir()
        let nav = Tab(id: "a", navigation: true)
        let records: [JournalRecord] = [
            .command(controller: Self.main, .setTabs([nav, Tab(id: "b")], animated: false, selected: nil)),
            .command(controller: Self.main, .push(tab: "a", screen: Screen(id: "deep"))),
            .command(controller: Self.main, .setTabs([nav, Tab(id: "b", orientations: .landscape)], animated: false, selected: nil)),
            .command(controller: Self.main, .select(.more)),
            .command(controller: Self.main, .setCustomizable([])),
        ]
        var file = Journal.header(generation: 0, firstSeq: 1, version: 2)
        for (i, r) in records.enumerated() { file += Journal.line(r, seq: UInt64(i + 1)) }
        dir.write("journal-0.log", file)
        let s = Session(dir)
        let r = try s.open()
        #expect(r.formatRead == 2 && r.applied == records.count && r.setAside.isEmpty)
        let c = try #require(s.state["main"])
        #expect(c.tab("a")?.stack == [])          // R2.5 did not hold then
        #expect(c.tabsOrientations.isEmpty)       // R9.4 did not hold then
        #expect(c.selection == .more)             // R3.7 did not hold then
        // Under today's rules the same commands are refused or land elsewhere.
        #expect(throws: TabError.self) { _ = try Replayer.state(records) }
        #expect(dir.text("snapshot").hasPrefix("tabd-snapshot \(JournalCodec.version) "))
        let again = Session(dir)
        #expect(try again.open().formatRead == JournalCodec.version)
        #expect(again.state == s.state)
    }

    /// A format 3 journal (before issue 30) replays without R13.10's check: six fixed tabs on
    /// a five-item phone bar, accepted then, load — the bar still shows at most five items —
    /// and the journal is rewritten in today's format. Today the same set_tabs is refused.
    @Test func aFormatThreeJournalReplaysWithoutTheFitCheck() throws {
        let dir = StateDir()
        let fixed = (0..<6).map { Tab(id: "f\($0)", placement: .fixed) }
        let records: [JournalRecord] = [.command(controller: Self.main, .setTabs(fixed, animated: false, selected: nil))]
        var file = Journal.header(generation: 0, firstSeq: 1, version: 3)
        for (i, r) in records.enumerated() { file += Journal.line(r, seq: UInt64(i + 1)) }
        dir.write("journal-0.log", file)
        let s = Session(dir)
        let r = try s.open()
        #expect(r.formatRead == 3 && r.applied == 1 && r.setAside.isEmpty)
        let c = try #require(s.state["main"])
        #expect(c.barVisible == ["f0", "f1", "f2", "f3", "more"] && c.moreList == ["f4", "f5"])
        #expect(throws: TabError.self) { _ = try Replayer.state(records) }
        #expect(dir.text("snapshot").hasPrefix("tabd-snapshot \(JournalCodec.version) "))
    }

    @Test func aSnapshotInANewerFormatIsRefusedEvenWithRepair() throws {
        let dir = StateDir()
        let body = try StateStore.encodeSnapshotBody(.withDefault())
        let newer = Array("tabd-snapshot \(JournalCodec.version + 1) 1 0 ".utf8) + CRC32.hex(CRC32.checksum(body)) + Array(" \(body.count)\n".utf8) + body
        dir.write("snapshot", newer)
        for repair in [false, true] {
            let message = refusal { try Session(dir).open(repair: repair) }
            #expect(message == "the snapshot \(dir.file("snapshot")) is in format \(JournalCodec.version + 1), written by a newer tabd (this one reads formats 1 to \(JournalCodec.version)); start the newer tabd, or restore a backup made for this version", "repair: \(repair)")
            #expect(dir.files == ["snapshot"])  // nothing set aside, nothing written
        }
    }

    @Test func aJournalInANewerFormatIsRefusedEvenWithRepair() throws {
        let dir = StateDir()
        dir.write("journal-0.log", Journal.header(generation: 0, firstSeq: 1, version: JournalCodec.version + 1) + Array("whatever a newer format is\n".utf8))
        for repair in [false, true] {
            let message = refusal { try Session(dir).open(repair: repair) }
            #expect(message == "the journal \(dir.journal(0)) is in format \(JournalCodec.version + 1), written by a newer tabd (this one reads formats 1 to \(JournalCodec.version)); start the newer tabd, or restore a backup made for this version", "repair: \(repair)")
            #expect(dir.files == ["journal-0.log"])
        }
    }

    /// tabd 0.1.0's directory, written by hand: a format-1 snapshot (no last seq), a journal
    /// without header whose records are client requests (with ids, a null tag, the rotation as
    /// `_set_orientation`), a zero tail. It loads, and is rewritten at once as format 2.
    @Test func aFormatOneDirectoryLoadsAndIsRewrittenAsFormatTwo() throws {
        let dir = StateDir()
        var start = try Self.state(Self.first)
        try start.create("rot", idiom: .pad)
        _ = try start.apply(.setTabs([Tab(id: "v", orientations: [.portrait, .landscapeRight])], animated: false), to: "rot")
        start.keepChanges()
        dir.write("snapshot", try Journal.snapshot(start, generation: 2, lastSeq: 0, version: 1))
        let v1 = [
            #"{"cmd":"badge","tab":"a","value":"3","id":1}"#,
            #"{"cmd":"update_tab","tab":"a","title":"A","item":{"title":"Live","image":"a.png","tag":null,"badge":null}}"#,
            #"{"cmd":"add_tab","tab":{"id":"c","title":"C","full_screen_layout":true},"index":0}"#,
            #"{"cmd":"push","tab":"b","screen":{"id":"detail","title":"Detail"}}"#,
            #"{"cmd":"controller.create","controller":"tv1","idiom":"tv","max_visible":3}"#,
            #"{"cmd":"set_tabs","controller":"tv1","tabs":[{"id":"x"},{"id":"y","item":{"title":null,"image":null,"tag":null,"badge":"1"}}],"animated":true}"#,
            #"{"cmd":"controller.create","controller":"gone","idiom":"phone"}"#,
            #"{"cmd":"controller.delete","controller":"gone"}"#,
            #"{"cmd":"_set_orientation","controller":"rot","orientation":"landscape_right"}"#,
        ]
        dir.write("journal-2.log", v1.flatMap { Journal.line($0) } + [UInt8](repeating: 0, count: 4096))
        let expected = try Replayer.state([
            Self.badge(3),
            .command(controller: Self.main, .updateTab("a", TabUpdate { $0.title = .set("A"); $0.item = .set(TabItem(title: "Live", image: "a.png")) })),
            .command(controller: Self.main, .addTab(Tab(id: "c", title: "C", fullScreenLayout: true), index: 0)),
            .command(controller: Self.main, .push(tab: "b", screen: Screen(id: "detail", title: "Detail"))),
            .createController(name: "tv1", idiom: .tv, maxVisible: 3),
            .command(controller: "tv1", .setTabs([Tab(id: "x"), Tab(id: "y", item: TabItem(badge: "1"))], animated: true)),
            .createController(name: "gone", idiom: .phone, maxVisible: nil),
            .deleteController(name: "gone"),
            .command(controller: "rot", .setOrientation(.landscapeRight)),
        ], from: start)

        let s = Session(dir)
        let r = try s.open()
        #expect(r.formatRead == 1)
        #expect(r.applied == v1.count && r.lastSeq == UInt64(v1.count))
        #expect(r.generation == 3)
        #expect(s.state == expected)
        #expect(s.state["rot"]?.orientation == .landscapeRight)
        // Rewritten: a format-2 snapshot of the next generation and an empty journal after it.
        #expect(dir.files == ["journal-3.log", "snapshot"])
        #expect(dir.text("snapshot").hasPrefix("tabd-snapshot \(JournalCodec.version) 3 \(v1.count) "))
        #expect(dir.bytes("journal-3.log").starts(with: Journal.header(generation: 3, firstSeq: UInt64(v1.count) + 1)))
        #expect(s.logs.entries.contains { $0.line.contains("state.format.read=1") })

        try s.run([Self.badge(4)])
        let clean = Session(dir)
        let again = try clean.open()
        #expect(again.formatRead == JournalCodec.version && again.applied == 1 && again.generation == 3)
        #expect(clean.state == (try Replayer.state([Self.badge(4)], from: expected)))
        #expect(stateBytes(clean.state) == stateBytes(s.state))
    }

    /// A tabd 0.1.0 directory that never compacted: journal 0 alone, no snapshot.
    @Test func aFormatOneJournalWithoutSnapshotLoads() throws {
        let dir = StateDir()
        dir.write("journal-0.log", [
            #"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b","navigation":true}]}"#,
            #"{"cmd":"select","tab":"b"}"#,
        ].flatMap { Journal.line($0) })
        let s = Session(dir)
        let r = try s.open()
        #expect(r.formatRead == 1 && r.applied == 2)
        #expect(s.state == (try Self.state(Self.first)))
        #expect(dir.files == ["journal-1.log", "snapshot"])
        let clean = Session(dir)
        #expect(try clean.open().formatRead == JournalCodec.version)
        #expect(clean.state == s.state)
    }

    /// Format 1 had no sequence numbers: its damage is found by checksum alone, and repaired
    /// the same way.
    @Test func aDamagedFormatOneJournalIsRefusedAndRepaired() throws {
        let dir = StateDir()
        dir.write("journal-0.log", [
            #"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b","navigation":true}]}"#,
            #"{"cmd":"select","tab":"b"}"#,
        ].flatMap { Journal.line($0) } + Array("0badc0de {\"cmd\":\"badge\"}\n".utf8) + Journal.line(#"{"cmd":"select","tab":"a"}"#))
        let message = refusal { try Session(dir).open() }
        #expect(message?.contains("damaged at record 3") == true, "\(message ?? "nil")")
        let s = Session(dir)
        let r = try s.open(repair: true)
        #expect(r.formatRead == 1 && r.lostRecords == 1)
        #expect(s.state == (try Self.state(Self.first)))
        #expect(try Session(dir).open().formatRead == JournalCodec.version)
    }

    // MARK: Compaction

    @Test(arguments: [FsyncPolicy.always, .everysec, .no])
    func compactionMovesOnToTheNextJournalAtOnceAndReplacesTheOldOne(fsync: FsyncPolicy) throws {
        let dir = StateDir()
        let s = Session(dir, fsync, compactBytes: 200)
        try s.open()
        try s.run(Self.first)
        var i = 0
        while !s.store.needsCompaction { try s.run([Self.badge(i)]); i += 1 }
        let seq = s.store.committedSeq
        try s.store.compact(s.state)
        #expect(!s.store.needsCompaction)  // one at a time
        #expect(s.store.journalBytes == Journal.header(generation: 1, firstSeq: seq + 1).count)
        // New records go to the next journal while the helper writes the snapshot.
        try s.run([Self.badge(1000), Self.badge(1001)])
        s.store.finishBackgroundWork()
        #expect(dir.files == ["journal-1.log", "snapshot"])
        #expect(dir.text("snapshot").hasPrefix("tabd-snapshot \(JournalCodec.version) 1 \(seq) "))

        let again = Session(dir, fsync, compactBytes: 200)
        let r = try again.open()
        #expect(r.generation == 1)
        #expect(again.replayed.starts.first??.names == ["main"])
        #expect(again.replayed.records == [Self.badge(1000), Self.badge(1001)])
        #expect(r.lastSeq == seq + 2)
        #expect(again.state == s.state)
    }

    /// A crash before the helper renamed the snapshot: snapshot 1 and journals 1 and 2,
    /// replayed in order; writing goes on in the newer one.
    @Test func anUnfinishedCompactionReplaysBothJournals() throws {
        let dir = StateDir()
        dir.write("snapshot", try Journal.snapshot(try Self.state(Self.first), generation: 1, lastSeq: 2))
        dir.write("journal-1.log", Journal.file(generation: 1, firstSeq: 3, [Self.badge(0), Self.badge(1)]))
        dir.write("journal-2.log", Journal.file(generation: 2, firstSeq: 5, [Self.badge(2)]))
        let s = Session(dir)
        let r = try s.open()
        #expect(r.applied == 3 && r.lastSeq == 5 && r.generation == 1)
        #expect(s.replayed.records == (0...2).map(Self.badge))
        try s.run([Self.badge(3)])
        let again = Session(dir)
        try again.open()
        #expect(again.replayed.records == (0...3).map(Self.badge))
        #expect(dir.files == ["journal-1.log", "journal-2.log", "snapshot"])
        #expect(dir.bytes("journal-1.log") == Journal.file(generation: 1, firstSeq: 3, [Self.badge(0), Self.badge(1)]))
    }

    /// The first compaction of a directory (no snapshot yet) that a crash interrupted:
    /// journals 0 and 1, no snapshot. Journal 0 from record 1 holds everything: this is not
    /// a missing snapshot.
    @Test func anUnfinishedFirstCompactionReplaysBothJournals() throws {
        let dir = StateDir()
        dir.write("journal-0.log", Journal.file(generation: 0, firstSeq: 1, Self.first))
        dir.write("journal-1.log", Journal.file(generation: 1, firstSeq: 3, [Self.badge(1)]))
        let s = Session(dir)
        let r = try s.open()
        #expect(r.applied == 3 && r.setAside.isEmpty && r.generation == 0)
        #expect(s.replayed.records == Self.first + [Self.badge(1)])
        try s.run([Self.badge(2)])  // into journal 1
        let again = Session(dir)
        try again.open()
        #expect(again.replayed.records == Self.first + [Self.badge(1), Self.badge(2)])
        #expect(dir.files == ["journal-0.log", "journal-1.log"])
    }

    /// A crash after the snapshot was renamed but before the journals it replaces were
    /// removed: the older journal is removed at start and not replayed.
    @Test func aJournalTheSnapshotAlreadyHoldsIsRemoved() throws {
        let dir = StateDir()
        dir.write("snapshot", try Journal.snapshot(try Self.state(Self.first + [Self.badge(0)]), generation: 1, lastSeq: 3))
        dir.write("journal-0.log", Journal.file(generation: 0, firstSeq: 1, Self.first + [Self.badge(0)]))
        dir.write("journal-1.log", Journal.file(generation: 1, firstSeq: 4, [Self.badge(1)]))
        let s = Session(dir)
        let r = try s.open()
        #expect(r.applied == 1 && r.lastSeq == 4)
        #expect(s.replayed.records == [Self.badge(1)])
        #expect(dir.files == ["journal-1.log", "snapshot"])
    }

    /// The end of an earlier journal is damaged and the next one holds records: not a torn
    /// last write. Refused; --repair keeps what came before the damage and sets the later
    /// journal aside (what it says followed changes that are lost).
    @Test func damageAtTheEndOfAnEarlierJournalIsNotATornTail() throws {
        let dir = StateDir()
        dir.write("snapshot", try Journal.snapshot(.withDefault(), generation: 1, lastSeq: 0))
        dir.write("journal-1.log", Journal.file(generation: 1, firstSeq: 1, Self.first) + Self.torn)
        dir.write("journal-2.log", Journal.file(generation: 2, firstSeq: 3, [Self.badge(2)]))
        let message = refusal { try Session(dir).open() }
        #expect(message?.contains("the journal \(dir.journal(1)) is damaged at record 3") == true, "\(message ?? "nil")")
        #expect(message?.contains("the record has no end and valid records follow") == true)
        let s = Session(dir)
        let r = try s.open(repair: true)
        #expect(s.replayed.records == Self.first)
        #expect(r.lostRecords == 1)  // the badge in journal 2; the torn piece was no record
        #expect(r.setAside.contains { $0.hasPrefix(dir.journal(2) + ".damaged-") })
        #expect(r.setAside.contains { $0.hasPrefix(dir.journal(1) + ".damaged-") })
        #expect(!dir.exists("journal-1.log"))
        #expect(dir.bytes("journal-2.log").starts(with: Journal.header(generation: 2, firstSeq: 3)))  // the new snapshot's journal
        try s.run([Self.badge(3)])
        let again = Session(dir)
        try again.open()
        #expect(again.state == (try Self.state(Self.first + [Self.badge(3)])))
    }

    /// An empty newer journal (the crash came right after the switch, before its header
    /// reached the disk) leaves a torn end of the one before a torn end: cut off, not damage.
    @Test(arguments: [false, true])
    func aTornEndBeforeAnEmptyJournalIsCutOff(headerOnly: Bool) throws {
        let dir = StateDir()
        dir.write("snapshot", try Journal.snapshot(.withDefault(), generation: 1, lastSeq: 0))
        dir.write("journal-1.log", Journal.file(generation: 1, firstSeq: 1, Self.first) + Self.torn)
        dir.write("journal-2.log", headerOnly ? Journal.header(generation: 2, firstSeq: 3) : [])
        let s = Session(dir)
        let r = try s.open()
        #expect(r.tornBytes > 0 && r.setAside.isEmpty)
        #expect(s.replayed.records == Self.first)
        try s.run([Self.badge(3)])  // into the newer journal, the one being written
        let again = Session(dir)
        try again.open()
        #expect(again.replayed.records == Self.first + [Self.badge(3)])
        #expect(dir.exists("journal-2.log"))
    }

    /// A file that only looks like a journal of generation 1 ("journal-01.log", "journal-+1.log":
    /// an operator's copy) is not one: tabd never writes such names. Read as generation 1 it
    /// made journal-1.log replay twice (refused), and --repair then tried to set journal-1.log
    /// aside twice and refused to start ("No such file or directory"). Found by fuzz/journal.
    @Test(arguments: ["journal-01.log", "journal-+1.log"])
    func aFileNamedLikeAJournalIsNotReadAsOne(name: String) throws {
        let dir = StateDir()
        dir.write("snapshot", try Journal.snapshot(try Self.state(Self.first), generation: 1, lastSeq: 2))
        let journal = Journal.file(generation: 1, firstSeq: 3, [Self.badge(1), Self.badge(2)])
        dir.write("journal-1.log", journal)
        dir.write(name, journal)
        do {
            let s = Session(dir)
            let r = try s.open()
            #expect(r.applied == 2 && r.setAside.isEmpty)
            #expect(s.replayed.records == [Self.badge(1), Self.badge(2)])
        }
        #expect(dir.exists(name))  // not tabd's file: left alone

        // With damage in journal-1.log, --repair must be able to set it aside.
        let damaged = Journal.header(generation: 1, firstSeq: 3) + Journal.line(Self.badge(1), seq: 3)
            + Array("0badc0de not a record\n".utf8) + Journal.line(Self.badge(2), seq: 4)
        dir.write("journal-1.log", damaged)
        dir.write(name, damaged)
        do {
            let s = Session(dir)
            _ = try s.open(repair: true)
            #expect(s.state == (try Self.state(Self.first + [Self.badge(1)])))
        }
    }

    // MARK: Damage that must not pass for an empty journal

    /// A journal whose header was lost (zeros where it was) but whose records are there is
    /// damage, not an empty journal: its records must not be silently dropped.
    @Test func aJournalWithZerosBeforeItsRecordsIsNotEmpty() throws {
        let dir = StateDir()
        var bytes = Journal.file(generation: 0, firstSeq: 1, Self.first)
        let headerLength = Journal.header(generation: 0, firstSeq: 1).count
        for i in 0..<headerLength { bytes[i] = 0 }
        dir.write("journal-0.log", bytes)
        let message = refusal { try Session(dir).open() }
        #expect(message?.hasPrefix("the journal \(dir.journal(0)) is damaged at record 1 (byte 0): it starts with zeros but holds data after them.") == true, "\(message ?? "nil: its records were dropped")")
        #expect(message?.contains("--repair") == true)
        let s = Session(dir)
        let r = try s.open(repair: true)
        #expect(s.state == .withDefault() && r.setAside.count == 1 && r.lostRecords == 2)
        #expect(try Session(dir).open().setAside.isEmpty)
    }

    /// Zeros alone (space allocated ahead, the header never written) are an empty journal.
    @Test func aJournalOfZerosIsEmpty() throws {
        let dir = StateDir()
        dir.write("journal-0.log", [UInt8](repeating: 0, count: 4096))
        let s = Session(dir)
        let r = try s.open()
        #expect(r.applied == 0 && r.setAside.isEmpty && r.tornBytes == 0)
        try s.run(Self.first)
        let again = Session(dir)
        try again.open()
        #expect(again.replayed.records == Self.first)
    }

    /// A damaged header is damage like any other: --repair sets the journal aside.
    @Test func aJournalWithADamagedHeaderIsRefusedAndRepairSetsItAside() throws {
        let dir = StateDir()
        dir.write("snapshot", try Journal.snapshot(try Self.state(Self.first), generation: 1, lastSeq: 2))
        dir.write("journal-1.log", Array("tabd-journal 2 1".utf8) + [UInt8](repeating: 0, count: 64))  // the header's end never reached the disk
        let message = refusal { try Session(dir).open() }
        #expect(message?.hasPrefix("the journal \(dir.journal(1)) is damaged at record 1 (byte 0): its header is damaged.") == true, "\(message ?? "nil")")
        #expect(message?.contains("--repair") == true)
        let s = Session(dir)
        let r = try s.open(repair: true)
        #expect(s.state == (try Self.state(Self.first)))
        #expect(r.setAside.count == 1 && r.setAside[0].hasPrefix(dir.journal(1) + ".damaged-"))
        let clean = Session(dir)
        #expect(try clean.open().setAside.isEmpty)
        #expect(clean.state == s.state)
    }

    // MARK: Storage faults

    /// A write that fails (ENOSPC: the journal's descriptor is pointed at /dev/full) refuses
    /// the turn: nothing of it stays, the store is faulted and refuses further commits, and
    /// `retry()` clears the fault once writing works — cutting the file back to its records,
    /// so that what was refused never comes back at the next start.
    @Test func aFailedWriteFaultsTheStoreAndRetryRecoversWhenWritingWorks() throws {
        let dir = StateDir()
        let s = Session(dir, .no, compactBytes: 1 << 20)
        try s.open()
        try s.run(Self.first)
        let good = s.store.journalBytes
        let fd = try #require(openDescriptor(of: dir.journal(0)))
        let real = dup(fd)
        let full = open("/dev/full", O_WRONLY)
        try #require(real >= 0 && full >= 0)
        defer { close(full) }
        #expect(dup2(full, fd) == fd)

        s.store.append(Self.badge(1))
        let message = refusal { try s.store.commit() }
        #expect(message == "writing the journal \(dir.journal(0)) failed: No space left on device")
        #expect(s.store.fault == message)
        #expect(s.store.faults == 1)
        #expect(s.store.journalBytes == good && s.store.committedSeq == 2)
        #expect(!s.store.hasPending)
        // While faulted, a turn is refused at once, its records discarded.
        s.store.append(Self.badge(2))
        #expect(refusal { try s.store.commit() } == message)
        #expect(!s.store.hasPending)
        #expect(!s.store.retry())  // still failing
        #expect(s.store.fault != nil)

        // What a partial write would have left behind the records: the refused record, whole.
        let leftover = Journal.line(Self.badge(1), seq: 3)
        let other = open(dir.journal(0), O_WRONLY)
        #expect(leftover.withUnsafeBytes { pwrite(other, $0.baseAddress!, $0.count, off_t(good)) } == leftover.count)
        close(other)

        #expect(dup2(real, fd) == fd)  // the disk has room again
        close(real)
        #expect(s.store.retry())
        #expect(s.store.fault == nil)
        #expect(s.store.faults == 1)
        // A restart now finds only what was acknowledged.
        let restarted = Session(dir)
        try restarted.open()
        #expect(restarted.replayed.records == Self.first)
        // Writing goes on with the refused records' numbers.
        try s.run([Self.badge(3)])
        let again = Session(dir)
        let r = try again.open()
        #expect(r.lastSeq == 3 && r.setAside.isEmpty && r.tornBytes == 0)
        #expect(again.replayed.records == Self.first + [Self.badge(3)])
    }

    /// Under `always`, an fsync that fails (the descriptor pointed at /dev/null, which takes
    /// the write but cannot sync) refuses the turn the same way.
    @Test func aFailedFsyncUnderAlwaysFaultsTheStore() throws {
        let dir = StateDir()
        let s = Session(dir, .always, compactBytes: 1 << 20)
        try s.open()
        try s.run(Self.first)
        let fd = try #require(openDescriptor(of: dir.journal(0)))
        let real = dup(fd)
        let null = open("/dev/null", O_WRONLY)
        try #require(real >= 0 && null >= 0)
        defer { close(null) }
        #expect(dup2(null, fd) == fd)
        s.store.append(Self.badge(1))
        let message = refusal { try s.store.commit() }
        #expect(message == "fsync of the journal \(dir.journal(0)) failed: Invalid argument")
        #expect(s.store.fault == message && s.store.committedSeq == 2)
        #expect(dup2(real, fd) == fd)
        close(real)
        #expect(s.store.retry() && s.store.fault == nil)
        try s.run([Self.badge(2)])
        let again = Session(dir)
        try again.open()
        #expect(again.replayed.records == Self.first + [Self.badge(2)])
    }

    /// `everysec`: a background fsync that failed faults the store until a retry syncs.
    @Test func aFailedBackgroundSyncFaultsTheStoreUntilARetrySyncs() throws {
        let dir = StateDir()
        let s = Session(dir, .everysec)
        try s.open()
        try s.run(Self.first)
        s.store.backgroundSyncFinished(nanos: 0, error: "fsync of the journal failed: Input/output error")
        #expect(s.store.fault == "fsync of the journal failed: Input/output error")
        s.store.append(Self.badge(1))
        #expect(refusal { try s.store.commit() } == "fsync of the journal failed: Input/output error")
        #expect(!s.store.needsCompaction)
        #expect(s.store.retry())
        #expect(s.store.fault == nil)
        try s.run([Self.badge(2)])
        let again = Session(dir)
        try again.open()
        #expect(again.replayed.records == Self.first + [Self.badge(2)])
    }

    /// A snapshot that cannot be renamed into place (a directory is in the way) removes its
    /// temporary file.
    @Test func aFailedSnapshotLeavesNoTemporaryFile() throws {
        let dir = StateDir()
        try FileManager.default.createDirectory(atPath: dir.file("snapshot/in-the-way"), withIntermediateDirectories: true)
        let message = refusal {
            _ = try StateStore.writeSnapshot(.withDefault(), generation: 1, lastSeq: 0, path: dir.file("snapshot"), directory: dir.path)
        }
        #expect(message?.hasPrefix("cannot rename \(dir.file("snapshot.tmp")) to \(dir.file("snapshot"))") == true, "\(message ?? "nil")")
        #expect(dir.files == ["snapshot"])
    }

    /// A compaction whose snapshot fails: its temporary file goes, the journals stay (nothing
    /// is lost), and the directory loads with both.
    @Test func aFailedCompactionLeavesNoTemporaryFileAndKeepsTheJournals() throws {
        let dir = StateDir()
        let s = Session(dir, .no, compactBytes: 200)
        try s.open()
        try s.run(Self.first)
        try s.store.compact(s.state)  // snapshot 1
        s.store.finishBackgroundWork()
        let snapshot = dir.bytes("snapshot")
        try s.run([Self.badge(1)])
        try FileManager.default.removeItem(atPath: dir.file("snapshot"))
        try FileManager.default.createDirectory(atPath: dir.file("snapshot/in-the-way"), withIntermediateDirectories: true)
        try s.store.compact(s.state)
        try s.run([Self.badge(2)])
        s.store.finishBackgroundWork()
        #expect(dir.files == ["journal-1.log", "journal-2.log", "snapshot"])
        #expect(s.logs.entries.contains { $0.level == .error && $0.line.contains("compaction failed") })

        try FileManager.default.removeItem(atPath: dir.file("snapshot"))
        dir.write("snapshot", snapshot)
        let again = Session(dir)
        let r = try again.open()
        #expect(r.generation == 1 && r.applied == 2)
        #expect(again.state == s.state)
    }
}
