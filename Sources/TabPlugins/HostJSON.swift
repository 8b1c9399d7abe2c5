// The JSON helpers of the host table (ABI 1.3): getters that read a member of a JSON object
// text with TabJSON's strict parser, and builders that write JSON with its writer. What
// they hand a plugin (strings, builders) lives in the CallFrame until the hook returns.

import CTabPolicy
import Glibc
import TabJSON

/// One JSON text a plugin is writing through the json_* builder functions: the writer, what
/// is open, and the first mistake (after which it writes nothing more).
final class JSONBuild {
    enum Container { case object, array }

    private var writer = JSONWriter(capacity: 128)
    private var open: [Container] = []
    /// A complete top-level value was written.
    private var complete = false
    private(set) var finished = false
    /// The first misuse, as a phrase ("json_add_int with no key inside an object").
    private(set) var mistake: String?
    /// The plugin that made it: another plugin's handle finds nothing.
    var owner: PluginInstance?

    /// Most bytes one builder writes (the largest call result tabd takes).
    static let maxBytes = PluginHost.maxResultBytes

    /// Checks that a value (or an opened container) may go here with `key`, and writes the key.
    /// False when it may not (the builder then records why and stops).
    private func place(_ function: String, _ key: UnsafePointer<CChar>?) -> Bool {
        guard mistake == nil else { return false }
        if finished { return fail("\(function) after json_finish") }
        if writer.count > Self.maxBytes { return fail("more than \(Self.maxBytes) bytes of JSON") }
        switch open.last {
        case .object?:
            guard let key else { return fail("\(function) with no key inside an object") }
            writer.key(String(cString: key))
        case .array?:
            guard key == nil else { return fail("\(function) with a key (\"\(String(cString: key!))\") inside an array") }
        case nil:
            guard !complete else { return fail("\(function) after the top-level value was complete") }
            guard key == nil else { return fail("\(function) with a key (\"\(String(cString: key!))\") outside any object") }
        }
        return true
    }

    private func fail(_ why: String) -> Bool {
        if mistake == nil { mistake = why }
        return false
    }

    /// A scalar was written: at top level that completes the text.
    private func wrote() { if open.isEmpty { complete = true } }

    func begin(_ container: Container, key: UnsafePointer<CChar>?) {
        guard place(container == .object ? "json_begin_object" : "json_begin_array", key) else { return }
        if container == .object { writer.beginObject() } else { writer.beginArray() }
        open.append(container)
    }

    func end() {
        guard mistake == nil else { return }
        if finished { _ = fail("json_end after json_finish"); return }
        guard let last = open.popLast() else { _ = fail("json_end with nothing open"); return }
        if last == .object { writer.endObject() } else { writer.endArray() }
        wrote()
    }

    func string(_ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) {
        guard let value else { _ = place("json_add_string", key); _ = fail("json_add_string with a NULL string"); return }
        guard place("json_add_string", key) else { return }
        writer.string(String(decoding: UnsafeRawBufferPointer(start: value, count: strlen(value)), as: UTF8.self))
        wrote()
    }

    func int(_ key: UnsafePointer<CChar>?, _ value: Int64) {
        guard place("json_add_int", key) else { return }
        writer.int(Int(value))
        wrote()
    }

    func number(_ key: UnsafePointer<CChar>?, _ value: Double) {
        guard value.isFinite else { _ = place("json_add_number", key); _ = fail("json_add_number with \(value), which JSON cannot hold"); return }
        guard place("json_add_number", key) else { return }
        writer.double(value)
        wrote()
    }

    func bool(_ key: UnsafePointer<CChar>?, _ value: Bool) {
        guard place("json_add_bool", key) else { return }
        writer.bool(value)
        wrote()
    }

    func null(_ key: UnsafePointer<CChar>?) {
        guard place("json_add_null", key) else { return }
        writer.null()
        wrote()
    }

    func json(_ key: UnsafePointer<CChar>?, _ text: UnsafePointer<CChar>?, maxDepth: Int) {
        guard let text else { _ = place("json_add_json", key); _ = fail("json_add_json with NULL text"); return }
        let checked: CheckedJSON
        do throws(Refusal) {
            checked = try CheckedJSON(text, maxBytes: Self.maxBytes, maxDepth: maxDepth)
        } catch {
            _ = place("json_add_json", key)
            _ = fail("json_add_json with text tabd does not accept (\(error.description))")
            return
        }
        guard place("json_add_json", key) else { return }
        writer.raw(checked.text.utf8)
        wrote()
    }

    /// The text, or nil with `mistake` set.
    func finish() -> String? {
        guard mistake == nil else { return nil }
        if finished { _ = fail("json_finish called twice"); return nil }
        finished = true
        if !open.isEmpty { _ = fail("json_finish before json_end closed every object and array (\(open.count) still open)"); return nil }
        guard complete else { _ = fail("json_finish with nothing added"); return nil }
        return writer.text
    }
}

/// What a json_get_*, json_array_* or json_object_key function found.
enum JSONMember {
    case found(JSONValue)
    case status(tabd_json_status)

    /// `json` (a plugin's C string) read by the strict parser, or nil.
    private static func parse(_ json: UnsafePointer<CChar>?, maxDepth: Int) -> JSONValue? {
        guard let json else { return nil }
        return try? JSONParser.parse(UnsafeRawBufferPointer(start: json, count: strlen(json)), maxDepth: maxDepth)
    }

    /// Member `key` of the object `json` (a plugin's C strings), read by the strict parser.
    init(_ json: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, maxDepth: Int) {
        guard let key, case .object(let object)? = Self.parse(json, maxDepth: maxDepth) else { self = .status(TABD_JSON_INVALID); return }
        guard let value = object[String(cString: key)], value != .null else { self = .status(TABD_JSON_MISSING); return }
        self = .found(value)
    }

    /// Element `index` of the array `json` (since 1.5): missing past the end, or when null.
    init(_ json: UnsafePointer<CChar>?, element index: Int, maxDepth: Int) {
        guard case .array(let array)? = Self.parse(json, maxDepth: maxDepth) else { self = .status(TABD_JSON_INVALID); return }
        guard index >= 0, index < array.count, array[index] != .null else { self = .status(TABD_JSON_MISSING); return }
        self = .found(array[index])
    }

    /// How many elements the array `json` has (since 1.5), as an integer value.
    init(_ json: UnsafePointer<CChar>?, lengthOfArray: Void, maxDepth: Int) {
        guard case .array(let array)? = Self.parse(json, maxDepth: maxDepth) else { self = .status(TABD_JSON_INVALID); return }
        self = .found(.int(Int64(array.count)))
    }

    /// The key at `index` of the object `json`, in the text's order (since 1.5), as a string
    /// value: missing past the last key.
    init(_ json: UnsafePointer<CChar>?, keyAt index: Int, maxDepth: Int) {
        guard case .object(let object)? = Self.parse(json, maxDepth: maxDepth) else { self = .status(TABD_JSON_INVALID); return }
        let keys = object.keys
        guard index >= 0, index < keys.count else { self = .status(TABD_JSON_MISSING); return }
        self = .found(.string(keys[index]))
    }
}

extension CallFrame {
    /// Most builders one hook call may make.
    static let maxBuilders = 64

    /// A new builder's handle: its place among this hook's builders and the hook's epoch, so
    /// that a handle kept past its hook (or made up) finds nothing.
    func makeBuilder() -> OpaquePointer? {
        guard builders.count < Self.maxBuilders else { return nil }
        builders.append(JSONBuild())
        return OpaquePointer(bitPattern: UInt(builderEpoch) << 8 | UInt(builders.count))
    }

    func builder(_ handle: OpaquePointer?) -> JSONBuild? {
        let bits = UInt(bitPattern: handle)
        let index = Int(bits & 0xFF) - 1
        guard bits >> 8 == UInt(builderEpoch), index >= 0, index < builders.count else { return nil }
        return builders[index]
    }
}

/// The json_* entries of the host table.
enum HostJSON {
    static func maxDepth(_ host: UnsafePointer<tabd_host>?) -> Int {
        HostSlot.owner(of: host)?.host.maxJSONDepth ?? 64
    }

    static func get<T>(_ host: UnsafePointer<tabd_host>?, _ json: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?,
                       _ out: UnsafeMutablePointer<T>?, _ convert: (JSONValue) -> T?) -> tabd_json_status {
        answer(JSONMember(json, key, maxDepth: maxDepth(host)), out, convert)
    }

    /// Element `index` of an array text, through `convert` (the json_array_* functions).
    static func at<T>(_ host: UnsafePointer<tabd_host>?, _ json: UnsafePointer<CChar>?, _ index: Int,
                      _ out: UnsafeMutablePointer<T>?, _ convert: (JSONValue) -> T?) -> tabd_json_status {
        answer(JSONMember(json, element: index, maxDepth: maxDepth(host)), out, convert)
    }

    /// What every reader answers: the status, and *out set only on TABD_JSON_OK.
    private static func answer<T>(_ found: JSONMember, _ out: UnsafeMutablePointer<T>?, _ convert: (JSONValue) -> T?) -> tabd_json_status {
        guard let out else { return TABD_JSON_INVALID }
        switch found {
        case .status(let s): return s
        case .found(let value):
            guard let v = convert(value) else { return TABD_JSON_WRONG_TYPE }
            out.pointee = v
            return TABD_JSON_OK
        }
    }

    /// A string for the plugin, kept by the frame until the hook returns.
    static func keep(_ host: UnsafePointer<tabd_host>?, _ s: String) -> UnsafePointer<CChar>? {
        HostSlot.owner(of: host)?.host.frame.keep(s)
    }

    // The conversions, one per C type: the same for a member and for an element.

    /// A string without U+0000 (which a C string cannot hold), kept for the plugin.
    static func string(_ host: UnsafePointer<tabd_host>?) -> (JSONValue) -> UnsafePointer<CChar>? {
        { v in
            guard case .string(let s) = v, !s.utf8.contains(0) else { return nil }
            return keep(host, s)
        }
    }

    static func int(_ v: JSONValue) -> Int64? {
        switch v {
        case .int(let i): return i
        // 1e3 and 2.0 are whole: within ±2^63 they are integers too.
        case .double(let d) where d.rounded() == d && d >= -9.223372036854775808e18 && d < 9.223372036854775808e18: return Int64(d)
        default: return nil
        }
    }

    static func number(_ v: JSONValue) -> Double? {
        switch v {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    static func bool(_ v: JSONValue) -> Int32? {
        guard case .bool(let b) = v else { return nil }
        return b ? 1 : 0
    }

    /// An object (or, with `array`, an array) as compact JSON text, kept for the plugin.
    static func text(_ host: UnsafePointer<tabd_host>?, array: Bool) -> (JSONValue) -> UnsafePointer<CChar>? {
        { v in
            switch (v, array) {
            case (.object, false), (.array, true): return keep(host, v.jsonString)
            default: return nil
            }
        }
    }

    typealias CString = UnsafePointer<CChar>
    typealias Host = UnsafePointer<tabd_host>

    static let getString: @convention(c) (Host?, CString?, CString?, UnsafeMutablePointer<CString?>?) -> tabd_json_status = { host, json, key, out in
        get(host, json, key, out, string(host))
    }
    static let getInt: @convention(c) (Host?, CString?, CString?, UnsafeMutablePointer<Int64>?) -> tabd_json_status = { host, json, key, out in
        get(host, json, key, out, int)
    }
    static let getNumber: @convention(c) (Host?, CString?, CString?, UnsafeMutablePointer<Double>?) -> tabd_json_status = { host, json, key, out in
        get(host, json, key, out, number)
    }
    static let getBool: @convention(c) (Host?, CString?, CString?, UnsafeMutablePointer<Int32>?) -> tabd_json_status = { host, json, key, out in
        get(host, json, key, out, bool)
    }
    static let getObject: @convention(c) (Host?, CString?, CString?, UnsafeMutablePointer<CString?>?) -> tabd_json_status = { host, json, key, out in
        get(host, json, key, out, text(host, array: false))
    }

    // since 1.5: lists, and the keys of an object

    static let getArray: @convention(c) (Host?, CString?, CString?, UnsafeMutablePointer<CString?>?) -> tabd_json_status = { host, json, key, out in
        get(host, json, key, out, text(host, array: true))
    }
    static let arrayLength: @convention(c) (Host?, CString?, UnsafeMutablePointer<Int>?) -> tabd_json_status = { host, json, out in
        answer(JSONMember(json, lengthOfArray: (), maxDepth: maxDepth(host)), out) { v in int(v).map { Int($0) } }
    }
    static let arrayString: @convention(c) (Host?, CString?, Int, UnsafeMutablePointer<CString?>?) -> tabd_json_status = { host, json, i, out in
        at(host, json, i, out, string(host))
    }
    static let arrayInt: @convention(c) (Host?, CString?, Int, UnsafeMutablePointer<Int64>?) -> tabd_json_status = { host, json, i, out in
        at(host, json, i, out, int)
    }
    static let arrayNumber: @convention(c) (Host?, CString?, Int, UnsafeMutablePointer<Double>?) -> tabd_json_status = { host, json, i, out in
        at(host, json, i, out, number)
    }
    static let arrayBool: @convention(c) (Host?, CString?, Int, UnsafeMutablePointer<Int32>?) -> tabd_json_status = { host, json, i, out in
        at(host, json, i, out, bool)
    }
    static let arrayObject: @convention(c) (Host?, CString?, Int, UnsafeMutablePointer<CString?>?) -> tabd_json_status = { host, json, i, out in
        at(host, json, i, out, text(host, array: false))
    }
    static let arrayArray: @convention(c) (Host?, CString?, Int, UnsafeMutablePointer<CString?>?) -> tabd_json_status = { host, json, i, out in
        at(host, json, i, out, text(host, array: true))
    }
    static let objectKey: @convention(c) (Host?, CString?, Int, UnsafeMutablePointer<CString?>?) -> tabd_json_status = { host, json, i, out in
        answer(JSONMember(json, keyAt: i, maxDepth: maxDepth(host)), out, string(host))
    }

    /// The builder behind `handle`, if it is one of this plugin's builders of this hook call.
    static func build(_ host: UnsafePointer<tabd_host>?, _ handle: OpaquePointer?) -> JSONBuild? {
        guard let plugin = HostSlot.owner(of: host), let b = plugin.host.frame.builder(handle) else { return nil }
        return b.owner === plugin ? b : nil
    }

    static let builder: @convention(c) (UnsafePointer<tabd_host>?) -> OpaquePointer? = { host in
        guard let plugin = HostSlot.owner(of: host) else { return nil }
        let frame = plugin.host.frame
        guard let handle = frame.makeBuilder() else {
            if plugin.admitLog() { plugin.log(TABD_LOG_WARNING, "json_builder refused: this hook call already made \(CallFrame.maxBuilders) builders") }
            return nil
        }
        frame.builder(handle)?.owner = plugin
        return handle
    }

    static let beginObject: @convention(c) (UnsafePointer<tabd_host>?, OpaquePointer?, UnsafePointer<CChar>?) -> Void = { host, b, key in
        build(host, b)?.begin(.object, key: key)
    }

    static let beginArray: @convention(c) (UnsafePointer<tabd_host>?, OpaquePointer?, UnsafePointer<CChar>?) -> Void = { host, b, key in
        build(host, b)?.begin(.array, key: key)
    }

    static let end: @convention(c) (UnsafePointer<tabd_host>?, OpaquePointer?) -> Void = { host, b in
        build(host, b)?.end()
    }

    static let addString: @convention(c) (UnsafePointer<tabd_host>?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void = { host, b, key, value in
        build(host, b)?.string(key, value)
    }

    static let addInt: @convention(c) (UnsafePointer<tabd_host>?, OpaquePointer?, UnsafePointer<CChar>?, Int64) -> Void = { host, b, key, value in
        build(host, b)?.int(key, value)
    }

    static let addNumber: @convention(c) (UnsafePointer<tabd_host>?, OpaquePointer?, UnsafePointer<CChar>?, Double) -> Void = { host, b, key, value in
        build(host, b)?.number(key, value)
    }

    static let addBool: @convention(c) (UnsafePointer<tabd_host>?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Void = { host, b, key, value in
        build(host, b)?.bool(key, value != 0)
    }

    static let addNull: @convention(c) (UnsafePointer<tabd_host>?, OpaquePointer?, UnsafePointer<CChar>?) -> Void = { host, b, key in
        build(host, b)?.null(key)
    }

    static let addJSON: @convention(c) (UnsafePointer<tabd_host>?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void = { host, b, key, json in
        build(host, b)?.json(key, json, maxDepth: maxDepth(host))
    }

    static let finish: @convention(c) (UnsafePointer<tabd_host>?, OpaquePointer?) -> UnsafePointer<CChar>? = { host, b in
        guard let plugin = HostSlot.owner(of: host) else { return nil }
        guard let build = build(host, b) else {
            if plugin.admitLog() { plugin.log(TABD_LOG_WARNING, "json_finish was given a builder that is not one of this hook call's; make builders with json_builder in the hook that uses them") }
            return nil
        }
        guard let text = build.finish() else {
            if plugin.admitLog() { plugin.log(TABD_LOG_WARNING, "json_finish returned NULL: the builder was used wrongly (\(build.mistake ?? "unknown")); fix the plugin's json_* calls") }
            return nil
        }
        return plugin.host.frame.keep(text)
    }
}
