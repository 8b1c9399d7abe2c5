// libFuzzer harness for the JSON codec: every input must either be rejected with an error
// whose offset lies inside the input, or parse to a value that writes to text which parses
// back to the same value and writes to the same text again. Build and run: fuzz/json/run.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let value: JSONValue
    do throws(JSONParseError) {
        value = try JSONParser.parse(input)
    } catch {
        precondition(error.offset >= 0 && error.offset <= size, "error offset \(error.offset) outside input of \(size) bytes")
        precondition(!error.reason.isEmpty, "error without a reason")
        return 0
    }
    var w = JSONWriter()
    w.write(value)
    let reparsed: JSONValue
    switch w.bytes.withUnsafeBytes({ raw in parseResult(raw) }) {
    case .success(let v): reparsed = v
    case .failure(let error): fatalError("written JSON does not parse: \(error) in \(String(decoding: w.bytes, as: UTF8.self))")
    }
    precondition(reparsed == value, "round trip changed the value: \(String(decoding: w.bytes, as: UTF8.self))")
    var w2 = JSONWriter()
    w2.write(reparsed)
    precondition(w2.bytes == w.bytes, "writing is not stable: \(String(decoding: w.bytes, as: UTF8.self))")
    // The String entry point agrees with the bytes entry point on valid UTF-8.
    if let text = String(validating: input, as: UTF8.self) {
        precondition((try? JSONParser.parse(text)) == value, "String and bytes disagree")
    }
    return 0
}

private func parseResult(_ raw: UnsafeRawBufferPointer) -> Result<JSONValue, JSONParseError> {
    do throws(JSONParseError) {
        return .success(try JSONParser.parse(raw))
    } catch {
        return .failure(error)
    }
}
