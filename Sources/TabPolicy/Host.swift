// What tabd offers a Swift plugin: the host (log, events, selections) and a read-only
// view of the controller a hook is about. Both wrap the C host table of tabd/policy.h.

import CTabPolicy
import Glibc

/// Severity of a log line.
public enum LogLevel: Sendable {
    case debug, info, notice, warning, error

    var c: tabd_log_level {
        switch self {
        case .debug: return TABD_LOG_DEBUG
        case .info: return TABD_LOG_INFO
        case .notice: return TABD_LOG_NOTICE
        case .warning: return TABD_LOG_WARNING
        case .error: return TABD_LOG_ERROR
        }
    }
}

/// tabd, as a plugin sees it. Keep it (it is valid until `shutdown()`).
public final class PolicyHost {
    let table: UnsafePointer<tabd_host>

    init(_ table: UnsafePointer<tabd_host>) {
        self.table = table
        if has(\.store_generation) { storeGenerationFunction = table.pointee.store_generation }
    }

    /// tabd's plugin ABI version (major, minor).
    public var abiVersion: (major: Int, minor: Int) { (Int(table.pointee.abi_major), Int(table.pointee.abi_minor)) }

    /// Whether this tabd's host table has `function` (one added in a later minor than the
    /// oldest tabd the plugin supports): TABD_HOST_HAS, which Swift cannot call.
    ///
    ///     guard host.has(\.json_object_key) else { throw PolicyError.invalid("this plugin needs tabd with plugin ABI 1.5") }
    public func has(_ function: PartialKeyPath<tabd_host>) -> Bool {
        guard let offset = MemoryLayout<tabd_host>.offset(of: function) else { return false }
        return tabd_host_has_function_at(table, offset) != 0
    }

    /// Writes a line to tabd's log, attributed to this plugin.
    public func log(_ level: LogLevel, _ message: String) {
        message.withCString { table.pointee.log?(table, level.c, $0) }
    }

    /// Publishes a `plugin` event with `data` (an object) to the controller's subscribers,
    /// after the current command. Returns false when tabd refused it.
    @discardableResult
    public func emit(_ data: JSON, in controller: ControllerView) -> Bool {
        guard let emit = table.pointee.emit else { return false }
        return data.text.withCString { emit(table, controller.pointer, $0) } == TABD_OK
    }

    /// During `call`: the client whose `plugin.call` request is running, as the kernel
    /// identified its connection (SO_PEERCRED). nil in every other hook, for a call no client
    /// made, and in a tabd older than plugin ABI 1.1.
    public var caller: Caller? {
        // The field is read only when tabd's table has it (struct_size), never past its end.
        typealias Function = @convention(c) (UnsafePointer<tabd_host>?, UnsafeMutablePointer<tabd_caller>?) -> Int32
        guard let offset = MemoryLayout<tabd_host>.offset(of: \tabd_host.caller),
              table.pointee.struct_size >= offset + MemoryLayout<Function?>.size,
              let function = UnsafeRawPointer(table).load(fromByteOffset: offset, as: Function?.self) else { return nil }
        var c = tabd_caller()
        c.struct_size = MemoryLayout<tabd_caller>.size
        guard function(table, &c) != 0 else { return nil }
        // The 1.5 fields stay zero in an older tabd: not an admin, no groups known; 1.8's
        // via stays NULL.
        let groups = c.groups.map { Array(UnsafeBufferPointer(start: $0, count: c.group_count)) } ?? []
        return Caller(uid: c.uid, gid: c.gid, pid: c.pid, isAdmin: c.is_admin != 0, groups: groups,
                      via: c.via.map { String(cString: $0) })
    }

    // MARK: The store (ABI 1.6)

    /// What the plugin's store holds under `key` (nil: nothing, or a tabd before ABI 1.6).
    /// The store survives reloads, restarts and kill -9; init sees it (docs/plugins.md,
    /// "Keeping state").
    public func stored(_ key: String) -> String? {
        guard has(\.store_get), let get = table.pointee.store_get else { return nil }
        var out: UnsafePointer<CChar>?
        guard key.withCString({ get(table, $0, &out) }) == TABD_STORE_OK, let out else { return nil }
        return String(cString: out)
    }

    /// Stores `value` under `key` (nil: removes the key). Throws `StoreError` when tabd did
    /// not keep it: over a limit, not writable now, or a tabd before ABI 1.6.
    public func store(_ value: String?, for key: String) throws(StoreError) {
        guard has(\.store_put), let put = table.pointee.store_put, let delete = table.pointee.store_delete else {
            throw StoreError(status: .unsupported)
        }
        let status = key.withCString { k in value.map { v in v.withCString { put(table, k, $0) } } ?? delete(table, k) }
        if status == TABD_STORE_OK || (value == nil && status == TABD_STORE_MISSING) { return }
        throw StoreError(status: StoreError.Status(status))
    }

    /// Every key of the plugin's store, in byte order.
    public var storedKeys: [String] {
        guard has(\.store_key), let key = table.pointee.store_key else { return [] }
        var keys: [String] = []
        var out: UnsafePointer<CChar>?
        while key(table, keys.count, &out) == TABD_STORE_OK, let k = out { keys.append(String(cString: k)) }
        return keys
    }

    /// A number that changes whenever the store may hold something else: the plugin's own
    /// writes, and tabd putting the store back (a request's writes undone when its journal
    /// record could not be written; an isolated helper's copy brought up to date). While it is
    /// the same, `stored` answers the same: keep what you made of a value and read it again
    /// only when the number moved. Only equality means anything. nil in a tabd before plugin
    /// ABI 1.12 (read the store each time there).
    ///
    ///     if host.storeGeneration == nil || host.storeGeneration != seen { … read, parse, seen = … }
    public var storeGeneration: UInt64? {
        guard let f = storeGenerationFunction else { return nil }
        return f(table)
    }

    /// Looked up once, as the host starts: `has` walks a key path, which a hook called on
    /// every tap should not.
    private var storeGenerationFunction: (@convention(c) (UnsafePointer<tabd_host>?) -> UInt64)?

    // MARK: Controllers (ABI 1.7)

    /// The names of the controllers tabd holds now, in byte order: in `init`, those that exist
    /// as the plugin starts (`ControllerCreatedHook` and `ControllerDeletedHook` tell of later
    /// ones). Empty in a tabd before ABI 1.7.
    public var controllers: [String] {
        guard has(\.controller_at), let at = table.pointee.controller_at else { return [] }
        var names: [String] = []
        while let name = at(table, names.count) { names.append(String(cString: name)) }
        return names
    }

    // MARK: The clock (ABI 1.9)

    /// The wall-clock time now: milliseconds since 1970-01-01T00:00:00Z. nil in a tabd before
    /// plugin ABI 1.9. The machine's clock can be set or jump: measure intervals with timers.
    public var wallClockMilliseconds: Int64? {
        guard has(\.wall_clock_ms), let now = table.pointee.wall_clock_ms else { return nil }
        return now(table)
    }

    /// The instant `unixMilliseconds` (nil: now) in tabd's time zone (its TZ, else
    /// /etc/localtime; the same in process and isolated). nil in a tabd before plugin ABI 1.9.
    ///
    ///     if let now = host.localTime(), now.hour >= 21 { … bedtime … }
    public func localTime(at unixMilliseconds: Int64? = nil) -> LocalTime? {
        guard has(\.local_time), let local = table.pointee.local_time,
              let instant = unixMilliseconds ?? wallClockMilliseconds else { return nil }
        var t = tabd_local_time()
        t.struct_size = MemoryLayout<tabd_local_time>.size
        guard local(table, instant, &t) == TABD_OK else { return nil }
        return LocalTime(t)
    }

    // MARK: Timers (ABI 1.6)

    /// Arms the timer `name` (moves it when armed): `TimerHook.timer` runs once, `seconds`
    /// from now (1 ms to 24 h), for the controller named `controller` (nil: none). Returns false
    /// when tabd refused (a bad name or delay, too many timers, a tabd before ABI 1.6).
    @discardableResult
    public func setTimer(_ name: String, after seconds: Double, controller: String? = nil) -> Bool {
        guard has(\.set_timer), let set = table.pointee.set_timer, seconds.isFinite, seconds > 0 else { return false }
        let ms = UInt64(max(1, (seconds * 1000).rounded(.up)))
        return name.withCString { n in
            withOptionalCString(controller) { c in set(table, c, n, ms) }
        } == TABD_OK
    }

    /// Disarms the timer `name` (nothing when it is not armed).
    public func cancelTimer(_ name: String, controller: String? = nil) {
        guard has(\.cancel_timer), let cancel = table.pointee.cancel_timer else { return }
        _ = name.withCString { n in withOptionalCString(controller) { c in cancel(table, c, n) } }
    }

    private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let s else { return body(nil) }
        return s.withCString { body($0) }
    }

    /// Asks tabd to select `tab` (an id, or "more") in the controller after the current
    /// command, as a programmatic select. Returns false when tabd refused the request.
    @discardableResult
    public func requestSelection(_ tab: String, in controller: ControllerView) -> Bool {
        guard let request = table.pointee.request_select else { return false }
        return tab.withCString { request(table, controller.pointer, $0) } == TABD_OK
    }
}

/// Why tabd did not keep a store write.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Status: Equatable, Sendable {
        /// The key, the value or the store with it passes a limit (TABD_STORE_*).
        case tooLarge
        /// An empty key, or text that is not UTF-8.
        case invalid
        /// tabd cannot write its journal now; try again later.
        case unavailable
        /// The plugin wrote more than its budget over time allows, or tabd's journal waits for
        /// a compaction (ABI 1.7); write less often, or try again later.
        case rateLimited
        /// This tabd has no store (plugin ABI before 1.6).
        case unsupported

        init(_ s: tabd_store_status) {
            switch s {
            case TABD_STORE_TOO_LARGE: self = .tooLarge
            case TABD_STORE_UNAVAILABLE: self = .unavailable
            case TABD_STORE_RATE_LIMITED: self = .rateLimited
            default: self = .invalid
            }
        }
    }
    public let status: Status
    public var description: String {
        switch status {
        case .tooLarge: return "the store write passes a limit of the plugin's store (TABD_STORE_* in tabd/policy.h)"
        case .invalid: return "the store write has an empty key or text that is not UTF-8"
        case .unavailable: return "tabd cannot write its journal now, so the store write was not kept; try again later"
        case .rateLimited: return "the plugin wrote more to its store than its budget allows (plugins.store_bytes_per_second), so the write was not kept; write less often, or try again later"
        case .unsupported: return "this tabd has no plugin store (it needs plugin ABI 1.6)"
        }
    }
}

/// Who sent the request a hook runs for: the client connection's peer credentials.
public struct Caller: Equatable, Hashable, Sendable {
    /// The client's user id: what per-client limits should be keyed on (more connections
    /// or processes do not give a client another one).
    public let uid: UInt32
    /// The client's primary group id.
    public let gid: UInt32
    /// The process that connected (it may have exited since): for log lines.
    public let pid: Int32
    /// Whether tabd counts the caller as an administrator, by the rules of its admin
    /// commands (root, tabd's user, access.admin_uids, a group in access.admin_gids,
    /// supplementary groups included). Since ABI 1.5; false in an older tabd.
    public let isAdmin: Bool
    /// The caller's supplementary groups when it connected. Since ABI 1.5; empty before.
    public let groups: [UInt32]
    /// What the client relays for, as its `hello` said (`"tabd-web"`: a user of the web
    /// console), or nil for a client acting for itself. Such a caller is never an admin.
    /// Since ABI 1.8; nil before.
    public let via: String?

    public init(uid: UInt32, gid: UInt32, pid: Int32, isAdmin: Bool = false, groups: [UInt32] = [], via: String? = nil) {
        self.uid = uid; self.gid = gid; self.pid = pid; self.isAdmin = isAdmin; self.groups = groups; self.via = via
    }
}

/// The controller a hook is about, read through tabd. Valid only during that hook.
public struct ControllerView {
    let table: UnsafePointer<tabd_host>
    let pointer: OpaquePointer?
    /// The plugin instance's memo of the last name read (nil: none, every read makes one).
    let names: UnsafeMutablePointer<NameMemo>?

    init(_ table: UnsafePointer<tabd_host>, _ pointer: OpaquePointer?, names: UnsafeMutablePointer<NameMemo>? = nil) {
        self.table = table; self.pointer = pointer; self.names = names
    }

    private func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

    /// The controller's name: keep per-controller state under it.
    public var name: String {
        guard let p = table.pointee.controller_name?(pointer) else { return "" }
        guard let names else { return String(cString: p) }
        return names.pointee.name(of: p)
    }
    public var idiom: Idiom {
        switch table.pointee.controller_idiom?(pointer) {
        case TABD_IDIOM_PAD: return .pad
        case TABD_IDIOM_TV: return .tv
        default: return .phone
        }
    }
    public var maxVisible: Int { table.pointee.max_visible?(pointer) ?? 0 }
    public var moreShown: Bool { (table.pointee.more_shown?(pointer) ?? 0) != 0 }
    /// The current orientation.
    public var orientation: Orientation? {
        Orientation(mask: Orientations(rawValue: table.pointee.orientation?(pointer) ?? 0))
    }

    public var tabCount: Int { table.pointee.tab_count?(pointer) ?? 0 }
    /// The tab ids in order.
    public var tabIDs: [String] { (0..<tabCount).compactMap { tabID(at: $0) } }
    public func tabID(at index: Int) -> String? { index < 0 ? nil : string(table.pointee.tab_id?(pointer, index)) }
    /// The title the bar shows for the tab.
    public func title(at index: Int) -> String? { index < 0 ? nil : string(table.pointee.tab_title?(pointer, index)) }
    public func badge(at index: Int) -> String? { index < 0 ? nil : string(table.pointee.tab_badge?(pointer, index)) }
    public func restorationID(at index: Int) -> String? { index < 0 ? nil : string(table.pointee.tab_restoration_id?(pointer, index)) }
    public func index(of id: String) -> Int? {
        let i = id.withCString { table.pointee.tab_index?(pointer, $0) ?? -1 }
        return i < 0 ? nil : i
    }
    /// What is selected: a tab id, "more", or nil.
    public var selectedTab: String? { string(table.pointee.selected_tab?(pointer)) }
    /// The selected path, root … leaf (R13.2): `[selectedTab]` in a controller without
    /// groups, `[]` when nothing is selected. A tabd before ABI 1.4 gives `[selectedTab]`.
    public var selectedPath: [String] {
        let t = table.pointee
        guard t.struct_size >= MemoryLayout<tabd_host>.offset(of: \tabd_host.selected_path)! + MemoryLayout<UnsafeRawPointer>.size,
              let read = t.selected_path else { return selectedTab.map { [$0] } ?? [] }
        var path: [String] = []
        while let id = string(read(pointer, path.count)) { path.append(id) }
        return path
    }
    /// The selected tab's index; nil for More or nothing.
    public var selectedIndex: Int? {
        let i = table.pointee.selected_index?(pointer) ?? -1
        return i < 0 ? nil : i
    }
}

/// The last controller name a plugin instance read, as tabd gave it and as a String: most
/// decisions read the name of the controller the last one read, and comparing the bytes
/// costs less than making the String again (and hands out the same String, which compares
/// and hashes as fast as a String can).
struct NameMemo {
    private var c: UnsafeMutablePointer<CChar>?
    private var string = ""

    mutating func name(of p: UnsafePointer<CChar>) -> String {
        if let c, strcmp(c, p) == 0 { return string }
        free(c)
        c = strdup(p)
        string = String(cString: p)
        return string
    }

    mutating func clear() {
        free(c)
        c = nil
        string = ""
    }
}

/// An instant as tabd's time zone shows it (`PolicyHost.localTime(at:)`, plugin ABI 1.9).
public struct LocalTime: Equatable, Hashable, Sendable {
    /// The instant: milliseconds since 1970-01-01T00:00:00Z.
    public let unixMilliseconds: Int64
    public let year: Int
    /// 1 (January) to 12.
    public let month: Int
    /// 1 to 31.
    public let day: Int
    /// 0 to 23.
    public let hour: Int
    public let minute: Int
    /// 0 to 60 (60: a leap second).
    public let second: Int
    public let millisecond: Int
    /// 0 (Sunday) to 6 (Saturday).
    public let weekday: Int
    /// 0 (1 January) to 365.
    public let yearday: Int
    /// Seconds east of UTC at that instant (3600 for CET, -18000 for EST).
    public let utcOffsetSeconds: Int
    /// Whether daylight saving time is in effect (nil: the zone does not say).
    public let isDaylightSaving: Bool?
    /// The zone's abbreviation at that instant ("CET", "UTC"), if it has one.
    public let zone: String?

    init(_ t: tabd_local_time) {
        unixMilliseconds = t.unix_ms
        year = Int(t.year); month = Int(t.month); day = Int(t.day)
        hour = Int(t.hour); minute = Int(t.minute); second = Int(t.second); millisecond = Int(t.millisecond)
        weekday = Int(t.weekday); yearday = Int(t.yearday)
        utcOffsetSeconds = Int(t.utc_offset_seconds)
        isDaylightSaving = t.is_dst < 0 ? nil : t.is_dst > 0
        zone = t.zone.map { String(cString: $0) }
    }
}
