// What the state-file tests share: a scratch state directory, records written by hand as
// tabd writes them, a `Replay` that applies records to a TabContainers as tabd's Service
// does, and a session (a store with the state it keeps) that writes through a real StateStore.

import Foundation
import Logging
import TabJSON
import TestLogging
import TabCore
import TabProtocol
@testable import TabState

/// A fresh state directory (its real path, symbolic links resolved), removed at the end.
final class StateDir {
    let path: String

    init() {
        let base = FileManager.default.temporaryDirectory.path + "/tabd-state-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try! FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base.withCString { p in
            guard let real = realpath(p, nil) else { return base }
            defer { free(real) }
            return String(cString: real)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { "\(path)/\(name)" }
    func journal(_ g: UInt64 = 0) -> String { file("journal-\(g).log") }
    /// The names in the directory, sorted.
    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    func size(_ name: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: file(name))[.size] as? Int) ?? -1 }
    func bytes(_ name: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: file(name)) ?? Data()) }
    func text(_ name: String) -> String { String(decoding: bytes(name), as: UTF8.self) }
    func write(_ name: String, _ bytes: [UInt8]) {
        precondition(FileManager.default.createFile(atPath: file(name), contents: Data(bytes)), "cannot write \(name)")
    }
    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }
}

/// Records applied to a TabContainers the way tabd's Service replays them (DefaultPolicy,
/// no notifications): a refused record throws, changing nothing.
enum Replayer {
    /// tabd's replay of one record (TabContainers.replay), under the amended rules unless told.
    static func apply(_ record: JournalRecord, to c: inout TabContainers, semantics: Semantics = .amended) throws(TabError) {
        try c.replay(record, semantics: semantics)
    }

    /// The state `records` make from `start`.
    static func state(_ records: [JournalRecord], from start: TabContainers = .withDefault()) throws -> TabContainers {
        var c = start
        for r in records { try apply(r, to: &c) }
        c.keepChanges()
        return c
    }
}

/// What a `StateStore.Replay` built: the state, the records it was given, how often it
/// (re)started. `refuse` may turn a record down with a reason, as a policy could.
final class Replayed {
    var containers = TabContainers()
    var records: [JournalRecord] = []
    var starts: [TabContainers?] = []
    var refuse: (JournalRecord) -> String? = { _ in nil }

    var replay: StateStore.Replay {
        StateStore.Replay(
            start: { [unowned self] snapshot in
                starts.append(snapshot)
                containers = snapshot ?? .withDefault()  // as tabd: no snapshot, the default controller
                records = []
            },
            apply: { [unowned self] record, semantics in
                if let why = refuse(record) { return why }
                do throws(TabError) {
                    try Replayer.apply(record, to: &containers, semantics: semantics)
                } catch {
                    return error.message
                }
                records.append(record)
                return nil
            },
            state: { [unowned self] in containers }
        )
    }

    /// The state as tabd serves it once recovery ends: the replayed changes kept (nothing
    /// left to undo).
    var recovered: TabContainers {
        var c = containers
        c.keepChanges()
        return c
    }
}


/// Journal bytes written by hand, exactly as tabd writes them.
enum Journal {
    static func json(_ record: JournalRecord, seq: UInt64) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        JournalCodec.encode(record, seq: seq, into: &w)
        return w.bytes
    }

    /// "<crc32 of json, 8 hex> <json>\n".
    static func line(_ json: [UInt8]) -> [UInt8] {
        CRC32.hex(CRC32.checksum(json)) + [UInt8(ascii: " ")] + json + [0x0A]
    }

    static func line(_ json: String) -> [UInt8] { line(Array(json.utf8)) }

    static func line(_ record: JournalRecord, seq: UInt64) -> [UInt8] { line(json(record, seq: seq)) }

    static func header(generation: UInt64, firstSeq: UInt64, version: Int = JournalCodec.version) -> [UInt8] {
        Array("tabd-journal \(version) \(generation) \(firstSeq)\n".utf8)
    }

    /// A whole format-2 journal: header and records numbered from `firstSeq`.
    static func file(generation: UInt64, firstSeq: UInt64, _ records: [JournalRecord]) -> [UInt8] {
        var out = header(generation: generation, firstSeq: firstSeq)
        for (i, r) in records.enumerated() { out += line(r, seq: firstSeq + UInt64(i)) }
        return out
    }

    /// A snapshot file in format 2 (or 1: no last seq), as tabd writes it.
    static func snapshot(_ state: TabContainers, generation: UInt64, lastSeq: UInt64, version: Int = JournalCodec.version) throws -> [UInt8] {
        snapshot(body: try StateStore.encodeSnapshotBody(state), generation: generation, lastSeq: lastSeq, version: version)
    }

    /// A snapshot file around any body, with its checksum and length right.
    static func snapshot(body: [UInt8], generation: UInt64, lastSeq: UInt64, version: Int = JournalCodec.version) -> [UInt8] {
        let seqField = version >= 2 ? " \(lastSeq)" : ""
        return Array("tabd-snapshot \(version) \(generation)\(seqField) ".utf8) + CRC32.hex(CRC32.checksum(body))
            + Array(" \(body.count)\n".utf8) + body
    }
}

/// A StateStore with the state it keeps, as tabd runs one: recover, then changes applied to
/// the state and journalled, a commit per turn.
final class Session {
    let dir: StateDir
    let store: StateStore
    let replayed = Replayed()
    let logs = LogRecorder()

    init(_ dir: StateDir, _ fsync: FsyncPolicy = .no, compactBytes: Int = 64 << 20) {
        self.dir = dir
        store = StateStore(directory: dir.path, fsync: fsync, compactBytes: compactBytes, logger: logs.logger)
    }

    @discardableResult
    func open(repair: Bool = false) throws -> Recovery {
        let r = try store.recover(repair: repair, replayed.replay)
        replayed.containers.keepChanges()
        return r
    }

    var state: TabContainers { replayed.containers }

    /// Applies the records to the state, journals them, commits: one turn.
    func run(_ records: [JournalRecord]) throws {
        for r in records {
            try Replayer.apply(r, to: &replayed.containers)
            store.append(r)
        }
        try store.commit()
        replayed.containers.keepChanges()
    }

    /// A client command as tabd runs it: applied, and its journal form appended when it
    /// changed the state.
    func run(_ command: Command, on controller: String = TabContainers.defaultName) throws {
        let outcome = try replayed.containers.apply(command, to: controller, policy: DefaultPolicy())
        if let form = outcome.journal(of: command) { store.append(form, controller: controller) }
        try store.commit()
        replayed.containers.keepChanges()
    }
}

/// The refusal `body` throws, as its sentence; nil when it does not throw.
func refusal(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch {
        return "\(error)"
    }
}

/// Every controller's `state` reply members, as bytes (SEMANTICS R11.3: equal byte for byte).
func stateBytes(_ c: TabContainers) -> [String: [UInt8]] {
    var out: [String: [UInt8]] = [:]
    for name in c.names {
        var w = JSONWriter(capacity: 1024)
        ReplyEncoder.state(c[name]!, &w)
        out[name] = w.bytes
    }
    return out
}

/// The descriptor this process has open on `path` (found through /proc/self/fd), or nil.
func openDescriptor(of path: String) -> Int32? {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
    for name in names {
        guard let fd = Int32(name),
              let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
              target == path else { continue }
        return fd
    }
    return nil
}
