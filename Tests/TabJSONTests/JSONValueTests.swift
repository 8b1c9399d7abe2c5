// JSONObject behaviour and write/parse round trips.

import TestRandom
import Testing
import TabJSON

@Suite("JSON values")
struct JSONValueTests {
    /// Members keep insertion order; `set` replaces in place or appends.
    @Test func objectKeepsOrderAndReplacesInPlace() {
        var o = JSONObject([("b", .int(1)), ("a", .int(2))])
        o.set("c", .int(3))
        o.set("b", .string("x"))
        #expect(o.keys == ["b", "a", "c"])
        #expect(o.values == [.string("x"), .int(2), .int(3)])
        #expect(o.count == 3)
        #expect(o["b"] == .string("x"))
        #expect(o.map(\.key) == ["b", "a", "c"])
    }

    /// A repeated key in the initializer's pairs keeps the last value at the first position.
    @Test func initializerMergesRepeatedKeys() {
        let o = JSONObject([("a", .int(1)), ("b", .int(2)), ("a", .int(3))])
        #expect(o.keys == ["a", "b"])
        #expect(o["a"] == .int(3))
    }

    /// Setting a member to nil through the subscript removes it; order of the rest is kept.
    @Test func subscriptSetAndRemove() {
        var o = JSONObject()
        #expect(o.isEmpty)
        o["x"] = .int(1)
        o["y"] = .int(2)
        o["z"] = .int(3)
        o["y"] = nil
        #expect(o.keys == ["x", "z"])
        #expect(o.removeValue(forKey: "x") == .int(1))
        #expect(o.removeValue(forKey: "nope") == nil)
        #expect(o.keys == ["z"])
    }

    /// Big objects stay correct through sets, replacements and removals (hash index).
    @Test func bigObjectLookups() {
        var o = JSONObject()
        for i in 0..<100 { o.set("k\(i)", .int(Int64(i))) }
        o.set("k50", .string("fifty"))
        #expect(o.count == 100)
        #expect(o["k50"] == .string("fifty"))
        #expect(o.keys[50] == "k50")
        for i in 0..<95 { o.removeValue(forKey: "k\(i)") }
        #expect(o.keys == ["k95", "k96", "k97", "k98", "k99"])
        #expect(o["k97"] == .int(97))
        #expect(o["k3"] == nil)
        o.set("k3", .null)
        #expect(o.keys.last == "k3")
    }

    /// Object equality compares members in order.
    @Test func objectEqualityIsOrdered() {
        let ab = JSONObject([("a", .int(1)), ("b", .int(2))])
        #expect(ab == JSONObject([("a", .int(1)), ("b", .int(2))]))
        #expect(ab != JSONObject([("b", .int(2)), ("a", .int(1))]))
        #expect(ab != JSONObject([("a", .int(1))]))
        #expect(JSONValue.int(1) != .double(1))
    }

    /// Keys are Swift strings: canonically equivalent spellings are one key (so a duplicate).
    @Test func keysCompareByCanonicalEquivalence() {
        #expect(JSONObject([("é", .int(1))])["e\u{301}"] == .int(1))
        #expect(jsonParseError(#"{"é":1,"e\u0301":2}"#)?.reason.hasPrefix("duplicate key") == true)
    }

    /// write(parse(x)) parses back to the same value, and writing again gives the same text.
    @Test(arguments: [
        #"{"cmd":"select","tab":"music","id":12}"#,
        #"{"cmd":"set_tabs","tabs":[{"id":"music","title":"Music","item":{"title":"Music","image":"music.png","tag":3,"badge":"2"}},{"id":"s"}],"animated":false}"#,
        #"[null,true,false,0,-0,1,-1,9223372036854775807,-9223372036854775808,9223372036854775808,0.1,-2.5e-3,1E+300,5e-324]"#,
        #"["","\"","\\","\/","\b\f\n\r\t","\u0000\u001f","é€😀","\ud83d\ude00","\u00e9"]"#,
        #"{"a":{"b":{"c":{"d":[[[[{}]]]]}}},"":"empty key","\u0000":1}"#,
        " [ 1 , { \"x\" : [ ] } ] ",
        #""just a string""#,
        "3.141592653589793",
        "{\"big\":[" + (0..<300).map { "\($0 * 7919)" }.joined(separator: ",") + "]}",
    ])
    func roundTrips(text: String) throws {
        let value = try jsonParsed(text)
        let once = jsonWritten(value)
        let again = try jsonParsed(once)
        #expect(again == value)
        #expect(jsonWritten(again) == once)
        // One line: control characters are escaped, no whitespace between tokens.
        let lineBreaks = once.utf8.filter { $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
        #expect(lineBreaks.isEmpty)
        #expect(!once.contains(", "))
        #expect(!once.contains(" ["))
    }

    /// Randomly generated value trees round-trip through text.
    @Test func randomTreesRoundTrip() throws {
        var rng = SplitMix64(seed: 11)
        func tree(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0...(depth > 4 ? 5 : 7), using: &rng) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &rng))
            case 2: return .int(Int64.random(in: .min ... .max, using: &rng))
            case 3:
                let d = Double(bitPattern: rng.next())
                return .double(d.isFinite ? d : 0.25)
            case 4, 5:
                let scalars = (0..<Int.random(in: 0...12, using: &rng)).compactMap { _ in
                    Unicode.Scalar(UInt32.random(in: 0...(Bool.random(using: &rng) ? 0x7F : 0x10FFFF), using: &rng))
                }
                var s = ""
                s.unicodeScalars.append(contentsOf: scalars)
                return .string(s)
            case 6: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in tree(depth + 1) })
            default:
                var o = JSONObject()
                for i in 0..<Int.random(in: 0...12, using: &rng) { o.set("k\(i)\u{e9}", tree(depth + 1)) }
                return .object(o)
            }
        }
        for _ in 0..<2_000 {
            let value = tree(0)
            #expect(try jsonParsed(jsonWritten(value)) == value)
        }
    }
}
