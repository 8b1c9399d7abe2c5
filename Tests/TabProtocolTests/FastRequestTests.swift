// The fast path of request decoding may only ever agree with the general decoder: whenever
// it answers, the general decoder must decode the same line to the same request. Checked
// on the common requests and on many generated near misses.
//
// Reproduce a failure: FASTREQUEST_SEED=<seed printed> swift test --filter FastRequestTests

import TestRandom
import Foundation
import Testing
import TabCore
@testable import TabProtocol

@Suite("Fast request path")
struct FastRequestTests {
    private func fast(_ line: String) -> Request? {
        var copy = line
        return copy.withUTF8 { FastRequest.decode(UnsafeRawBufferPointer($0)) }
    }

    private func general(_ line: String) -> Result<Request, ProtocolError> {
        var copy = line
        return copy.withUTF8 { RequestDecoder.decodeInGeneral(UnsafeRawBufferPointer($0)).result }
    }

    /// The hot requests take the fast path, and decode as the general decoder does.
    @Test(arguments: [
        #"{"cmd":"select","tab":"a"}"#,
        #"{"cmd":"select","index":2,"id":7}"#,
        #"{"cmd":"tap","tab":"settings","controller":"tv-1","id":"x-1"}"#,
        #"{ "cmd" : "state" , "id" : -12 }"#,
        #"{"id":0,"cmd":"ping"}"#,
        "{\"cmd\":\"select\",\"tab\":\"a\"}\r",
    ])
    func commonRequestsTakeTheFastPath(_ line: String) throws {
        let f = try #require(fast(line))
        #expect(f == (try general(line).get()))
    }

    /// The fast path's requests are the general form: a request of a state-machine command
    /// (a select) is no bigger than the command, so copying one costs no more than it must.
    @Test func aRequestCommandIsNoBiggerThanACommand() {
        #expect(MemoryLayout<RequestCommand>.size <= MemoryLayout<Command>.size)
    }

    /// A request's name is computed from its command: for every command `hello` lists, a
    /// request of it is named as the client wrote `cmd`.
    @Test func everyCommandIsNamedAsSent() throws {
        let lines = [
            #"{"cmd":"hello"}"#, #"{"cmd":"ping"}"#, #"{"cmd":"state"}"#, #"{"cmd":"controllers"}"#,
            #"{"cmd":"controller.create","controller":"x"}"#, #"{"cmd":"controller.delete","controller":"x"}"#,
            #"{"cmd":"set_tabs","tabs":[]}"#, #"{"cmd":"add_tab","tab":{"id":"a"}}"#,
            #"{"cmd":"remove_tab","tab":"a"}"#, #"{"cmd":"update_tab","tab":"a"}"#,
            #"{"cmd":"badge","tab":"a","value":null}"#, #"{"cmd":"select","more":true}"#,
            #"{"cmd":"tap","more":true}"#, #"{"cmd":"push","tab":"a","screen":{"id":"s"}}"#,
            #"{"cmd":"pop","tab":"a"}"#, #"{"cmd":"pop_to_root","tab":"a"}"#,
            #"{"cmd":"customizable","tabs":null}"#, #"{"cmd":"customize.begin"}"#,
            #"{"cmd":"customize.move","tab":"a","to":0}"#, #"{"cmd":"customize.end"}"#,
            #"{"cmd":"rotate","orientation":"portrait"}"#, #"{"cmd":"layout","width":1,"height":2}"#,
            #"{"cmd":"preserve"}"#, #"{"cmd":"restore","archive":{}}"#,
            #"{"cmd":"set_hidden","tab":"a","hidden":true}"#, #"{"cmd":"reorder","order":[]}"#,
            #"{"cmd":"sidebar","visible":true}"#, #"{"cmd":"subscribe"}"#, #"{"cmd":"unsubscribe"}"#,
            #"{"cmd":"plugins"}"#, #"{"cmd":"plugin.call","plugin":"p","method":"m"}"#,
            #"{"cmd":"explain"}"#, #"{"cmd":"reload"}"#, #"{"cmd":"stats"}"#, #"{"cmd":"metrics"}"#,
            #"{"cmd":"config"}"#,
            #"{"cmd":"set_expanded","group":"g","expanded":false}"#, #"{"cmd":"search","active":true}"#,
            #"{"cmd":"set_enabled","tab":"a","enabled":false}"#, #"{"cmd":"set_bar_hidden","hidden":true}"#,
            #"{"cmd":"set_size_class","size_class":"compact"}"#, #"{"cmd":"set_compact_tabs","tabs":null}"#,
            #"{"cmd":"set_mode","mode":"tab_bar"}"#, #"{"cmd":"edit.begin"}"#, #"{"cmd":"edit.end"}"#,
            #"{"cmd":"select_child","group":"g","child":"a"}"#,
            // R15 (issue 42).
            #"{"cmd":"configure","center_interaction":"full"}"#, #"{"cmd":"set_window","window":true}"#,
            #"{"cmd":"pop_to","screen":"a"}"#, #"{"cmd":"set_stack","stack":[{"id":"a"}]}"#,
            #"{"cmd":"open_drawer","side":"left"}"#, #"{"cmd":"close_drawer"}"#, #"{"cmd":"toggle_drawer","side":"right","gesture":"button"}"#,
            #"{"cmd":"set_center","child":{"id":"c"}}"#, #"{"cmd":"set_drawer","side":"left","child":null}"#,
            #"{"cmd":"set_children","children":[{"id":"a","controller":"x"}]}"#, #"{"cmd":"set_shown","shown":["a"]}"#,
            #"{"cmd":"transition","from":"a","to":{"id":"b"}}"#,
            #"{"cmd":"set_column","column":"compact","child":null}"#, #"{"cmd":"show_column","column":"primary","user":true}"#,
            #"{"cmd":"hide_column","column":"supplementary"}"#, #"{"cmd":"show_detail","child":{"id":"d"}}"#,
        ]
        var named: [String] = []
        for line in lines {
            let request = try general(line).get()
            named.append(request.name)
            #expect(line.hasPrefix(#"{"cmd":"\#(request.name)""#), "\(line) is named \(request.name)")
        }
        #expect(named == commandNames)
    }

    /// Shapes it leaves to the general decoder (which accepts some and explains the rest).
    @Test(arguments: [
        #"{"cmd":"select","tab":"a","tab":"b"}"#,       // repeated key: an error
        #"{"cmd":"select","tab":"a","index":1}"#,       // both: an error
        #"{"cmd":"tap","index":1}"#,                    // tap takes no index
        #"{"cmd":"select","tab":"caf\u00e9"}"#,          // an escape
        #"{"cmd":"select","tab":"café"}"#,               // non-ASCII
        #"{"cmd":"select","index":01}"#,                // not JSON
        #"{"cmd":"select","index":1.0}"#,               // not an integer
        #"{"cmd":"select","index":-0}"#,                // -0 is a double
        #"{"cmd":"select","index":12345678901234567890}"#, // too big
        #"{"cmd":"select","more":true}"#,               // more: general path
        #"{"cmd":"badge","tab":"a","value":"1"}"#,      // another command
        #"{"cmd":"select","tab":"a"} x"#,               // trailing garbage
        #"{"cmd":"select","tab":"a"#,                   // cut off
        #"{"cmd":"select","tab":"a",}"#,                // trailing comma
        #"{"cmd":"ping","id":[1]}"#,                    // id must be a scalar
        #"{"cmd":"ping","id":true}"#,                   // a scalar the fast path leaves alone
        #"{}"#,
        "",
    ])
    func otherShapesFallBack(_ line: String) {
        #expect(fast(line) == nil)
    }

    /// Generated lines built from the pieces of valid requests and their near misses: the
    /// fast path never answers differently from the general decoder, and answers often.
    @Test func agreesWithTheGeneralDecoder() throws {
        let seed = ProcessInfo.processInfo.environment["FASTREQUEST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var rng = SplitMix64(seed: seed)
        let keys = [#""cmd""#, #""tab""#, #""index""#, #""id""#, #""controller""#, #""more""#, #""value""#,
                    #""Cmd""#, #""ta\u0062""#, #""""#, #""cmd ""#]
        let values = [#""select""#, #""tap""#, #""state""#, #""ping""#, #""badge""#, #""a""#, #""main""#,
                      #""""#, #""x y""#, #""\n""#, #""é""#, "0", "1", "-1", "7", "01", "-0", "1.5", "2e3",
                      "123456789012345678", "1234567890123456789", "true", "false", "null", "[]", "{}", "-", "--1"]
        let spaces = ["", "", "", " ", "\t", "\r", "  "]
        var fastAnswers = 0
        let rounds = 20_000
        for _ in 0..<rounds {
            var members: [String] = []
            // Most lines start like a real request, so that the fast path is exercised.
            if rng.next() % 4 != 0 {
                members.append(#""cmd":"# + [#""select""#, #""tap""#, #""state""#, #""ping""#][Int(rng.next() % 4)])
            }
            for _ in 0..<Int(rng.next() % 4) {
                let k = keys[Int(rng.next() % UInt64(keys.count))]
                let v = values[Int(rng.next() % UInt64(values.count))]
                let s1 = spaces[Int(rng.next() % UInt64(spaces.count))]
                let s2 = spaces[Int(rng.next() % UInt64(spaces.count))]
                members.append(k + s1 + ":" + s2 + v)
            }
            members.shuffle(using: &rng)
            var line = "{" + members.joined(separator: [",", ",", ", ", ",,"][Int(rng.next() % 4)]) + "}"
            switch rng.next() % 10 {
            case 0: line.removeLast()
            case 1: line += " "
            case 2: line = " " + line
            case 3: line += "}"
            default: break
            }
            if let f = fast(line) {
                fastAnswers += 1
                let g = general(line)
                #expect(g == .success(f), "seed \(seed): the paths disagree on \(line)")
                if g != .success(f) { return }
            }
        }
        // Not a tautology: enough generated lines are valid hot requests.
        #expect(fastAnswers > rounds / 50, "seed \(seed): the fast path answered only \(fastAnswers) times")
    }
}

