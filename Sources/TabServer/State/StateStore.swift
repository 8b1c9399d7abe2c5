// Durability: an append-only journal of the commands that changed state, compacted into a
// snapshot. A reply to a mutating command leaves only after its record was written
// (and, under `always`, fsynced): a kill -9 at any moment loses nothing acknowledged.
//
// Files in the state directory:
//   snapshot            "tabd-snapshot 1 <generation> <crc32> <length>\n" + JSON of every controller
//   journal-<gen>.log   one record a line: "<crc32 of json, 8 hex> <json request>\n"
// Under `always` the journal file is allocated ahead of its records (fallocate, as etcd
// does for its WAL): a record then lands in space the file already has, and fdatasync has
// no file size to commit — on the benchmark machine (ext4) a 100-byte write+fdatasync took
// 155 µs appended and 100 µs into allocated space (Benchmarks/harness/syncprobe.c). The file is then longer than
// its records: they end where a zero tail begins.
// Compaction writes snapshot generation g+1 (temp file, fsync, rename, fsync dir), then
// starts journal-<g+1>.log and removes the old journal. A torn last record (a crash in the
// middle of a write) is cut off and kept aside; damage anywhere else, or in the snapshot,
// stops tabd unless it is started with --repair, which keeps the damaged file aside.

import CLibevent
import Foundation
import Logging
import TabCore

public struct StateError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

public final class StateStore {
    public let directory: String
    public let fsync: FsyncPolicy
    public let compactBytes: Int
    private let logger: Logger

    private var generation: UInt64 = 0
    private var journalFD: Int32 = -1
    /// Records of the current loop turn, written together by `commit`.
    private var pending: [UInt8] = []
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
                for j in journalFiles() { _ = try? keepAside(j) }
                generation = 0
            }
        }
        // Journals of older generations are leftovers of a compaction that finished.
        for j in journalFiles() where j != journalPath(generation) {
            logger.info("removing journal of an earlier generation", metadata: ["file": "\(j)"])
            unlink(j)
        }
        let records = try readJournal(repair: repair)
        return Loaded(snapshot: snapshot, records: records, generation: generation)
    }

    private func journalFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix("journal-") && $0.hasSuffix(".log") }
            .map { "\(directory)/\($0)" }
    }

    private func readJournal(repair: Bool) throws -> [[UInt8]] {
        let path = journalPath(generation)
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let bytes = [UInt8](data)
        var records: [[UInt8]] = []
        var offset = 0
        var damagedAt: Int?
        while offset < bytes.count {
            // Space allocated ahead of the records (`always`): zeros to the end of the file.
            if bytes[offset] == 0, bytes[offset...].allSatisfy({ $0 == 0 }) { break }
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
        guard let at = damagedAt else {
            journalBytes = offset
            return records
        }
        // Torn tail: nothing valid follows the damage (a crash during the last write). A record
        // never holds a zero byte: zeros separate too (space allocated ahead, under `always`).
        let rest = bytes[at...]
        let damagedRecord = rest.first == 0 ? 0 : 1  // the pieces after the damaged one
        let validAfter = rest.split(whereSeparator: { $0 == UInt8(ascii: "\n") || $0 == 0 }).dropFirst(damagedRecord)
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
        journalBytes = at
        return records
    }

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
    public func openJournal() throws {
        let path = journalPath(generation)
        journalFD = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o640)
        guard journalFD >= 0 else { throw StateError("cannot open \(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        allocatedBytes = fstat(journalFD, &st) == 0 ? Int(st.st_size) : journalBytes
        try syncDirectory()
    }

    /// How far ahead of its records the journal is allocated under `always`: up to the
    /// compaction threshold (the journal is replaced there), at most 64 MiB at a time.
    var preallocationStep: Int { max(64 << 10, min(compactBytes, 64 << 20)) }

    /// Under `always`, makes the journal file at least `end` bytes long, in whole steps.
    /// Allocating is cheap (no data is written); the next fdatasync commits the new size once.
    private func preallocate(upTo end: Int) {
        guard fsync == .always, !cannotPreallocate, end > allocatedBytes else { return }
        let step = preallocationStep
        let target = (end + step - 1) / step * step
        if tabd_fallocate(journalFD, Int64(target)) == 0 {
            allocatedBytes = target
        } else if errno == EOPNOTSUPP || errno == ENOSYS {
            cannotPreallocate = true
            logger.info("the filesystem cannot allocate the journal ahead; records are appended (fsync always is slower)", metadata: ["state.directory": "\(directory)"])
        }
        // Anything else (no space): the write says so, or succeeds by extending the file.
    }

    // MARK: Writing

    /// Adds one record (a JSON request without newline) to this turn's batch.
    public func append(_ json: UnsafeRawBufferPointer) {
        CRC32.appendHex(CRC32.checksum(json), to: &pending)
        pending.append(UInt8(ascii: " "))
        pending.append(contentsOf: json)
        pending.append(UInt8(ascii: "\n"))
        records += 1
    }

    public var hasPending: Bool { !pending.isEmpty }

    /// Writes this turn's records in one write; under `always` also fsyncs. Replies of the
    /// turn may leave only after this returned.
    public func commit() throws {
        guard !pending.isEmpty else { return }
        preallocate(upTo: journalBytes + pending.count)
        let at = journalBytes
        try pending.withUnsafeBytes { buf in
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
        pending.removeAll(keepingCapacity: pending.capacity <= 1 << 20)
        unsynced = true
        if fsync == .always { try sync() }
    }

    /// Synchronously, when anything written is not yet on disk (shutdown, tests).
    public func syncIfNeeded() throws {
        syncQueue.sync {}  // a background sync in flight finishes first
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

    public var needsCompaction: Bool { journalBytes >= compactBytes }

    /// Writes `state` as the next snapshot generation and starts an empty journal.
    public func compact(_ state: TabContainers) throws {
        try commit()
        let next = generation + 1
        let json = try Self.encodeSnapshotBody(state)
        var file = Array("tabd-snapshot 1 \(next) ".utf8)
        file += CRC32.hex(CRC32.checksum(json))
        file += Array(" \(json.count)\n".utf8)
        file += json
        let tmp = snapshotPath + ".tmp"
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
        guard rename(tmp, snapshotPath) == 0 else { throw StateError("cannot rename \(tmp): \(String(cString: strerror(errno)))") }
        try syncDirectory()
        let old = journalPath(generation)
        generation = next
        if journalFD >= 0 { close(journalFD) }
        journalFD = -1
        unlink(journalPath(next))
        journalBytes = 0
        try openJournal()
        // Removing a 64 MiB file takes ext4 milliseconds: not on the loop. The snapshot that
        // replaces it is durable already; a crash before this runs leaves a file `load` removes.
        syncQueue.async { unlink(old) }
        journalBytes = 0
        unsynced = false
        logger.info("state compacted into a snapshot", metadata: ["state.generation": "\(next)", "state.bytes": "\(file.count)"])
    }

    private func syncDirectory() throws {
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
