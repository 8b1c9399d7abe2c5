// A refusal's message is one line whatever the client sent: messages quote command names,
// field names and ids, which may hold line breaks and other control characters (found by
// fuzz/request: an unknown command "selec\nu…" made a two-line message).

import Testing
@testable import TabProtocol

@Suite("Error messages")
struct ErrorMessageTests {
    /// A command name, a field name and a tab id with control characters come back escaped.
    @Test func controlCharactersTheClientSentAreEscapedInTheMessage() throws {
        for line in [#"{"cmd":"fly\naway"}"#, #"{"cmd":"ping","x\r\ny":1}"#, #"{"cmd":"select","tab":3,"\u2028":0}"#,
                     #"{"cmd":"sele\u0008ct\u007f"}"#] {
            guard case .failure(let e) = RequestDecoder.decode(line).result else {
                Issue.record("\(line) decodes"); continue
            }
            #expect(!e.message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x2028 }, "\(e.message.debugDescription)")
        }
        guard case .failure(let e) = RequestDecoder.decode(#"{"cmd":"fly\naway\t\u0001"}"#).result else { return }
        #expect(e.message == #"unknown command 'fly\naway\t\u0001'; send {"cmd":"hello"} for the list"#)
    }

    /// Text without control characters is left as it is (no copy is made).
    @Test func oneLineLeavesOrdinaryTextAlone() {
        #expect("no tab 'müsic' — try \"state\"".oneLine == "no tab 'müsic' — try \"state\"")
        #expect("a\u{85}b\u{2029}".oneLine == #"a\u0085b\u2029"#)
    }
}
