// Codable over JSONValue (what snapshots are written and read with): round trips, the text
// it makes, what JSONEncoder wrote decoding as JSONDecoder decodes it, and the refusals.

import Foundation
import Testing
import TabJSON

private struct Everything: Codable, Equatable {
    enum Kind: String, Codable { case plain, fancy = "fancy_one" }
    enum Choice: Codable, Equatable { case none, tab(String), pair(Int, label: String) }
    struct Inner: Codable, Equatable { var name: String; var tags: [String] }

    var flag = true
    var text = "quote \" backslash \\ slash / newline \n nul \u{0} é 🎉"
    var int = -42
    var int8: Int8 = -8
    var int16: Int16 = 16
    var int32: Int32 = -32
    var int64 = Int64.min
    var uint: UInt = 7
    var uint8: UInt8 = 255
    var uint16: UInt16 = 65_535
    var uint32 = UInt32.max
    var uint64 = UInt64(Int64.max)
    var double = 0.1
    var whole = 3.0
    var float: Float = 1.5
    var optional: String? = nil
    var present: Int? = 5
    var kind = Kind.fancy
    var choices: [Choice] = [.none, .tab("a"), .pair(2, label: "b")]
    var inner = Inner(name: "in", tags: ["x", "y"])
    var byName: [String: Inner] = ["b": Inner(name: "b", tags: []), "a": Inner(name: "a", tags: ["z"])]
    var nested: [[Int]] = [[1, 2], [], [3]]
    var set: Set<String> = ["only"]
}

@Suite("JSON Codable")
struct JSONCodingTests {
    static func text(_ value: JSONValue) -> String {
        var w = JSONWriter()
        w.write(value)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Every primitive, optionals, enums with raw and associated values, nested containers
    /// and dictionaries come back equal, through the writer's text and the parser.
    @Test func aValueRoundTripsThroughTheText() throws {
        let value = Everything()
        let encoded = try JSONValueEncoder(sortedKeys: true).encode(value)
        let reparsed = try JSONParser.parse(Self.text(encoded))
        #expect(reparsed == encoded)
        #expect(try JSONValueDecoder().decode(Everything.self, from: reparsed) == value)
    }

    /// Sorted keys: every object's members in key order, whatever order they were encoded in
    /// or a dictionary iterates in; otherwise the order of encoding.
    @Test func sortedKeysAndEncodingOrder() throws {
        struct Two: Codable { var z = 1; var a = ["d": 1, "c": 2, "b": 3] }
        #expect(Self.text(try JSONValueEncoder(sortedKeys: true).encode(Two())) == #"{"a":{"b":3,"c":2,"d":1},"z":1}"#)
        guard case .object(let o) = try JSONValueEncoder().encode(Two()) else { Issue.record("not an object"); return }
        #expect(o.keys == ["z", "a"])
    }

    /// What Foundation's JSONEncoder wrote (snapshots before TabJSON) decodes to what
    /// JSONDecoder makes of it, whichever of its output options was used.
    @Test(arguments: [JSONEncoder.OutputFormatting(), .sortedKeys, [.sortedKeys, .prettyPrinted], .withoutEscapingSlashes])
    func foundationsTextDecodesAsWithJSONDecoder(_ formatting: JSONEncoder.OutputFormatting) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        let data = try encoder.encode(Everything())
        let ours = try data.withUnsafeBytes { try JSONValueDecoder().decode(Everything.self, from: JSONParser.parse($0)) }
        #expect(ours == (try JSONDecoder().decode(Everything.self, from: data)))
        #expect(ours == Everything())
    }

    /// A member that is absent and one that is null are both nil for an optional.
    @Test func absentAndNullAreNil() throws {
        struct Maybe: Codable, Equatable { var a: Int?; var b: String?; var c: [Int]? }
        for text in [#"{}"#, #"{"a":null,"b":null,"c":null}"#] {
            #expect(try JSONValueDecoder().decode(Maybe.self, from: JSONParser.parse(text)) == Maybe())
        }
        #expect(Self.text(try JSONValueEncoder().encode(Maybe())) == "{}")
    }

    /// Integers may be written as whole Doubles (1e3, 2.0), as JSONDecoder allows; a fraction,
    /// or a value out of the type's range, is a type mismatch.
    @Test func integersFromWholeNumbersOnly() throws {
        struct N: Codable { var n: UInt8 }
        #expect(try JSONValueDecoder().decode(N.self, from: JSONParser.parse(#"{"n":2.0}"#)).n == 2)
        #expect(try JSONValueDecoder().decode(N.self, from: JSONParser.parse(#"{"n":1e2}"#)).n == 100)
        for bad in [#"{"n":1.5}"#, #"{"n":256}"#, #"{"n":-1}"#, #"{"n":"1"}"#, #"{"n":true}"#] {
            #expect(throws: DecodingError.self, "\(bad)") { try JSONValueDecoder().decode(N.self, from: JSONParser.parse(bad)) }
        }
        struct D: Codable { var d: Double }
        #expect(try JSONValueDecoder().decode(D.self, from: JSONParser.parse(#"{"d":3}"#)).d == 3)
    }

    /// A missing member names its key; a wrong type names the path to it.
    @Test func decodingErrorsSayWhere() throws {
        struct Inner: Codable { var x: Int }
        struct Outer: Codable { var list: [Inner] }
        do {
            _ = try JSONValueDecoder().decode(Outer.self, from: JSONParser.parse(#"{"list":[{"x":1},{"x":"2"}]}"#))
            Issue.record("decoded")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["list", "Index 1", "x"])
        }
        do {
            _ = try JSONValueDecoder().decode(Outer.self, from: JSONParser.parse(#"{"list":[{}]}"#))
            Issue.record("decoded")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "x")
            #expect(context.codingPath.map(\.stringValue) == ["list", "Index 0"])
        }
    }

    /// What JSON, as tabd reads it, cannot hold exactly is refused, not written differently:
    /// NaN and the infinities, and unsigned integers above Int64.max.
    @Test func unrepresentableNumbersAreRefused() throws {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["x": Float.infinity]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(UInt64(Int64.max) + 1) }
        #expect(try JSONValueEncoder().encode(UInt64(Int64.max)) == .int(Int64.max))
    }

    /// A value that encodes nothing is an empty object (as with JSONEncoder); a key encoded
    /// twice keeps its last value, in either order.
    @Test func emptyValuesAndRepeatedKeys() throws {
        struct Nothing: Encodable { func encode(to encoder: Encoder) throws {} }
        #expect(try JSONValueEncoder().encode(Nothing()) == .object(JSONObject()))
        struct Twice: Encodable {
            enum K: CodingKey { case a, b }
            func encode(to encoder: Encoder) throws {
                var c = encoder.container(keyedBy: K.self)
                try c.encode(1, forKey: .b)
                try c.encode(1, forKey: .a)
                try c.encode(2, forKey: .b)
            }
        }
        #expect(Self.text(try JSONValueEncoder().encode(Twice())) == #"{"b":2,"a":1}"#)
        #expect(Self.text(try JSONValueEncoder(sortedKeys: true).encode(Twice())) == #"{"a":1,"b":2}"#)
    }

    /// Nested containers asked for by hand, and super encoders, land where they were asked for.
    @Test func nestedContainersByHand() throws {
        struct Hand: Codable, Equatable {
            enum K: CodingKey { case box, list }
            enum Inner: CodingKey { case v }
            var v = 1, items = ["a", "b"], parent = 9
            init() {}
            func encode(to encoder: Encoder) throws {
                var c = encoder.container(keyedBy: K.self)
                var box = c.nestedContainer(keyedBy: Inner.self, forKey: .box)
                var list = c.nestedUnkeyedContainer(forKey: .list)
                try box.encode(v, forKey: .v)
                for i in items { try list.encode(i) }
                var sub = list.nestedContainer(keyedBy: Inner.self)
                try sub.encode(parent, forKey: .v)
                try parent.encode(to: c.superEncoder())
            }
            init(from decoder: Decoder) throws {
                let c = try decoder.container(keyedBy: K.self)
                v = try c.nestedContainer(keyedBy: Inner.self, forKey: .box).decode(Int.self, forKey: .v)
                var list = try c.nestedUnkeyedContainer(forKey: .list)
                items = [try list.decode(String.self), try list.decode(String.self)]
                #expect(try list.nestedContainer(keyedBy: Inner.self).decode(Int.self, forKey: .v) == 9)
                #expect(list.isAtEnd)
                parent = try Int(from: c.superDecoder())
            }
        }
        let value = try JSONValueEncoder().encode(Hand())
        #expect(Self.text(value) == #"{"box":{"v":1},"list":["a","b",{"v":9}],"super":9}"#)
        #expect(try JSONValueDecoder().decode(Hand.self, from: value) == Hand())
    }
}
