// R15's containers in damaged state files: a snapshot whose tree is impossible (a cycle, a
// child held by two, attached to a container that does not exist, a chain too deep) is
// refused in one sentence before anything walks it; a journal whose `node.*` record names a
// controller deleted before it is damage at that record, refused or set aside by --repair.

import Foundation
import TabCore
import TabJSON
import Testing
@testable import TabState

@Suite struct ContainerDamageTests {
    /// A snapshot with `main` and the composites object `composites`, as a hand would edit it.
    static func snapshot(composites: String) throws -> [UInt8] {
        let body = String(decoding: try StateStore.encodeSnapshotBody(TabContainers.withDefault()), as: UTF8.self)
        #expect(body.hasPrefix("{"))
        return Journal.snapshot(body: Array(("{\"composites\":" + composites + "," + body.dropFirst()).utf8), generation: 0, lastSeq: 0)
    }

    static func custom(_ children: String, parent: String = "null") -> String {
        #"{"kind":"custom","window":false,"idiom":"phone","seq":0,"parent":\#(parent),"children":[\#(children)],"shown":[],"status_bar_child":null}"#
    }

    static func kid(_ id: String, _ controller: String) -> String {
        #"{"id":"\#(id)","title":null,"restoration_id":null,"controller":"\#(controller)"}"#
    }

    static func at(_ name: String, _ slot: String) -> String { #"{"controller":"\#(name)","child":"\#(slot)"}"# }

    @Test func impossibleTreesInASnapshotAreRefusedInOneSentence() throws {
        let deep = (0..<5000).map { i in
            #""d\#(i)":"# + Self.custom(i == 4999 ? "" : Self.kid("k", "d\(i + 1)"), parent: i == 0 ? "null" : Self.at("d\(i - 1)", "k"))
        }.joined(separator: ",")
        let cases: [(String, String)] = [
            (#"{"a":\#(Self.custom(Self.kid("k", "b"), parent: Self.at("b", "k"))),"b":\#(Self.custom(Self.kid("k", "a"), parent: Self.at("a", "k")))}"#,
             "more than 8 controllers deep"),
            (#"{"a":\#(Self.custom(Self.kid("k", "a"), parent: Self.at("a", "k")))}"#, "more than 8 controllers deep"),
            (#"{"a":\#(Self.custom("", parent: Self.at("ghost", "k")))}"#, "controller 'a' is attached to 'ghost' as 'k', which does not hold it"),
            (#"{"p":\#(Self.custom(Self.kid("k", "ghost")))}"#, "controller 'p' holds 'ghost' as 'k', which is not attached there"),
            (#"{"x":\#(Self.custom("", parent: Self.at("p", "k"))),"p":\#(Self.custom(Self.kid("k", "x"))),"q":\#(Self.custom(Self.kid("k", "x")))}"#,
             "controller 'q' holds 'x' as 'k', which is not attached there"),
            ("{" + deep + "}", "more than 8 controllers deep"),
        ]
        for (composites, words) in cases {
            let dir = StateDir()
            dir.write("snapshot", try Self.snapshot(composites: composites))
            let message = refusal { try Session(dir).open() }
            #expect(message?.contains("the snapshot \(dir.path)/snapshot is damaged (its state is inconsistent: ") == true, "\(message ?? "nil")")
            #expect(message?.contains(words) == true, "\(message ?? "nil")")
            #expect(message?.contains("--repair") == true)
        }
    }

    /// Records a journal can hold only if damaged: a container's command, and an attachment,
    /// after the controller they name was deleted.
    @Test(arguments: [
        JournalRecord.node(controller: "x", .push(ChildObject(id: "s2"), animated: false)),
        JournalRecord.node(controller: "box", .setChildren([ChildObject(id: "k", controller: "x")], shown: nil)),
    ])
    func aNodeRecordAfterItsControllerWasDeletedIsDamage(_ late: JournalRecord) throws {
        let dir = StateDir()
        let records: [JournalRecord] = [
            .createController(name: "x", .composite(CompositeSpec(body: .navigation(NavigationState(stack: [ChildObject(id: "s")]))))),
            .createController(name: "box", .composite(CompositeSpec(body: .custom(CustomState(children: [ChildObject(id: "k", controller: "x")], shown: ["k"])), window: true))),
            .node(controller: "box", .setChildren([], shown: nil)),
            .deleteController(name: "x"),
            late,
        ]
        dir.write("journal-0.log", Journal.file(generation: 0, firstSeq: 1, records))
        let message = refusal { try Session(dir).open() }
        #expect(message?.contains("is damaged at record 5") == true, "\(message ?? "nil")")
        #expect(message?.contains("no controller named 'x'") == true, "\(message ?? "nil")")
        let repaired = Session(dir)
        try repaired.open(repair: true)
        #expect(repaired.state.composites["x"] == nil && repaired.state.composites["box"] != nil)
        #expect(repaired.state.inconsistency == nil)
    }
}

@Suite struct ReplayWarningTests {
    /// A phone split, created collapsed: its creation asked top-column-for-collapsing.
    static func split(_ answers: [ProposalAnswer]) -> JournalRecord {
        .createController(name: "s", .composite(CompositeSpec(body: .split(SplitState(style: .double, primary: ChildObject(id: "p"), secondary: ChildObject(id: "q"))),
                                                              answers: answers)))
    }

    @Test("R15.8 d: a record replayed as written says nothing; one whose answers do not match keeps the proposal and says so")
    func r15_8_replayReportsMismatchedAnswers() throws {
        var good = TabContainers.withDefault()
        #expect(try good.replay(Self.split([ProposalAnswer(controller: "s", .topColumn(.primary))]), semantics: .amended).isEmpty)
        var bad = TabContainers.withDefault()
        let warnings = try bad.replay(Self.split([ProposalAnswer(controller: "elsewhere", .topColumn(.primary))]), semantics: .amended)
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.first?.contains("'elsewhere'") == true)
        guard case .split(let s) = bad.composites["s"]!.body else { Issue.record("not a split"); return }
        #expect(s.topColumn == .secondary)  // the proposal, kept
    }
}
