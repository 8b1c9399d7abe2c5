// The JSON helpers of the host table (ABI 1.3): getters answer found / missing / wrong type /
// invalid, builders escape what they are given, and a builder used wrongly gives NULL and a
// warning instead of broken JSON. The plugin is Tests/EndToEndTests/Fixtures/json.c.

import Foundation
import TabCore
import TabJSON
import TabPlugins
import TabProtocol
import Testing
import TestLogging

/// json.c built into a fresh directory, plus that directory.
func buildJSONFixture() throws -> String { try buildFixture("json") }

extension PluginTests {
    @Suite struct JSONHelpers {
        static func loaded(_ settings: String = "{}") throws -> (PluginHost, LogRecorder) {
            let (host, log) = makeHost([try buildJSONFixture()])
            try host.load([PluginSpec(path: "json.so", configJSON: settings)])
            return (host, log)
        }

        static func call(_ host: PluginHost, _ method: String, _ args: String = "{}") throws -> PluginCallReply {
            host.call(plugin: "json", method: method, argsJSON: args, controller: try controller(["home"]))
        }

        /// init reads a string and a nested object (int, number, bool) with the getters, and
        /// the call writes them back with a builder.
        @Test func settingsWithANestedObjectAreReadAndWrittenBack() throws {
            let (host, _) = try Self.loaded(#"{"greeting":"hi \"there\"","limits":{"max":3,"ratio":0.25,"loud":true}}"#)
            #expect(try Self.call(host, "settings").get() == #"{"greeting":"hi \"there\"","limits":{"max":3,"ratio":0.25,"loud":true}}"#)
            let (defaults, _) = try Self.loaded()
            #expect(try Self.call(defaults, "settings").get() == #"{"greeting":"hello","limits":{"max":1,"ratio":1.0,"loud":false}}"#)
        }

        /// A setting of the wrong type refuses the plugin with the plugin's sentence naming it.
        @Test func wrongTypesInSettingsRefuseThePlugin() throws {
            for (settings, message) in [(#"{"greeting":7}"#, "settings: greeting must be a string"),
                                        (#"{"limits":[1]}"#, "settings: limits must be an object"),
                                        (#"{"limits":{"max":2.5}}"#, "settings: limits.max must be a whole number"),
                                        (#"{"limits":{"ratio":"x"}}"#, "settings: limits.ratio must be a number"),
                                        (#"{"limits":{"loud":1}}"#, "settings: limits.loud must be true or false")] {
                let (host, _) = makeHost([try buildJSONFixture()])
                #expect(throws: (any Error).self) { try host.load([PluginSpec(path: "json.so", required: true, configJSON: settings)]) }
                #expect(host.status("json")?.error == "init failed: \(message)", "\(settings)")
            }
        }

        /// Each getter: found, missing (absent or null), wrong type, and text that is not a
        /// JSON object (or a NULL key) — TABD_JSON_OK 0, MISSING 1, WRONG_TYPE 2, INVALID 3.
        @Test func gettersAnswerFoundMissingWrongTypeAndInvalid() throws {
            let (host, _) = try Self.loaded()
            func get(_ json: String?, _ key: String?, _ type: String) throws -> String {
                var args = #"{"type":"\#(type)""#
                if let json { args += #","json":\#(JSONValue.string(json).jsonString)"# }
                if let key { args += #","key":"\#(key)""# }
                return try Self.call(host, "get", args + "}").get()
            }
            let doc = #"{"s":"a\"b\n","i":-42,"big":1e3,"f":2.5,"t":true,"n":null,"o":{"x":{"y":1}},"z":"\u0000"}"#
            #expect(try get(doc, "s", "string") == #"{"value":"a\"b\n","status":0}"#)
            #expect(try get(doc, "i", "int") == #"{"value":-42,"status":0}"#)
            #expect(try get(doc, "big", "int") == #"{"value":1000,"status":0}"#)
            #expect(try get(doc, "f", "int") == #"{"status":2}"#)
            #expect(try get(doc, "f", "number") == #"{"value":2.5,"status":0}"#)
            #expect(try get(doc, "i", "number") == #"{"value":-42.0,"status":0}"#)
            #expect(try get(doc, "t", "bool") == #"{"value":true,"status":0}"#)
            #expect(try get(doc, "o", "object") == #"{"value":{"x":{"y":1}},"status":0}"#)
            #expect(try get(doc, "nope", "string") == #"{"status":1}"#)
            #expect(try get(doc, "n", "int") == #"{"status":1}"#, "null counts as missing")
            #expect(try get(doc, "s", "int") == #"{"status":2}"#)
            #expect(try get(doc, "i", "string") == #"{"status":2}"#)
            #expect(try get(doc, "t", "number") == #"{"status":2}"#)
            #expect(try get(doc, "s", "object") == #"{"status":2}"#)
            #expect(try get(doc, "z", "string") == #"{"status":2}"#, "U+0000 cannot be a C string")
            #expect(try get("[1,2]", "s", "string") == #"{"status":3}"#)
            #expect(try get(#"{"a":1,"a":2}"#, "a", "int") == #"{"status":3}"#)
            #expect(try get("{bad", "a", "int") == #"{"status":3}"#)
            #expect(try get(nil, "a", "int") == #"{"status":3}"#)
            #expect(try get(doc, nil, "int") == #"{"status":3}"#)
        }

        /// ABI 1.5: an array member as text, its length, each element by type (found,
        /// missing past the end or null, wrong type, invalid text), and nested arrays.
        @Test func arraysAreReadByIndexWithTheSameStatusesAsMembers() throws {
            let (host, _) = try Self.loaded()
            func call(_ method: String, _ fields: [(String, JSONValue)]) throws -> String {
                try Self.call(host, method, JSONValue.object(JSONObject(fields)).jsonString).get()
            }
            func at(_ json: String, _ index: Int, _ type: String) throws -> String {
                try call("at", [("json", .string(json)), ("index", .int(Int64(index))), ("type", .string(type))])
            }
            let doc = #"{"limited":["games","video"],"n":[1,2.5,1e3,true,null,{"a":[]},[[1]],"\u0000"]}"#
            #expect(try call("get", [("json", .string(doc)), ("key", .string("limited")), ("type", .string("array"))]) == #"{"value":["games","video"],"status":0}"#)
            #expect(try call("get", [("json", .string(doc)), ("key", .string("n")), ("type", .string("object"))]) == #"{"status":2}"#, "an array is not an object")
            let list = #"["games","video"]"#, mixed = #"[1,2.5,1e3,true,null,{"a":[]},[[1]],"\u0000"]"#
            #expect(try call("length", [("json", .string(list))]) == #"{"value":2,"status":0}"#)
            #expect(try call("length", [("json", .string(mixed))]) == #"{"value":8,"status":0}"#, "null counts")
            #expect(try call("length", [("json", .string(#"{"a":1}"#))]) == #"{"status":3}"#)
            #expect(try call("length", [("json", .string("[1,"))]) == #"{"status":3}"#)
            #expect(try call("length", [("json", .string("[]"))]) == #"{"value":0,"status":0}"#)
            #expect(try at(list, 0, "string") == #"{"value":"games","status":0}"#)
            #expect(try at(list, 1, "string") == #"{"value":"video","status":0}"#)
            #expect(try at(list, 2, "string") == #"{"status":1}"#, "past the end")
            #expect(try at(mixed, 0, "int") == #"{"value":1,"status":0}"#)
            #expect(try at(mixed, 1, "int") == #"{"status":2}"#)
            #expect(try at(mixed, 1, "number") == #"{"value":2.5,"status":0}"#)
            #expect(try at(mixed, 2, "int") == #"{"value":1000,"status":0}"#)
            #expect(try at(mixed, 3, "bool") == #"{"value":true,"status":0}"#)
            #expect(try at(mixed, 4, "string") == #"{"status":1}"#, "null counts as missing")
            #expect(try at(mixed, 5, "object") == #"{"value":{"a":[]},"status":0}"#)
            #expect(try at(mixed, 6, "array") == #"{"value":[[1]],"status":0}"#)
            #expect(try at(mixed, 6, "object") == #"{"status":2}"#)
            #expect(try at(mixed, 7, "string") == #"{"status":2}"#, "U+0000 cannot be a C string")
            #expect(try at(#"{"a":1}"#, 0, "int") == #"{"status":3}"#, "an object is not an array")
        }

        /// ABI 1.5: an object's keys in the text's order, then MISSING; INVALID for what is
        /// not an object: what a plugin needs to refuse settings it does not know.
        @Test func objectKeysComeInTheTextsOrder() throws {
            let (host, _) = try Self.loaded()
            func keys(_ json: String) throws -> String {
                try Self.call(host, "keys", JSONValue.object(JSONObject([("json", .string(json))])).jsonString).get()
            }
            #expect(try keys(#"{"zeta":1,"alpha":{"x":2},"mid":null}"#) == #"{"keys":["zeta","alpha","mid"],"status":1}"#)
            #expect(try keys("{}") == #"{"keys":[],"status":1}"#)
            #expect(try keys("[1]") == #"{"keys":[],"status":3}"#)
            #expect(try keys(#"{"a\u0000b":1}"#) == #"{"keys":[],"status":2}"#, "a key holding U+0000 cannot be a C string")
        }

        /// A string with quotes, backslashes and control characters comes out escaped, in the
        /// call result and in the emitted event.
        @Test func hostileStringsAreEscapedInResultsAndEvents() throws {
            let (host, _) = try Self.loaded()
            let reply = try Self.call(host, "echo", #"{"text":"a\"b\n\\c\u0001"}"#)
            #expect(try reply.get() == #"{"text":"a\"b\n\\c\u0001","length":7}"#)
            let events = reply.events
            #expect(events.map(\.dataJSON) == [#"{"event":"echo","text":"a\"b\n\\c\u0001"}"#])
        }

        /// Every kind of value, at top level in an array, nested JSON text re-written compactly.
        @Test func aTopLevelArrayOfEveryKind() throws {
            let (host, _) = try Self.loaded()
            #expect(try Self.call(host, "array").get() == #"[-7,"x",null,true,2.5,{"k":[],"j":{"n":[1,2]}}]"#)
        }

        /// A builder used wrongly gives NULL from json_finish and one warning naming the plugin
        /// and the first mistake; a handle kept from an earlier hook finds nothing.
        @Test func misusedBuildersFinishWithNullAndAWarning() throws {
            let (host, log) = try Self.loaded()
            let cases = [
                "no-key": "json_add_int with no key inside an object",
                "key-in-array": "json_add_int with a key (\"k\") inside an array",
                "unclosed": "json_finish before json_end closed every object and array (2 still open)",
                "end-nothing": "json_end with nothing open",
                "two-values": "json_add_int after the top-level value was complete",
                "nan": "json_add_number with nan, which JSON cannot hold",
                "null-string": "json_add_string with a NULL string",
                "bad-json": "json_add_json with text tabd does not accept (invalid JSON at byte 7: duplicate key \"a\")",
                "nothing": "json_finish with nothing added",
                "twice": "json_finish called twice",
            ]
            for (name, mistake) in cases {
                let r = try Self.call(host, "misuse", #"{"case":"\#(name)"}"#)
                #expect(r.failure?.message == "json_finish returned NULL", "\(name)")
                #expect(log.contains("json_finish returned NULL: the builder was used wrongly (\(mistake)); fix the plugin's json_* calls plugin.name=json"), "\(name): \(log.all.suffix(2))")
            }
            _ = try Self.call(host, "keep").get()
            let stale = try Self.call(host, "misuse", #"{"case":"stale"}"#)
            #expect(stale.failure?.message == "json_finish returned NULL")
            #expect(log.contains("json_finish was given a builder that is not one of this hook call's"))
        }

        /// A refused tap still delivers what the plugin emitted while deciding it: the
        /// refusal and the event come back in the tap's outcome.
        @Test func eventsEmittedWhileRefusingATapComeWithTheRefusal() throws {
            let (host, _) = try Self.loaded()
            var c = try controller(["home", "emit-me"])
            let refused = try tap(&c, "emit-me", policy: host)
            #expect(refused.refusal?.plugin == "json")
            #expect(refused.effects.events.map(\.dataJSON) == [#"{"event":"asked","tab":"emit-me"}"#])
        }
    }
}

/// docs/plugins.md's "Limits of one hook call" states HookCaps' numbers.
@Test func theHookCapsTableIsTheCodes() throws {
    let doc = try String(contentsOfFile: packageRoot + "/docs/plugins.md", encoding: .utf8)
    for (row, value) in [("| `log` lines |", HookCaps.logLines), ("| events (`emit`) |", HookCaps.events),
                         ("| selections asked for (`request_select`) |", HookCaps.selections),
                         ("| bytes of a log line |", HookCaps.logBytes),
                         ("| bytes of a refusal's `reason` or `message`, an error's message |", HookCaps.textBytes)] {
        #expect(doc.contains("\(row) \(value) |"), "plugins.md's row \(row) states \(value)")
    }
    #expect(doc.contains("logged more than \(HookCaps.logLines) times in one hook call"))
}

/// docs/plugins.md's "Acting on time" states the timers' share of the loop as the code has it.
@Test func theTimersShareOfTheLoopIsTheCodes() throws {
    let docs = try String(contentsOfFile: packageRoot + "/docs/plugins.md", encoding: .utf8)
    let sentence = "may take at most \(Int(PluginTimer.loopShare * 100))% of tabd's\ntime, after a burst of \(PluginTimer.burstNanoseconds / 1_000_000) ms"
    #expect(docs.contains(sentence), "plugins.md says: \(sentence)")
}
