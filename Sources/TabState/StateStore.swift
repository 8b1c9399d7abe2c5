// Durability: an append-only journal of the changes, compacted into a snapshot. A reply to
// a mutating command leaves only after its record was written (and, under `always`,
// fsynced): a kill -9 at any moment loses nothing acknowledged.
//
// Files in the state directory (format 3; see docs/operations.md, "State directory"):
//   lock                 held (flock) by the tabd that owns the directory; holds its pid
//   snapshot             "tabd-snapshot 3 <generation> <last seq> <crc32> <length>\n" + JSON
//   journal-<gen>.log    "tabd-journal 3 <generation> <first seq>\n", then one record a line:
//                        "<crc32 of the rest, 8 hex> <seq, hex> <json>\n", each seq one
//                        more than the record before's (JournalCodec). A duplicated, missing or reordered
//                        record, or a journal that does not start where the snapshot ends,
//                        is found by its sequence number.
// Format 1 (tabd 0.1.0: no header, client requests as records) and format 2 (the same files
// as 3, commands accepted under the rules before issue 17's amendments) are read, their
// commands replayed under the rules they were accepted under (`Semantics.original`), then
// rewritten as a format 3 snapshot at once. A format newer than this tabd's is refused.
//
// The journal file is allocated ahead of its records (fallocate, as etcd does for its WAL):
// a record then lands in space the file already has, and fdatasync has no file size to
// commit — on the benchmark machine (ext4) a 100-byte write+fdatasync took 155 µs appended
// and 100 µs into allocated space (Benchmarks/harness/syncprobe.c). The file is then longer
// than its records: they end where a zero tail begins.
//
// Compaction starts journal-<g+1>.log on the loop (new records go there at once), then a
// helper thread syncs journal-<g>.log, writes snapshot generation g+1 (temp file, fsync,
// rename, fsync dir) and removes journal-<g>.log: the loop never waits for it. Until the
// snapshot is renamed, journals g and g+1 together say what happened after snapshot g, and
// a restart replays both.
//
// Faults: a torn last record (a crash during a write; never acknowledged) is cut off in
// place, its bytes saved beside the journal when there is room. Any other damage, a record
// that cannot be applied, or a snapshot that journals show is missing stops tabd unless it
// is started with --repair: then the damaged journal (from the bad record on) is renamed
// aside and the last good state becomes a new snapshot. A write or fsync that fails while
// serving (disk full, I/O error, read-only) leaves the store `faulted`: the turn's records
// are cut off again, the caller undoes their effects, and `retry()` tells when writing works
// again.

import Foundation
import Logging
import Synchronization
import TabCore
import TabJSON
import TabSystem

/// When the journal is fsynced (Redis' appendfsync). Every acknowledged change is
/// written before its reply whatever the policy; this decides when it reaches the disk.
public enum FsyncPolicy: String, Sendable, CaseIterable {
    /// fsync before the replies of each loop turn (group commit).
    case always
    /// fsync once a second at most (default): a power loss may lose the last second.
    case everysec
    /// leave it to the kernel.
    case no
}

/// A refusal about the state directory: one plain sentence naming the file, what is wrong
/// and what to do.
public struct StateError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What recovery found and did, for the log.
public struct Recovery: Sendable {
    /// The snapshot's generation (0: none).
    public var generation: UInt64 = 0
    /// Records replayed after the snapshot.
    public var applied = 0
    /// The sequence number of the last change (the next record gets the one after).
    public var lastSeq: UInt64 = 0
    /// The format the directory had when it was read (older ones are rewritten as the current one).
    public var formatRead = JournalCodec.version
    /// Bytes of a torn last record that were cut off (never acknowledged).
    public var tornBytes = 0
    /// --repair: files renamed aside, records in them that were not applied, and the
    /// controllers those records changed.
    public var setAside: [String] = []
    public var lostRecords = 0
    public var lostControllers: [String] = []
}

public final class StateStore {
    public let directory: String
    public let fsync: FsyncPolicy
    public let compactBytes: Int
    private let logger: Logger

    /// The generation of the snapshot on disk: journals from this one on hold what followed it.
    private var generation: UInt64 = 0
    /// The journal being written: `generation`, or later while a compaction finishes.
    private var journalGeneration: UInt64 = 0
    private var journalFD: Int32 = -1
    /// A compaction's helper work is under way; its outcome arrives through `compactionDone`.
    private var compactionInFlight = false
    private let compactionDone = Mailbox<Result<Int, StateError>>()
    /// After a failed compaction, the journal size at which to try again.
    private var compactAt: Int
    /// Records of the current loop turn, written together by `commit`.
    private var pending = JSONWriter(capacity: StateStore.pendingKeep)
    private static let pendingKeep = 64 << 10
    /// The sequence number of the last record written (committed) and of the last appended.
    public private(set) var committedSeq: UInt64 = 0
    private var appendedSeq: UInt64 = 0
    /// Where the records end: the next one is written here.
    public private(set) var journalBytes = 0
    /// The journal file's size (≥ journalBytes; larger when space was allocated ahead).
    private var allocatedBytes = 0
    /// fallocate is not supported here (some filesystems): records are appended as they come.
    private var cannotPreallocate = false
    /// Written but not yet fsynced (for `everysec`).
    private var unsynced = false
    private var backgroundSyncInFlight = false
    private let syncQueue = DispatchQueue(label: "tabd.fsync")
    public private(set) var lastFsyncNanos: UInt64 = 0
    /// The sequence number of the last record found at start.
    private var seqAtStart: UInt64 = 0
    /// Records written since start.
    public var records: UInt64 { committedSeq - seqAtStart }
    /// Why the journal cannot be written now (nil: it can). Set by a failed write or fsync;
    /// cleared by `retry()`.
    public private(set) var fault: String?
    /// Faults since start, and when the current one began (monotonic seconds).
    public private(set) var faults: UInt64 = 0

    /// Test hook: a file whose content ("ENOSPC", "EIO", "EROFS", optionally after
    /// "fsync:") makes the next journal write (or fsync) fail with that error while it
    /// exists. Read from TABD_TEST_FAULT_FILE at start; unset in production.
    private let faultFile: String? = ProcessInfo.processInfo.environment["TABD_TEST_FAULT_FILE"]

    public init(directory: String, fsync: FsyncPolicy, compactBytes: Int, logger: Logger) {
        self.directory = directory
        self.fsync = fsync
        self.compactBytes = compactBytes
        self.compactAt = compactBytes
        self.logger = logger
    }

    deinit { if journalFD >= 0 { Sys.close(journalFD) } }

    var snapshotPath: String { directory + "/snapshot" }
    func journalPath(_ g: UInt64) -> String { "\(directory)/journal-\(g).log" }

    // MARK: Recovery

    /// What `recover` needs from the one who owns the state.
    public struct Replay {
        /// Start from this state (the snapshot's, or nil: none).
        public var start: (TabContainers?) -> Void
        /// Applies one record under the rules it was recorded under (the journal format's:
        /// `JournalCodec.semantics(ofFormat:)`); returns nil, or why it cannot be applied (one
        /// sentence).
        public var apply: (JournalRecord, Semantics) -> String?
        /// The state as it is now (after the records applied so far).
        public var state: () -> TabContainers
        public init(start: @escaping (TabContainers?) -> Void, apply: @escaping (JournalRecord, Semantics) -> String?,
                    state: @escaping () -> TabContainers) {
            self.start = start; self.apply = apply; self.state = state
        }
    }

    /// Reads the snapshot and replays the journals through `replay`, then opens the journal
    /// for writing. `repair`: damage is set aside (renamed) and the last good state becomes a
    /// new snapshot, instead of refusing to start. Throws one sentence when it cannot start.
    public func recover(repair: Bool, _ replay: Replay) throws(StateError) -> Recovery {
        var report = Recovery()
        do { try Sys.mkdir(directory, mode: 0o750) } catch where error.errno != EEXIST {
            throw StateError("cannot create the state directory \(directory): \(error.reason); create it, owned by tabd's user, or choose another state_dir")
        } catch {}
        try checkDirectory()
        var lastSeq: UInt64? = nil  // nil: format 1, no sequence numbers to check
        var rebase = false

        // The snapshot.
        var snapshotMissing = true
        switch try readSnapshot() {
        case .none:
            break
        case .damaged(let what):
            let message = "the snapshot \(snapshotPath) is damaged (\(what))"
            guard repair else {
                throw StateError("\(message); tabd will not trust it. Restore it from a backup, or start tabd with --repair to set it and the journals aside and start from an empty state")
            }
            let aside = try setAside(snapshotPath)
            report.setAside.append(aside)
            for g in journalGenerations() { report.setAside.append(try setAside(journalPath(g))) }
            logger.critical("the snapshot is damaged: set aside with every journal; starting from an empty state (everything is lost)",
                            metadata: ["file": "\(snapshotPath)", "aside": "\(aside)", "error": "\(what)"])
            report.lostControllers = ["(everything)"]
            snapshotMissing = false
            rebase = true
            replay.start(nil)
        case .snapshot(let version, let g, let seq, let state):
            generation = g
            report.generation = g
            if version < JournalCodec.version { report.formatRead = version; rebase = true }
            lastSeq = seq
            snapshotMissing = false
            replay.start(state)
        }

        // Journals older than the snapshot are leftovers of a compaction that finished.
        var journals = journalGenerations()
        for g in journals where g < generation {
            logger.info("removing a journal the snapshot already holds", metadata: ["file": "\(journalPath(g))"])
            try? Sys.unlink(journalPath(g))
        }
        journals = journals.filter { $0 >= generation }

        if snapshotMissing {
            replay.start(nil)
            if let evidence = try missingSnapshotEvidence(journals) {
                let message = "the snapshot \(snapshotPath) is missing, but \(evidence): starting without it would silently lose the state clients were told about"
                guard repair else {
                    throw StateError("\(message). Restore the snapshot from a backup, or start tabd with --repair to set the journals aside and start from an empty state")
                }
                try setAside(journals.map { (journalPath($0), 0) }, into: &report)
                logger.critical("--repair: \(message); the journals were set aside and tabd starts from an empty state: everything the snapshot held is lost, and the \(report.lostRecords) record(s) after it", metadata: [
                    "aside": "\(report.setAside)", "lost.records": "\(report.lostRecords)", "lost.controllers": "\(report.lostControllers)",
                ])
                journals = []
                rebase = true
            } else {
                lastSeq = 0
            }
        }

        // The journals, in order.
        var expected = lastSeq.map { $0 + 1 }
        var applied: UInt64 = 0
        journalGeneration = journals.last ?? generation
        journalBytes = 0
        var opened = false
        journalLoop: for (n, g) in journals.enumerated() {
            let path = journalPath(g)
            // Damage with nothing valid after it is a torn last write only when no later journal
            // holds records (a compaction may have started one that is still empty).
            let isLast = !journals[(n + 1)...].contains { hasRecords(journalPath($0)) }
            let read = try readJournal(path, generation: g, expectedSeq: expected, isLast: isLast, replay: replay)
            applied += UInt64(read.applied)
            if read.version < JournalCodec.version { report.formatRead = min(report.formatRead, read.version); rebase = true }
            if let e = expected { expected = e + UInt64(read.applied) }
            if read.version < 2 { expected = nil }
            switch read.ending {
            case .clean(let end):
                if isLast { journalBytes = end }
            case .torn(let at, let bytes):
                report.tornBytes += bytes
                let fd = try openForWriting(path)
                do { try Sys.ftruncate(fd, at) } catch {
                    throw StateError("cannot cut the torn record off the end of \(path): \(error.reason); check the file system")
                }
                Sys.close(journalFD); journalFD = -1
                journalBytes = at
            case .damaged(let record, let offset, let what):
                let where_ = "the journal \(path) is damaged at record \(record) (byte \(offset)): \(what)"
                guard repair else {
                    throw StateError("\(where_). The \(record - 1) record(s) before it are good. Start tabd with --repair to set record \(record) and everything after it aside and start from the state before it, or restore the state directory from a backup")
                }
                // This journal and every later one go aside whole (renamed: no space needed).
                try setAside([(path, offset)] + journals[(n + 1)...].map { (journalPath($0), 0) }, into: &report)
                logger.critical("--repair: \(where_); set aside from there, tabd starts from the state before it", metadata: [
                    "aside": "\(report.setAside)", "lost.records": "\(report.lostRecords)", "lost.controllers": "\(report.lostControllers)",
                ])
                rebase = true
                break journalLoop
            }
        }
        report.applied = Int(applied)
        report.lastSeq = (lastSeq ?? 0) + applied
        committedSeq = report.lastSeq
        appendedSeq = committedSeq
        seqAtStart = committedSeq

        if rebase {
            // Older format, or what --repair kept: written anew as a snapshot of the state as
            // it is, with an empty journal after it.
            try self.rebase(replay.state(), formatRead: report.formatRead)
            opened = true
        }
        if !opened { try openJournal(syncingDirectory: true) }
        report.generation = generation
        return report
    }

    /// The state directory must be tabd's own: owned by root or tabd's user, and writable by
    /// no one else (whoever can write there chooses the state tabd loads).
    private func checkDirectory() throws(StateError) {
        let st: stat
        do { st = try Sys.linkStatus(directory) } catch { throw StateError("cannot read the state directory \(directory): \(error.reason)") }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw StateError("the state directory \(directory) is not a directory; choose another state_dir")
        }
        guard st.st_uid == 0 || st.st_uid == Sys.effectiveUserID() else {
            throw StateError("the state directory \(directory) is owned by uid \(st.st_uid), not by root or tabd's user (uid \(Sys.effectiveUserID())); chown it to tabd's user")
        }
        guard st.st_mode & 0o022 == 0 else {
            throw StateError("the state directory \(directory) is writable by its group or by others (mode \(String(st.st_mode & 0o7777, radix: 8))); anyone who can write there chooses the state tabd loads. Run chmod go-w on it")
        }
    }

    /// --repair: journals renamed aside, counting the records in them from an offset on (those
    /// that are lost) and the controllers those records changed.
    private func setAside(_ files: [(path: String, from: Int)], into report: inout Recovery) throws(StateError) {
        var names = Set(report.lostControllers)
        for f in files {
            let (count, controllers) = summary(of: f.path, from: f.from)
            report.lostRecords += count
            names.formUnion(controllers)
            report.setAside.append(try setAside(f.path))
        }
        report.lostControllers = names.sorted()
    }

    /// The journals say a snapshot existed: the first is of a later generation than 0 (the
    /// one before any snapshot; a compaction that had not finished leaves 0 and 1), or its
    /// records do not start at 1.
    private func missingSnapshotEvidence(_ journals: [UInt64]) throws(StateError) -> String? {
        guard let g = journals.first else { return nil }
        if g > 0 {
            return "\(journalPath(g)) is of generation \(g), written after snapshot \(g)"
        }
        guard let bytes = try Self.readFile(journalPath(g), upTo: Self.headerReadBytes),
              case .header(let header) = try Self.header(bytes, path: journalPath(g)), header.firstSeq > 1 else { return nil }
        return "\(journalPath(g)) starts at record \(header.firstSeq), after a snapshot"
    }

    /// Writes `state` as a new snapshot (the next generation), removes every journal it
    /// replaces and starts an empty journal after it. At start only.
    private func rebase(_ state: TabContainers, formatRead: Int) throws(StateError) {
        let next = max(generation, journalGenerations().last ?? 0) + 1
        let bytes: Int
        do {
            bytes = try Self.writeSnapshot(state, generation: next, lastSeq: committedSeq, path: snapshotPath, directory: directory)
        } catch {
            throw StateError("\(error.description); tabd needs to write a new snapshot to start (it set damage aside or read an older format) — free space in \(directory) and start it again")
        }
        for g in journalGenerations() where g < next { try? Sys.unlink(journalPath(g)) }
        generation = next
        journalGeneration = next
        journalBytes = 0
        if journalFD >= 0 { Sys.close(journalFD); journalFD = -1 }
        try openJournal(syncingDirectory: true)
        logger.notice("state written as a new snapshot", metadata: [
            "state.generation": "\(next)", "state.bytes": "\(bytes)", "state.format.read": "\(formatRead)",
            "state.format": "\(JournalCodec.version)",
        ])
    }

    private enum SnapshotRead {
        case none
        case damaged(String)
        case snapshot(version: Int, generation: UInt64, lastSeq: UInt64?, TabContainers)
    }

    private func readSnapshot() throws(StateError) -> SnapshotRead {
        guard let bytes = try Self.readFile(snapshotPath) else { return .none }
        do {
            let s = try Self.decodeSnapshot(bytes)
            return .snapshot(version: s.version, generation: s.generation, lastSeq: s.lastSeq, s.state)
        } catch {
            if case .newer(let v) = error {
                throw StateError("the snapshot \(snapshotPath) is in format \(v), written by a newer tabd (this one reads formats 1 to \(JournalCodec.version)); start the newer tabd, or restore a backup made for this version")
            }
            return .damaged(error.description)
        }
    }

    /// The generations of the journal files in the directory, oldest first.
    private func journalGenerations() -> [UInt64] {
        var out: [UInt64] = []
        for name in (try? Sys.directoryEntries(directory)) ?? [] {
            // Exactly "journal-<generation>.log" (no "journal-01.log", no "journal-+1.log").
            guard name.hasPrefix("journal-"), name.hasSuffix(".log"),
                  let g = UInt64(name.dropFirst("journal-".count).dropLast(".log".count)), name == "journal-\(g).log" else { continue }
            out.append(g)
        }
        return out.sorted()
    }

    struct JournalHeader: Equatable {
        var version: Int
        var generation: UInt64
        var firstSeq: UInt64
        /// Where the records start.
        var length: Int
    }

    static let headerMagic = Array("tabd-journal ".utf8)
    /// Enough of a journal for its header line (at most 200 bytes) and the byte after it.
    static let headerReadBytes = 256

    enum HeaderRead {
        /// Format 1 (no header), or an empty journal.
        case none
        case header(JournalHeader)
        case damaged
    }

    /// The header of a journal's bytes. A format newer than this tabd's is refused (thrown).
    static func header(_ bytes: [UInt8], path: String) throws(StateError) -> HeaderRead {
        guard bytes.count >= headerMagic.count, bytes.starts(with: headerMagic) else { return .none }
        guard let nl = bytes.prefix(200).firstIndex(of: UInt8(ascii: "\n")) else { return .damaged }
        let fields = String(decoding: bytes[..<nl], as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 2, let version = Int(fields[1]) else { return .damaged }
        if version > JournalCodec.version {
            throw StateError("the journal \(path) is in format \(version), written by a newer tabd (this one reads formats 1 to \(JournalCodec.version)); start the newer tabd, or restore a backup made for this version")
        }
        guard version >= 2, fields.count == 4, let g = UInt64(fields[2]), let first = UInt64(fields[3]), first > 0 else { return .damaged }
        return .header(JournalHeader(version: version, generation: g, firstSeq: first, length: nl + 1))
    }

    /// Whether a journal holds at least one record after its header (zeros allocated ahead
    /// and a bare header are no records).
    private func hasRecords(_ path: String) -> Bool {
        guard let bytes = try? Self.readFile(path, upTo: Self.headerReadBytes), !bytes.isEmpty, bytes[0] != 0 else { return false }
        var at = 0
        switch (try? Self.header(bytes, path: path)) ?? .damaged {
        case .header(let h): at = h.length
        case .none: at = 0
        case .damaged: return true
        }
        return at < bytes.count && bytes[at] != 0
    }

    private enum Ending {
        case clean(end: Int)
        /// A torn last record from `at` (`bytes` long): cut off.
        case torn(at: Int, bytes: Int)
        case damaged(record: Int, offset: Int, what: String)
    }

    /// Reads journal `path` and replays its records: where they end, or where and how it is
    /// damaged. `expectedSeq`: the sequence number its first record must have (nil: not
    /// known, format 1). `isLast`: no journal follows, so damage with nothing valid after it
    /// is a torn last write.
    private func readJournal(_ path: String, generation g: UInt64, expectedSeq: UInt64?, isLast: Bool,
                             replay: Replay) throws(StateError) -> (applied: Int, version: Int, ending: Ending) {
        guard let bytes = try Self.readFile(path), !bytes.isEmpty, !Self.allZero(bytes[...]) else {
            return (0, JournalCodec.version, .clean(end: 0))  // empty, or only space allocated ahead
        }
        if bytes[0] == 0 {
            return (0, JournalCodec.version, .damaged(record: 1, offset: 0, what: "it starts with zeros but holds data after them"))
        }
        var version = 1
        var offset = 0
        var expected = expectedSeq
        let read = try Self.header(bytes, path: path)
        if case .damaged = read {
            return (0, JournalCodec.version, .damaged(record: 1, offset: 0, what: "its header is damaged"))
        }
        if case .header(let h) = read {
            version = h.version
            offset = h.length
            if h.generation != g {
                return (0, version, .damaged(record: 1, offset: 0, what: "its header says generation \(h.generation), its name \(g)"))
            }
            if let e = expected, h.firstSeq != e {
                return (0, version, .damaged(record: 1, offset: 0, what: "it starts at record \(h.firstSeq) where \(e) was expected (a journal is missing or left over)"))
            }
            expected = h.firstSeq
        } else if !Self.isHexDigit(bytes[0]) {
            return (0, version, .damaged(record: 1, offset: 0, what: "it is neither a tabd journal nor empty"))
        }
        var applied = 0
        var record = 1
        while offset < bytes.count {
            // Space allocated ahead of the records: zeros to the end of the file.
            if bytes[offset] == 0, Self.allZero(bytes[offset...]) { break }
            let nl = Self.newline(in: bytes, from: offset)
            let json = nl.flatMap { Self.checkRecord(bytes[offset..<$0]) }
            guard let nl, let json else {
                // A bad checksum or no newline: torn when nothing valid follows in the last journal.
                let rest = bytes[offset...]
                let damagedPiece = rest.first == 0 ? 0 : 1
                let validAfter = rest.split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == 0 })
                    .dropFirst(damagedPiece).contains { Self.checkRecord($0) != nil }
                if isLast, !validAfter {
                    let tornEnd = rest.firstIndex(of: 0) ?? bytes.endIndex
                    saveTorn(path, bytes[offset..<tornEnd])
                    return (applied, version, .torn(at: offset, bytes: tornEnd - offset))
                }
                return (applied, version, .damaged(record: record, offset: offset,
                    what: nl == nil ? "the record has no end and valid records follow" : "its checksum does not match and valid records follow"))
            }
            let decoded: (seq: UInt64?, record: JournalRecord)
            do {
                decoded = try Self.decodeRecord(json, version: version)
            } catch {
                return (applied, version, .damaged(record: record, offset: offset, what: "it cannot be read: \(error.description)"))
            }
            if version >= 2, let e = expected, decoded.seq != e {
                let what = decoded.seq.map { $0 < e ? "its sequence number \($0) comes again or goes back (\(e) expected): a duplicated or reordered record"
                                                    : "its sequence number is \($0) where \(e) was expected: records are missing" } ?? "it has no sequence number"
                return (applied, version, .damaged(record: record, offset: offset, what: what))
            }
            if let why = replay.apply(decoded.record, JournalCodec.semantics(ofFormat: version)) {
                return (applied, version, .damaged(record: record, offset: offset,
                    what: "\(decoded.record.operation) on controller '\(decoded.record.controller)' cannot be applied: \(why)"))
            }
            applied += 1
            record += 1
            if let e = expected { expected = e + 1 }
            offset = nl + 1
        }
        return (applied, version, .clean(end: offset))
    }

    /// How many readable records a journal holds from `offset` on, and which controllers they change.
    private func summary(of path: String, from offset: Int = 0) -> (Int, [String]) {
        guard let bytes = try? Self.readFile(path) else { return (0, []) }
        var version = 1
        var at = offset
        if case .header(let h)? = try? Self.header(bytes, path: path) {
            version = h.version
            at = max(at, h.length)
        }
        var count = 0
        var names = Set<String>()
        for piece in bytes[at...].split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == 0 }) {
            guard let json = Self.checkRecord(piece) else { continue }
            count += 1
            if let r = try? Self.decodeRecord(json, version: version), !r.record.controller.isEmpty {
                names.insert(r.record.controller)
            }
        }
        return (count, names.sorted())
    }

    /// The bytes of a torn record, beside the journal, when there is room (never needed to start).
    private func saveTorn(_ path: String, _ bytes: ArraySlice<UInt8>) {
        let aside = "\(path).torn-\(Int(Date().timeIntervalSince1970))"
        var saved = false
        if let fd = try? Sys.open(aside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode: 0o640) {
            saved = bytes.withUnsafeBytes { (try? Sys.pwriteAll(fd, $0, at: 0)) != nil }
            Sys.close(fd)
            if !saved { try? Sys.unlink(aside) }
        }
        logger.warning("the journal ends with a torn record (a crash during a write; it was never acknowledged): cut off", metadata: [
            "file": "\(path)", "torn.bytes": "\(bytes.count)", "torn.saved": "\(saved ? aside : "no (no room); not needed to start")",
        ])
    }

    static func decodeRecord(_ json: ArraySlice<UInt8>, version: Int) throws(JournalRecordError) -> (seq: UInt64?, record: JournalRecord) {
        var result: Result<(seq: UInt64?, record: JournalRecord), JournalRecordError> = .failure(JournalRecordError("empty"))
        json.withUnsafeBytes { raw in
            do { result = .success(try JournalCodec.decode(raw, version: version)) } catch let e as JournalRecordError { result = .failure(e) } catch { result = .failure(JournalRecordError("\(error)")) }
        }
        return try result.get()
    }

    /// Where the next newline from `offset` on is (memchr: every record's end is found here at start).
    static func newline(in bytes: [UInt8], from offset: Int) -> Int? {
        bytes.withUnsafeBytes { raw -> Int? in
            guard offset < raw.count, let p = memchr(raw.baseAddress! + offset, Int32(UInt8(ascii: "\n")), raw.count - offset) else { return nil }
            return UnsafeRawPointer(p) - raw.baseAddress!
        }
    }

    static func isHexDigit(_ b: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(b)
    }

    /// The most a state file may hold up to its last data (holes and space allocated ahead at
    /// its end are not read): far beyond any journal tabd writes, and a refusal, not an
    /// allocation that brings the host down, for a file that is not one.
    static let readLimit = 16 << 30

    /// A state file's bytes up to its last data (a hole or unwritten space at the end holds
    /// only zeros and is left out); nil when it does not exist. Refused in one sentence: a
    /// symbolic link, anything but a regular file (a FIFO would block the open: O_NONBLOCK),
    /// a file with other hard links, one larger than `readLimit`.
    /// `upTo`: only the file's first bytes (a header), not the whole of it.
    static func readFile(_ path: String, upTo prefix: Int = .max) throws(StateError) -> [UInt8]? {
        let fd: Int32
        do {
            fd = try Sys.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        } catch {
            if error.errno == ENOENT { return nil }
            if error.errno == ELOOP {
                throw StateError("\(path) is a symbolic link; tabd does not follow links in its state directory. Put the file itself there, or remove the link")
            }
            throw StateError("cannot open \(path): \(error.reason); check its owner and mode")
        }
        defer { Sys.close(fd) }
        let st: stat
        do { st = try Sys.fstat(fd) } catch { throw StateError("cannot read \(path): \(error.reason)") }
        guard st.st_mode & S_IFMT == S_IFREG else {
            let kind = st.st_mode & S_IFMT == S_IFIFO ? "a FIFO" : st.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file"
            throw StateError("\(path) is \(kind), not a file tabd wrote; remove it from the state directory, or restore it from a backup")
        }
        guard st.st_nlink <= 1 else {
            throw StateError("\(path) has \(st.st_nlink) hard links; tabd writes its state files only when they are its own. Copy it (cp) instead of linking it, or remove the other links")
        }
        var length = Int(st.st_size)
        // Holes (and, on most filesystems, space allocated ahead and never written) at the end:
        // nothing there but zeros.
        if let hole = try? Sys.lseek(fd, 0, 4 /* SEEK_HOLE */), hole < length {
            do { _ = try Sys.lseek(fd, hole, 3 /* SEEK_DATA */) } catch where error.errno == ENXIO { length = hole } catch {}
        }
        length = min(length, prefix)
        guard length <= readLimit else {
            throw StateError("\(path) holds \(length) bytes, more than tabd reads from one state file (\(readLimit >> 30) GiB); it is not a file tabd wrote. Move it out of the state directory, or restore the directory from a backup")
        }
        var failure: String?
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            while count < length {
                let n: Int
                do throws(SystemError) {
                    n = try Sys.pread(fd, into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[count...])), at: count)
                } catch {
                    if error.wouldBlock { continue }
                    failure = error.reason
                    return
                }
                guard n > 0 else { failure = "it got shorter while it was read"; return }
                count += n
            }
        }
        if let failure { throw StateError("cannot read \(path): \(failure)") }
        return bytes
    }

    /// Whether every byte is zero (memcmp against a zero page: fast in debug builds too).
    static func allZero(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { raw in
            var at = 0
            while at < raw.count {
                let n = min(zeroPage.count, raw.count - at)
                if memcmp(raw.baseAddress! + at, zeroPage, n) != 0 { return false }
                at += n
            }
            return true
        }
    }

    private static let zeroPage = [UInt8](repeating: 0, count: 4096)

    /// The JSON of a valid record line ("<crc> <json>"), or nil.
    static func checkRecord(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard line.count > 9, line[line.startIndex + 8] == UInt8(ascii: " "),
              let crc = CRC32.parseHex(line.prefix(8)) else { return nil }
        let json = line.dropFirst(9)
        return CRC32.checksum(json) == crc ? json : nil
    }

    /// Renames a damaged file aside (no space needed) and returns its new name.
    private func setAside(_ path: String) throws(StateError) -> String {
        let stamp = Int(Date().timeIntervalSince1970)
        var aside = "\(path).damaged-\(stamp)"
        var n = 1
        while Sys.exists(aside) { aside = "\(path).damaged-\(stamp)-\(n)"; n += 1 }
        do { try Sys.rename(path, to: aside) } catch {
            throw StateError("cannot set \(path) aside: \(error.reason); check the state directory's owner and mode")
        }
        return aside
    }

    private func openForWriting(_ path: String) throws(StateError) -> Int32 {
        if journalFD < 0 {
            do {
                journalFD = try Sys.open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode: 0o640)
            } catch {
                throw StateError("cannot open \(path) for writing: \(error.reason); check the state directory's owner, mode and free space")
            }
            if let st = try? Sys.fstat(journalFD), st.st_mode & S_IFMT != S_IFREG || st.st_nlink > 1 {
                Sys.close(journalFD)
                journalFD = -1
                throw StateError("\(path) \(st.st_mode & S_IFMT != S_IFREG ? "is not a regular file" : "has \(st.st_nlink) hard links"); tabd writes its state files only when they are its own. Remove it (or copy it in place of the link) and start again")
            }
        }
        return journalFD
    }

    /// Opens the journal to write records after those read (at `journalBytes`); a new or
    /// empty journal gets its header. `syncingDirectory`: fsync the directory so that the
    /// file surely exists after a power loss — needed before records in it are acknowledged
    /// under `always`; otherwise the compaction's helper does it soon after.
    func openJournal(syncingDirectory: Bool) throws(StateError) {
        let path = journalPath(journalGeneration)
        let fd = try openForWriting(path)
        allocatedBytes = (try? Sys.fstat(fd)).map { Int($0.st_size) } ?? journalBytes
        if journalBytes == 0 {
            let header = Array("tabd-journal \(JournalCodec.version) \(journalGeneration) \(committedSeq + 1)\n".utf8)
            if let failure = header.withUnsafeBytes({ Self.writeAll(fd, $0, at: 0) }) {
                throw StateError("cannot write the header of \(path): \(failure.reason); free space in \(directory) or check the file system")
            }
            journalBytes = header.count
            allocatedBytes = max(allocatedBytes, journalBytes)
            unsynced = true
        }
        if syncingDirectory { try Self.syncDirectory(directory) }
    }

    /// How far ahead of its records the journal is allocated, a step at a time: 4 MiB (the
    /// compaction threshold when that is smaller). A step costs one fdatasync that commits
    /// the new size; the zeros of the last step are read at start (a 64 MiB step made a start
    /// 180 ms slower).
    var preallocationStep: Int { max(64 << 10, min(compactBytes, 4 << 20)) }

    /// Makes the journal file at least `end` bytes long, in whole steps. Allocating is cheap
    /// (no data is written); the next fdatasync commits the new size once. Returns the errno
    /// when the space cannot be had (ENOSPC), 0 otherwise.
    @discardableResult
    private func preallocate(upTo end: Int) -> Int32 {
        guard !cannotPreallocate, end > allocatedBytes else { return 0 }
        let step = preallocationStep
        let target = (end + step - 1) / step * step
        do {
            try Sys.fallocate(journalFD, length: target)
        } catch {
            if error.errno == EOPNOTSUPP || error.errno == ENOSYS {
                cannotPreallocate = true
                logger.info("the filesystem cannot allocate the journal ahead; records are appended (slower, fsync always most)", metadata: ["state.directory": "\(directory)"])
                return 0
            }
            return error.errno
        }
        allocatedBytes = target
        return 0
    }

    // MARK: Writing

    /// Adds a command's record to this turn's batch (the command is borrowed, not copied).
    /// The record is encoded in place after room for its checksum, which is filled in last.
    public func append(_ command: Command, controller: String) {
        appendedSeq += 1
        JournalBatch.line(into: &pending) { JournalCodec.encode(command, controller: controller, seq: appendedSeq, into: &$0) }
    }

    /// Adds a record (controllers created and deleted) to this turn's batch.
    public func append(_ record: JournalRecord) {
        appendedSeq += 1
        JournalBatch.line(into: &pending) { JournalCodec.encode(record, seq: appendedSeq, into: &$0) }
    }

    /// An empty batch numbered after the last record appended (the service's engine appends
    /// its records to one and hands it to `commit(_:)`).
    public func batch() -> JournalBatch { JournalBatch(after: appendedSeq) }

    /// Writes `batch`'s records (after any appended here) as `commit()` does: on success
    /// they are committed, on failure discarded; either way the batch is left empty, numbered
    /// after what the journal now holds.
    public func commit(_ batch: inout JournalBatch) throws(StateError) {
        precondition(batch.isEmpty || pending.count == 0, "records appended to the store and to a batch in one turn")
        swap(&pending, &batch.pending)  // the batch's buffer is written in place, and given back reset
        appendedSeq = max(appendedSeq, batch.lastSeq)
        defer {
            swap(&pending, &batch.pending)
            batch.lastSeq = appendedSeq
        }
        try commit()
    }

    public var hasPending: Bool { pending.count > 0 }

    /// Writes this turn's records in one write; under `always` also fsyncs. Replies of the
    /// turn may leave only after this returned. On failure the turn's records are gone (cut
    /// off the file again), the store is `faulted`, and the caller undoes what they did.
    public func commit() throws(StateError) {
        guard pending.count > 0 else { return }
        let at = journalBytes
        let count = pending.count
        if let fault {
            discardPending()
            throw StateError(fault)
        }
        if let failure = write(at: at) {
            return try fail("writing the journal \(journalPath(journalGeneration)) failed: \(failure.reason)", cutTo: at)
        }
        journalBytes = at + count
        unsynced = true
        if fsync == .always {
            if let failure = syncNow() {
                return try fail("fsync of the journal \(journalPath(journalGeneration)) failed: \(failure.reason)", cutTo: at)
            }
        }
        committedSeq = appendedSeq
        resetPending()
    }

    private func write(at: Int) -> SystemError? {
        if let injected = injectedFault(sync: false) { return injected }
        preallocate(upTo: at + pending.count)  // no room ahead: the write itself may still fit; it says
        return pending.withBytes { Self.writeAll(journalFD, $0, at: at) }
    }

    private func syncNow() -> SystemError? {
        if let injected = injectedFault(sync: true) { return injected }
        let start = monotonicNanoseconds()
        do { try Sys.fdatasync(journalFD) } catch { return error }
        lastFsyncNanos = monotonicNanoseconds() - start
        unsynced = false
        return nil
    }

    /// A failed write or fsync: the batch's bytes are cut off the file again (nothing refused
    /// may come back at the next start), the store is faulted, and the error is thrown.
    private func fail(_ message: String, cutTo at: Int) throws(StateError) {
        journalBytes = at
        do {
            try Sys.ftruncate(journalFD, at)
            allocatedBytes = at
        } catch {
            // The refused records must not come back at the next start: a zero where the next
            // record would begin ends the journal for the reader.
            let truncateError = error.reason
            let zero: UInt8 = 0
            let zeroed = withUnsafeBytes(of: zero) { (try? Sys.pwriteAll(journalFD, $0, at: at)) != nil } && (try? Sys.fdatasync(journalFD)) != nil
            logger.critical("the journal could not be cut back after a failed write; tabd keeps refusing changes until it can", metadata: [
                "file": "\(journalPath(journalGeneration))", "error": "\(truncateError)",
                "refused.records.neutralised": "\(zeroed ? "yes (zeroed)" : "no: if tabd stops before a retry succeeds, the next start may replay them")",
            ])
        }
        discardPending()
        enterFault(message)
        throw StateError(message)
    }

    private func enterFault(_ message: String) {
        if fault == nil { faults += 1 }
        fault = message
    }

    private func discardPending() {
        appendedSeq = committedSeq
        resetPending()
    }

    private func resetPending() {
        if pending.count > 16 * Self.pendingKeep {
            pending = JSONWriter(capacity: Self.pendingKeep)  // a big turn's buffer is given back
        } else {
            pending.reset()
        }
    }

    /// While faulted: whether the journal can be written again. Cuts the file back to its
    /// records, then makes sure there is room for the next ones (allocating a step) and that
    /// an fsync succeeds. Clears the fault when it can.
    public func retry() -> Bool {
        guard let current = fault else { return true }
        if let injected = injectedFault(sync: false) ?? injectedFault(sync: true) {
            fault = "\(current.split(separator: ":").first ?? "writing the journal failed"): \(injected.reason)"
            return false
        }
        guard (try? Sys.ftruncate(journalFD, journalBytes)) != nil else { return false }
        allocatedBytes = journalBytes
        // A whole step allocated ahead, when the disk has it; else (a filesystem smaller than
        // a step, or with less free) records are appended as they come, as at start, once a
        // page of zeros written and taken back proves there is room for the next ones.
        if cannotPreallocate || preallocate(upTo: journalBytes + 1) != 0 {
            let page = [UInt8](repeating: 0, count: 4096)
            let failure = page.withUnsafeBytes { Self.writeAll(journalFD, $0, at: journalBytes) }
            try? Sys.ftruncate(journalFD, journalBytes)
            if failure != nil { return false }
        }
        guard (try? Sys.fdatasync(journalFD)) != nil else { return false }
        unsynced = false
        fault = nil
        return true
    }

    /// TABD_TEST_FAULT_FILE: the error its content names, while it exists.
    private func injectedFault(sync: Bool) -> SystemError? {
        guard let faultFile, let text = try? String(contentsOfFile: faultFile, encoding: .utf8) else { return nil }
        var spec = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let atSync = spec.hasPrefix("fsync:")
        if atSync { spec.removeFirst("fsync:".count) }
        guard atSync == sync else { return nil }
        let code: Int32 = spec == "EIO" ? EIO : spec == "EROFS" ? EROFS : ENOSPC
        return SystemError(sync ? "fdatasync" : "pwrite", errno: code)
    }

    /// Synchronously, when anything written is not yet on disk (shutdown, tests).
    public func syncIfNeeded() throws(StateError) {
        finishBackgroundWork()  // a background sync or compaction in flight finishes first
        if unsynced, fsync != .no, journalFD >= 0, let failure = syncNow() {
            throw StateError("fsync of the journal \(journalPath(journalGeneration)) failed: \(failure.reason)")
        }
    }

    /// `everysec`, from a one-second timer: fdatasync on a helper thread, as Redis does, so
    /// the loop never waits for the disk. The helper syncs a duplicate of the descriptor
    /// (compaction may close the journal meanwhile; the data is the file's, not the fd's).
    /// `done` runs on the helper thread with nil or the error; at most one sync is in flight.
    public func syncInBackground(_ done: @escaping @Sendable (_ nanos: UInt64, _ error: String?) -> Void) {
        guard unsynced, fsync == .everysec, !backgroundSyncInFlight, fault == nil, journalFD >= 0 else { return }
        let injected = injectedFault(sync: true)
        let fd: Int32
        do { fd = try Sys.duplicate(journalFD) } catch { return done(0, "cannot duplicate the journal descriptor: \(error.reason)") }
        unsynced = false
        backgroundSyncInFlight = true
        syncQueue.async {
            let start = monotonicNanoseconds()
            let message: String?
            if let injected {
                message = "fsync of the journal failed: \(injected.reason)"
            } else {
                do throws(SystemError) { try Sys.fdatasync(fd); message = nil } catch { message = "fsync of the journal failed: \(error.reason)" }
            }
            Sys.close(fd)
            done(monotonicNanoseconds() - start, message)
        }
    }

    /// On the loop, after `syncInBackground`'s `done`. A failed sync faults the store: what
    /// was acknowledged since the last good sync may not be on disk, so no more changes are
    /// taken until `retry` succeeds (then a compaction writes the whole state anew).
    public func backgroundSyncFinished(nanos: UInt64, error: String? = nil) {
        backgroundSyncInFlight = false
        if let error {
            enterFault(error)
            return
        }
        lastFsyncNanos = nanos
    }

    /// A snapshot of the whole state is owed (after a storage fault: whatever a failed fsync
    /// lost is covered by it); the next `needsCompaction` says so.
    private var snapshotOwed = false

    public func requestSnapshot() { snapshotOwed = true }

    /// The journal has grown to `limits.compact_bytes` (or a snapshot is owed) and no
    /// compaction is under way. (Asking also collects the outcome of a compaction that finished.)
    public var needsCompaction: Bool {
        collectCompaction()
        return !compactionInFlight && fault == nil && (journalBytes >= compactAt || snapshotOwed)
    }

    /// A compaction is under way and the journal it started has grown to `compact_bytes`
    /// again: plugins' store writes wait for it (clients' changes do not), so that whatever
    /// plugins write, the directory holds at most the snapshot and two journals of about
    /// `compact_bytes` each (docs/operations.md, "What plugins may write").
    public var journalAwaitsCompaction: Bool {
        collectCompaction()
        return compactionInFlight && journalBytes >= compactBytes
    }

    /// Starts a compaction and returns at once: from here on records go to the next journal,
    /// while a helper thread syncs the one before, writes `state` (a copy-on-write value,
    /// free to hand over) as the next snapshot and removes the journals it replaces. A
    /// failure there is logged, the journals stay, and a later compaction tries again.
    public func compact(_ state: TabContainers) throws(StateError) {
        guard !compactionInFlight else { return }
        try commit()
        let old = (fd: journalFD, generation: journalGeneration, bytes: journalBytes, allocated: allocatedBytes)
        let next = journalGeneration + 1
        journalFD = -1
        try? Sys.unlink(journalPath(next))
        journalGeneration = next
        journalBytes = 0
        do {
            try openJournal(syncingDirectory: fsync == .always)
        } catch {
            // Stay with the journal there is; nothing was lost.
            if journalFD >= 0 { Sys.close(journalFD) }
            try? Sys.unlink(journalPath(next))
            (journalFD, journalGeneration, journalBytes, allocatedBytes) = (old.fd, old.generation, old.bytes, old.allocated)
            compactAt = journalBytes + compactBytes
            logger.error("compaction could not start a new journal; tabd goes on with this one and tries again later", metadata: ["error": "\(error)"])
            return
        }
        compactionInFlight = true
        snapshotOwed = false
        let replaced = (generation...old.generation).map(journalPath)
        let lastSeq = committedSeq
        let (snapshotPath, directory, sync, done) = (snapshotPath, directory, fsync != .no, compactionDone)
        syncQueue.async {
            let result: Result<Int, StateError>
            do {
                if sync {
                    do throws(SystemError) { try Sys.fdatasync(old.fd) } catch { throw StateError("fsync of \(replaced.last!) failed: \(error.reason)") }
                }
                let bytes = try Self.writeSnapshot(state, generation: next, lastSeq: lastSeq, path: snapshotPath, directory: directory)
                // Removing a 64 MiB file takes ext4 milliseconds: here, not on the loop. A crash
                // before it leaves files `recover` removes.
                for path in replaced { try? Sys.unlink(path) }
                result = .success(bytes)
            } catch let error as StateError {
                result = .failure(error)
            } catch {
                result = .failure(StateError("\(error)"))
            }
            Sys.close(old.fd)
            done.put(result)
        }
    }

    /// On the loop: the outcome of the compaction under way, once the helper is done.
    private func collectCompaction() {
        guard compactionInFlight, let result = compactionDone.take() else { return }
        compactionInFlight = false
        switch result {
        case .success(let bytes):
            generation = journalGeneration
            compactAt = compactBytes
            logger.info("state compacted into a snapshot", metadata: ["state.generation": "\(generation)", "state.bytes": "\(bytes)"])
        case .failure(let error):
            compactAt = journalBytes + compactBytes
            if fault != nil { snapshotOwed = true }
            logger.error("compaction failed; the journals stay (nothing is lost) and tabd tries again later", metadata: ["error": "\(error)"])
        }
    }

    /// Waits for the helper thread (a sync or a compaction under way) and collects its outcome.
    public func finishBackgroundWork() {
        syncQueue.sync {}
        collectCompaction()
    }

    /// Writes snapshot `generation` of `state`: a temporary file, fsynced, renamed over the
    /// snapshot, the directory fsynced. Returns the snapshot's size. A failure removes the
    /// temporary file.
    static func writeSnapshot(_ state: TabContainers, generation: UInt64, lastSeq: UInt64, path: String, directory: String) throws(StateError) -> Int {
        let json = try encodeSnapshotBody(state)
        var file = Array("tabd-snapshot \(JournalCodec.version) \(generation) \(lastSeq) ".utf8)
        file += CRC32.hex(CRC32.checksum(json))
        file += Array(" \(json.count)\n".utf8)
        file += json
        let tmp = path + ".tmp"
        try? Sys.unlink(tmp)
        let fd: Int32
        do { fd = try Sys.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode: 0o640) } catch {
            throw StateError("cannot create \(tmp): \(error.reason)")
        }
        var failure = file.withUnsafeBytes { writeAll(fd, $0, at: 0) }.map { "writing \(tmp) failed: \($0.reason)" }
        if failure == nil {
            do { try Sys.fsync(fd) } catch { failure = "fsync of \(tmp) failed: \(error.reason)" }
        }
        Sys.close(fd)
        if failure == nil {
            do { try Sys.rename(tmp, to: path) } catch { failure = "cannot rename \(tmp) to \(path): \(error.reason)" }
        }
        if let failure {
            try? Sys.unlink(tmp)
            throw StateError(failure)
        }
        try syncDirectory(directory)
        return file.count
    }

    /// Makes the directory's entries durable: a renamed snapshot, a new journal's name.
    private static func syncDirectory(_ directory: String) throws(StateError) {
        let fd: Int32
        do { fd = try Sys.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } catch {
            throw StateError("cannot open \(directory): \(error.reason)")
        }
        defer { Sys.close(fd) }
        try? Sys.fsync(fd)
    }

    /// pwrite of everything, at `at`; nil, or the failure.
    static func writeAll(_ fd: Int32, _ buf: UnsafeRawBufferPointer, at: Int) -> SystemError? {
        do { try Sys.pwriteAll(fd, buf, at: at) } catch { return error }
        return nil
    }

    // MARK: Snapshot format

    /// The state as compact JSON, objects' keys sorted (the controllers are a dictionary), by
    /// TabCore's snapshot codec (`TabContainers.writeSnapshot`, tabs by `Tab.fields`) and
    /// TabJSON's writer: the bytes TabJSON's Codable encoder wrote before it. tabd wrote
    /// snapshots with Foundation's JSONEncoder (sorted keys, "/" escaped) before that: the
    /// same JSON values, read the same.
    static func encodeSnapshotBody(_ state: TabContainers) throws(StateError) -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        state.writeSnapshot(to: &w)
        return w.bytes
    }

    /// The snapshot body's JSON may nest deeper than a request (groups of tabs inside
    /// controllers); the parser is iterative, so depth costs no stack.
    static let snapshotMaxDepth = 512

    enum SnapshotFormatError: Error, CustomStringConvertible {
        case newer(Int)
        case damaged(String)
        var description: String {
            switch self {
            case .newer(let v): return "format \(v) is newer than this tabd's"
            case .damaged(let what): return what
            }
        }
    }

    /// Format 2: "tabd-snapshot 2 <generation> <last seq> <crc> <length>\n"; format 1 had no
    /// last seq (nil).
    static func decodeSnapshot(_ bytes: [UInt8]) throws(SnapshotFormatError) -> (version: Int, generation: UInt64, lastSeq: UInt64?, state: TabContainers) {
        guard let nl = bytes.prefix(256).firstIndex(of: UInt8(ascii: "\n")) else { throw .damaged("no header line") }
        let header = String(decoding: bytes[..<nl], as: UTF8.self).split(separator: " ")
        guard header.count >= 2, header[0] == "tabd-snapshot", let version = Int(header[1]) else { throw .damaged("unrecognised header") }
        guard version <= JournalCodec.version else { throw .newer(version) }
        let fields = version == 1 ? 5 : 6
        guard version >= 1, header.count == fields, let g = UInt64(header[2]),
              let crc = CRC32.parseHex(Array(header[fields - 2].utf8)), let length = Int(header[fields - 1])
        else { throw .damaged("unrecognised header") }
        var lastSeq: UInt64?
        if version >= 2 {
            guard let s = UInt64(header[3]) else { throw .damaged("unrecognised header") }
            lastSeq = s
        }
        let body = bytes[(nl + 1)...]
        guard body.count == length else { throw .damaged("expected \(length) bytes of state, found \(body.count)") }
        guard CRC32.checksum(body) == crc else { throw .damaged("checksum mismatch") }
        let state: TabContainers
        do {
            let value = try body.withUnsafeBytes { try JSONParser.parse($0, maxDepth: snapshotMaxDepth) }
            state = try TabContainers(snapshot: value)
        } catch {
            throw .damaged("its state cannot be read")
        }
        if let problem = state.inconsistency { throw .damaged("its state is inconsistent: \(problem)") }
        return (version, g, lastSeq, state)
    }
}

/// One value handed from a helper thread to the loop, which looks for it when it likes.
final class Mailbox<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)

    func put(_ v: Value) {
        value.withLock { $0 = v }
    }

    func take() -> Value? {
        value.withLock { v in
            defer { v = nil }
            return v
        }
    }
}

@available(*, unavailable, message: "the store is used on the loop thread; its helper thread gets Sendable values only")
extension StateStore: Sendable {}
