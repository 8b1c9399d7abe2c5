// Watching in-process plugins across crashes (docs/operations.md, "When a plugin crashes
// tabd"): before each hook tabd writes which plugin and hook it is in to a page mapped from
// `plugin-in-hook` in the state directory, and clears it after — two stores. The page
// outlives a crash; the next start reads it, names the culprit, and counts the crash in
// `plugin-crashes/<name>`. A plugin at `quarantineAfter` crashes in a row is not loaded
// again (unless required) until its file changes or the operator deletes that file. A clean
// stop forgets the counts that did not reach it.

import CPluginSandbox
import Glibc
import Logging
import TabSystem

public final class PluginWatch {
    /// The page: [0] magic, [1] the current hook (slot << 32 | hook index + 1; 0 outside
    /// hooks), then `slots` records of who each slot is (name, file identity, path).
    static let pageSize = 4096
    static let magic: UInt64 = 0x3168_6f6f_6b70_6474  // "tdpkooh1"
    static let slotBytes = 256
    static let slots = (pageSize - 64) / slotBytes  // 15 in-process plugins are watched
    static let nameBytes = 64

    public let directory: String
    public let quarantineAfter: Int
    let logger: Logger
    /// The word that says which hook runs (written on every hook call).
    let marker: UnsafeMutablePointer<UInt64>
    private let page: UnsafeMutableRawPointer
    var crashDirectory: String { directory + "/plugin-crashes" }

    /// One plugin's crash count, as kept in `plugin-crashes/<name>`.
    struct Record {
        var name: String
        var path: String
        var identity: CheckedFile.Identity
        var count: Int
        var hook: String
    }

    /// Maps `directory/plugin-in-hook` (creating it). The culprit of a crash it records is
    /// logged and counted now. nil (logged) when the file cannot be used: hooks then go unwatched.
    public init?(directory: String, quarantineAfter: Int, logger: Logger) {
        self.directory = directory; self.quarantineAfter = quarantineAfter; self.logger = logger
        let path = directory + "/plugin-in-hook"
        let mapped = Result { () throws(SystemError) -> UnsafeMutableRawPointer in
            let fd = try Sys.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode: 0o640)
            defer { Sys.close(fd) }
            try Sys.ftruncate(fd, Self.pageSize)
            return try Sys.mapShared(fd, length: Self.pageSize)
        }
        guard case .success(let p) = mapped else {
            if case .failure(let error) = mapped {
                logger.warning("cannot map \(path); plugin hooks are not watched for crashes: \(error.reason)")
            }
            return nil
        }
        page = p
        marker = p.assumingMemoryBound(to: UInt64.self) + 1
        let words = p.assumingMemoryBound(to: UInt64.self)
        if words[0] == Self.magic, marker.pointee != 0 { blame(marker.pointee) }
        words[0] = Self.magic
        marker.pointee = 0
    }

    /// From now on a fatal signal inside a plugin's hook writes one line to stderr naming
    /// the plugin and the hook (`linePrefix` first: "<2>" for the journal), then tabd dies of
    /// the signal; outside hooks the signal is handled as before (the Swift runtime's
    /// backtracer, tabd's own faults keeping their report). Without this, a plugin's
    /// segfault printed the runtime's multi-line report, registers and all.
    public func writeOneLineOnCrash(linePrefix: String) {
        let hooks = PluginHook.allCases.map { strdup($0.rawValue) }
        defer { for h in hooks { free(h) } }
        let suffix = "; tabd stops, and its next start names the plugin and counts the crash (docs/operations.md, \"When a plugin crashes tabd\")"
        let installed = hooks.map { UnsafePointer($0) }.withUnsafeBufferPointer { list in
            Result { () throws(SystemError) in
                _ = try syscall("sigaction") {
                    tabd_crash_line_install(UnsafeRawPointer(page), Int32(Self.slots), Int32(Self.slotBytes), Int32(Self.nameBytes),
                                            list.baseAddress, Int32(list.count), linePrefix, suffix)
                }
            }
        }
        if case .failure(let error) = installed {
            logger.warning("cannot install the plugin crash handler; a plugin's crash prints the runtime's report: \(error.reason)")
        }
    }

    deinit { Sys.unmap(page, length: Self.pageSize) }

    /// Who slot `slot` is, written when the running plugins change.
    func assign(_ slot: Int, name: String, path: String, identity: CheckedFile.Identity) {
        precondition(slot >= 1 && slot <= Self.slots)
        let at = page + 64 + (slot - 1) * Self.slotBytes
        at.initializeMemory(as: UInt8.self, repeating: 0, count: Self.slotBytes)
        let ids = (at + Self.nameBytes).assumingMemoryBound(to: Int64.self)
        ids[0] = Int64(bitPattern: identity.device); ids[1] = Int64(bitPattern: identity.inode)
        ids[2] = identity.modified; ids[3] = identity.size
        Self.put(name, at, Self.nameBytes)
        Self.put(path, at + Self.nameBytes + 32, Self.slotBytes - Self.nameBytes - 32)
    }

    private static func put(_ s: String, _ at: UnsafeMutableRawPointer, _ room: Int) {
        let bytes = Array(s.utf8.prefix(room - 1))
        at.copyMemory(from: bytes, byteCount: bytes.count)
    }

    private func slotRecord(_ slot: Int) -> (name: String, path: String, identity: CheckedFile.Identity)? {
        guard slot >= 1 && slot <= Self.slots else { return nil }
        let at = page + 64 + (slot - 1) * Self.slotBytes
        let name = String(cString: at.assumingMemoryBound(to: CChar.self))
        guard !name.isEmpty else { return nil }
        let ids = (at + Self.nameBytes).assumingMemoryBound(to: Int64.self)
        var st = stat()
        st.st_dev = UInt(bitPattern: Int(ids[0])); st.st_ino = UInt(bitPattern: Int(ids[1]))
        st.st_mtim = timespec(tv_sec: Int(ids[2] / 1_000_000_000), tv_nsec: Int(ids[2] % 1_000_000_000)); st.st_size = Int(ids[3])
        return (name, String(cString: (at + Self.nameBytes + 32).assumingMemoryBound(to: CChar.self)), CheckedFile.Identity(st))
    }

    /// The last run stopped inside a hook: log who, count it.
    private func blame(_ word: UInt64) {
        let hook = PluginHook.allCases.first { UInt64($0.index + 1) == word & 0xFFFF_FFFF }?.rawValue ?? "unknown"
        guard let who = slotRecord(Int(word >> 32)) else { return }
        var record = records().first { $0.name == who.name && $0.identity == who.identity }
            ?? Record(name: who.name, path: who.path, identity: who.identity, count: 0, hook: hook)
        record.count += 1
        record.hook = hook
        save(record)
        let after = record.count >= quarantineAfter
            ? "it has done so \(record.count) times in a row and is quarantined unless required: see plugins"
            : "after \(quarantineAfter) times in a row it is quarantined (\(record.count) so far)"
        logger.error("tabd stopped while plugin \(who.name) was in hook \(hook); it probably crashed tabd: \(after)", metadata: [
            "plugin.name": .string(who.name), "plugin.hook": .string(hook), "plugin.path": .string(who.path),
            "plugin.crashes_in_a_row": "\(record.count)",
        ])
    }

    // MARK: Crash records

    func records() -> [Record] {
        var list: [Record] = []
        for name in (try? Sys.directoryEntries(crashDirectory)) ?? [] {
            guard !name.hasPrefix("."), let text = Self.contents(crashDirectory + "/" + name) else { continue }
            var fields: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let eq = line.firstIndex(of: "=") else { continue }
                fields[String(line[..<eq])] = String(line[line.index(after: eq)...])
            }
            guard let path = fields["path"], let count = fields["count"].flatMap({ Int($0) }),
                  let dev = fields["device"].flatMap({ UInt64($0) }), let ino = fields["inode"].flatMap({ UInt64($0) }),
                  let mtime = fields["modified_ns"].flatMap({ Int64($0) }), let size = fields["size"].flatMap({ Int64($0) }) else { continue }
            var st = stat()
            st.st_dev = UInt(dev); st.st_ino = UInt(ino); st.st_size = Int(size)
            st.st_mtim = timespec(tv_sec: Int(mtime / 1_000_000_000), tv_nsec: Int(mtime % 1_000_000_000))
            list.append(Record(name: name, path: path, identity: CheckedFile.Identity(st), count: count, hook: fields["hook"] ?? "unknown"))
        }
        return list
    }

    private func save(_ r: Record) {
        try? Sys.mkdir(crashDirectory, mode: 0o750)
        let text = """
            # tabd: plugin \(r.name) was in a hook when tabd stopped, \(r.count) start(s) in a row.
            # Delete this file to load it again (it is also forgotten when its file changes).
            count=\(r.count)
            hook=\(r.hook)
            path=\(r.path)
            device=\(r.identity.device)
            inode=\(r.identity.inode)
            modified_ns=\(r.identity.modified)
            size=\(r.identity.size)

            """
        let path = crashDirectory + "/" + r.name
        let tmp = path + ".tmp"
        guard let fd = try? Sys.open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode: 0o640) else { return }
        _ = Array(text.utf8).withUnsafeBytes { try? Sys.pwriteAll(fd, $0, at: 0) }
        try? Sys.fsync(fd)
        Sys.close(fd)
        try? Sys.rename(tmp, to: path)
    }

    private static func contents(_ path: String) -> String? {
        guard let fd = try? Sys.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) else { return nil }
        defer { Sys.close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { (try? Sys.read(fd, into: $0)) ?? -1 }
        return n > 0 ? String(decoding: bytes[..<n], as: UTF8.self) : nil
    }

    /// Why the plugin in `file` must not be loaded (nil: it may). A changed file lifts a
    /// quarantine; a required plugin is never quarantined (tabd could not start), only logged.
    func quarantine(name: String, path: String, identity: CheckedFile.Identity, required: Bool) -> (plugin: String, why: String)? {
        guard let r = records().first(where: { $0.path == path || $0.name == name }) else { return nil }
        guard r.path == path, r.identity == identity else {
            try? Sys.unlink(crashDirectory + "/" + r.name)
            logger.notice("plugin's file changed since it crashed tabd; its crash count is cleared and it is loaded again",
                          metadata: ["plugin.name": .string(r.name), "plugin.path": .string(path)])
            return nil
        }
        guard r.count >= quarantineAfter else { return nil }
        if required {
            logger.error("required plugin \(r.name) crashed tabd \(r.count) times in a row (last in \(r.hook)); it is not quarantined because tabd cannot run without it: fix or replace it, or make it optional",
                         metadata: ["plugin.name": .string(r.name), "plugin.path": .string(path)])
            return nil
        }
        return (r.name, "quarantined: tabd stopped while it was in \(r.hook) \(r.count) starts in a row; replace its file, or delete \(crashDirectory)/\(r.name) and reload, to load it again")
    }

    /// A clean stop: crash counts start again from zero (quarantines stay).
    public func cleanStop() {
        marker.pointee = 0
        for r in records() where r.count < quarantineAfter { try? Sys.unlink(crashDirectory + "/" + r.name) }
    }
}
