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
    /// The fast path's request; the name it reports beside it must be the request's own.
    private func fast(_ line: String) -> Request? {
        var copy = line
        var name = CommandName.hello
        let request = copy.withUTF8 { FastRequest.decode(UnsafeRawBufferPointer($0), name: &name) }
        if let request { #expect(name == request.command.commandName, "\(line): named \(name), but it is \(request.command.commandName)") }
        return request
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

    /// R15's flat node commands take the fast path too (issue 42), and decode as the general
    /// decoder does.
    @Test(arguments: [
        #"{"cmd":"open_drawer","controller":"d","side":"left"}"#,
        #"{"cmd":"open_drawer","side":"right","gesture":"bezel_pan_center","animated":true,"id":3}"#,
        #"{"cmd":"close_drawer","controller":"d"}"#,
        #"{ "cmd" : "close_drawer" , "gesture" : "tap_center", "animated" : false }"#,
        #"{"cmd":"pop","controller":"n"}"#,
        #"{"cmd":"pop","controller":"n","user":true,"animated":true,"id":"p"}"#,
        #"{"cmd":"show_column","controller":"sp","column":"primary"}"#,
        #"{"cmd":"hide_column","controller":"sp","column":"supplementary","user":false}"#,
    ])
    func nodeCommandsTakeTheFastPath(_ line: String) throws {
        let f = try #require(fast(line))
        #expect(f == (try general(line).get()))
    }

    /// Node command shapes it leaves to the general decoder.
    @Test(arguments: [
        #"{"cmd":"open_drawer"}"#,                              // side is required
        #"{"cmd":"open_drawer","side":"up"}"#,                  // an unknown side
        #"{"cmd":"open_drawer","side":"left","gesture":"wave"}"#, // an unknown gesture
        #"{"cmd":"open_drawer","side":"left","side":"right"}"#, // repeated
        #"{"cmd":"open_drawer","side":"left","user":true}"#,    // a member it does not take
        #"{"cmd":"close_drawer","side":"left"}"#,               // close takes no side
        #"{"cmd":"close_drawer","animated":1}"#,                // not a boolean
        #"{"cmd":"close_drawer","animated":null}"#,             // not a boolean
        #"{"cmd":"pop","tab":"a"}"#,                            // a tab's R6 stack
        #"{"cmd":"pop","index":1}"#,
        #"{"cmd":"pop","column":"primary"}"#,
        #"{"cmd":"show_column"}"#,                              // column is required
        #"{"cmd":"hide_column","column":"Primary"}"#,
        #"{"cmd":"select","tab":"a","animated":true}"#,         // a node member on a select
        #"{"cmd":"state","side":"left"}"#,
        #"{"cmd":"close_drawer","animated":truex}"#,
        #"{"cmd":"close_drawer","gesture":"tap_c\u0065nter"}"#,  // an escape
    ])
    func otherNodeShapesFallBack(_ line: String) {
        #expect(fast(line) == nil)
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
            // Most lines start like a real request, so that the fast path is exercised.
            var line = Self.line(&rng, commands: [#""select""#, #""tap""#, #""state""#, #""ping""#], withoutCommand: 4,
                                 keys: keys, values: values, spaces: spaces, mostMembers: 3)
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

    /// A generated request line: one time in `withoutCommand` no `cmd`, else one of `commands`;
    /// up to `mostMembers` members made of `keys` and `values` with `spaces` around the colon;
    /// in any order, joined by commas (sometimes two).
    private static func line(_ rng: inout SplitMix64, commands: [String], withoutCommand: UInt64, keys: [String], values: [String],
                             spaces: [String], mostMembers: UInt64) -> String {
        func pick(_ list: [String]) -> String { list[Int(rng.next() % UInt64(list.count))] }
        var members: [String] = []
        if rng.next() % withoutCommand != 0 { members.append(#""cmd":"# + pick(commands)) }
        for _ in 0..<Int(rng.next() % (mostMembers + 1)) {
            let k = pick(keys), v = pick(values), s1 = pick(spaces), s2 = pick(spaces)
            members.append(k + s1 + ":" + s2 + v)
        }
        members.shuffle(using: &rng)
        return "{" + members.joined(separator: [",", ",", ", ", ",,"][Int(rng.next() % 4)]) + "}"
    }

    /// The decoder a request goes through (fast path, then the general one).
    private func decoded(_ line: String) -> Result<Request, ProtocolError> {
        var copy = line
        return copy.withUTF8 { RequestDecoder.decode(UnsafeRawBufferPointer($0)).result }
    }

    /// Generated node commands (issue 42's fast path for R15's flat commands) and their near
    /// misses: whenever the fast path answers, the general decoder gives the same request; and
    /// whatever the line, the decoder a request goes through gives what the general decoder
    /// gives, a refusal included (the fast path never refuses: what it does not take, the
    /// general decoder explains).
    @Test func nodeCommandsAgreeWithTheGeneralDecoder() throws {
        let seed = ProcessInfo.processInfo.environment["FASTREQUEST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var rng = SplitMix64(seed: seed)
        let commands = [#""open_drawer""#, #""close_drawer""#, #""pop""#, #""show_column""#, #""hide_column""#,
                        #""toggle_drawer""#, #""open_drawe""#, #""select""#]
        let keys = [#""side""#, #""gesture""#, #""animated""#, #""user""#, #""column""#, #""controller""#, #""id""#,
                    #""tab""#, #""index""#, #""Side""#, #""sid\u0065""#, #""screen""#]
        let values = [#""left""#, #""right""#, #""up""#, #""button""#, #""pan_center""#, #""tap_center""#, #""wave""#,
                      #""primary""#, #""secondary""#, #""supplementary""#, #""compact""#, #""Primary""#, #""d""#, #""main""#,
                      #""""#, #""l\u0065ft""#, #""é""#, "true", "false", "null", "0", "1", "-0", "1.5", "[]", "{}", "tru", "falsey"]
        let spaces = ["", "", "", " ", "\t", "  "]
        var fastAnswers = 0
        let rounds = 20_000
        for _ in 0..<rounds {
            var line = Self.line(&rng, commands: commands, withoutCommand: 8, keys: keys, values: values, spaces: spaces, mostMembers: 4)
            switch rng.next() % 12 {
            case 0: line.removeLast()
            case 1: line += " x"
            case 2: line = " " + line
            default: break
            }
            let g = general(line)
            if let f = fast(line) {
                fastAnswers += 1
                #expect(g == .success(f), "seed \(seed): the paths disagree on \(line)")
                if g != .success(f) { return }
            }
            let d = decoded(line)
            #expect(d == g, "seed \(seed): the decoder and the general decoder disagree on \(line)")
            if d != g { return }
        }
        #expect(fastAnswers > rounds / 50, "seed \(seed): the fast path answered only \(fastAnswers) node commands")
    }
}

