// Finding, checking and opening plugin files. Each step that can refuse a plugin says
// why in words an operator can act on; nothing here takes the process down.

import CTabPolicy
import Glibc
import Synchronization
import TabSystem

/// Why a plugin file was refused.
struct Refusal: Error, CustomStringConvertible {
    var description: String
    /// Refused because it crashed tabd too many times in a row (PluginWatch).
    var quarantined = false
    init(_ description: String, quarantined: Bool = false) { self.description = description; self.quarantined = quarantined }
}

/// A plugin file after dlopen: its descriptor and hooks. Never closed (Swift code
/// cannot be unloaded safely), so one per real path for the life of the process.
final class PluginCode {
    typealias ShouldSelect = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<tabd_candidate>?, UnsafeMutablePointer<tabd_reply>?) -> tabd_result
    typealias MayOpenDrawer = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tabd_drawer_open>?, UnsafeMutablePointer<tabd_reply>?) -> tabd_result
    typealias TopColumnForCollapsing = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tabd_split_collapse>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> tabd_result
    typealias DisplayModeForExpanding = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tabd_split_expand>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> tabd_result
    typealias Notify = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tabd_notification>?) -> tabd_result

    let path: String
    /// The file the code was loaded from, as it was then.
    let identity: CheckedFile.Identity
    let name: String
    let version: String
    let summary: String
    let abiMajor: UInt32
    let abiMinor: UInt32
    /// The hooks as the plugin compiled them: only the descriptor's first struct_size bytes
    /// are read, so a hook of a minor newer than the plugin's is nil. A descriptor smaller
    /// than ABI 1.0's (which ends with `call`) is refused, not read.
    let hooks: tabd_policy_descriptor
    /// will_stop (since 1.2).
    var willStop: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void)? { hooks.will_stop }

    init(path: String, identity: CheckedFile.Identity, descriptor: UnsafePointer<tabd_policy_descriptor>) throws(Refusal) {
        self.path = path; self.identity = identity
        let raw = UnsafeRawPointer(descriptor)
        // Read the version first, alone: a different major may have any layout after it.
        abiMajor = raw.load(fromByteOffset: MemoryLayout<tabd_policy_descriptor>.offset(of: \.abi_major)!, as: UInt32.self)
        abiMinor = raw.load(fromByteOffset: MemoryLayout<tabd_policy_descriptor>.offset(of: \.abi_minor)!, as: UInt32.self)
        let hostVersion = "\(TABD_POLICY_ABI_MAJOR).\(TABD_POLICY_ABI_MINOR)"
        guard abiMajor == UInt32(TABD_POLICY_ABI_MAJOR) else {
            throw Refusal("built for plugin ABI \(abiMajor).\(abiMinor) but this tabd speaks ABI \(hostVersion); the major versions must match: rebuild the plugin against this tabd's tabd/policy.h")
        }
        let size = raw.load(fromByteOffset: MemoryLayout<tabd_policy_descriptor>.offset(of: \.struct_size)!, as: Int.self)
        // Every hook of 1.0 lies within the 1.0 descriptor (up to `call`); hooks of later
        // minors are read only when struct_size covers them.
        let least = MemoryLayout<tabd_policy_descriptor>.offset(of: \.call)! + MemoryLayout<UnsafeRawPointer>.size
        guard size >= least else {
            throw Refusal("its descriptor is \(size) bytes but an ABI \(TABD_POLICY_ABI_MAJOR).0 descriptor has at least \(least): set struct_size = sizeof(tabd_policy_descriptor)")
        }
        var copy = tabd_policy_descriptor()
        withUnsafeMutableBytes(of: &copy) { $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: min(size, MemoryLayout<tabd_policy_descriptor>.size))) }
        hooks = copy
        guard let n = hooks.name else { throw Refusal("its descriptor has no name") }
        name = String(cString: n)
        guard PluginCode.isValidName(name) else {
            throw Refusal("its name '\(name)' is not 1–64 characters of A–Z, a–z, 0–9, '-', '_' or '.'")
        }
        version = hooks.version.map { String(cString: $0) } ?? ""
        summary = hooks.description.map { String(cString: $0) } ?? ""
    }

    /// Wire names of the hooks the plugin implements.
    var hookNames: [String] {
        var names: [String] = []
        if hooks.`init` != nil { names.append(PluginHook.initialize.rawValue) }
        if hooks.fini != nil { names.append(PluginHook.fini.rawValue) }
        if hooks.should_select != nil { names.append(PluginHook.shouldSelect.rawValue) }
        if hooks.supported_orientations != nil { names.append(PluginHook.supportedOrientations.rawValue) }
        if hooks.preferred_orientation != nil { names.append(PluginHook.preferredOrientation.rawValue) }
        if hooks.did_select != nil { names.append(PluginHook.didSelect.rawValue) }
        if hooks.will_begin_customizing != nil { names.append(PluginHook.willBeginCustomizing.rawValue) }
        if hooks.will_end_customizing != nil { names.append(PluginHook.willEndCustomizing.rawValue) }
        if hooks.did_end_customizing != nil { names.append(PluginHook.didEndCustomizing.rawValue) }
        if hooks.call != nil { names.append(PluginHook.call.rawValue) }
        if hooks.will_stop != nil { names.append(PluginHook.willStop.rawValue) }
        if hooks.visibility_changed != nil { names.append(PluginHook.visibilityChanged.rawValue) }
        if hooks.display_order_changed != nil { names.append(PluginHook.displayOrderChanged.rawValue) }
        if hooks.selection_changed != nil { names.append(PluginHook.selectionChanged.rawValue) }
        if hooks.timer != nil { names.append(PluginHook.timer.rawValue) }
        if hooks.controller_created != nil { names.append(PluginHook.controllerCreated.rawValue) }
        if hooks.controller_deleted != nil { names.append(PluginHook.controllerDeleted.rawValue) }
        if hooks.may_open_drawer != nil { names.append(PluginHook.mayOpenDrawer.rawValue) }
        if hooks.top_column_for_collapsing != nil { names.append(PluginHook.topColumnForCollapsing.rawValue) }
        if hooks.display_mode_for_expanding != nil { names.append(PluginHook.displayModeForExpanding.rawValue) }
        if hooks.notify != nil { names.append(PluginHook.notify.rawValue) }
        return names
    }

    /// Whether `file` is the file this code was loaded from, unchanged.
    func isFile(_ file: CheckedFile) -> Bool { file.identity == identity }

    /// Whether the file at `path` is still the one this code was loaded from, unchanged.
    func isUnchangedOnDisk() -> Bool {
        guard let st = try? Sys.linkStatus(path) else { return false }
        return CheckedFile.Identity(st) == identity
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 45 || c == 95 || c == 46
        }
    }
}

/// O_PATH: a descriptor that names a directory without reading it (Linux; 010000000 on
/// every architecture Swift runs on; Glibc exports it to Swift only with _GNU_SOURCE).
private let O_PATH: Int32 = 0o10000000

/// A plugin file opened without following links and checked on that descriptor. What is
/// loaded is this descriptor (through /proc/self/fd), never the path again: a file or
/// directory swapped after the checks is not what runs.
struct CheckedFile {
    /// Where it was found: the plugin directory's real path and the configured name in it.
    let path: String
    /// Open for reading; the caller closes it, or hands it to `PluginLoader.load`.
    let fd: Int32
    /// Which file it is, and what says its content changed since.
    let identity: Identity
    var device: UInt64 { identity.device }
    var inode: UInt64 { identity.inode }

    /// Device, inode, modification time (ns) and size, as `stat` gave them.
    struct Identity: Equatable {
        var device: UInt64, inode: UInt64, modified: Int64, size: Int64
        init(_ st: stat) {
            device = UInt64(st.st_dev); inode = UInt64(st.st_ino)
            modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec); size = Int64(st.st_size)
        }
    }
}

/// The checks before dlopen, and dlopen itself.
struct PluginLoader {
    /// The configured directories, as real paths (unresolvable ones are dropped). Resolved
    /// once, here: a link on the way to a configured directory (/lib → usr/lib) is fine;
    /// from there on nothing is followed.
    let directories: [String]
    /// Who may own a plugin file or a directory above one besides root.
    let trustedUID: uid_t

    init(directories: [String], trustedUID: uid_t = Sys.effectiveUserID()) {
        self.directories = directories.compactMap(PluginLoader.realPath)
        self.trustedUID = trustedUID
    }

    /// Finds, opens and checks the file a configured plugin names (a bare file name is
    /// looked up in the plugin directories in order; anything with a '/' must lie inside
    /// one): every directory from / down to it is opened without following links and
    /// checked on its descriptor (`openDirectory`), then the file is opened in the last of
    /// them, without following a link, and checked on its descriptor (`openFile`).
    func open(_ configured: String) throws(Refusal) -> CheckedFile {
        let (directory, name) = try locate(configured)
        let dirFD = try openDirectory(directory)
        defer { Sys.close(dirFD) }
        return try openFile(name, in: dirFD, directory: directory)
    }

    /// The directory (a real path) and the name in it of a configured plugin.
    func locate(_ configured: String) throws(Refusal) -> (directory: String, name: String) {
        guard !directories.isEmpty else {
            throw Refusal("no plugin directory is configured (or none exists); plugins load only from plugins.directories")
        }
        guard let slash = configured.lastIndex(of: "/") else {
            for dir in directories {
                if (try? Sys.linkStatus(PluginLoader.join(dir, configured))) != nil { return (dir, configured) }
            }
            throw Refusal("no file named '\(configured)' in the plugin directories (\(directories.joined(separator: ", ")))")
        }
        let name = String(configured[configured.index(after: slash)...])
        let parent = slash == configured.startIndex ? "/" : String(configured[..<slash])
        guard !name.isEmpty, name != ".", name != ".." else {
            throw Refusal("\(configured) does not name a file; give the plugin's file name in plugins.load")
        }
        let real: String
        do { real = try Sys.realPath(parent) } catch { throw Refusal("cannot resolve \(parent): \(error.reason)") }
        guard isInside(PluginLoader.join(real, name)) else {
            throw Refusal("\(PluginLoader.join(real, name)) is not inside a plugin directory (\(directories.joined(separator: ", "))); plugins load only from plugins.directories")
        }
        return (real, name)
    }

    func isInside(_ real: String) -> Bool {
        directories.contains { dir in dir == "/" || real.hasPrefix(dir + "/") }
    }

    /// Opens `directory` (a real path) from / one component at a time, each in the one
    /// before it and never through a link, and checks each on its descriptor: owned by root
    /// or tabd's user, and not writable by group or others unless it is sticky (/tmp): else
    /// whoever can write there could swap what lies below after it was checked.
    func openDirectory(_ directory: String) throws(Refusal) -> Int32 {
        var fd: Int32
        do { fd = try Sys.open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) } catch { throw Refusal("cannot open /: \(error.reason)") }
        var path = ""
        do throws(Refusal) {
            try checkDirectory(fd, "/")
            for component in directory.split(separator: "/").map(String.init) {
                path += "/" + component
                let next: Int32
                do throws(SystemError) {
                    next = try Sys.openat(fd, component, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                } catch {
                    if let st = try? Sys.linkStatus(component, in: fd), st.st_mode & S_IFMT == S_IFLNK {
                        throw Refusal("\(path) became a symbolic link while tabd was opening it; plugin directories are opened without following links: check who changes \(path)")
                    }
                    throw Refusal("cannot open the directory \(path): \(error.reason)")
                }
                Sys.close(fd)
                fd = next
                try checkDirectory(fd, path)
            }
        } catch {
            Sys.close(fd)
            throw error
        }
        return fd
    }

    private func checkDirectory(_ fd: Int32, _ path: String) throws(Refusal) {
        let st: stat
        do { st = try Sys.fstat(fd) } catch { throw Refusal("cannot stat the directory \(path): \(error.reason)") }
        guard st.st_uid == 0 || st.st_uid == trustedUID else {
            throw Refusal("\(path) is owned by uid \(st.st_uid); every directory above a plugin must be owned by root or by tabd's user (uid \(trustedUID)): run chown root \(path) or move the plugins to a directory only root can write")
        }
        let writable = st.st_mode & (S_IWGRP | S_IWOTH)
        guard writable == 0 || st.st_mode & S_ISVTX != 0 else {
            let who = writable == S_IWGRP ? "group" : writable == S_IWOTH ? "others" : "group and others"
            throw Refusal("\(path) is writable by \(who) (mode \(PluginLoader.mode(st))); run chmod go-w \(path) or move the plugins to a directory only root can write")
        }
    }

    /// Opens `name` in the directory `dirFD` without following a link (nor waiting on a
    /// FIFO) and checks the descriptor: a regular file, owned by root or tabd's user, not
    /// writable by group or others.
    func openFile(_ name: String, in dirFD: Int32, directory: String) throws(Refusal) -> CheckedFile {
        let path = PluginLoader.join(directory, name)
        let fd: Int32
        do {
            fd = try Sys.openat(dirFD, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        } catch {
            guard let st = try? Sys.linkStatus(name, in: dirFD) else { throw Refusal("cannot open \(path): \(error.reason)") }
            if st.st_mode & S_IFMT == S_IFLNK { throw linkRefusal(path) }
            if st.st_mode & S_IFMT != S_IFREG { throw PluginLoader.notRegular(path, st) }
            throw Refusal("cannot open \(path): \(error.reason)")
        }
        var st = stat()
        do throws(Refusal) {
            do { st = try Sys.fstat(fd) } catch { throw Refusal("cannot stat \(path): \(error.reason)") }
            guard st.st_mode & S_IFMT == S_IFREG else { throw PluginLoader.notRegular(path, st) }
            guard st.st_uid == 0 || st.st_uid == trustedUID else {
                throw Refusal("\(path) is owned by uid \(st.st_uid); plugins must be owned by root or by tabd's user (uid \(trustedUID)): run chown root \(path)")
            }
            guard st.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
                throw Refusal("\(path) is group- or world-writable (mode \(PluginLoader.mode(st))); run chmod go-w on it")
            }
            // A hard link keeps a file that was replaced (or lives elsewhere) under a checked
            // name; a setuid or setgid bit has no business on a library tabd maps.
            guard st.st_nlink <= 1 else {
                throw Refusal("\(path) has \(st.st_nlink) hard links; plugins load only from files that are not linked elsewhere: copy the plugin (cp) instead of linking it")
            }
            guard st.st_mode & (S_ISUID | S_ISGID) == 0 else {
                throw Refusal("\(path) is setuid or setgid (mode \(PluginLoader.mode(st))); run chmod ug-s on it")
            }
        } catch {
            Sys.close(fd)
            throw error
        }
        return CheckedFile(path: path, fd: fd, identity: CheckedFile.Identity(st))
    }

    /// A plugin file that is a symbolic link: never followed; the sentence says where it leads.
    private func linkRefusal(_ path: String) -> Refusal {
        guard let target = PluginLoader.realPath(path) else {
            return Refusal("\(path) is a symbolic link that leads nowhere; plugins are opened without following links: put the plugin's file there instead")
        }
        guard isInside(target) else {
            return Refusal("\(path) leads to \(target), which is outside the plugin directories (\(directories.joined(separator: ", "))); plugins are opened without following links: copy the plugin into a plugin directory")
        }
        return Refusal("\(path) is a symbolic link to \(target); plugins are opened without following links: list \(target) in plugins.load instead")
    }

    private static func notRegular(_ path: String, _ st: stat) -> Refusal {
        let kinds: [mode_t: String] = [S_IFIFO: "a FIFO", S_IFDIR: "a directory", S_IFSOCK: "a socket", S_IFCHR: "a character device", S_IFBLK: "a block device"]
        let kind = kinds[st.st_mode & S_IFMT] ?? "not a regular file"
        return Refusal("\(path) is \(kind), not a regular file; put the plugin's shared object there")
    }

    /// dlopen of the checked descriptor, through /proc/self/fd/N (RTLD_NOW | RTLD_LOCAL),
    /// dlsym(tabd_policy_entry), and the descriptor checks. Takes `file.fd` over: it is
    /// closed unless this load keeps it (`LoadedFiles`).
    /// The handle is never closed, even when the plugin is refused afterwards: a library
    /// that ran any code (Swift registers its metadata on load) cannot be unloaded safely.
    func load(_ file: CheckedFile) throws(Refusal) -> PluginCode {
        let handle = try LoadedFiles.handle(of: file)
        guard let symbol = dlsym(handle, TABD_POLICY_ENTRY_SYMBOL) else {
            throw Refusal("it does not export \(TABD_POLICY_ENTRY_SYMBOL) (C: TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void); Swift: @_cdecl(\"tabd_policy_entry\"))")
        }
        let entry = unsafeBitCast(symbol, to: tabd_policy_entry_fn.self)
        guard let descriptor = entry() else { throw Refusal("\(TABD_POLICY_ENTRY_SYMBOL)() returned NULL") }
        return try PluginCode(path: file.path, identity: file.identity, descriptor: descriptor)
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory == "/" ? "/" + name : directory + "/" + name
    }

    static func mode(_ st: stat) -> String { String(st.st_mode & 0o7777, radix: 8) }

    static func realPath(_ path: String) -> String? { try? Sys.realPath(path) }
}

/// The plugin files this process has dlopened, by device and inode, each with the
/// descriptor it was loaded through. The descriptor stays open as long as the library
/// stays loaded (for ever): glibc knows the library by the name "/proc/self/fd/N" and
/// hands it back for any later dlopen of that name, so N must never come to name another
/// file. A file loaded before is not dlopened again (glibc would return the same handle).
enum LoadedFiles {
    private struct FileID: Hashable { var device: UInt64; var inode: UInt64 }
    /// Handles as bit patterns; dlopen itself is called under the lock too.
    private static let handles = Mutex<[FileID: UInt]>([:])

    /// The handle of `file`, dlopened through its descriptor unless that device and inode
    /// is loaded already. Takes `file.fd` over.
    static func handle(of file: CheckedFile) throws(Refusal) -> UnsafeMutableRawPointer {
        let id = FileID(device: file.device, inode: file.inode)
        let result: Result<UInt, Refusal> = handles.withLock { handles in
            if let known = handles[id] {
                Sys.close(file.fd)
                return .success(known)
            }
            let proc = "/proc/self/fd/\(file.fd)"
            guard let st = try? Sys.fileStatus(proc), UInt64(st.st_dev) == file.device, UInt64(st.st_ino) == file.inode else {
                Sys.close(file.fd)
                return .failure(Refusal("cannot load \(file.path): tabd loads a plugin through /proc/self/fd from the descriptor it checked, and \(proc) is not that file; mount /proc (mount -t proc proc /proc)"))
            }
            _ = dlerror()
            guard let handle = dlopen(proc, RTLD_NOW | RTLD_LOCAL) else {
                Sys.close(file.fd)
                // dlerror starts with the name it was given: say which file that is.
                var message = dlerror().map { String(cString: $0) } ?? "unknown error"
                if message.hasPrefix(proc + ":") { message = file.path + message.dropFirst(proc.utf8.count) }
                return .failure(Refusal("dlopen failed: \(message)"))
            }
            handles[id] = UInt(bitPattern: handle)
            return .success(UInt(bitPattern: handle))
        }
        return try UnsafeMutableRawPointer(bitPattern: result.get())!
    }
}
