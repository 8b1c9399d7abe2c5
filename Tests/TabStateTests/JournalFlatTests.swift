// A flat record (an object of plain strings, small integers, booleans and nulls: a select, a
// tap, a seq …) is read from its bytes at start, without a JSON tree. It may only ever read
// as the parser's tree reads: the same record, or the same sentence refusing it. Checked on
// the records tabd writes and on many generated near misses.
//
// Reproduce a failure: JOURNALFLAT_SEED=<seed printed> swift test --filter JournalFlatTests

import Foundation
import Testing
import TestRandom
import TabCore
@testable import TabState

@Suite("Flat journal records")
struct JournalFlatTests {
    /// What a record line reads as, read from its bytes (`flat`) or through the parser.
    private func read(_ line: String, version: Int = JournalCodec.version, flat: Bool) -> Result<JournalRecord, JournalRecordError> {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBytes { raw in
            Result { () throws(JournalRecordError) in try JournalCodec.decode(raw, version: version, flat: flat).record }
        }
    }

    private func readsFlat(_ json: String) -> Bool {
        Array(json.utf8).withUnsafeBytes { JournalCodec.readsFlat($0) }
    }

    /// The records a start replays most are flat, and read as the parser reads them.
    @Test(arguments: [
        #"1 {"op":"select","tab":"a"}"#,
        #"2 {"op":"select","index":3,"controller":"pad-1"}"#,
        #"3 {"op":"select","more":true}"#,
        #"4 {"op":"tap","tab":"settings"}"#,
        #"5 {"op":"seq","controller":"main","seq":41}"#,
        #"6 {"op":"badge","tab":"a","value":null}"#,
        #"7 {"op":"badge","tab":"a","value":"3"}"#,
        #"8 {"op":"pop","tab":"a"}"#,
        #"9 {"op":"rotate","orientation":"landscape_left"}"#,
        #"a {"op":"set_hidden","tab":"a","hidden":true}"#,
        #"b {"op":"customize.move","tab":"a","to":2}"#,
        #"c {"op":"controller.delete","controller":"tv"}"#,
        #"d {"op":"controller.create","controller":"tv","idiom":"tv","max_visible":null,"tap_pops":"always"}"#,
        #"e { "op" : "sidebar" , "visible" : false }"#,
    ])
    func commonRecordsAreReadFromTheirBytes(_ line: String) throws {
        let json = String(line.drop { $0 != " " }.dropFirst())
        #expect(readsFlat(json))
        let flat = try read(line, flat: true).get()
        #expect(flat == (try read(line, flat: false).get()))
    }

    /// Shapes the flat reader leaves to the parser (which reads some and refuses the rest).
    @Test(arguments: [
        #"{"op":"set_tabs","tabs":[{"id":"a"}],"animated":false}"#,  // a nested value
        #"{"op":"select","tab":"a","tab":"b"}"#,    // a repeated key
        #"{"op":"select","tab":"caf\u00e9"}"#,       // an escape
        #"{"op":"select","tab":"café"}"#,            // non-ASCII
        #"{"op":"select","index":01}"#,             // not JSON
        #"{"op":"select","index":1.0}"#,            // not an integer
        #"{"op":"select","index":-0}"#,             // -0 is a double
        #"{"op":"seq","seq":1234567890123456789}"#, // more digits than it reads
        #"{"op":"select","more":tru}"#,             // not a literal
        #"{"op":"select","tab":"a"} x"#,            // trailing garbage
        #"{"op":"select","tab":"a""#,               // cut off
        #"{"op":"select","tab":"a",}"#,             // trailing comma
        #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}"#, // more members than it keeps
        #"["op"]"#,
        "",
    ])
    func otherShapesAreParsed(_ json: String) {
        #expect(!readsFlat(json))
    }

    /// A flat record with a field this tabd does not know is refused as the parser refuses it,
    /// naming the field.
    @Test func anUnknownFieldIsRefusedTheSameWay() {
        let line = #"1 {"op":"select","tab":"a","colour":"red"}"#
        let flat = read(line, flat: true), parsed = read(line, flat: false)
        #expect(flat == parsed)
        #expect(flat == .failure(JournalRecordError("'select' has a field this tabd does not know: 'colour'")))
    }

    /// Generated record lines built from the pieces of real records and their near misses, in
    /// the three journal formats: read from their bytes, they read as the parser reads them
    /// (the same record or the same refusal), and the flat reader takes many of them.
    @Test func agreesWithTheParser() {
        let seed = ProcessInfo.processInfo.environment["JOURNALFLAT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var rng = SplitMix64(seed: seed)
        func pick(_ options: [String]) -> String { options[Int(rng.next() % UInt64(options.count))] }
        let keys = [#""op""#, #""controller""#, #""tab""#, #""index""#, #""more""#, #""seq""#, #""value""#, #""orientation""#,
                    #""to""#, #""hidden""#, #""visible""#, #""cmd""#, #""id""#, #""idiom""#, #""max_visible""#, #""tap_pops""#,
                    #""mode""#, #""group""#, #""Op""#, #""ta\u0062""#, #""""#, #""tab ""#, #""a_very_long_key_name""#]
        let ops = [#""select""#, #""tap""#, #""seq""#, #""badge""#, #""pop""#, #""pop_to_root""#, #""remove_tab""#,
                   #""rotate""#, #""set_orientation""#, #""_set_orientation""#, #""set_hidden""#, #""sidebar""#,
                   #""customize.begin""#, #""customize.move""#, #""customize.end""#, #""controller.create""#,
                   #""controller.delete""#, #""reorder""#, #""nope""#]
        let values = ops + [#""a""#, #""main""#, #""pad-1""#, #""""#, #""x y""#, #""\n""#, #""é""#, #""portrait""#,
                            #""landscape_left""#, #""tv""#, #""reselect""#, #""tab""#, "0", "1", "-1", "7", "01", "-0",
                            "1.5", "2e3", "123456789012345678", "1234567890123456789", "true", "false", "null", "nul",
                            "[]", "{}", "-", "--1"]
        let spaces = ["", "", "", " ", "\t", "\r", "  "]
        var flat = 0, accepted = 0
        let rounds = 20_000
        for _ in 0..<rounds {
            let version = [1, 2, 3, 3, 3][Int(rng.next() % 5)]
            var members: [String] = []
            if rng.next() % 5 != 0 {
                members.append((version == 1 ? #""cmd""# : #""op""#) + ":" + pick(ops))
            }
            for _ in 0..<Int(rng.next() % 5) {
                members.append(pick(keys) + pick(spaces) + ":" + pick(spaces) + pick(values))
            }
            members.shuffle(using: &rng)
            var json = pick(spaces) + "{" + members.map { pick(spaces) + $0 + pick(spaces) }.joined(separator: ",") + "}" + pick(spaces)
            switch rng.next() % 40 {
            case 0: json.removeLast()
            case 1: json += ","
            case 2: json = json.replacingOccurrences(of: ":", with: "")
            default: break
            }
            let line = version >= 2 ? "\(String(rng.next() % 300 + 1, radix: 16)) \(json)" : json
            let fromBytes = read(line, version: version, flat: true)
            let parsed = read(line, version: version, flat: false)
            if readsFlat(json) { flat += 1 }
            if case .success = parsed { accepted += 1 }
            #expect(fromBytes == parsed, "seed \(seed): \(line)")
            if fromBytes != parsed { break }
        }
        #expect(flat > rounds / 4, "seed \(seed): the flat reader took \(flat) of \(rounds)")
        #expect(accepted > rounds / 100, "seed \(seed): \(accepted) of \(rounds) read")
    }
}
