// "brief": true (docs/protocol.md, "Brief replies"): a command whose reply carries a list as
// long as the controller answers without it, and does exactly what it does without it.

import Foundation
import TabJSON
import TestRandom
import Testing

@Suite("Brief replies")
struct BriefReplyTests {
    /// The reply members that are a list as long as the controller: what brief leaves out.
    static let lists: Set<String> = ["tabs", "customizable", "customizing_order"]

    /// Generated streams of the list commands (and selects between them) go to two tabds, to
    /// one as they are and to the other with "brief": true. Each brief reply is the full one
    /// without its list, each refusal is the same refusal, and the two states stay equal.
    @Test("a brief command does what the full one does; its reply is the full one without the list", arguments: [1, 2, 3] as [UInt64])
    func briefRepliesLeaveOutOnlyTheList(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let full = try TabdProcess(), brief = try TabdProcess()
        let a = try full.client(), b = try brief.client()
        let pool = (0..<12).map { "t\($0)" }
        var current: [String] = []
        var listReplies: [String: Int] = [:]  // by command, the successes whose reply had a list
        for step in 0..<300 {
            // Mostly a tab the controller has (the last list a full reply gave), sometimes any.
            let id = !current.isEmpty && Int.random(in: 0..<10, using: &rng) < 8
                ? current[Int.random(in: 0..<current.count, using: &rng)] : pool[Int.random(in: 0..<pool.count, using: &rng)]
            let to = Int.random(in: -1...13, using: &rng)
            let line: String
            switch Int.random(in: 0..<10, using: &rng) {
            case 0:
                // Often more than five: More is shown, and customization possible.
                let ids = pool.filter { _ in Int.random(in: 0..<4, using: &rng) > 0 }
                line = #"{"cmd":"set_tabs","tabs":[\#(ids.map { #"{"id":"\#($0)"}"# }.joined(separator: ","))]"#
            case 1:
                let fresh = pool.filter { !current.contains($0) }
                let new = fresh.isEmpty ? id : fresh[Int.random(in: 0..<fresh.count, using: &rng)]
                line = #"{"cmd":"add_tab","tab":{"id":"\#(new)"},"index":\#(max(0, to))"#
            case 2: line = #"{"cmd":"remove_tab","tab":"\#(id)""#
            case 3:
                let ids = current.filter { _ in Bool.random(using: &rng) }
                line = #"{"cmd":"customizable","tabs":[\#(ids.map { #""\#($0)""# }.joined(separator: ","))]"#
            case 4: line = #"{"cmd":"customize.begin""#
            case 5, 6, 7: line = #"{"cmd":"customize.move","tab":"\#(id)","to":\#(to)"#
            case 8: line = #"{"cmd":"customize.end""#
            default: line = #"{"cmd":"select","tab":"\#(id)""#
            }
            let isList = !line.hasPrefix(#"{"cmd":"select""#)
            let replyA = try a.request(line + "}")
            let replyB = try b.request(line + (isList ? #","brief":true}"# : "}"))
            if case .bool(true)? = replyA["ok"], case .object(let resultA)? = replyA["result"] {
                guard case .object(let resultB)? = replyB["result"] else {
                    Issue.record("step \(step): \(line)} succeeded, its brief form did not: \(JSONValue.object(replyB).jsonString)")
                    return
                }
                if let tabs = resultA.strings("tabs") { current = tabs }
                let kept = JSONObject(resultA.filter { !(isList && Self.lists.contains($0.key)) }.map { ($0.key, $0.value) })
                #expect(resultB == kept, "step \(step): \(line)}")
                if isList, resultA.contains(where: { Self.lists.contains($0.key) }) {
                    listReplies[String(line.dropFirst(#"{"cmd":""#.count).prefix { $0 != "\"" }), default: 0] += 1
                }
            } else {
                #expect(replyB["ok"] == .bool(false), "step \(step): \(line)} was refused, its brief form was not")
                #expect((replyA["error"].flatMap { if case .object(let e) = $0 { e.string("code") } else { nil } })
                        == (replyB["error"].flatMap { if case .object(let e) = $0 { e.string("code") } else { nil } }), "step \(step): \(line)}")
            }
            if step % 25 == 24 {
                #expect(try a.ok(#"{"cmd":"state"}"#) == (try b.ok(#"{"cmd":"state"}"#)), "state after step \(step)")
            }
        }
        // Every list command succeeded with a list to leave out, most of them many times.
        #expect(listReplies.count == 7 && listReplies.values.reduce(0, +) > 50, "list replies: \(listReplies.sorted { $0.key < $1.key })")
    }

    /// brief is a field of the list commands only; it takes true or false.
    @Test func briefIsAFieldOfTheListCommandsOnly() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        let unknown = try c.error(#"{"cmd":"select","tab":"b","brief":true}"#)
        #expect(unknown.string("code") == "invalid_request")
        #expect(unknown.string("message")?.contains("'brief'") == true)
        let wrong = try c.error(#"{"cmd":"add_tab","tab":{"id":"c"},"brief":"yes"}"#)
        #expect(wrong.string("code") == "invalid_request")
        // Neither refusal changed anything; brief false is the full reply.
        #expect(try c.ok(#"{"cmd":"add_tab","tab":{"id":"c"},"brief":false}"#).strings("tabs") == ["a", "b", "c"])
        let r = try c.ok(#"{"cmd":"remove_tab","tab":"c","brief":true}"#)
        #expect(r["tabs"] == nil && r.bool("changed") == true)
        #expect(try c.ok(#"{"cmd":"select","tab":"b"}"#).string("selected") == "b")
    }
}
