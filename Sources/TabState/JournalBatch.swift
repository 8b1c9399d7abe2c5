// A turn's journal records, encoded as they will be written: what the service's engine
// outputs besides replies and events. The engine appends to it; `StateStore.commit(_:)`
// writes it in one write (and fsync), or discards it when the journal cannot be written.

import TabCore
import TabJSON

public struct JournalBatch: ~Copyable {
    var pending = JSONWriter(capacity: 4096)
    /// The sequence number of the last record appended (the one before the batch's first
    /// when it is empty): a batch numbers its records after what the store committed.
    public internal(set) var lastSeq: UInt64

    /// An empty batch numbered after `seq` (`StateStore.batch()` gives one after its last record).
    public init(after seq: UInt64) { lastSeq = seq }

    public var isEmpty: Bool { pending.count == 0 }
    /// Bytes appended and not yet written.
    public var count: Int { pending.count }

    /// The records' lines as they will be written.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { pending.withBytes(body) }

    /// Adds a command's record (the command is borrowed, not copied).
    public mutating func append(_ command: Command, controller: String) {
        lastSeq += 1
        Self.line(into: &pending) { JournalCodec.encode(command, controller: controller, seq: lastSeq, into: &$0) }
    }

    /// Adds a node command's record with no answers (`append(.node(controller:command, answers: []))`,
    /// the command borrowed: the record is not built).
    public mutating func append(node command: NodeCommand, controller: String) {
        lastSeq += 1
        Self.line(into: &pending) { JournalCodec.encode(node: command, controller: controller, answers: [], seq: lastSeq, into: &$0) }
    }

    /// Adds a record (controllers created and deleted, numbering, plugins' stores).
    public mutating func append(_ record: JournalRecord) {
        lastSeq += 1
        Self.line(into: &pending) { JournalCodec.encode(record, seq: lastSeq, into: &$0) }
    }

    /// One journal line: "<crc, 8 hex digits> <record>\n". The record is encoded in place
    /// after room for its checksum, which is filled in last.
    @inline(__always)
    static func line(into pending: inout JSONWriter, _ record: (inout JSONWriter) -> Void) {
        let start = pending.count
        pending.literal("00000000 ")
        record(&pending)
        var digits = pending.withBytes { CRC32.hexDigits(CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(start + 9)...]))) }
        withUnsafeBytes(of: &digits) { pending.overwrite(at: start, with: $0) }
        pending.newline()
    }
}

/// What `stats` and `metrics` say of the journal, read off the store when they are asked.
public struct JournalFigures: Sendable {
    public var fsync: FsyncPolicy
    public var journalBytes: Int
    public var records: UInt64
    public var lastFsyncNanos: UInt64
    public var committedSeq: UInt64
    public var fault: String?

    public init(fsync: FsyncPolicy, journalBytes: Int = 0, records: UInt64 = 0, lastFsyncNanos: UInt64 = 0, committedSeq: UInt64 = 0, fault: String? = nil) {
        self.fsync = fsync
        self.journalBytes = journalBytes
        self.records = records
        self.lastFsyncNanos = lastFsyncNanos
        self.committedSeq = committedSeq
        self.fault = fault
    }
}

extension StateStore {
    public var figures: JournalFigures {
        JournalFigures(fsync: fsync, journalBytes: journalBytes, records: records, lastFsyncNanos: lastFsyncNanos, committedSeq: committedSeq, fault: fault)
    }
}
