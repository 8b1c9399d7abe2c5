// SEMANTICS R15.10, R15.41, R15.2, R15.11 and R15.8 d against a real tabd: a tab controller
// below a non-tab root takes the root's environment; a non-tab root's rotate asks the
// plugins; a tab's content replaced or moved sends its set change; a tab root holding a
// content controller reports its status bar path; a journal record whose plugin answers do
// not match is replayed with a warning in the log. Each test named after its rule.

import Foundation
import Glibc
import TabJSON
import Testing

@Suite struct TreeEnvironmentEndToEndTests {
    /// The pad drawer `root` (in a window, center the screen `home`) and the hidden pad tab
    /// controller `tabs` (tabs a, b: portrait only, a tab's default).
    static func padDrawerAndTabs(_ t: TabdProcess) throws -> LineClient {
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"tabs","idiom":"pad","window":false}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"root","kind":"drawer","window":true,"idiom":"pad","center":{"id":"home"}}"#)
        return c
    }

    /// R15.12: the states of `names` (read through `c`) are the same after SIGKILL and SIGTERM.
    static func expectSameAfterRestarts(_ t: TabdProcess, _ names: [String], _ c: LineClient,
                                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try stateLines(c, names)
        for signal in [SIGKILL, SIGTERM] {
            _ = t.stop(signal: signal)
            try t.start()
            #expect(try stateLines(try t.client(), names) == before, "after signal \(signal)", sourceLocation: sourceLocation)
        }
    }

    static func plain(_ lines: [String]) -> [String] {
        lines.map { $0.replacingOccurrences(of: #"#\d+"#, with: "", options: .regularExpression) }
    }

    @Test("R15.10, R15.41: a tab controller attached below a drawer root adopts its orientation silently, follows its rotate, keeps it when detached; all of it survives restarts")
    func r15_10_tabControllerBelowDrawerTakesRootEnvironment() throws {
        let t = try TabdProcess()
        let c = try Self.padDrawerAndTabs(t)
        try c.ok(#"{"cmd":"rotate","controller":"root","orientation":"landscape_left"}"#)
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["root","tabs"],"events":["*"]}"#)
        try c.ok(#"{"cmd":"set_center","controller":"root","child":{"id":"center","controller":"tabs"}}"#)
        let (attach, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(!attach.contains { $0.string("event") == "orientation_changed" })  // adopted silently
        #expect(try c.ok(#"{"cmd":"state","controller":"tabs"}"#).object("orientation")?.string("current") == "landscape_left")  // its tabs support only portrait
        try c.ok(#"{"cmd":"rotate","controller":"root","orientation":"landscape_right"}"#)
        let (turn, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(Self.plain(TabContentEndToEndTests.describe(turn)) == ["root orientation_changed", "tabs orientation_changed"])
        #expect(turn.last?.object("data")?.string("orientation") == "landscape_right")
        // Its own rotate stays the root's.
        try c.expectRefusals([(#"{"cmd":"rotate","controller":"tabs","orientation":"portrait"}"#, "not_available")])
        try Self.expectSameAfterRestarts(t, ["root", "tabs"], c)
        // Detached, it keeps what it had (R15.41).
        let c2 = try t.client()
        try c2.ok(#"{"cmd":"set_center","controller":"root","child":{"id":"home"}}"#)
        #expect(try c2.ok(#"{"cmd":"state","controller":"tabs"}"#).object("orientation")?.string("current") == "landscape_right")
    }

    @Test("R15.10, R12: a non-tab root's rotate asks the plugins: orientation-rules' lock keeps a navigation root in portrait")
    func r15_10_nonTabRootRotateAsksPlugins() throws {
        let t = try TabdProcess(config: Plugins.config("    - path: libOrientationRules.so\n      settings:\n        lock: [portrait, landscape_left]\n"))
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"nav","kind":"navigation","window":true,"stack":[{"id":"a"}]}"#)
        #expect(try c.ok(#"{"cmd":"rotate","controller":"nav","orientation":"landscape_right"}"#).bool("changed") == false)
        #expect(try c.ok(#"{"cmd":"state","controller":"nav"}"#).string("orientation") == "portrait")
        #expect(try c.ok(#"{"cmd":"rotate","controller":"nav","orientation":"landscape_left"}"#).bool("changed") == true)
        #expect(try c.ok(#"{"cmd":"state","controller":"nav"}"#).string("orientation") == "landscape_left")
    }

    @Test("R15.2, R15.6, R15.11: replacing a visible tab's content sends the tab's set change; the tab root's state has its status_bar_path")
    func r15_2_replacedContentSendsSetChange() throws {
        let (t, c, sub) = try TabContentEndToEndTests.tabsOverNavigation()
        defer { withExtendedLifetime(t) {} }
        try c.ok(#"{"cmd":"controller.create","controller":"other","kind":"navigation","stack":[{"id":"a"}]}"#)
        try c.ok(#"{"cmd":"select","tab":"mail"}"#)
        #expect(try c.ok(#"{"cmd":"state"}"#).strings("status_bar_path") == ["mail", "thread"])
        _ = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"subscribe","controllers":["main","boxes","other"],"events":["*"]}"#)
        try c.ok(#"{"cmd":"update_tab","tab":"mail","content_controller":"other"}"#)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        let lines = Self.plain(TabContentEndToEndTests.describe(events)).filter { !$0.hasPrefix("main tab_updated") && !$0.hasPrefix("main bar_changed") }
        #expect(lines == [
            "main containment mail will_move", "main appearance mail will_disappear", "boxes appearance thread will_disappear",
            "main appearance mail did_disappear", "boxes appearance thread did_disappear", "main containment mail did_move",
            "main containment mail will_move", "main containment mail did_move",
            "main appearance mail will_appear", "other appearance a will_appear", "main appearance mail did_appear", "other appearance a did_appear",
            "boxes parent_changed", "other parent_changed", "main status_bar_changed mail/a",
        ], "\(lines)")
        // The leaving half names the old content, the entering half the new one.
        let moves = events.filter { $0.string("event") == "containment" }.compactMap { $0.object("data")?.string("child_controller") }
        #expect(moves == ["boxes", "boxes", "other", "other"])
        #expect(events.first { $0.string("event") == "containment" }?.object("data")?.string("tab") == "mail")
        #expect(try c.ok(#"{"cmd":"state"}"#).strings("status_bar_path") == ["mail", "a"])
    }

    @Test("R15.2, R15.4: a content controller moves from one tab to another in one set_tabs, and the move survives restarts")
    func r15_2_contentMovesBetweenTabs() throws {
        let (t, c, sub) = try TabContentEndToEndTests.tabsOverNavigation()
        _ = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"news","controller":"boxes"},{"id":"mail"}]}"#)
        let (events, _) = try ModernModelEndToEndTests.eventsAndReply(sub, #"{"cmd":"ping"}"#)
        #expect(events.filter { $0.string("event") == "parent_changed" }.count == 1)
        let boxes = try c.ok(#"{"cmd":"state","controller":"boxes"}"#)
        #expect(boxes.object("parent")?.string("child") == "news")
        #expect(try c.ok(#"{"cmd":"state"}"#).strings("status_bar_path") == ["news", "thread"])
        try Self.expectSameAfterRestarts(t, ["main", "boxes"], c)
    }

    @Test("R15.8 d: a journal record whose plugin answers do not match what its command asks is replayed with the proposal, and the log says so")
    func r15_8_mismatchedAnswersAreLogged() throws {
        let t = try TabdProcess(config: "fsync: always\n")
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"s","kind":"split","style":"double","primary":{"id":"p"},"secondary":{"id":"q"}}"#)
        let before = try stateLines(c, ["s"])
        #expect(t.stop() == 0)
        #expect(!t.log.contains("replay:"))
        let path = try StateDirectoryTests.journal(t)
        var lines = try StateDirectoryTests.journalLines(path)
        let i = try #require(lines.firstIndex { $0.contains(#"{"controller":"s","top_column":"secondary"}"#) }, "\(lines)")
        // The record's answer now names another split, with a checksum that matches.
        let rest = lines[i].dropFirst(9).replacingOccurrences(of: #"{"controller":"s","top_column":"secondary"}"#, with: #"{"controller":"elsewhere","top_column":"primary"}"#)
        lines[i] = String(format: "%08x ", HostileFilesTests.crc32(Array(rest.utf8))) + rest
        try StateDirectoryTests.writeJournal(path, lines)
        try t.start()
        #expect(try stateLines(try t.client(), ["s"]) == before)  // the proposal, secondary, kept
        #expect(t.log.contains("replay:"))
        #expect(t.log.contains("'elsewhere'"))
        #expect(t.log.contains("state.replay_warnings"))
    }
}
