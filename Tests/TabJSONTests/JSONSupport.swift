// Helpers for the JSON codec tests.

import Testing
import TabJSON

/// Parses bytes, returning the value or the parse error.
func jsonParseResult(_ bytes: [UInt8], maxDepth: Int = 64) -> Result<JSONValue, JSONParseError> {
    bytes.withUnsafeBytes { raw in
        do throws(JSONParseError) {
            return .success(try JSONParser.parse(raw, maxDepth: maxDepth))
        } catch {
            return .failure(error)
        }
    }
}

func jsonParseResult(_ text: String, maxDepth: Int = 64) -> Result<JSONValue, JSONParseError> {
    jsonParseResult(Array(text.utf8), maxDepth: maxDepth)
}

/// The parse error for input that must be rejected; records an issue when it parses.
func jsonParseError(_ bytes: [UInt8], maxDepth: Int = 64, sourceLocation: SourceLocation = #_sourceLocation) -> JSONParseError? {
    switch jsonParseResult(bytes, maxDepth: maxDepth) {
    case .success(let value):
        Issue.record("expected a parse error, got \(value.jsonString)", sourceLocation: sourceLocation)
        return nil
    case .failure(let error):
        return error
    }
}

func jsonParseError(_ text: String, maxDepth: Int = 64, sourceLocation: SourceLocation = #_sourceLocation) -> JSONParseError? {
    jsonParseError(Array(text.utf8), maxDepth: maxDepth, sourceLocation: sourceLocation)
}

/// Parses input that must be accepted.
func jsonParsed(_ text: String) throws -> JSONValue {
    try JSONParser.parse(text)
}

func jsonParsed(_ bytes: [UInt8]) throws -> JSONValue {
    try jsonParseResult(bytes).get()
}

/// The compact encoding of a value as text.
func jsonWritten(_ value: JSONValue) -> String {
    var w = JSONWriter()
    w.write(value)
    return String(decoding: w.bytes, as: UTF8.self)
}

/// An object from pairs, for expectations.
func jsonObject(_ pairs: (String, JSONValue)...) -> JSONValue {
    .object(JSONObject(pairs))
}

