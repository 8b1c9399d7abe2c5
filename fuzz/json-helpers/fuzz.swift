// libFuzzer harness for the JSON readers of the plugin host table (TabPlugins' HostJSON):
// json_get_string/int/number/bool/object/array (a member by key), json_array_length and
// json_array_string/int/number/bool/object/array (an element by index, ABI 1.5) and
// json_object_key (keys in order, 1.5): what a C plugin reads its settings and a call's
// arguments with. The plugin is Tests/EndToEndTests/Fixtures/json.c, built by
// fuzz/run.sh and loaded into a real PluginHost; each input becomes one `get` call, so the
// getters run exactly as a plugin calls them. Build and run: make fuzz (fuzz/run.sh
// json-helpers).
//
// The input: a byte choosing the reader (its remainder by 14: six getters, six element
// readers, length, keys; its quotient: the element's index), then the key up to the first
// newline, then the JSON text read. The answer must be what docs/plugins.md and policy.h
// promise, worked out here from TabJSON's parse of the same text:
//   TABD_JSON_INVALID (3) for text that is not a JSON object (an array for the element
//   readers and the length) within the depth limit, or a text or key a C string cannot
//   carry; MISSING (1) for an absent or null member or element, or an index past the end;
//   WRONG_TYPE (2) for another type; OK (0) with the value otherwise. json_object_key gives
//   every key in order, then MISSING (WRONG_TYPE at a key holding U+0000).

@testable import TabPlugins
import FuzzDriver
import Foundation
import Logging
import TabCore
import TabJSON

private let types = ["string", "int", "number", "bool", "object", "array"]

private let fixture: (PluginHost, Controller) = {
    guard let dir = ProcessInfo.processInfo.environment["TABD_FUZZ_PLUGINS"] else {
        fatalError("TABD_FUZZ_PLUGINS: the directory fuzz/run.sh builds json.so into")
    }
    let host = PluginHost(directories: [dir], logger: Logger(label: "tabd.fuzz") { _ in SwiftLogNoOpLogHandler() })
    do { try host.load([PluginSpec(path: "json.so", required: true, configJSON: "{}")]) } catch { fatalError("json.so does not load: \(error)") }
    var c = Controller(name: "main", idiom: .phone)
    _ = try! c.apply(.setTabs([Tab(id: "home", title: "Home")], animated: false))
    return (host, c)
}()

func fuzzJSONHelpers(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let op = Int(data[0]) % 14, index = Int(data[0]) / 14
    let rest = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let cut = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.count
    let key = String(decoding: rest[..<cut], as: UTF8.self)
    let text = String(decoding: rest[min(cut + 1, rest.count)...], as: UTF8.self)

    let (method, fields): (String, [(String, JSONValue)])
    switch op {
    case 0..<6: (method, fields) = ("get", [("type", .string(types[op])), ("key", .string(key))])
    case 6..<12: (method, fields) = ("at", [("type", .string(types[op - 6])), ("index", .int(Int64(index)))])
    case 12: (method, fields) = ("length", [])
    default: (method, fields) = ("keys", [])
    }
    let args = JSONValue.object(JSONObject(fields + [("json", .string(text))]))
    let (host, controller) = fixture
    let reply: String
    switch host.call(plugin: "json", method: method, argsJSON: args.jsonString, controller: controller).result {
    case .success(let r): reply = r
    case .failure(let e): fatalError("the \(method) call failed: \(e)")
    }
    guard case .object(let answer)? = try? JSONParser.parse(reply, maxDepth: 512), case .int(let status)? = answer["status"] else {
        fatalError("the plugin's answer is not {\"status\":n,…}: \(reply)")
    }
    let what = "\(method) \(fields.map { "\($0.0)=\($0.1.jsonString)" }.joined(separator: " ")) on \(text.debugDescription)"
    let depth = host.maxJSONDepth
    // A C string ends at its first NUL: json.c gets NULL for such an argument.
    let parsed = text.utf8.contains(0) ? nil : try? JSONParser.parse(text, maxDepth: depth)
    let expected: (Int64, JSONValue?)
    switch op {
    case 0..<6:
        guard !key.utf8.contains(0), case .object(let object)? = parsed else { expected = (3, nil); break }
        guard let member = object[key], member != .null else { expected = (1, nil); break }
        expected = converted(types[op], member)
    case 6..<12:
        guard case .array(let array)? = parsed else { expected = (3, nil); break }
        guard index < array.count, array[index] != .null else { expected = (1, nil); break }
        expected = converted(types[op - 6], array[index])
    case 12:
        guard case .array(let array)? = parsed else { expected = (3, nil); break }
        expected = (0, .int(Int64(array.count)))
    default:
        guard case .object(let object)? = parsed else { expected = (3, nil); require(answer["keys"] == .array([]), "\(what): keys of no object"); break }
        let keys = object.keys.prefix { !$0.utf8.contains(0) }
        expected = (keys.count < object.count ? 2 : 1, nil)
        require(answer["keys"] == .array(keys.map { .string($0) }), "\(what) lists \(answer["keys"]?.jsonString ?? "nothing"), not \(keys)")
    }
    require(status == expected.0, "\(what) answers \(status), not \(expected.0)")
    if let value = expected.1 {
        require(answer["value"] == value, "\(what) reads \(answer["value"]?.jsonString ?? "nothing"), not \(value.jsonString)")
    }
    return 0
}

/// What a reader of `type` answers for a value that is there (not null), and the value the
/// plugin must have read (as json.c writes it back), from the documented rules.
private func converted(_ type: String, _ member: JSONValue) -> (Int64, JSONValue?) {
    switch (type, member) {
    case ("string", .string(let s)) where !s.utf8.contains(0): return (0, member)
    case ("int", .int): return (0, member)
    case ("int", .double(let d)) where d.rounded() == d && d >= -9.223372036854775808e18 && d < 9.223372036854775808e18:
        return (0, .int(Int64(d)))
    case ("number", .int(let i)): return (0, .double(Double(i)))
    case ("number", .double): return (0, member)
    case ("bool", .bool): return (0, member)
    case ("object", .object), ("array", .array): return (0, member)
    default: return (2, nil)
    }
}
