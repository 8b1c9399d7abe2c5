// JSONWriter: compact output, escaping, numbers that round-trip, commas placed for the caller.

import TestRandom
import Testing
import TabJSON

@Suite("JSON writer")
struct JSONWriterTests {
    /// reset(keepingAtMost:) gives back a buffer a huge text grew, and the writer goes on
    /// writing correctly after it (and after a plain reset).
    @Test func resetGivesBackAHugeBuffer() {
        var w = JSONWriter(capacity: 16)
        w.string(String(repeating: "x", count: 100_000))
        w.reset(keepingAtMost: 64)
        #expect(w.count == 0)
        w.beginObject(); w.key("a"); w.int(1); w.endObject()
        w.withBytes { #expect(String(decoding: $0, as: UTF8.self) == #"{"a":1}"#) }
        w.reset(keepingAtMost: 64)
        w.string("y")
        w.withBytes { #expect(String(decoding: $0, as: UTF8.self) == #""y""#) }
    }

    /// A value tree is written compactly, members in order, no spaces.
    @Test func writesCompactJSON() {
        let value = jsonObject(
            ("cmd", .string("select")), ("id", .int(12)), ("ok", .bool(true)), ("no", .bool(false)),
            ("none", .null), ("list", .array([.int(1), .array([]), .object(JSONObject())])), ("ratio", .double(0.5))
        )
        #expect(jsonWritten(value) == #"{"cmd":"select","id":12,"ok":true,"no":false,"none":null,"list":[1,[],{}],"ratio":0.5}"#)
        #expect(value.jsonString == jsonWritten(value))
        #expect("\(value)" == jsonWritten(value))
    }

    /// Quote, backslash and control characters are escaped (short forms where JSON has
    /// them, \u00XX otherwise); '/', DEL and non-ASCII text are written as they are.
    @Test func escapesStrings() throws {
        #expect(jsonWritten(.string("a\"b\\c")) == #""a\"b\\c""#)
        #expect(jsonWritten(.string("\n\r\t\u{8}\u{C}")) == #""\n\r\t\b\f""#)
        #expect(jsonWritten(.string("\u{0}\u{1}\u{1F}")) == #""\u0000\u0001\u001f""#)
        #expect(jsonWritten(.string("/\u{7F}é€😀")) == "\"/\u{7F}é€😀\"")
        for c in 0..<0x20 {
            let s = String(Unicode.Scalar(UInt8(c)))
            #expect(try jsonParsed(jsonWritten(.string(s))) == .string(s))
        }
    }

    /// Short ASCII strings (at most 15 bytes, written from their two words) are escaped the
    /// same way at every length and position, the bytes either side of the escaped ranges
    /// included: the words' test must see each byte and nothing past the string.
    @Test func escapesShortStringsAtEveryPosition() throws {
        let probes: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x61, 0x7E, 0x7F]
        for length in 1...15 {
            for position in 0..<length {
                for probe in probes {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = probe
                    let s = String(decoding: bytes, as: UTF8.self)
                    var w = JSONWriter()
                    w.string(s)
                    let text = String(decoding: w.bytes, as: UTF8.self)
                    #expect(try jsonParsed(text) == .string(s), "\(bytes) was written as \(text)")
                    let escaped = probe < 0x20 || probe == 0x22 || probe == 0x5C
                    #expect(text.utf8.count == length + 2 + (escaped ? (probe < 0x20 && ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(probe) ? 5 : 1) : 0),
                            "\(bytes) was written as \(text)")
                }
            }
        }
    }

    /// An array of strings written at once (`strings`, `stringArray(_:stringAt:)`: small
    /// ASCII strings read from their words where they lie) is the array written a string at
    /// a time, whatever its strings: each probe at every length and position, long, non-ASCII
    /// and empty strings among short ones, the first that needs the general way anywhere in
    /// the list, and strings kept inside another value (at an offset, a stride apart).
    @Test func arraysOfStringsAreWrittenAsStringByString() throws {
        func oneByOne(_ a: [String]) -> String {
            var w = JSONWriter()
            w.beginArray(); for s in a { w.string(s) }; w.endArray()
            return String(decoding: w.bytes, as: UTF8.self)
        }
        func atOnce(_ a: [String]) -> String {
            var w = JSONWriter(capacity: 16)
            w.key("k")  // after a key: no comma first
            w.strings(a)
            w.strings(a)  // after a value: a comma first
            return String(decoding: w.bytes, as: UTF8.self)
        }
        let probes: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x22, 0x5C, 0x61, 0x7F]
        var strings = ["", "a", "é", "😀x", String(repeating: "y", count: 15), String(repeating: "z", count: 16), "\u{7F}"]
        for length in 1...15 {
            for position in 0..<length {
                for probe in probes {
                    var bytes = [UInt8](repeating: UInt8(ascii: "b"), count: length)
                    bytes[position] = probe
                    strings.append(String(decoding: bytes, as: UTF8.self))
                }
            }
        }
        var rng = SplitMix64(seed: 0x5_7A11)
        for _ in 0..<400 {
            let list = (0..<Int.random(in: 0...12, using: &rng)).map { _ in
                Bool.random(using: &rng) ? "t\(Int.random(in: 0...999, using: &rng))" : strings.randomElement(using: &rng)!
            }
            let expected = oneByOne(list)
            #expect(atOnce(list) == "\"k\":" + expected + "," + expected, "\(list)")
            #expect(try jsonParsed(expected) == .array(list.map { .string($0) }))
        }
        // Inside other values: the string of each element, at its offset.
        struct Held { var n: Int; var s: String; var m: Int8 }
        let held = strings.enumerated().map { Held(n: $0.offset, s: $0.element, m: 1) }
        var w = JSONWriter()
        w.stringArray(held, stringAt: MemoryLayout<Held>.offset(of: \Held.s)!)
        #expect(String(decoding: w.bytes, as: UTF8.self) == oneByOne(strings))
    }

    /// Long strings (past the stack-buffer path) are escaped the same way.
    @Test func escapesLongStrings() throws {
        let s = String(repeating: "plain text é ", count: 20) + "\"\\\n\u{1}" + String(repeating: "x", count: 200) + "\t"
        let text = jsonWritten(.string(s))
        #expect(text.hasSuffix(#"xxx\t""#))
        #expect(text.contains(#"\"\\\n\u0001"#))
        #expect(try jsonParsed(text) == .string(s))
        let longKey = String(repeating: "k", count: 300)
        var w = JSONWriter()
        w.beginObject(); w.key(longKey); w.int(1); w.key("b\"" + longKey); w.int(2); w.endObject()
        #expect(String(decoding: w.bytes, as: UTF8.self) == "{\"\(longKey)\":1,\"b\\\"\(longKey)\":2}")
    }

    /// Integers are exact at both Int64 extremes.
    @Test func writesIntegers() {
        #expect(jsonWritten(.int(0)) == "0")
        #expect(jsonWritten(.int(-5)) == "-5")
        #expect(jsonWritten(.int(1234567890)) == "1234567890")
        #expect(jsonWritten(.int(.max)) == "9223372036854775807")
        #expect(jsonWritten(.int(.min)) == "-9223372036854775808")
        var w = JSONWriter()
        w.beginArray(); w.int(Int.min); w.int(-1); w.int(10); w.endArray()
        #expect(String(decoding: w.bytes, as: UTF8.self) == "[-9223372036854775808,-1,10]")
    }

    /// Doubles are written in a form that parses back to the same Double and stays a double.
    @Test(arguments: [
        0.1, 0.5, 1.0, 100.0, -2.5, 1e-5, 1e16, 1e22, 1e300, Double.leastNonzeroMagnitude, 2.2250738585072014e-308,
        1.7976931348623157e308, 9007199254740992.0, 9007199254740993.0, 123456789.123456789,
        0.30000000000000004, -0.0, 3.0e-7, 4503599627370496.5,
    ])
    func doublesRoundTrip(d: Double) throws {
        let text = jsonWritten(.double(d))
        guard case .double(let back) = try jsonParsed(text) else {
            Issue.record("\(text) did not parse as a double")
            return
        }
        #expect(back == d && back.sign == d.sign, "\(text)")
    }

    /// Whole doubles keep a ".0" so they read back as doubles; -0.0 keeps its sign.
    @Test func writesWholeDoubles() {
        #expect(jsonWritten(.double(123)) == "123.0")
        #expect(jsonWritten(.double(-0.0)) == "-0.0")
        #expect(jsonWritten(.double(0)) == "0.0")
        #expect(jsonWritten(.double(1e16)) == "1e+16")
    }

    /// NaN and infinities, which JSON cannot hold, are written as null.
    @Test func writesNonFiniteDoublesAsNull() {
        #expect(jsonWritten(.array([.double(.nan), .double(.infinity), .double(-.infinity)])) == "[null,null,null]")
        var w = JSONWriter()
        w.beginObject(); w.key("x"); w.double(.nan); w.endObject()
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"{"x":null}"#)
    }

    /// Random doubles all round-trip exactly.
    @Test func randomDoublesRoundTrip() throws {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<20_000 {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite else { continue }
            let text = jsonWritten(.double(d))
            #expect(try jsonParsed(text) == .double(d), "\(text)")
        }
    }

    /// The low-level appenders place commas and colons; nothing else is needed to build a reply.
    @Test func appendersPlaceCommas() {
        var w = JSONWriter()
        w.beginObject()
        w.key("id"); w.int(1)
        w.key("ok"); w.bool(true)
        w.key("result"); w.beginObject()
        w.key("tabs"); w.beginArray(); w.string("a"); w.string("b"); w.null(); w.beginObject(); w.endObject(); w.beginArray(); w.endArray(); w.endArray()
        w.key("ratio"); w.double(1.5)
        w.key("data"); w.raw(Array(#"{"x":[1,2]}"#.utf8))
        w.key("more"); w.raw(#"[true]"#.utf8)
        w.endObject()
        w.endObject()
        w.newline()
        #expect(String(decoding: w.bytes, as: UTF8.self) == "{\"id\":1,\"ok\":true,\"result\":{\"tabs\":[\"a\",\"b\",null,{},[]],\"ratio\":1.5,\"data\":{\"x\":[1,2]},\"more\":[true]}}\n")
    }

    /// After a newline the next line starts without a comma, so one writer can hold many lines.
    @Test func newlineStartsAFreshValue() {
        var w = JSONWriter()
        w.beginObject(); w.key("a"); w.int(1); w.endObject(); w.newline()
        w.beginObject(); w.key("b"); w.int(2); w.endObject(); w.newline()
        w.write(.array([.int(3)])); w.newline()
        #expect(String(decoding: w.bytes, as: UTF8.self) == "{\"a\":1}\n{\"b\":2}\n[3]\n")
    }

    /// Clearing `bytes` (keeping capacity) starts afresh: the writer keeps no other state.
    @Test func clearingBytesResets() {
        var w = JSONWriter(capacity: 16)
        w.beginObject(); w.key("half")
        w.reset()
        w.beginObject(); w.key("x"); w.write(jsonObject(("y", .array([.int(1), .string("z")])))); w.endObject()
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"{"x":{"y":[1,"z"]}}"#)
    }

    /// `write` inside appender-built output is separated like any other value.
    @Test func writeMixesWithAppenders() {
        var w = JSONWriter()
        w.beginArray(); w.int(1); w.write(.string("two")); w.write(jsonObject(("k", .null))); w.bool(false); w.endArray()
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"[1,"two",{"k":null},false]"#)
    }
}
