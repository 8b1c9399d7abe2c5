// libFuzzer harness for the request decoder (TabProtocol's RequestDecoder), the first code a
// client's bytes reach. Build and run: make fuzz (fuzz/run.sh request).
//
// The decoder has two paths: a fast one for flat select/tap/state/ping lines, decoded from
// the bytes, and the general one (TabJSON's parser, then the fields). They must agree:
//   - whenever the fast path accepts a line, the general path accepts it too and decodes the
//     same request (id, controller, command), and the server's form of the fast path
//     (decodeCommon(_:found:name:)) says the same, and names the command the request holds;
//   - what the server calls (RequestDecoder.decode) answers exactly what the general path
//     answers, request or error;
//   - a refusal is an error with a code and a one-line message, and the id it echoes is one
//     the line holds.
// The input is one line as the transport hands it over (without its newline).

import FuzzDriver
import TabCore
import TabProtocol

func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let line = UnsafeRawBufferPointer(start: data, count: size)
    let general = RequestDecoder.decodeInGeneral(line)
    let decoded = RequestDecoder.decode(line)

    if let fast = RequestDecoder.decodeCommon(line) {
        guard case .success(let request) = general.result else {
            fatalError("the fast path accepts what the general decoder refuses (\(failure(general.result))): \(shown(line))")
        }
        require(request == fast, "the fast path decodes \(fast) where the general decoder decodes \(request): \(shown(line))")
        require(general.id == fast.id, "the fast path reads the id \(String(describing: fast.id)) where the general decoder reads \(String(describing: general.id)): \(shown(line))")
    }
    var found = false, name = CommandName.hello
    let common = RequestDecoder.decodeCommon(line, found: &found, name: &name)
    require(found == (RequestDecoder.decodeCommon(line) != nil), "decodeCommon(found:name:) and decodeCommon disagree on \(shown(line))")
    if found, case .success(let request) = general.result {
        require(common == request, "decodeCommon(found:name:) decodes \(common) where the general decoder decodes \(request)")
        require(name == request.command.commandName, "decodeCommon(found:name:) names \(name) where the request is \(request.command.commandName): \(shown(line))")
    }

    require(decoded.id == general.id, "decode echoes the id \(String(describing: decoded.id)), the general decoder \(String(describing: general.id)): \(shown(line))")
    switch (decoded.result, general.result) {
    case (.success(let a), .success(let b)):
        require(a == b, "decode gives \(a), the general decoder \(b): \(shown(line))")
    case (.failure(let a), .failure(let b)):
        require(a == b, "decode refuses with \(a), the general decoder with \(b): \(shown(line))")
        require(!a.message.isEmpty && !a.message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x85 || $0.value == 0x2028 || $0.value == 0x2029 }, "a refusal's message must be one line: \(a.message.debugDescription)")
    default:
        fatalError("decode and the general decoder disagree (\(decoded.result) against \(general.result)): \(shown(line))")
    }
    if let id = general.id {
        // The echoed id is the line's own token, byte for byte.
        require(id.json.utf8.count <= size && contains(line, id.json), "the id \(id.json) is not in the line \(shown(line))")
    }
    return 0
}

private func failure(_ r: Result<Request, ProtocolError>) -> String {
    if case .failure(let e) = r { return "\(e.code.rawValue): \(e.message)" }
    return "accepted"
}

private func contains(_ line: UnsafeRawBufferPointer, _ token: String) -> Bool {
    let t = Array(token.utf8), bytes = Array(line)
    guard !t.isEmpty, t.count <= bytes.count else { return t.isEmpty }
    return (0...(bytes.count - t.count)).contains { i in bytes[i..<(i + t.count)].elementsEqual(t) }
}

private func shown(_ line: UnsafeRawBufferPointer) -> String {
    String(decoding: line.prefix(400), as: UTF8.self).debugDescription + (line.count > 400 ? " … (\(line.count) bytes)" : "")
}
