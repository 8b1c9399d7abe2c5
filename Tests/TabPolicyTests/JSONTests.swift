// The Swift SDK's JSON: read and written by TabJSON, so a plugin accepts exactly the JSON
// tabd accepts; integers are exact.

import Glibc
import Testing
import TabJSON
@testable import TabPolicy

@Suite("Swift SDK JSON")
struct JSONTests {
    /// Inputs the SDK's own parser once read differently from tabd's: it took +1, 01, .5,
    /// "\x", duplicate keys, lone surrogates and 1e999. Each is now accepted exactly when
    /// tabd's parser accepts it, with the same message when refused.
    @Test(arguments: [
        "+1", "01", ".5", "1.", "-", "1e", "1e999", "-1e999", "NaN", "Infinity",
        #""\x""#, #""\ud800""#, #""\udc00x""#, #""\ud800\u0041""#, "\"a\u{1}\"",
        #"{"a":1,"a":2}"#, #"{"a":1,}"#, "[1,]", "[1 2]", "{'a':1}", "nul", "tru", "[] x", "",
        "1", "-0", "0.5", "1E+2", "9007199254740993", "-9223372036854775808", "18446744073709551616",
        #""\ud83c\udf89""#, #"{"a":[1,{"b":null}],"c":"\n"}"#, " \t\r\n[] ",
        String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
        String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
    ])
    func acceptsWhatTabdAccepts(_ text: String) {
        let sdk = Result { () throws(PolicyError) in try JSON(parsing: text) }
        let tabd = Result { () throws(JSONParseError) in try JSONParser.parse(text, maxDepth: 64) }
        switch (sdk, tabd) {
        case (.success(let s), .success(let t)):
            #expect(s == JSON(t))
        case (.failure(let s), .failure(let t)):
            #expect(s.message == t.description)
        case (.success(let s), .failure(let t)):
            Issue.record("the SDK accepts \(text) as \(s.text), tabd refuses it: \(t)")
        case (.failure(let s), .success(let t)):
            Issue.record("the SDK refuses \(text) (\(s.message)), tabd accepts it as \(t)")
        }
    }

    /// The C-string entry point reads the same as the String one.
    @Test func bytesParseAsTheString() throws {
        let text = #"{"id":9007199254740993,"s":"é"}"#
        let fromBytes = try text.withCString { try JSON(parsing: $0, count: strlen($0)) }
        #expect(fromBytes == (try JSON(parsing: text)))
    }

    /// Integers keep every digit, through parsing and writing (a Double would round
    /// 9007199254740993 to ...992).
    @Test func integersAreExact() throws {
        for n: Int64 in [9_007_199_254_740_993, Int64.max, Int64.min, -1, 0] {
            let json = try JSON(parsing: "\(n)")
            #expect(json == .integer(n))
            #expect(json.intValue == Int(n))
            #expect(json.text == "\(n)")
        }
        let id = try JSON(parsing: #"{"id":9007199254740993}"#)
        #expect(id["id"]?.intValue == 9_007_199_254_740_993)
        #expect(id.text == #"{"id":9007199254740993}"#)
        // Beyond Int64, or with a fraction or an exponent: a Double.
        #expect(try JSON(parsing: "18446744073709551616") == .number(18_446_744_073_709_551_616))
        #expect(try JSON(parsing: "2.5") == .number(2.5))
        #expect(try JSON(parsing: "1e2") == .number(100))
        #expect(try JSON(parsing: "-0") == .number(-0.0))
    }

    /// Numbers are equal when their values are, whichever case holds them; the accessors
    /// read both cases.
    @Test func numbersCompareByValue() {
        #expect(JSON.integer(3) == .number(3))
        #expect(JSON.number(3) == .integer(3))
        #expect(JSON.integer(3) != .number(3.5))
        #expect(JSON.integer(9_007_199_254_740_993) != .number(9_007_199_254_740_992))
        #expect(JSON.number(.nan) != .integer(0))
        #expect(["n": 1] == JSON.object(["n": .number(1)]))
        #expect(JSON.integer(7).doubleValue == 7)
        #expect(JSON.number(7).intValue == 7)
        #expect(JSON.number(7.5).intValue == nil)
        #expect(JSON.string("7").intValue == nil)
    }

    /// Literals: an integer literal is `.integer`, a float literal `.number`; `JSON(_:)` of
    /// an integer is exact.
    @Test func literalsAndIntegers() {
        let one: JSON = 1
        let half: JSON = 0.5
        guard case .integer(1) = one else { Issue.record("1 is \(one)"); return }
        guard case .number(0.5) = half else { Issue.record("0.5 is \(half)"); return }
        #expect(JSON(UInt64(Int64.max)) == .integer(Int64.max))
        #expect(JSON(UInt64.max) == .number(18_446_744_073_709_551_615))
        #expect(JSON(UInt8(4)) == .integer(4))
    }

    /// The text: compact, keys sorted, escapes as tabd writes them, a whole `.number` without
    /// a fraction (as before), NaN and the infinities as null.
    @Test func text() {
        let value: JSON = ["b": [1, 2.5, .number(3), nil, true], "a": "q\"\\\n\u{1}/é", "c": .number(.infinity), "d": .number(1e20)]
        #expect(value.text == #"{"a":"q\"\\\n\u0001/é","b":[1,2.5,3,null,true],"c":null,"d":1e+20}"#)
        #expect(JSON.number(-0.0).text == "0")
        #expect(JSON.object([:]).text == "{}")
        #expect(JSON.array([]).text == "[]")
    }

    /// What the SDK writes, tabd reads back to the same value.
    @Test func tabdReadsWhatTheSDKWrites() throws {
        let value: JSON = ["id": .integer(Int64.min), "list": [.string("\u{0}"), .number(0.1), .object(["x": nil])]]
        #expect(JSON(try JSONParser.parse(value.text)) == value)
    }
}
