// The `state` memo (EncodedStates) answers with the bytes it kept only for a controller equal
// to the one they were encoded from, and equality covers what a `state` shows: the
// orientations the plugins decided too. When `==` left those out, a reload that changed only
// the plugins' answers was answered with the reply from before it (the stale-state bug).

import Testing
import TabCore
import TabJSON
@testable import TabServer

@Suite("state memo")
struct StateMemoTests {
    /// A delegate that allows only portrait upside down and prefers it.
    struct UpsideDown: Policy {
        var decidesOrientations: Bool { true }
        func supportedOrientations(proposed: OrientationMask, in controller: LentController, effects: inout [PolicyEffect]) -> OrientationMask {
            Orientation.portraitUpsideDown.mask
        }
        func preferredOrientation(in controller: LentController, effects: inout [PolicyEffect]) -> Orientation? { .portraitUpsideDown }
    }

    private func kept(_ c: Controller, _ members: String) -> EncodedStates {
        var memo = EncodedStates()
        var w = JSONWriter(capacity: 64)
        Array(members.utf8).withUnsafeBytes { w.append(bytes: $0) }
        memo.keep(c, w, from: 0)
        return memo
    }

    @Test func aReplyIsReusedOnlyForTheSameDecidedOrientations() throws {
        var c = Controller(name: "main")
        _ = try c.apply(.setTabs([Tab(id: "a"), Tab(id: "b")], animated: false))
        var memo = kept(c, #""kept":true"#)
        var out = JSONWriter(capacity: 64)
        let found = memo.find(c)
        #expect(found != nil)
        if let found { memo.write(found, &out, id: nil) }
        #expect(String(decoding: out.bytes, as: UTF8.self).contains(#""kept":true"#))

        // A reload: the plugins now decide other orientations; nothing else changed.
        var reloaded = c
        var effects: [PolicyEffect] = []
        reloaded.decideOrientations(policy: UpsideDown(), effects: &effects)
        #expect(reloaded.decidedOrientations != c.decidedOrientations)
        var fresh = JSONWriter(capacity: 64)
        let stale = memo.find(reloaded)
        #expect(stale == nil)
        if let stale { memo.write(stale, &fresh, id: nil) }
        #expect(fresh.bytes.isEmpty)
    }

    /// A request without an id is answered with the kept line itself (sent as it is, no copy
    /// into the step's reply); one with an id gets the same members under its id. Both are
    /// the bytes a fresh encoding gives, and an engine's `state` twice answers alike.
    @Test func aKeptReplyIsTheWholeLineAndTheSameMembersUnderAnID() throws {
        var c = Controller(name: "main")
        _ = try c.apply(.setTabs([Tab(id: "a"), Tab(id: "b")], animated: false))
        var memo = kept(c, #""kept":true"#)
        let found = memo.find(c)
        let i = try #require(found)
        #expect(String(decoding: memo.line(i), as: UTF8.self) == #"{"ok":true,"result":{"kept":true}}"# + "\n")
        var w = JSONWriter(capacity: 64)
        memo.write(i, &w, id: nil)
        #expect(w.bytes == memo.line(i), "the members written again make the same line")

        let e = EmbeddedEngine()
        _ = e.send(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let fresh = e.send(#"{"cmd":"state"}"#).reply
        #expect(e.step.keptReply == nil, "the first state is encoded")
        let again = e.send(#"{"cmd":"state"}"#).reply
        #expect(e.step.keptReply != nil, "the second is the memo's line")
        #expect(again == fresh)
        let withID = e.send(#"{"cmd":"state","id":"s"}"#).reply
        #expect(e.step.keptReply == nil)
        #expect(withID == #"{"id":"s","# + fresh.dropFirst())
    }
}
