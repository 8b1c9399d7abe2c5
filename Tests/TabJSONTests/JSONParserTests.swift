// JSONParser: RFC 8259 exactly, errors with byte offsets, no crash on any input.

import TestRandom
import Testing
import TabJSON

@Suite("JSON parser: grammar")
struct JSONParserGrammarTests {
    /// A typical request line parses into an object whose members keep their order.
    @Test func parsesRequestLine() throws {
        let value = try jsonParsed(#"{"cmd":"select","tab":"music","id":12}"#)
        #expect(value == jsonObject(("cmd", .string("select")), ("tab", .string("music")), ("id", .int(12))))
        guard case .object(let o) = value else { return }
        #expect(o.keys == ["cmd", "tab", "id"])
        #expect(o["tab"] == .string("music"))
        #expect(o["missing"] == nil)
    }

    /// Every kind of value parses at the top level and nested.
    @Test func parsesEveryKindOfValue() throws {
        #expect(try jsonParsed("null") == .null)
        #expect(try jsonParsed("true") == .bool(true))
        #expect(try jsonParsed("false") == .bool(false))
        #expect(try jsonParsed("42") == .int(42))
        #expect(try jsonParsed("-1.5") == .double(-1.5))
        #expect(try jsonParsed(#""hi""#) == .string("hi"))
        #expect(try jsonParsed("[]") == .array([]))
        #expect(try jsonParsed("{}") == .object(JSONObject()))
        #expect(try jsonParsed(#"[null,true,false,0,"",[],{},{"a":[{"b":{}}]}]"#) == .array([
            .null, .bool(true), .bool(false), .int(0), .string(""), .array([]), .object(JSONObject()),
            jsonObject(("a", .array([jsonObject(("b", .object(JSONObject())))]))),
        ]))
    }

    /// Space, tab, CR and LF are allowed around every token; the value is the same.
    @Test func allowsTheFourWhitespaceCharacters() throws {
        let value = try jsonParsed(" \t\r\n{ \"a\" \t:\r\n[ 1 ,\t2 ] , \"b\":null }\n\r\t ")
        #expect(value == jsonObject(("a", .array([.int(1), .int(2)])), ("b", .null)))
    }

    /// Other whitespace (form feed, vertical tab, NBSP, a BOM, U+2028) is an error at its offset.
    @Test(arguments: [
        ([0x0C, 0x31] as [UInt8], 0), ([0x5B, 0x0B, 0x5D], 1), ([0x5B, 0xC2, 0xA0, 0x5D], 1),
        ([0xEF, 0xBB, 0xBF, 0x7B, 0x7D], 0), ([0x31, 0xE2, 0x80, 0xA8], 1),
    ])
    func rejectsOtherWhitespace(bytes: [UInt8], offset: Int) {
        #expect(jsonParseError(bytes)?.offset == offset)
    }

    /// Trailing commas are errors pointing at the closing bracket.
    @Test func rejectsTrailingCommas() {
        let array = jsonParseError("[1,2,]")
        #expect(array?.offset == 5)
        #expect(array?.reason == "trailing comma before ']'")
        let object = jsonParseError(#"{"a":1,}"#)
        #expect(object?.offset == 7)
        #expect(object?.reason == "trailing comma before '}'")
        #expect(jsonParseError("[1,\n]")?.offset == 4)
        #expect(jsonParseError("[,]")?.offset == 1)
        #expect(jsonParseError("[1,,2]")?.offset == 3)
    }

    /// Comments of any style are rejected.
    @Test(arguments: ["// c\n1", "/* c */ 1", "[1 /* c */]", "{\"a\":1 // c\n}", "# c\n1"])
    func rejectsComments(text: String) {
        #expect(jsonParseError(text) != nil)
    }

    /// A comment where a value should start is named as a comment.
    @Test func namesComments() {
        #expect(jsonParseError("/* c */ 1")?.reason == "comments are not allowed in JSON")
    }

    /// Single-quoted strings and keys are rejected.
    @Test func rejectsSingleQuotes() {
        #expect(jsonParseError("'a'")?.reason == "strings must use double quotes")
        #expect(jsonParseError("{'a':1}")?.reason == "object keys must use double quotes")
        #expect(jsonParseError(#"["a",'b']"#)?.offset == 5)
    }

    /// Unquoted keys, missing colons and missing commas are errors at the offending byte.
    @Test func rejectsMalformedObjects() {
        #expect(jsonParseError("{a:1}")?.offset == 1)
        let colon = jsonParseError(#"{"key" 1}"#)
        #expect(colon?.offset == 7)
        #expect(colon?.reason == "expected ':' after object key, found '1'")
        #expect(jsonParseError(#"{"a":1 "b":2}"#)?.offset == 7)
        #expect(jsonParseError("[1 2]")?.offset == 3)
        #expect(jsonParseError(#"{"a"}"#)?.offset == 4)
        #expect(jsonParseError(#"{"a":}"#)?.offset == 5)
        #expect(jsonParseError("[1}")?.offset == 2)
        #expect(jsonParseError(#"{"a":1]"#)?.offset == 6)
    }

    /// Literals are exact and case-sensitive.
    @Test(arguments: ["tru", "True", "nul", "NULL", "falsy", "t", "nulll"])
    func rejectsBadLiterals(text: String) {
        #expect(jsonParseError(text) != nil)
    }

    /// Only whitespace may follow the top-level value.
    @Test func rejectsDataAfterTheValue() throws {
        let e = jsonParseError("{} x")
        #expect(e?.offset == 3)
        #expect(e?.reason == "unexpected 'x' after the JSON value")
        #expect(jsonParseError("1 2")?.offset == 2)
        #expect(jsonParseError("[]]")?.offset == 2)
        #expect(jsonParseError("{}{}")?.offset == 2)
        #expect(jsonParseError("null\0")?.offset == 4)
        #expect(jsonParseError("1x")?.offset == 1)
        #expect(try jsonParsed("[] \n") == .array([]))
    }

    /// Empty input, only whitespace and unterminated values give clear errors.
    @Test func rejectsEmptyAndIncompleteInput() {
        #expect(jsonParseError("")?.description == "invalid JSON at byte 0: empty input, expected a JSON value")
        #expect(jsonParseError(" \n\t")?.description == "invalid JSON at byte 3: only whitespace, expected a JSON value")
        #expect(jsonParseError("[")?.reason == "unexpected end of input, expected a value")
        #expect(jsonParseError("[1")?.reason == "unexpected end of input, expected ',' or ']'")
        #expect(jsonParseError(#"{"a":1"#)?.reason == "unexpected end of input, expected ',' or '}'")
        #expect(jsonParseError(#"{"a""#)?.offset == 4)
        #expect(jsonParseError(#""abc"#)?.reason == "unterminated string")
        #expect(jsonParseError(#"{"a":"#)?.offset == 5)
    }

    /// An empty buffer with no base address is an error, not a crash.
    @Test func rejectsEmptyBufferWithoutBaseAddress() {
        let raw = UnsafeRawBufferPointer(start: nil, count: 0)
        #expect(throws: JSONParseError(offset: 0, reason: "empty input, expected a JSON value")) {
            try JSONParser.parse(raw)
        }
    }

    /// The error description reads "invalid JSON at byte N: reason".
    @Test func describesErrorsWithTheOffset() {
        let e = jsonParseError(#"{"cmd":"select","tab" "music"}"#)
        #expect(e?.description == "invalid JSON at byte 22: expected ':' after object key, found '\"'")
    }

    /// Parsing a String gives the same value as parsing its UTF-8 bytes.
    @Test func parsesStringsAndBytesAlike() throws {
        let text = #"{"a":["é",1.5,{"b":null}]}"#
        #expect(try JSONParser.parse(text) == jsonParsed(Array(text.utf8)))
        #expect(throws: JSONParseError.self) { try JSONParser.parse("[1,]") }
    }
}

@Suite("JSON parser: strings")
struct JSONParserStringTests {
    /// Every legal escape decodes to its character.
    @Test func decodesLegalEscapes() throws {
        #expect(try jsonParsed(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try jsonParsed(#""\u0041\u00e9\u20AC\u0000""#) == .string("Aé€\u{0}"))
        #expect(try jsonParsed(#""a\nb""#) == .string("a\nb"))
    }

    /// Any other escape is an error at its backslash.
    @Test(arguments: [#""\a""#, #""\x41""#, #""\'""#, #""\U0041""#, #""\u12""#, #""\u12G4""#, #""\ ""#, "\"\\\u{7}\""])
    func rejectsIllegalEscapes(text: String) {
        #expect(jsonParseError(text)?.offset == 1)
    }

    /// An escaped quote does not end the string: `"\"` is unterminated.
    @Test func escapedQuoteDoesNotEndTheString() {
        #expect(jsonParseError(#""\""#) == JSONParseError(offset: 0, reason: "unterminated string"))
        #expect(jsonParseError(#""\"#)?.reason == "unterminated escape sequence")
    }

    /// A surrogate pair escape decodes to one scalar beyond the BMP.
    @Test func decodesSurrogatePairs() throws {
        #expect(try jsonParsed(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try jsonParsed(#""x\uD834\uDD1Ey""#) == .string("x𝄞y"))
        #expect(try jsonParsed(#""\uDBFF\uDFFF""#) == .string("\u{10FFFF}"))
    }

    /// A lone or mismatched surrogate escape is an error at the first escape.
    @Test(arguments: [#""\ud83d""#, #""\ud83dx""#, #""\ud83d\n""#, #""\ud83d\u0041""#, #""\ude00""#, #""\ude00\ud83d""#, #""\ud83d\ud83d""#, #""\ud83d"#])
    func rejectsLoneSurrogates(text: String) {
        #expect(jsonParseError(text)?.offset == 1)
    }

    /// Raw control characters (U+0000–U+001F) inside a string are errors at their offset;
    /// DEL (U+007F) is allowed.
    @Test func rejectsControlCharacters() throws {
        for c in UInt8(0)..<0x20 {
            let e = jsonParseError([0x22, 0x61, c, 0x22])
            #expect(e?.offset == 2, "byte \(c)")
        }
        #expect(jsonParseError("\"a\nb\"")?.reason == "control character 0x0A must be escaped in a string")
        #expect(try jsonParsed([0x22, 0x7F, 0x22]) == .string("\u{7F}"))
    }

    /// Strings without escapes of every length up to 40 parse exactly, and a special byte
    /// at any position is handled (the 8-byte scan must not skip it).
    @Test func handlesSpecialBytesAtEveryPosition() throws {
        for length in 0...40 {
            let plain = String(repeating: "a", count: length)
            #expect(try jsonParsed("\"\(plain)\"") == .string(plain))
            for position in 0..<length {
                var chars = Array(plain)
                chars[position] = "\n"
                let withNewline = String(chars)
                #expect(try jsonParsed(jsonWritten(.string(withNewline))) == .string(withNewline))
                #expect(jsonParseError("\"\(withNewline)\"")?.offset == position + 1)
                chars[position] = "é"
                let withAccent = String(chars)
                #expect(try jsonParsed("\"\(withAccent)\"") == .string(withAccent))
                chars[position] = "\""
                #expect(jsonParseError("\"\(String(chars))\"") != nil)
            }
        }
    }

    /// Long strings with escapes spread through them decode completely.
    @Test func decodesLongEscapedStrings() throws {
        let text = String(repeating: "abc\\n\\u00e9\\\"xyz😀", count: 200)
        let expected = String(repeating: "abc\né\"xyz😀", count: 200)
        #expect(try jsonParsed("\"\(text)\"") == .string(expected))
    }
}

@Suite("JSON parser: UTF-8")
struct JSONParserUTF8Tests {
    /// Well-formed sequences at every boundary of the UTF-8 table are accepted unchanged.
    @Test func acceptsWellFormedUTF8() throws {
        let text = "\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}\u{10000}\u{10FFFF}"
        #expect(try jsonParsed(Array("[\"\(text)\"]".utf8)) == .array([.string(text)]))
    }

    /// Ill-formed UTF-8 inside a string is an error at the first byte of the bad sequence.
    @Test(arguments: [
        ([0xC0, 0xAF], "overlong encoding"),                 // overlong '/'
        ([0xC1, 0xBF], "overlong encoding"),
        ([0xE0, 0x80, 0xAF], "overlong encoding"),
        ([0xE0, 0x9F, 0xBF], "overlong encoding"),
        ([0xF0, 0x80, 0x80, 0xAF], "overlong encoding"),
        ([0xF0, 0x8F, 0xBF, 0xBF], "overlong encoding"),
        ([0xED, 0xA0, 0x80], "encoded surrogate"),          // U+D800
        ([0xED, 0xBF, 0xBF], "encoded surrogate"),          // U+DFFF
        ([0xF4, 0x90, 0x80, 0x80], "code point above U+10FFFF"),
        ([0xE2, 0x82], "truncated sequence"),               // then the closing quote
        ([0xE2, 0x41, 0x41], "truncated sequence"),
        ([0xF0, 0x9F, 0x98], "truncated sequence"),
        ([0x80], "unexpected continuation byte 0x80"),
        ([0xBF], "unexpected continuation byte 0xBF"),
        ([0xF5, 0x80, 0x80, 0x80], "byte 0xF5 never appears in UTF-8"),
        ([0xF8], "byte 0xF8 never appears in UTF-8"),
        ([0xFE], "byte 0xFE never appears in UTF-8"),
        ([0xFF], "byte 0xFF never appears in UTF-8"),
    ] as [([UInt8], String)])
    func rejectsIllFormedUTF8InStrings(sequence: [UInt8], problem: String) {
        let e = jsonParseError([0x5B, 0x22, 0x61] + sequence + [0x22, 0x5D])
        #expect(e?.offset == 3)
        #expect(e?.reason == "invalid UTF-8 (\(problem))")
    }

    /// A sequence cut off by the end of the input is an error, not a read past the end.
    @Test func rejectsSequenceTruncatedAtEndOfInput() {
        #expect(jsonParseError([0x22, 0xF0, 0x9F])?.offset == 1)
        #expect(jsonParseError([0x22, 0xE2])?.reason == "invalid UTF-8 (truncated sequence)")
    }

    /// Ill-formed UTF-8 outside strings is named as such, at its offset.
    @Test func rejectsIllFormedUTF8OutsideStrings() {
        #expect(jsonParseError([0x5B, 0x31, 0x2C, 0xFF, 0x5D]) == JSONParseError(offset: 3, reason: "expected a value, found invalid UTF-8 (byte 0xFF never appears in UTF-8)"))
        #expect(jsonParseError([0x31, 0xC0, 0x80])?.reason == "unexpected invalid UTF-8 (overlong encoding) after the JSON value")
        #expect(jsonParseError([0xC3, 0xA9])?.reason == "expected a value, found non-ASCII character")
    }

    /// Invalid UTF-8 in an object key is rejected too.
    @Test func rejectsIllFormedUTF8InKeys() {
        #expect(jsonParseError([0x7B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x3A, 0x31, 0x7D])?.offset == 2)
    }
}

@Suite("JSON parser: numbers")
struct JSONParserNumberTests {
    /// Integers that fit Int64 are `.int`, including both extremes.
    @Test func parsesIntegersAsInt() throws {
        #expect(try jsonParsed("0") == .int(0))
        #expect(try jsonParsed("-7") == .int(-7))
        #expect(try jsonParsed("9007199254740993") == .int(9007199254740993))
        #expect(try jsonParsed("9223372036854775807") == .int(.max))
        #expect(try jsonParsed("-9223372036854775808") == .int(.min))
        #expect(try jsonParsed("[12,-3]") == .array([.int(12), .int(-3)]))
    }

    /// Integers beyond Int64 become `.double`.
    @Test func parsesHugeIntegersAsDouble() throws {
        #expect(try jsonParsed("9223372036854775808") == .double(9223372036854775808))
        #expect(try jsonParsed("-9223372036854775809") == .double(-9223372036854775808.0))  // -2^63 - 1 rounds to -2^63 as a Double
        #expect(try jsonParsed("123456789012345678901234567890") == .double(1.2345678901234568e29))
    }

    /// Fractions and exponents are `.double`, even when the value is whole.
    @Test func parsesFractionsAndExponentsAsDouble() throws {
        #expect(try jsonParsed("1.0") == .double(1))
        #expect(try jsonParsed("1e2") == .double(100))
        #expect(try jsonParsed("1E+2") == .double(100))
        #expect(try jsonParsed("-2.5e-3") == .double(-0.0025))
        #expect(try jsonParsed("0.5") == .double(0.5))
        #expect(try jsonParsed("0e10") == .double(0))
    }

    /// `-0` is kept as `.double(-0.0)`, sign included; `0` stays `.int(0)`.
    @Test func keepsNegativeZero() throws {
        guard case .double(let d) = try jsonParsed("-0") else {
            Issue.record("-0 should be a double")
            return
        }
        #expect(d == 0 && d.sign == .minus)
        guard case .double(let e) = try jsonParsed("-0.0") else { return }
        #expect(e.sign == .minus)
        #expect(try jsonParsed("0") == .int(0))
    }

    /// Decimal text converts to the nearest Double, as Swift's own conversion does.
    @Test(arguments: [
        "0.1", "0.30000000000000004", "2.2250738585072011e-308", "2.2250738585072014e-308",
        "1.7976931348623157e308", "4.9e-324", "5e-324", "9007199254740993.0", "1e22", "1e23",
        "123456789.123456789", "3.141592653589793238462643383279", "7.0e-10", "1.5e300",
        "0.000000000000000000000000000001", "18446744073709551615", "1844674407370955161500",
        "2.4703282292062327e-324", "8.98846567431158e307", "0.1e-22", "0.1e22", "9007199254740992e22",
    ])
    func convertsDecimalTextExactly(text: String) throws {
        let expected = try #require(Double(text))
        #expect(try jsonParsed(text) == .double(expected))
        #expect(try jsonParsed("-" + text) == .double(-expected))
    }

    /// Random decimals convert exactly like Swift's Double(String) (the fast path is exact).
    @Test func convertsRandomDecimalsExactly() throws {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...19, using: &rng)
            var mantissa = String(UInt64.random(in: 1...UInt64.max, using: &rng))
            mantissa = String(mantissa.prefix(digits))
            let point = Int.random(in: 0...mantissa.count, using: &rng)
            var text = point == 0 || point == mantissa.count ? mantissa : String(mantissa.prefix(point)) + "." + mantissa.dropFirst(point)
            if mantissa.count > 1 && text.first == "0" { continue }
            if Bool.random(using: &rng) { text += "e\(Int.random(in: -40...40, using: &rng))" }
            if !text.contains(".") && !text.contains("e") { text += ".0" }
            guard let expected = Double(text) else { continue }
            #expect(try jsonParsed(text) == .double(expected), "\(text)")
        }
    }

    /// A number beyond Double's range is "number out of range" at the number's first byte;
    /// underflow rounds to zero.
    @Test func rejectsNumbersOutOfRange() throws {
        #expect(jsonParseError("1e400") == JSONParseError(offset: 0, reason: "number out of range"))
        #expect(jsonParseError("[-1e400]") == JSONParseError(offset: 1, reason: "number out of range"))
        #expect(jsonParseError("1" + String(repeating: "0", count: 400))?.reason == "number out of range")
        #expect(jsonParseError("2e99999999999999999999")?.reason == "number out of range")
        #expect(try jsonParsed("1e-400") == .double(0))
        #expect(try jsonParsed("1e-99999999999999999999") == .double(0))
    }

    /// Leading zeros, lone signs, bare points and missing exponent digits are errors.
    @Test(arguments: [
        ("01", 0, "leading zeros are not allowed"), ("-01", 0, "leading zeros are not allowed"),
        ("00", 0, "leading zeros are not allowed"), ("[007]", 1, "leading zeros are not allowed"),
        ("-", 1, "expected a digit after '-'"), ("-a", 1, "expected a digit after '-'"),
        ("1.", 2, "expected a digit after the decimal point"), ("1.e5", 2, "expected a digit after the decimal point"),
        ("1e", 2, "expected a digit in the exponent"), ("1e+", 3, "expected a digit in the exponent"),
        (".5", 0, "a number needs a digit before '.'"), ("+1", 0, "a number cannot start with '+'"),
        ("NaN", 0, "NaN and Infinity are not JSON numbers"), ("Infinity", 0, "NaN and Infinity are not JSON numbers"),
        ("-Infinity", 0, "NaN and Infinity are not JSON numbers"), ("[1,NaN]", 3, "NaN and Infinity are not JSON numbers"),
    ] as [(String, Int, String)])
    func rejectsMalformedNumbers(text: String, offset: Int, reason: String) {
        #expect(jsonParseError(text) == JSONParseError(offset: offset, reason: reason))
    }

    /// Hex, octal-looking and other non-JSON number forms are rejected.
    @Test(arguments: ["0x10", "1_000", "1.5.5", "1e5e5", "--1", "1ee5", "0.1.2"])
    func rejectsNonJSONNumberForms(text: String) {
        #expect(jsonParseError(text) != nil)
    }
}

@Suite("JSON parser: objects and depth")
struct JSONParserStructureTests {
    /// A duplicate key is an error pointing at the second occurrence.
    @Test func rejectsDuplicateKeys() {
        #expect(jsonParseError(#"{"a":1,"a":2}"#) == JSONParseError(offset: 7, reason: #"duplicate key "a""#))
        #expect(jsonParseError(#"{"a":{"b":1,"c":2,"b":3}}"#)?.offset == 18)
        // Escapes are decoded before comparing: "\u0061" is "a".
        #expect(jsonParseError(#"{"a":1,"\u0061":2}"#)?.offset == 7)
    }

    /// The same key in different objects is fine.
    @Test func allowsSameKeyInDifferentObjects() throws {
        let v = try jsonParsed(#"[{"a":1},{"a":2,"b":{"a":3}}]"#)
        #expect(v == .array([jsonObject(("a", .int(1))), jsonObject(("a", .int(2)), ("b", jsonObject(("a", .int(3)))))]))
    }

    /// Big objects (past the linear-scan limit) detect duplicates anywhere and look keys up.
    @Test func handlesBigObjects() throws {
        let n = 2_000
        let members = (0..<n).map { "\"k\($0)\":\($0)" }
        guard case .object(let o) = try jsonParsed("{" + members.joined(separator: ",") + "}") else {
            Issue.record("expected an object")
            return
        }
        #expect(o.count == n)
        #expect(o["k0"] == .int(0))
        #expect(o["k1999"] == .int(1999))
        #expect(o["k2000"] == nil)
        #expect(o.keys.prefix(3) == ["k0", "k1", "k2"])
        for dup in [0, 5, 8, 9, 1999] {
            let text = "{" + members.joined(separator: ",") + ",\"k\(dup)\":0}"
            #expect(jsonParseError(text)?.reason == "duplicate key \"k\(dup)\"")
        }
        let early = "{" + members.prefix(12).joined(separator: ",") + ",\"k3\":0," + members.dropFirst(12).joined(separator: ",") + "}"
        #expect(jsonParseError(early)?.reason == "duplicate key \"k3\"")
    }

    /// Nesting up to the limit parses; one more level is "nesting deeper than 64" at that bracket.
    @Test func limitsNestingDepth() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(jsonParseError(deep) == JSONParseError(offset: 64, reason: "nesting deeper than 64"))
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(jsonParseError(objects) == JSONParseError(offset: 64 * 5, reason: "nesting deeper than 64"))
        let mixed = String(repeating: #"[{"a":"#, count: 33) + "1" + String(repeating: "}]", count: 33)
        #expect(jsonParseError(mixed)?.reason == "nesting deeper than 64")
    }

    /// The depth limit is configurable; 0 allows scalars only.
    @Test func honoursCustomDepth() throws {
        #expect(jsonParseError("[[1]]", maxDepth: 1)?.reason == "nesting deeper than 1")
        #expect(try jsonParseResult("[1]", maxDepth: 1).get() == .array([.int(1)]))
        #expect(jsonParseError("[]", maxDepth: 0)?.reason == "nesting deeper than 0")
        #expect(try jsonParseResult("7", maxDepth: 0).get() == .int(7))
        let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try JSONParser.parse(deep, maxDepth: 500) }
    }

    /// A million '[' is a depth error, not a stack overflow.
    @Test func survivesAMillionBrackets() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        #expect(jsonParseError(bytes)?.reason == "nesting deeper than 64")
        // With the limit raised above the input, the parser still only uses heap frames.
        #expect(jsonParseError(bytes, maxDepth: 2_000_000)?.reason == "unexpected end of input, expected a value")
        let objects = [UInt8](String(repeating: #"{"a":"#, count: 200_000).utf8)
        #expect(jsonParseError(objects)?.reason == "nesting deeper than 64")
    }
}

@Suite("JSON parser: robustness")
struct JSONParserRobustnessTests {
    /// Binary garbage gives an error with an offset inside the input, never a crash.
    @Test func rejectsBinaryGarbage() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if case .failure(let e) = jsonParseResult(bytes) {
                #expect(e.offset >= 0 && e.offset <= bytes.count)
                #expect(!e.reason.isEmpty)
            }
        }
    }

    /// Every prefix of a valid document (except the full text) is an error, never a crash.
    @Test func rejectsEveryTruncation() {
        let text = #"{"cmd":"set_tabs","tabs":[{"id":"m\u00e9","n":-1.5e3,"ok":[true,false,null]}],"x":"😀"}"#
        let bytes = Array(text.utf8)
        for n in 0..<bytes.count {
            let prefix = Array(bytes[..<n])
            if case .success(let v) = jsonParseResult(prefix) {
                Issue.record("prefix of \(n) bytes parsed as \(v)")
            }
        }
        #expect(throws: Never.self) { try jsonParsed(bytes) }
    }

    /// Mutating single bytes of valid documents never crashes, and whatever still parses
    /// writes back to text that parses to the same value.
    @Test func survivesByteMutations() throws {
        let seeds = [#"{"cmd":"select","tab":"music","id":12}"#, #"[1,-2.5e3,"a\nb",{"k":[null,true]},"é😀"]"#]
        var rng = SplitMix64(seed: 99)
        for seed in seeds {
            let original = Array(seed.utf8)
            for _ in 0..<5_000 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                if case .success(let v) = jsonParseResult(bytes) {
                    #expect(try jsonParsed(jsonWritten(v)) == v)
                }
            }
        }
    }
}
