// Finding, checking and opening plugin files. Each step that can refuse a plugin says
// why in words an operator can act on; nothing here takes the process down.

import CTabPolicy
import Glibc

/// Why a plugin file was refused.
struct Refusal: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A plugin file after dlopen: its descriptor and hooks. Never closed (Swift code
/// cannot be unloaded safely), so one per real path for the life of the process.
final class PluginCode {
    typealias ShouldSelect = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<tabd_candidate>?, UnsafeMutablePointer<tabd_reply>?) -> tabd_result

    let path: String
    let device: UInt64
    let inode: UInt64
    let name: String
    let version: String
    let summary: String
    let abiMajor: UInt32
    let abiMinor: UInt32
    /// The hooks as the plugin compiled them; a hook past its struct_size is nil.
    let hooks: tabd_policy_descriptor

    init(path: String, device: UInt64, inode: UInt64, descriptor: UnsafePointer<tabd_policy_descriptor>) throws(Refusal) {
        self.path = path; self.device = device; self.inode = inode
        let raw = UnsafeRawPointer(descriptor)
        // Read the version first, alone: a different major may have any layout after it.
        abiMajor = raw.load(fromByteOffset: MemoryLayout<tabd_policy_descriptor>.offset(of: \.abi_major)!, as: UInt32.self)
        abiMinor = raw.load(fromByteOffset: MemoryLayout<tabd_policy_descriptor>.offset(of: \.abi_minor)!, as: UInt32.self)
        let hostVersion = "\(TABD_POLICY_ABI_MAJOR).\(TABD_POLICY_ABI_MINOR)"
        guard abiMajor == UInt32(TABD_POLICY_ABI_MAJOR) else {
            throw Refusal("built for plugin ABI \(abiMajor).\(abiMinor) but this tabd speaks ABI \(hostVersion); the major versions must match: rebuild the plugin against this tabd's tabd/policy.h")
        }
        let size = raw.load(fromByteOffset: MemoryLayout<tabd_policy_descriptor>.offset(of: \.struct_size)!, as: Int.self)
        // Every hook of 1.0 lies within the 1.0 descriptor; hooks of later minors would be
        // read only when struct_size covers them.
        let least = MemoryLayout<tabd_policy_descriptor>.size
        guard size >= least else {
            throw Refusal("its descriptor is \(size) bytes but an ABI \(TABD_POLICY_ABI_MAJOR).0 descriptor has at least \(least): set struct_size = sizeof(tabd_policy_descriptor)")
        }
        hooks = descriptor.pointee
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
        return names
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 45 || c == 95 || c == 46
        }
    }
}

/// The checks before dlopen, and dlopen itself.
struct PluginLoader {
    /// The configured directories, as real paths (unresolvable ones are dropped).
    let directories: [String]
    /// Who may own a plugin file besides root.
    let trustedUID: uid_t

    init(directories: [String], trustedUID: uid_t = geteuid()) {
        self.directories = directories.compactMap(PluginLoader.realPath)
        self.trustedUID = trustedUID
    }

    /// The real path of a configured plugin: a bare file name is looked up in the plugin
    /// directories in order; anything with a '/' must resolve to a file inside one.
    func resolve(_ path: String) throws(Refusal) -> String {
        guard !directories.isEmpty else {
            throw Refusal("no plugin directory is configured (or none exists); plugins load only from plugins.directories")
        }
        if !path.contains("/") {
            for dir in directories {
                let candidate = dir == "/" ? "/" + path : dir + "/" + path
                var st = stat()
                guard lstat(candidate, &st) == 0 else { continue }
                guard let real = PluginLoader.realPath(candidate) else {
                    throw Refusal("cannot resolve \(candidate): \(PluginLoader.errno())")
                }
                guard isInside(real) else {
                    throw Refusal("\(candidate) leads to \(real), which is outside the plugin directories (\(directories.joined(separator: ", ")))")
                }
                return real
            }
            throw Refusal("no file named '\(path)' in the plugin directories (\(directories.joined(separator: ", ")))")
        }
        guard let real = PluginLoader.realPath(path) else {
            throw Refusal("cannot resolve \(path): \(PluginLoader.errno())")
        }
        guard isInside(real) else {
            throw Refusal("\(real) is not inside a plugin directory (\(directories.joined(separator: ", "))); plugins load only from plugins.directories")
        }
        return real
    }

    func isInside(_ real: String) -> Bool {
        directories.contains { dir in dir == "/" || real.hasPrefix(dir + "/") }
    }

    /// stat(2) of the resolved file: a regular file, owned by root or tabd's user, not
    /// writable by group or others. Returns (device, inode).
    func check(_ real: String) throws(Refusal) -> (device: UInt64, inode: UInt64) {
        var st = stat()
        guard stat(real, &st) == 0 else { throw Refusal("cannot stat \(real): \(PluginLoader.errno())") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw Refusal("\(real) is not a regular file") }
        guard st.st_uid == 0 || st.st_uid == trustedUID else {
            throw Refusal("\(real) is owned by uid \(st.st_uid); plugins must be owned by root or by tabd's user (uid \(trustedUID))")
        }
        guard st.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw Refusal("\(real) is group- or world-writable (mode \(String(st.st_mode & 0o7777, radix: 8))); run chmod go-w on it")
        }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }

    /// dlopen(RTLD_NOW | RTLD_LOCAL), dlsym(tabd_policy_entry), and the descriptor checks.
    /// The handle is never closed, even when the plugin is refused afterwards: a library
    /// that ran any code (Swift registers its metadata on load) cannot be unloaded safely.
    func open(_ real: String, device: UInt64, inode: UInt64) throws(Refusal) -> PluginCode {
        _ = dlerror()
        guard let handle = dlopen(real, RTLD_NOW | RTLD_LOCAL) else {
            throw Refusal("dlopen failed: \(PluginLoader.dlError())")
        }
        guard let symbol = dlsym(handle, TABD_POLICY_ENTRY_SYMBOL) else {
            throw Refusal("it does not export \(TABD_POLICY_ENTRY_SYMBOL) (C: TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void); Swift: @_cdecl(\"tabd_policy_entry\"))")
        }
        let entry = unsafeBitCast(symbol, to: tabd_policy_entry_fn.self)
        guard let descriptor = entry() else { throw Refusal("\(TABD_POLICY_ENTRY_SYMBOL)() returned NULL") }
        return try PluginCode(path: real, device: device, inode: inode, descriptor: descriptor)
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    static func errno() -> String { String(cString: strerror(Glibc.errno)) }

    static func dlError() -> String {
        guard let e = dlerror() else { return "unknown error" }
        return String(cString: e)
    }
}
