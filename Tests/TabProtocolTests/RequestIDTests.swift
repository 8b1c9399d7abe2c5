// A request's `id` comes back byte for byte as it was sent: the reply copies the bytes of
// its JSON token instead of decoding a value and encoding it again — on the fast path, on
// the general path, and in error replies.

import TabJSON
import Testing
@testable import TabProtocol

@Suite("Request ids echoed as sent")
struct RequestIDTests {
    /// Ids that a decoded and re-encoded value would change (or that only the general path
    /// reads), and plain ones the fast path takes.
    static let ids = [
        "123456789012345678901234567890", "-0", "1.0", "1E+2", "1e2", "-12.50", #""\u0041""#, #""a\/b""#,
        #""é""#, #""\ud83d\ude00""#, "true", "false", "null", "7", "-12", #""x-1""#, #""""#,
    ]

    private func decoded(_ line: String, general: Bool = false) -> (id: RequestID?, result: Result<Request, ProtocolError>) {
        var copy = line
        return copy.withUTF8 { general ? RequestDecoder.decodeInGeneral(UnsafeRawBufferPointer($0)) : RequestDecoder.decode(UnsafeRawBufferPointer($0)) }
    }

    private func fast(_ line: String) -> Request? {
        var copy = line
        return copy.withUTF8 { RequestDecoder.decodeCommon(UnsafeRawBufferPointer($0)) }
    }

    private func success(_ id: RequestID?) -> String {
        var w = JSONWriter()
        ReplyEncoder.success(id: id, into: &w) { _ in }
        return String(decoding: w.bytes, as: UTF8.self)
    }

    private func failure(_ id: RequestID?, _ error: ProtocolError) -> String {
        String(decoding: ReplyEncoder.failure(id: id, error), as: UTF8.self)
    }

    /// Whichever path decodes the request, the reply starts with the id exactly as sent.
    @Test(arguments: ids)
    func successRepliesEchoTheIDAsSent(_ id: String) throws {
        for line in [#"{"cmd":"ping","id":\#(id)}"#, #"{ "id" : \#(id) , "cmd":"select","tab":"a" }"#] {
            let general = decoded(line, general: true)
            #expect(general.id?.json == id, "general path: \(line)")
            #expect(try general.result.get().id?.json == id)
            #expect(success(general.id) == #"{"id":\#(id),"ok":true,"result":{}}"# + "\n")
            let either = decoded(line)
            #expect(either.id?.json == id, "fast or general: \(line)")
            #expect(success(either.id) == #"{"id":\#(id),"ok":true,"result":{}}"# + "\n")
            if let common = fast(line) {
                #expect(common.id?.json == id, "fast path: \(line)")
                #expect(common == (try general.result.get()))
            }
        }
    }

    /// The fast path takes plain strings and small integers, and keeps their bytes.
    @Test(arguments: ["7", "-12", #""x-1""#, #""""#, "123456789012345678"])
    func theFastPathKeepsTheBytes(_ id: String) throws {
        let common = try #require(fast(#"{"cmd":"select","tab":"a","id":\#(id)}"#))
        #expect(common.id?.json == id)
        #expect(success(common.id) == #"{"id":\#(id),"ok":true,"result":{}}"# + "\n")
    }

    /// A request that is refused after its id was read echoes the id as sent in the error.
    @Test(arguments: ids)
    func errorRepliesEchoTheIDAsSent(_ id: String) throws {
        let lines = [
            #"{"cmd":"fly","id":\#(id)}"#,                       // unknown command
            #"{"id":\#(id),"cmd":"select","tab":"a","colour":1}"#, // unknown field
            #"{"cmd":"select","id":\#(id)}"#,                     // missing field
        ]
        for line in lines {
            let (readID, result) = decoded(line)
            let error = try #require(result.failure, "\(line) must be refused")
            #expect(readID?.json == id, "\(line)")
            #expect(failure(readID, error).hasPrefix(#"{"id":\#(id),"ok":false,"error":{"#), "\(line)")
        }
    }

    /// An id that cannot be read (not JSON, or not a scalar) is not echoed.
    @Test func unreadableIDsAreLeftOut() {
        #expect(decoded(#"{"cmd":"ping","id":1e999}"#).id == nil)
        #expect(decoded(#"{"cmd":"ping","id":[1]}"#).id == nil)
        #expect(decoded(#"{"cmd":"ping","id":{"a":1}}"#).id == nil)
        #expect(decoded(#"{"cmd":"ping","id":1,"id":2}"#).id == nil)
    }

    /// Ids are compared byte for byte: two spellings of one value are two ids.
    @Test func idsCompareByteForByte() {
        let a = decoded(#"{"cmd":"ping","id":"é"}"#).id
        let b = decoded(#"{"cmd":"ping","id":"e\u0301"}"#).id
        let c = decoded("{\"cmd\":\"ping\",\"id\":\"e\u{301}\"}").id
        #expect(a != nil && b != nil && c != nil)
        #expect(a != b)
        #expect(a != c)
        #expect(decoded(#"{"cmd":"ping","id":1.0}"#).id != decoded(#"{"cmd":"ping","id":1}"#).id)
    }

    /// The parser reports where a member of the outermost object lies, and nothing for
    /// members further in.
    @Test func theParserFindsTheMembersBytes() throws {
        let text = #"{"a":{"id":1}, "id" :  [1, {"x":2}] ,"b":"id"}"#
        let (value, span) = try Array(text.utf8).withUnsafeBytes { try JSONParser.parse($0, spanOfMember: "id") }
        #expect(value == (try JSONParser.parse(text)))
        let found = try #require(span)
        #expect(String(decoding: Array(text.utf8)[found], as: UTF8.self) == #"[1, {"x":2}]"#)
        let nested = try Array(#"{"a":{"id":1}}"#.utf8).withUnsafeBytes { try JSONParser.parse($0, spanOfMember: "id") }
        #expect(nested.span == nil)
        let array = try Array(#"["id", 1]"#.utf8).withUnsafeBytes { try JSONParser.parse($0, spanOfMember: "id") }
        #expect(array.span == nil)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
