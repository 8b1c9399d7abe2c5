// libFuzzer harness for the JSON getters of the plugin host table (json_get_string, _int,
// _number, _bool, _object; TabPlugins' HostJSON): what a C plugin reads its settings and a
// call's arguments with. The plugin is Tests/EndToEndTests/Fixtures/json.c, built by
// fuzz/run.sh and loaded into a real PluginHost; each input becomes one `get` call, so the
// getters run exactly as a plugin calls them. Build and run: make fuzz (fuzz/run.sh
// json-helpers).
//
// The input: a byte choosing the getter, then the key up to the first newline, then the JSON
// text the getter reads. The answer must be what docs/plugins.md and policy.h promise,
// worked out here from TabJSON's parse of the same text:
//   TABD_JSON_INVALID (3) for text that is not a JSON object within the depth limit (or a
//   text or key a C string cannot carry), MISSING (1) for an absent or null member,
//   WRONG_TYPE (2) for a member of another type, OK (0) with the member's value otherwise.

@testable import TabPlugins
import FuzzDriver
import Foundation
import Logging
import TabCore
import TabJSON

private let getters = ["string", "int", "number", "bool", "object"]

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
    let type = getters[Int(data[0]) % getters.count]
    let rest = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let cut = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.count
    let key = String(decoding: rest[..<cut], as: UTF8.self)
    let text = String(decoding: rest[min(cut + 1, rest.count)...], as: UTF8.self)

    let args = JSONValue.object(JSONObject([("type", .string(type)), ("json", .string(text)), ("key", .string(key))]))
    let (host, controller) = fixture
    let reply: String
    switch host.call(plugin: "json", method: "get", argsJSON: args.jsonString, controller: controller).result {
    case .success(let r): reply = r
    case .failure(let e): fatalError("the get call failed: \(e)")
    }
    guard case .object(let answer)? = try? JSONParser.parse(reply), case .int(let status)? = answer["status"] else {
        fatalError("the plugin's answer is not {\"status\":n,…}: \(reply)")
    }
    let (expected, value) = expectation(type, text, key, maxDepth: host.maxJSONDepth)
    require(status == expected, "json_get_\(type)(\(text.debugDescription), \(key.debugDescription)) answers \(status), not \(expected)")
    if let value {
        require(answer["value"] == value, "json_get_\(type)(\(text.debugDescription), \(key.debugDescription)) reads \(answer["value"]?.jsonString ?? "nothing"), not \(value.jsonString)")
    }
    return 0
}

/// The status the getter must answer, and the value the plugin must have read (as json.c
/// writes it back), from the documented rules.
private func expectation(_ type: String, _ text: String, _ key: String, maxDepth: Int) -> (Int64, JSONValue?) {
    // A C string ends at its first NUL: json.c gets NULL for such an argument.
    guard !text.utf8.contains(0), !key.utf8.contains(0),
          case .object(let object)? = try? JSONParser.parse(text, maxDepth: maxDepth) else { return (3, nil) }
    guard let member = object[key], member != .null else { return (1, nil) }
    switch (type, member) {
    case ("string", .string(let s)) where !s.utf8.contains(0): return (0, member)
    case ("int", .int): return (0, member)
    case ("int", .double(let d)) where d.rounded() == d && d >= -9.223372036854775808e18 && d < 9.223372036854775808e18:
        return (0, .int(Int64(d)))
    case ("number", .int(let i)): return (0, .double(Double(i)))
    case ("number", .double): return (0, member)
    case ("bool", .bool): return (0, member)
    case ("object", .object): return (0, member)
    default: return (2, nil)
    }
}
