// Durability: an append-only journal of the commands that changed state, compacted into a
// snapshot. A reply to a mutating command leaves only after its record was written
// (and, under `always`, fsynced): a kill -9 at any moment loses nothing acknowledged.
//
// Files in the state directory:
//   snapshot            "tabd-snapshot 1 <generation> <crc32> <length>\n" + JSON of every controller
//   journal-<gen>.log   one record a line: "<crc32 of json, 8 hex> <json request>\n"
// The journal file is allocated ahead of its records (fallocate, as etcd does for its WAL):
// a record then lands in space the file already has, and fdatasync has no file size to
// commit — on the benchmark machine (ext4) a 100-byte write+fdatasync took 155 µs appended
// and 100 µs into allocated space (Benchmarks/harness/syncprobe.c); a turn's write costs
// less too (23 KB: 12 µs appended, 8.7 µs allocated). The file is then longer than its
// records: they end where a zero tail begins.
// Compaction starts journal-<g+1>.log on the loop (new records go there at once), then a
// helper thread syncs journal-<g>.log, writes snapshot generation g+1 (temp file, fsync,
// rename, fsync dir) and removes journal-<g>.log: the loop never waits for it. Until the
// snapshot is renamed, journals g and g+1 together say what happened after snapshot g, and
// a restart replays both. A torn last record (a crash in the middle of a write) is cut off
// and kept aside; damage anywhere else, or in the snapshot, stops tabd unless it is started
// with --repair, which keeps the damaged file aside.

import CLibevent
import Foundation
import Logging
import TabCore
import TabProtocol

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

public struct StateError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
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
    /// Records of the current loop turn, written together by `commit` (bytes, not JSON: the
    /// writer is a growable buffer that appends without copy-on-write checks).
    private var pending = JSONWriter(capacity: StateStore.pendingKeep)
    private static let pendingKeep = 64 << 10
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
    public private(set) var records: UInt64 = 0

    public init(directory: String, fsync: FsyncPolicy, compactBytes: Int, logger: Logger) {
        self.directory = directory
        self.fsync = fsync
        self.compactBytes = compactBytes
        self.compactAt = compactBytes
        self.logger = logger
    }

    deinit { if journalFD >= 0 { close(journalFD) } }

    private var snapshotPath: String { directory + "/snapshot" }
    private func journalPath(_ g: UInt64) -> String { "\(directory)/journal-\(g).log" }

    /// What was on disk: the snapshot (nil when there is none) and the journal records after it.
    public struct Loaded {
        public var snapshot: TabContainers?
        public var records: [[UInt8]]
        public var generation: UInt64
    }

    /// Reads the snapshot and the journal. `repair` keeps damaged files aside instead of
    /// refusing to start. Call `openJournal()` after the records were applied.
    public func load(repair: Bool) throws -> Loaded {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o750])
        var snapshot: TabContainers?
        if let data = FileManager.default.contents(atPath: snapshotPath) {
            do {
                let (g, state) = try Self.decodeSnapshot(data)
                generation = g
                snapshot = state
            } catch {
                let message = "the snapshot \(snapshotPath) is damaged (\(error))"
                guard repair else {
                    throw StateError("\(message); tabd will not trust it. Start with --repair to keep it aside and start from an empty state, or restore it from a backup")
                }
                let aside = try keepAside(snapshotPath)
                logger.critical("\(message); kept aside as \(aside), starting from an empty state")
                for g in journalGenerations() { _ = try? keepAside(journalPath(g)) }
                generation = 0
            }
        }
        // Journals older than the snapshot are leftovers of a compaction that finished; from
        // the snapshot's generation on, each holds what followed the one before (a compaction
        // that had not finished leaves two).
        let journals = journalGenerations()
        for g in journals where g < generation {
            logger.info("removing journal of an earlier generation", metadata: ["file": "\(journalPath(g))"])
            unlink(journalPath(g))
        }
        let live = journals.filter { $0 >= generation }
        journalGeneration = live.last ?? generation
        journalBytes = 0
        var records: [[UInt8]] = []
        for (n, g) in live.enumerated() {
            let later = live[(n + 1)...]
            let recordsFollow = later.contains { hasRecords(journalPath($0)) }
            let read = try readJournal(g, repair: repair, recordsFollow: recordsFollow)
            records += read.records
            journalBytes = read.end
            if read.damaged, recordsFollow {
                // --repair after damage with journals after it: what they say followed changes
                // that are lost. Kept aside; writing goes on in this journal, after the damage.
                for l in later {
                    let aside = try keepAside(journalPath(l))
                    logger.critical("a journal after the damaged one depends on what was lost: kept aside", metadata: ["aside": "\(aside)"])
                }
                journalGeneration = g
                break
            }
        }
        return Loaded(snapshot: snapshot, records: records, generation: generation)
    }

    /// The generations of the journal files in the directory, oldest first.
    private func journalGenerations() -> [UInt64] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .compactMap { name -> UInt64? in
                guard name.hasPrefix("journal-"), name.hasSuffix(".log") else { return nil }
                return UInt64(name.dropFirst("journal-".count).dropLast(".log".count))
            }
            .sorted()
    }

    /// Whether the file holds records: its first byte is there and is not a zero.
    private func hasRecords(_ path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        return (try? h.read(upToCount: 1))?.first.map { $0 != 0 } ?? false
    }

    /// The records of journal `g`, where they end, and whether it was damaged (then it was
    /// cut after the last good record, a copy kept aside). `recordsFollow`: a later journal
    /// holds records, so damage here, even at the end, is not a torn last write.
    private func readJournal(_ g: UInt64, repair: Bool, recordsFollow: Bool) throws -> (records: [[UInt8]], end: Int, damaged: Bool) {
        let path = journalPath(g)
        guard let bytes = try Self.readRecordsRegion(path) else { return ([], 0, false) }
        var records: [[UInt8]] = []
        var offset = 0
        var damagedAt: Int?
        while offset < bytes.count {
            // Space allocated ahead of the records: zeros to the end of the file.
            if bytes[offset] == 0, Self.allZero(bytes[offset...]) { break }
            guard let nl = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) else {
                damagedAt = offset  // a record without its newline: torn
                break
            }
            if let json = Self.checkRecord(bytes[offset..<nl]) {
                records.append(Array(json))
                offset = nl + 1
            } else {
                damagedAt = offset
                break
            }
        }
        guard let at = damagedAt else { return (records, offset, false) }
        // Torn tail: nothing valid follows the damage (a crash during the last write). A record
        // never holds a zero byte: zeros separate too (space allocated ahead).
        let rest = bytes[at...]
        let damagedRecord = rest.first == 0 ? 0 : 1  // the pieces after the damaged one
        let validAfter = recordsFollow
            || rest.split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == 0 }).dropFirst(damagedRecord)
                .contains { Self.checkRecord($0) != nil }
        if validAfter && !repair {
            throw StateError("the journal \(path) is damaged at byte \(at) and valid records follow; tabd will not guess. Start with --repair to keep the file aside and keep the \(records.count) record(s) before the damage")
        }
        let aside = try keepAside(path, copy: true)
        if validAfter {
            logger.critical("journal damaged in the middle; kept the \(records.count) record(s) before byte \(at), the whole file is kept aside", metadata: ["file": "\(path)", "aside": "\(aside)"])
        } else {
            logger.warning("journal ends with a torn record (a crash during a write); it was never acknowledged and is cut off", metadata: ["file": "\(path)", "aside": "\(aside)", "offset": "\(at)"])
        }
        guard truncate(path, off_t(at)) == 0 else { throw StateError("cannot truncate \(path): \(String(cString: strerror(errno)))") }
        return (records, at, true)
    }

    /// The journal's bytes (its records, then at most one allocation step of zeros). Nil
    /// when there is no file.
    static func readRecordsRegion(_ path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw StateError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StateError("cannot stat \(path): \(String(cString: strerror(errno)))") }
        let length = Int(st.st_size)
        return try [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            while count < length {
                let n = pread(fd, buffer.baseAddress! + count, length - count, off_t(count))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw StateError("reading \(path) failed: \(n == 0 ? "it got shorter" : String(cString: strerror(errno)))") }
                count += n
            }
        }
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

    private func keepAside(_ path: String, copy: Bool = false) throws -> String {
        let stamp = Int(Date().timeIntervalSince1970)
        var aside = "\(path).damaged-\(stamp)"
        var n = 1
        while FileManager.default.fileExists(atPath: aside) { aside = "\(path).damaged-\(stamp)-\(n)"; n += 1 }
        if copy {
            try FileManager.default.copyItem(atPath: path, toPath: aside)
        } else {
            guard rename(path, aside) == 0 else { throw StateError("cannot move \(path) aside: \(String(cString: strerror(errno)))") }
        }
        return aside
    }

    /// Opens the journal to write records after those read by `load` (at `journalBytes`).
    /// `syncingDirectory`: fsync the directory so that the file surely exists after a power
    /// loss — needed before records in it are acknowledged under `always`; otherwise the
    /// compaction's helper does it soon after.
    public func openJournal(syncingDirectory: Bool = true) throws {
        let path = journalPath(journalGeneration)
        journalFD = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o640)
        guard journalFD >= 0 else { throw StateError("cannot open \(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        allocatedBytes = fstat(journalFD, &st) == 0 ? Int(st.st_size) : journalBytes
        if syncingDirectory { try syncDirectory() }
    }

    /// How far ahead of its records the journal is allocated, a step at a time: 4 MiB (the
    /// compaction threshold when that is smaller). A step costs one fdatasync that commits
    /// the new size; the zeros of the last step are read at start (a 64 MiB step made a start
    /// 180 ms slower).
    var preallocationStep: Int { max(64 << 10, min(compactBytes, 4 << 20)) }

    /// Makes the journal file at least `end` bytes long, in whole steps.
    /// Allocating is cheap (no data is written); the next fdatasync commits the new size once.
    private func preallocate(upTo end: Int) {
        guard !cannotPreallocate, end > allocatedBytes else { return }
        let step = preallocationStep
        let target = (end + step - 1) / step * step
        if tabd_fallocate(journalFD, Int64(target)) == 0 {
            allocatedBytes = target
        } else if errno == EOPNOTSUPP || errno == ENOSYS {
            cannotPreallocate = true
            logger.info("the filesystem cannot allocate the journal ahead; records are appended (slower, fsync always most)", metadata: ["state.directory": "\(directory)"])
        }
        // Anything else (no space): the write says so, or succeeds by extending the file.
    }

    // MARK: Writing

    /// Adds one record (a JSON request without newline) to this turn's batch.
    public func append(_ json: UnsafeRawBufferPointer) {
        // "<crc, 8 hex digits> " in one piece, then the record, then its newline.
        var header = (CRC32.hexDigits(CRC32.checksum(json)), UInt8(ascii: " "))
        withUnsafeBytes(of: &header) { pending.append(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<9])) }
        pending.append(bytes: json)
        pending.newline()
        records += 1
    }

    public var hasPending: Bool { pending.count > 0 }

    /// Writes this turn's records in one write; under `always` also fsyncs. Replies of the
    /// turn may leave only after this returned.
    public func commit() throws {
        guard pending.count > 0 else { return }
        preallocate(upTo: journalBytes + pending.count)
        let at = journalBytes
        try pending.withBytes { buf in
            var done = 0
            while done < buf.count {
                let n = pwrite(journalFD, buf.baseAddress! + done, buf.count - done, off_t(at + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StateError("writing the journal failed: \(String(cString: strerror(errno)))")
                }
                done += n
            }
        }
        journalBytes += pending.count
        if pending.count > 16 * Self.pendingKeep {
            pending = JSONWriter(capacity: Self.pendingKeep)  // a big turn's buffer is given back
        } else {
            pending.reset()
        }
        unsynced = true
        if fsync == .always { try sync() }
    }

    /// Synchronously, when anything written is not yet on disk (shutdown, tests).
    public func syncIfNeeded() throws {
        finishBackgroundWork()  // a background sync or compaction in flight finishes first
        if unsynced, fsync != .no { try sync() }
    }

    /// `everysec`, from a one-second timer: fdatasync on a helper thread, as Redis does, so
    /// the loop never waits for the disk. The helper syncs a duplicate of the descriptor
    /// (compaction may close the journal meanwhile; the data is the file's, not the fd's).
    /// `done` runs on the helper thread with nil or the error; at most one sync is in flight.
    public func syncInBackground(_ done: @escaping @Sendable (_ nanos: UInt64, _ error: String?) -> Void) {
        guard unsynced, fsync == .everysec, !backgroundSyncInFlight, journalFD >= 0 else { return }
        let fd = dup(journalFD)
        guard fd >= 0 else { return done(0, "cannot duplicate the journal descriptor: \(String(cString: strerror(errno)))") }
        unsynced = false
        backgroundSyncInFlight = true
        syncQueue.async {
            let start = DispatchTime.now().uptimeNanoseconds
            let rc = fdatasync(fd)
            let message = rc == 0 ? nil : "fsync of the journal failed: \(String(cString: strerror(errno)))"
            close(fd)
            done(DispatchTime.now().uptimeNanoseconds - start, message)
        }
    }

    /// On the loop, after `syncInBackground`'s `done`.
    public func backgroundSyncFinished(nanos: UInt64) {
        backgroundSyncInFlight = false
        lastFsyncNanos = nanos
    }

    private func sync() throws {
        let start = DispatchTime.now().uptimeNanoseconds
        guard fdatasync(journalFD) == 0 else {
            throw StateError("fsync of the journal failed: \(String(cString: strerror(errno)))")
        }
        lastFsyncNanos = DispatchTime.now().uptimeNanoseconds - start
        unsynced = false
    }

    /// The journal has grown to `limits.compact_bytes` and no compaction is under way.
    /// (Asking also collects the outcome of a compaction that finished.)
    public var needsCompaction: Bool {
        collectCompaction()
        return !compactionInFlight && journalBytes >= compactAt
    }

    /// Starts a compaction and returns at once: from here on records go to the next journal,
    /// while a helper thread syncs the one before, writes `state` (a copy-on-write value,
    /// free to hand over) as the next snapshot and removes the journals it replaces. A
    /// failure there is logged, the journals stay, and a later compaction tries again.
    public func compact(_ state: TabContainers) throws {
        guard !compactionInFlight else { return }
        try commit()
        let old = (fd: journalFD, generation: journalGeneration, bytes: journalBytes, allocated: allocatedBytes)
        let next = journalGeneration + 1
        journalFD = -1
        unlink(journalPath(next))
        journalGeneration = next
        journalBytes = 0
        do {
            try openJournal(syncingDirectory: fsync == .always)
        } catch {
            // Stay with the journal there is; nothing was lost.
            if journalFD >= 0 { close(journalFD) }
            (journalFD, journalGeneration, journalBytes, allocatedBytes) = (old.fd, old.generation, old.bytes, old.allocated)
            compactAt = journalBytes + compactBytes
            logger.error("compaction could not start a new journal; tabd goes on with this one and tries again later", metadata: ["error": "\(error)"])
            return
        }
        unsynced = false  // what the old journal holds is synced below, then covered by the snapshot
        compactionInFlight = true
        let replaced = (generation...old.generation).map(journalPath)
        let (snapshotPath, directory, sync, done) = (snapshotPath, directory, fsync != .no, compactionDone)
        syncQueue.async {
            let result: Result<Int, StateError>
            do {
                if sync, fdatasync(old.fd) != 0 {
                    throw StateError("fsync of \(replaced.last!) failed: \(String(cString: strerror(errno)))")
                }
                let bytes = try Self.writeSnapshot(state, generation: next, path: snapshotPath, directory: directory)
                // Removing a 64 MiB file takes ext4 milliseconds: here, not on the loop. A crash
                // before it leaves files `load` removes.
                for path in replaced { unlink(path) }
                result = .success(bytes)
            } catch {
                result = .failure(error as? StateError ?? StateError("\(error)"))
            }
            close(old.fd)
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
            logger.error("compaction failed; the journals stay (nothing is lost) and tabd tries again later", metadata: ["error": "\(error)"])
        }
    }

    /// Waits for the helper thread (a sync or a compaction under way) and collects its outcome.
    public func finishBackgroundWork() {
        syncQueue.sync {}
        collectCompaction()
    }

    /// Writes snapshot `generation` of `state`: a temporary file, fsynced, renamed over the
    /// snapshot, the directory fsynced. Returns the snapshot's size.
    static func writeSnapshot(_ state: TabContainers, generation: UInt64, path: String, directory: String) throws -> Int {
        let json = try encodeSnapshotBody(state)
        var file = Array("tabd-snapshot 1 \(generation) ".utf8)
        file += CRC32.hex(CRC32.checksum(json))
        file += Array(" \(json.count)\n".utf8)
        file += json
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StateError("cannot create \(tmp): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try file.withUnsafeBytes { buf in
            var done = 0
            while done < buf.count {
                let n = write(fd, buf.baseAddress! + done, buf.count - done)
                if n < 0 { if errno == EINTR { continue }; throw StateError("writing \(tmp) failed: \(String(cString: strerror(errno)))") }
                done += n
            }
        }
        guard Glibc.fsync(fd) == 0 else { throw StateError("fsync of \(tmp) failed: \(String(cString: strerror(errno)))") }
        guard rename(tmp, path) == 0 else { throw StateError("cannot rename \(tmp): \(String(cString: strerror(errno)))") }
        try syncDirectory(directory)
        return file.count
    }

    private func syncDirectory() throws {
        try Self.syncDirectory(directory)
    }

    /// Makes the directory's entries durable: a renamed snapshot, a new journal's name.
    private static func syncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StateError("cannot open \(directory): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        _ = Glibc.fsync(fd)
    }

    // MARK: Snapshot format

    static func encodeSnapshotBody(_ state: TabContainers) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return [UInt8](try encoder.encode(state))
    }

    static func decodeSnapshot(_ data: Data) throws -> (UInt64, TabContainers) {
        let bytes = [UInt8](data)
        guard let nl = bytes.firstIndex(of: UInt8(ascii: "\n")) else { throw StateError("no header line") }
        let header = String(decoding: bytes[..<nl], as: UTF8.self).split(separator: " ")
        guard header.count == 5, header[0] == "tabd-snapshot", header[1] == "1",
              let g = UInt64(header[2]), let crc = CRC32.parseHex(Array(header[3].utf8)), let length = Int(header[4])
        else { throw StateError("unrecognised header") }
        let body = bytes[(nl + 1)...]
        guard body.count == length else { throw StateError("expected \(length) bytes of state, found \(body.count)") }
        guard CRC32.checksum(body) == crc else { throw StateError("checksum mismatch") }
        return (g, try JSONDecoder().decode(TabContainers.self, from: Data(body)))
    }
}

/// One value handed from a helper thread to the loop, which looks for it when it likes.
final class Mailbox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?

    func put(_ v: Value) {
        lock.lock()
        value = v
        lock.unlock()
    }

    func take() -> Value? {
        lock.lock()
        defer { lock.unlock() }
        let v = value
        value = nil
        return v
    }
}
