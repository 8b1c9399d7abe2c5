// libFuzzer harness for TabJSON, the one JSON codec. Build and run: make fuzz (fuzz/run.sh json).
//
// 1. Differential: JSONParser accepts exactly the inputs a reference parser accepts
//    (Foundation's JSONSerialization, top-level scalars allowed, nesting to 512 as JSONParser
//    is given here), and reads the same value from them. Where tabd is stricter on purpose,
//    the disagreement is classified (`deliberate` below: duplicate keys, trailing commas, a
//    byte order mark, text in UTF-16 or UTF-32); any other disagreement is a crash.
// 2. Depth: tabd's own limit (64) refuses what 512 accepts only by saying "nesting deeper".
// 3. Round trip: what parses writes to text that parses back to the same value and writes
//    to the same text again; an error's offset lies inside the input.

import FuzzDriver
import Foundation
import TabJSON

/// The nesting JSONSerialization allows (513 levels are refused, 512 are not).
let referenceDepth = 512

func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let ours = parseResult(input, maxDepth: referenceDepth)
    let reference = Result { try JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed]) }

    switch (ours, reference) {
    case (.success(let value), .success(let theirs)):
        if let why = difference(value, theirs) {
            fatalError("JSONParser and JSONSerialization read different values (\(why)) from \(shown(input))")
        }
    case (.failure(let error), .success):
        guard deliberate(error, input) != nil else {
            fatalError("JSONParser refuses what JSONSerialization accepts, and not on purpose: \(error) in \(shown(input))")
        }
    case (.success(let value), .failure(let error)):
        fatalError("JSONParser accepts what JSONSerialization refuses (\(error)): \(value.jsonString) from \(shown(input))")
    case (.failure, .failure):
        break
    }

    checkDepthLimit(input, deep: ours)
    switch ours {
    case .failure(let error):
        require(error.offset >= 0 && error.offset <= size, "error offset \(error.offset) outside input of \(size) bytes")
        require(!error.reason.isEmpty, "error without a reason")
    case .success(let value):
        checkRoundTrip(value, input)
    }
    return 0
}

/// Why tabd refuses, on purpose, input that JSONSerialization accepts; nil: no reason (a bug).
func deliberate(_ error: JSONParseError, _ input: UnsafeRawBufferPointer) -> String? {
    // RFC 8259 leaves what duplicate names mean to the reader; tabd refuses them (plugins.md:
    // "duplicate keys in an object"), JSONSerialization keeps the last.
    if error.reason.hasPrefix("duplicate key") { return "duplicate key" }
    // Not in RFC 8259's grammar; JSONSerialization takes [1,] and {"a":1,}.
    if error.reason.hasPrefix("trailing comma") { return "trailing comma" }
    // JSONSerialization skips a leading UTF-8 byte order mark; RFC 8259 says a parser may,
    // and tabd's requests are lines of JSON, which have none.
    if input.starts(with: [0xEF, 0xBB, 0xBF]) { return "byte order mark" }
    // JSONSerialization guesses UTF-16 or UTF-32 from a NUL among the first four bytes or a
    // byte order mark; tabd reads UTF-8 only (PROTOCOL.md).
    if input.prefix(4).contains(0) || input.starts(with: [0xFE, 0xFF]) || input.starts(with: [0xFF, 0xFE]) {
        return "not UTF-8"
    }
    return nil
}

/// tabd's default limit (64) changes nothing but refusing deeper input, with that reason.
func checkDepthLimit(_ input: UnsafeRawBufferPointer, deep: Result<JSONValue, JSONParseError>) {
    let shallow = parseResult(input, maxDepth: 64)
    if case .failure(let e) = shallow, e.reason == "nesting deeper than 64" {
        if case .failure(let d) = deep { require(e.offset <= d.offset, "the depth error comes after the error at 512 deep: \(e) vs \(d)") }
        return
    }
    switch (shallow, deep) {
    case (.success(let a), .success(let b)): require(a == b, "the depth limit changed the value")
    case (.failure(let a), .failure(let b)): require(a == b, "the depth limit changed the error: \(a) vs \(b)")
    default: fatalError("the depth limit changed the outcome without a nesting error: \(shallow) vs \(deep)")
    }
}

func checkRoundTrip(_ value: JSONValue, _ input: UnsafeRawBufferPointer) {
    var w = JSONWriter()
    w.write(value)
    let reparsed: JSONValue
    switch w.bytes.withUnsafeBytes({ raw in parseResult(raw, maxDepth: referenceDepth) }) {
    case .success(let v): reparsed = v
    case .failure(let error): fatalError("written JSON does not parse: \(error) in \(String(decoding: w.bytes, as: UTF8.self))")
    }
    require(reparsed == value, "round trip changed the value: \(String(decoding: w.bytes, as: UTF8.self))")
    var w2 = JSONWriter()
    w2.write(reparsed)
    require(w2.bytes == w.bytes, "writing is not stable: \(String(decoding: w.bytes, as: UTF8.self))")
    // The String entry point agrees with the bytes entry point on valid UTF-8.
    if let text = String(validating: input, as: UTF8.self) {
        require((try? JSONParser.parse(text, maxDepth: referenceDepth)) == value, "String and bytes disagree")
    }
}

/// Where our value and JSONSerialization's differ, or nil when they are the same.
func difference(_ ours: JSONValue, _ theirs: Any) -> String? {
    switch ours {
    case .null:
        return theirs is NSNull ? nil : "null vs \(theirs)"
    case .bool(let b):
        return (theirs as? Bool) == b ? nil : "\(b) vs \(theirs)"
    case .string(let s):
        return (theirs as? String) == s ? nil : "\(s.debugDescription) vs \(theirs)"
    case .int(let i):
        return sameNumber(Double(i), exact: i, theirs) ? nil : "\(i) vs \(theirs)"
    case .double(let d):
        return sameNumber(d, exact: nil, theirs) ? nil : "\(d) vs \(theirs)"
    case .array(let elements):
        guard let list = theirs as? [Any], list.count == elements.count else { return "an array of \(elements.count) vs \(theirs)" }
        for (i, e) in elements.enumerated() {
            if let why = difference(e, list[i]) { return "[\(i)]: \(why)" }
        }
        return nil
    case .object(let members):
        guard let dict = theirs as? [String: Any], dict.count == members.count else { return "an object of \(members.count) vs \(theirs)" }
        for (key, value) in members {
            guard let other = dict[key] else { return "no \(key.debugDescription) in \(theirs)" }
            if let why = difference(value, other) { return "\(key.debugDescription): \(why)" }
        }
        return nil
    }
}

/// JSONSerialization's numbers: integers exactly when we read one, Doubles to the same
/// Double. It reads an integer beyond 64 bits as an NSDecimalNumber of 38 digits, whose own
/// `doubleValue` is off in the 15th digit: its digits are read as a Double instead, which
/// may differ from ours by the last bit (the digits after the 38th are gone).
func sameNumber(_ d: Double, exact: Int64?, _ theirs: Any) -> Bool {
    guard let n = theirs as? NSNumber else { return false }
    if let decimal = n as? NSDecimalNumber {
        guard let r = Double("\(decimal.decimalValue)") else { return false }
        return abs(d - r) <= d.ulp
    }
    if let exact { return n.int64Value == exact && n.doubleValue == d }
    return n.doubleValue == d
}

func shown(_ input: UnsafeRawBufferPointer) -> String {
    String(validating: input, as: UTF8.self)?.debugDescription ?? "bytes \(Array(input.prefix(200)))"
}

func parseResult(_ raw: UnsafeRawBufferPointer, maxDepth: Int) -> Result<JSONValue, JSONParseError> {
    do throws(JSONParseError) {
        return .success(try JSONParser.parse(raw, maxDepth: maxDepth))
    } catch {
        return .failure(error)
    }
}
