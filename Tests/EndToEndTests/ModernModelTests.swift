// R13 over the socket (SEMANTICS.md R13, PROTOCOL.md "Groups, hidden tabs, placement,
// sidebar"): every new command, field and event through a real tabd — controller.create with
// a mode, a pad controller with a group, a hidden tab, a pinned and a fixed tab; selecting and
// tapping nested tabs; set_hidden, reorder and sidebar with their events and refusals; strict
// input inside `children`; a restart (SIGTERM and kill -9) that answers `state` with the same
// bytes; and a flat controller whose `state` has none of R13's members (R13.7).

import Foundation
import TabJSON
import Testing
import TabProtocol

@Suite("R13 over the socket") struct ModernModelEndToEndTests {
    /// The pad controller of the tests: `home` fixed, the group `library` (default child
    /// `artists`, reorderable), `radio` hidden by default, `news` that may be hidden, `search`
    /// pinned.
    static let padTabs = #"[{"id":"home","title":"Home","placement":"fixed"},{"id":"library","title":"Library","subtitle":"Your music","children":[{"id":"albums"},{"id":"artists"},{"id":"songs"}],"default_child":"artists","allows_reordering":true},{"id":"radio","allows_hiding":true,"hidden_by_default":true},{"id":"news","allows_hiding":true},{"id":"search","placement":"pinned"}]"#

    static func makePad(_ c: LineClient, name: String = "pad", mode: String? = nil) throws {
        let modeField = mode.map { #","mode":"\#($0)""# } ?? ""
        try c.ok(#"{"cmd":"controller.create","controller":"\#(name)","idiom":"pad","max_visible":6\#(modeField)}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"\#(name)","tabs":\#(padTabs)}"#)
    }

    /// A tabd with the pad controller, a client, and a client subscribed to all its events.
    static func padWithSubscriber() throws -> (TabdProcess, LineClient, LineClient) {
        let t = try TabdProcess()
        let c = try t.client()
        try makePad(c)
        let sub = try Self.subscriber(t, to: "pad")
        return (t, c, sub)
    }

    /// The events a connection receives up to (and not including) the reply of its request.
    /// A new client of `t` subscribed to every event of `controller`.
    static func subscriber(_ t: TabdProcess, to controller: String) throws -> LineClient {
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["\#(controller)"],"events":["*"]}"#)
        return sub
    }

    static func eventsAndReply(_ c: LineClient, _ line: String) throws -> (events: [JSONObject], reply: JSONObject) {
        try c.write(line + "\n")
        var events: [JSONObject] = []
        while let raw = try c.readLine() {
            let o = try object(raw)
            if o["event"] != nil { events.append(o) } else { return (events, o) }
        }
        throw TestFailure("closed before the reply to \(line)")
    }

    static func named(_ events: [JSONObject], _ name: String) -> [JSONObject] {
        events.filter { $0.string("event") == name }
    }

    static func data(_ events: [JSONObject], _ name: String) throws -> JSONObject {
        let found = named(events, name)
        guard found.count == 1, let d = found[0].object("data") else {
            throw TestFailure("expected one \(name) event, got \(found.count) in \(events.map { JSONValue.object($0).jsonString })")
        }
        return d
    }

    static func tabObjects(_ state: JSONObject) -> [String: JSONObject] {
        var all: [String: JSONObject] = [:]
        func visit(_ v: JSONValue?) {
            guard case .array(let a)? = v else { return }
            for case .object(let t) in a {
                if let id = t.string("id") { all[id] = t }
                visit(t["children"])
            }
        }
        visit(state["tabs"])
        return all
    }

    static func sidebarIDs(_ v: JSONValue?) -> [String] {
        guard case .array(let a)? = v else { return [] }
        var ids: [String] = []
        for case .object(let i) in a {
            ids.append(i.string("id") ?? "?")
            if i["children"] != nil { ids.append("(" + sidebarIDs(i["children"]).joined(separator: " ") + ")") }
        }
        return ids
    }

    // MARK: controller.create with mode

    @Test func controllerCreateTakesAModeAndRefusesABadOneNamingTheField() throws {
        let t = try TabdProcess()
        let c = try t.client()
        let created = try c.ok(#"{"cmd":"controller.create","controller":"side","idiom":"pad","mode":"tab_sidebar"}"#)
        #expect(created.string("mode") == "tab_sidebar")
        // A mode alone makes `state` report R13's members; tab_sidebar gives a sidebar even without a group.
        let state = try c.ok(#"{"cmd":"state","controller":"side"}"#)
        #expect(state.string("mode") == "tab_sidebar")
        #expect(state.object("sidebar")?.bool("available") == true)
        #expect(state.object("sidebar")?.bool("visible") == true)
        #expect(state.strings("selected_path") == [])
        let bad = try c.error(#"{"cmd":"controller.create","controller":"other","idiom":"pad","mode":"sidebar"}"#)
        #expect(bad.string("code") == "invalid_request")
        #expect(bad.string("field") == "mode")
        #expect(bad.string("message")?.contains("automatic, tab_bar, tab_sidebar") == true)
        // Nothing was created.
        let missing = try c.error(#"{"cmd":"state","controller":"other"}"#)
        #expect(missing.string("code") == "not_found")
        let wrongType = try c.error(#"{"cmd":"controller.create","controller":"other","mode":3}"#)
        #expect(wrongType.string("field") == "mode")
        // tab_bar on a pad: no sidebar even with a group.
        try Self.makePad(c, name: "bar", mode: "tab_bar")
        let barState = try c.ok(#"{"cmd":"state","controller":"bar"}"#)
        #expect(barState.object("sidebar")?.bool("available") == false)
        #expect(try c.error(#"{"cmd":"sidebar","controller":"bar","visible":true}"#).string("code") == "not_available")
    }

    // MARK: state

    @Test func statesReportsTheTreePlacementAndTheSidebar() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.makePad(c)
        let state = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(state.string("selected") == "home")
        #expect(state.strings("selected_path") == ["home"])
        #expect(state.string("mode") == "automatic")
        let tabs = Self.tabObjects(state)
        let library = try #require(tabs["library"])
        #expect(library.strings("display_order") == ["albums", "artists", "songs"])
        #expect(library.string("selected_child") == "artists")  // the default child until one is selected
        #expect(library.string("default_child") == "artists")
        #expect(library.bool("allows_reordering") == true)
        #expect(library.string("subtitle") == "Your music")
        guard case .array(let kids)? = library["children"] else { throw TestFailure("library has no children") }
        #expect(kids.count == 3)
        #expect(tabs["home"]?.string("placement") == "fixed")
        #expect(tabs["search"]?.string("placement") == "pinned")
        #expect(tabs["radio"]?.bool("hidden") == true)
        #expect(tabs["radio"]?.bool("hidden_by_default") == true)
        #expect(tabs["news"]?.bool("hidden") == false)
        #expect(tabs["news"]?.bool("allows_hiding") == true)
        // The bar: fixed first, the user's order (default tabs), pinned last; hidden tabs and
        // a group's children (optional by default) are not in it.
        #expect(state.object("bar")?.strings("visible") == ["home", "library", "news", "search"])
        let sidebar = try #require(state.object("sidebar"))
        #expect(sidebar.bool("available") == true)
        #expect(sidebar.bool("visible") == true)  // visible initially where it exists
        #expect(Self.sidebarIDs(sidebar["items"]) == ["home", "library", "(albums artists songs)", "news", "search"])
        // A tab object sent back exactly as `state` reported it is accepted (selected_child and
        // display_order are state-only members).
        let lib = JSONValue.object(library).jsonString
        try c.ok(#"{"cmd":"controller.create","controller":"copy","idiom":"pad"}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"copy","tabs":[\#(lib)]}"#)
        #expect(Self.tabObjects(try c.ok(#"{"cmd":"state","controller":"copy"}"#))["library"]?.strings("display_order") == ["albums", "artists", "songs"])
    }

    // MARK: select and tap in the tree

    @Test func selectAndTapANestedTabReportThePath() throws {
        let (t, c, sub) = try Self.padWithSubscriber()
        defer { withExtendedLifetime(t) {} }
        // Selecting a group descends to its default child.
        var (events, reply) = try Self.eventsAndReply(sub, #"{"cmd":"select","controller":"pad","tab":"library"}"#)
        var result = try #require(reply.object("result"))
        #expect(result.string("selected") == "library")
        #expect(result.strings("selected_path") == ["library", "artists"])
        var changed = try Self.data(events, "selection_changed")
        #expect(changed.string("tab") == "library")
        #expect(changed.string("previous") == "home")
        #expect(changed.string("cause") == "select")
        #expect(changed.strings("path") == ["library", "artists"])
        // Appearance follows the leaf.
        #expect(Self.named(events, "appearance").compactMap { $0.object("data")?.string("tab") } == ["home", "artists", "home", "artists"])
        #expect(try Self.data(events, "content_loaded").string("tab") == "artists")
        // A tap on a nested tab: did_select names the tab, the path and the previous leaf.
        (events, reply) = try Self.eventsAndReply(sub, #"{"cmd":"tap","controller":"pad","tab":"songs"}"#)
        result = try #require(reply.object("result"))
        #expect(result.strings("selected_path") == ["library", "songs"])
        changed = try Self.data(events, "selection_changed")
        #expect(changed.string("cause") == "tap")
        #expect(changed.strings("path") == ["library", "songs"])
        let did = try Self.data(events, "did_select")
        #expect(did.string("tab") == "songs")
        #expect(did.strings("path") == ["library", "songs"])
        #expect(did.string("previous") == "artists")
        // The group remembers its selected child: selecting it again lands on songs.
        try c.ok(#"{"cmd":"select","controller":"pad","tab":"news"}"#)
        #expect(try c.ok(#"{"cmd":"select","controller":"pad","tab":"library"}"#).strings("selected_path") == ["library", "songs"])
        let state = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(Self.tabObjects(state)["library"]?.string("selected_child") == "songs")
        #expect(state.strings("selected_path") == ["library", "songs"])
        #expect(state.string("selected") == "library")  // `selected` stays the root tab
        // An id in no tab of the tree.
        #expect(try c.error(#"{"cmd":"select","controller":"pad","tab":"nowhere"}"#).string("code") == "not_found")
    }

    // MARK: set_hidden

    @Test func setHiddenAnnouncesVisibilityAndMovesTheSelection() throws {
        let (t, c, sub) = try Self.padWithSubscriber()
        defer { withExtendedLifetime(t) {} }
        // A hidden tab cannot be selected or tapped.
        let hiddenSelect = try c.error(#"{"cmd":"select","controller":"pad","tab":"radio"}"#)
        #expect(hiddenSelect.string("code") == "not_available")
        #expect(hiddenSelect.string("message")?.contains("hidden") == true)
        #expect(try c.error(#"{"cmd":"tap","controller":"pad","tab":"radio"}"#).string("code") == "not_available")
        // A tab without allows_hiding: conflict, nothing changes.
        let before = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        let refused = try c.error(#"{"cmd":"set_hidden","controller":"pad","tab":"home","hidden":true}"#)
        #expect(refused.string("code") == "conflict")
        #expect(refused.string("message")?.contains("allows_hiding") == true)
        #expect(try c.error(#"{"cmd":"set_hidden","controller":"pad","tab":"nowhere","hidden":true}"#).string("code") == "not_found")
        let missing = try c.error(#"{"cmd":"set_hidden","controller":"pad","tab":"radio"}"#)
        #expect(missing.string("field") == "hidden")
        #expect(try c.error(#"{"cmd":"set_hidden","controller":"pad","tab":"radio","hidden":"no"}"#).string("field") == "hidden")
        #expect(try c.ok(#"{"cmd":"state","controller":"pad"}"#) == before)
        // Showing radio: visibility_changed, the bar takes it.
        var (events, reply) = try Self.eventsAndReply(sub, #"{"cmd":"set_hidden","controller":"pad","tab":"radio","hidden":false}"#)
        #expect(events.first?.int("seq") == before.int("seq")! + 1)  // nothing was numbered for the refusals
        var vis = try Self.data(events, "visibility_changed")
        #expect(vis["tabs"] == .array([.object(JSONObject([("id", .string("radio")), ("hidden", .bool(false))]))]))
        var result = try #require(reply.object("result"))
        #expect(result.object("bar")?.strings("visible") == ["home", "library", "radio", "news", "search"])
        #expect(try Self.data(events, "bar_changed").strings("visible") == ["home", "library", "radio", "news", "search"])
        // Hiding the selected tab selects the nearest visible sibling before it (cause `hidden`).
        _ = try Self.eventsAndReply(sub, #"{"cmd":"select","controller":"pad","tab":"news"}"#)
        (events, reply) = try Self.eventsAndReply(sub, #"{"cmd":"set_hidden","controller":"pad","tab":"news","hidden":true}"#)
        #expect(events.first?.string("event") == "visibility_changed")  // before the selection moves
        vis = try Self.data(events, "visibility_changed")
        #expect(vis["tabs"] == .array([.object(JSONObject([("id", .string("news")), ("hidden", .bool(true))]))]))
        let moved = try Self.data(events, "selection_changed")
        #expect(moved.string("cause") == "hidden")
        #expect(moved.string("previous") == "news")
        #expect(moved.string("tab") == "radio")
        #expect(moved.strings("path") == ["radio"])
        result = try #require(reply.object("result"))
        #expect(result.string("selected") == "radio")
        #expect(result.strings("selected_path") == ["radio"])
        // Hiding a nested selected tab: the sibling before it in display order.
        try c.ok(#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"home","placement":"fixed"},{"id":"library","children":[{"id":"albums","allows_hiding":true},{"id":"artists","allows_hiding":true}]}]}"#)
        try c.ok(#"{"cmd":"select","controller":"pad","tab":"artists"}"#)
        let fallback = try c.ok(#"{"cmd":"set_hidden","controller":"pad","tab":"artists","hidden":true}"#)
        #expect(fallback.strings("selected_path") == ["library", "albums"])
        // Hiding an unselected tab twice: the second changes nothing and announces nothing.
        let again = try c.ok(#"{"cmd":"set_hidden","controller":"pad","tab":"artists","hidden":true}"#)
        #expect(again.bool("changed") == false)
    }

    // MARK: reorder

    @Test func reorderTheBarAndAGroup() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"pad","idiom":"pad","max_visible":6}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"home","placement":"fixed"},{"id":"library","children":[{"id":"albums"},{"id":"artists"},{"id":"songs"}],"allows_reordering":true},{"id":"fixedgroup","children":[{"id":"x"},{"id":"y"}]},{"id":"news"},{"id":"mail","placement":"movable"},{"id":"extra","placement":"optional"},{"id":"search","placement":"pinned"}]}"#)
        let sub = try Self.subscriber(t, to: "pad")
        var state = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(state.object("bar")?.strings("visible") == ["home", "library", "fixedgroup", "news", "mail", "search"])
        // A group: a permutation of its children.
        var (events, reply) = try Self.eventsAndReply(sub, #"{"cmd":"reorder","controller":"pad","group":"library","order":["songs","albums","artists"]}"#)
        #expect(reply.bool("ok") == true)
        var order = try Self.data(events, "display_order_changed")
        #expect(order.string("group") == "library")
        #expect(order.strings("order") == ["songs", "albums", "artists"])
        state = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(Self.tabObjects(state)["library"]?.strings("display_order") == ["songs", "albums", "artists"])
        // The first child in display order is the one a group shows without a default.
        (_, reply) = try Self.eventsAndReply(sub, #"{"cmd":"select","controller":"pad","tab":"library"}"#)
        #expect(reply.object("result")?.strings("selected_path") == ["library", "songs"])
        // The bar: leaving out a default tab removes it; naming an optional one adds it.
        (events, reply) = try Self.eventsAndReply(sub, #"{"cmd":"reorder","controller":"pad","order":["mail","extra","library"]}"#)
        order = try Self.data(events, "display_order_changed")
        #expect(order.isNull("group"))
        #expect(order.strings("order") == ["mail", "extra", "library"])
        let bar = try Self.data(events, "bar_changed")
        #expect(bar.strings("visible") == ["home", "mail", "extra", "library", "search"])
        #expect(reply.object("result")?.object("bar")?.strings("visible") == ["home", "mail", "extra", "library", "search"])
        let afterBar = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        // Refusals change nothing: a movable tab left out, a fixed or pinned tab named, not a
        // permutation of a group's children, a group that does not allow reordering, a
        // duplicate, an unknown id, no order.
        let refusals: [(String, String, String)] = [
            (#"{"cmd":"reorder","controller":"pad","order":["library"]}"#, "conflict", "movable"),
            (#"{"cmd":"reorder","controller":"pad","order":["home","mail"]}"#, "conflict", "fixed"),
            (#"{"cmd":"reorder","controller":"pad","order":["mail","search"]}"#, "conflict", "pinned"),
            (#"{"cmd":"reorder","controller":"pad","group":"library","order":["songs","albums"]}"#, "invalid_request", "leaves out 'artists'"),
            (#"{"cmd":"reorder","controller":"pad","group":"library","order":["songs","albums","artists","news"]}"#, "invalid_request", "'news' is not a child"),
            (#"{"cmd":"reorder","controller":"pad","group":"fixedgroup","order":["y","x"]}"#, "conflict", "allows_reordering"),
            (#"{"cmd":"reorder","controller":"pad","group":"news","order":[]}"#, "conflict", "not a group"),
            (#"{"cmd":"reorder","controller":"pad","order":["mail","mail"]}"#, "invalid_request", "twice"),
            (#"{"cmd":"reorder","controller":"pad","order":["mail","nowhere"]}"#, "not_found", "nowhere"),
            (#"{"cmd":"reorder","controller":"pad","group":"nowhere","order":[]}"#, "not_found", "nowhere"),
            (#"{"cmd":"reorder","controller":"pad"}"#, "invalid_request", "order"),
            (#"{"cmd":"reorder","controller":"pad","order":["mail",1]}"#, "invalid_request", "order"),
        ]
        for (line, code, words) in refusals {
            let e = try c.error(line)
            #expect(e.string("code") == code, "\(line)")
            #expect(e.string("message")?.contains(words) == true, "\(line): \(e.string("message") ?? "")")
        }
        #expect(try c.ok(#"{"cmd":"state","controller":"pad"}"#) == afterBar)
        // R7 customize is refused on a controller arranged with R13: the user uses reorder.
        try c.ok(#"{"cmd":"customizable","controller":"pad","tabs":["news","mail"]}"#)
        let customize = try c.error(#"{"cmd":"customize.begin","controller":"pad"}"#)
        #expect(customize.string("code") == "not_available")
        // R14.6: where the sidebar exists the user edits with edit.begin (and reorder).
        #expect(customize.string("message")?.contains("edit.begin") == true)
        // The user's bar order survives set_tabs; a new default tab joins its end. A group's
        // display order and selected child survive too.
        try c.ok(#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"home","placement":"fixed"},{"id":"library","children":[{"id":"albums"},{"id":"artists"},{"id":"songs"}],"allows_reordering":true},{"id":"fixedgroup","children":[{"id":"x"},{"id":"y"}]},{"id":"news"},{"id":"mail","placement":"movable"},{"id":"extra","placement":"optional"},{"id":"video"},{"id":"search","placement":"pinned"}]}"#)
        state = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(state.object("bar")?.strings("visible") == ["home", "mail", "extra", "library", "video", "search"])
        let lib = Self.tabObjects(state)["library"]
        #expect(lib?.strings("display_order") == ["songs", "albums", "artists"])
        #expect(lib?.string("selected_child") == "songs")
        // R13.8: remove_tab takes any tab of the tree; the group's display order drops it.
        try c.ok(#"{"cmd":"remove_tab","controller":"pad","tab":"albums"}"#)
        state = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(Self.tabObjects(state)["library"]?.strings("display_order") == ["songs", "artists"])
    }

    // MARK: sidebar

    @Test func sidebarShowsAndHidesWhereItExists() throws {
        let (t, c, sub) = try Self.padWithSubscriber()
        defer { withExtendedLifetime(t) {} }
        var (events, reply) = try Self.eventsAndReply(sub, #"{"cmd":"sidebar","controller":"pad","visible":false}"#)
        #expect(try Self.data(events, "sidebar_changed").bool("visible") == false)
        let sidebar = try #require(reply.object("result")?.object("sidebar"))
        #expect(sidebar.bool("available") == true)
        #expect(sidebar.bool("visible") == false)
        #expect(Self.sidebarIDs(sidebar["items"]) == ["home", "library", "(albums artists songs)", "news", "search"])
        // The same again: nothing changes, no event.
        (events, reply) = try Self.eventsAndReply(sub, #"{"cmd":"sidebar","controller":"pad","visible":false}"#)
        #expect(events.isEmpty)
        #expect(reply.object("result")?.bool("changed") == false)
        (events, _) = try Self.eventsAndReply(sub, #"{"cmd":"sidebar","controller":"pad","visible":true}"#)
        #expect(try Self.data(events, "sidebar_changed").bool("visible") == true)
        // Hidden tabs leave the sidebar; a reorder shows in it.
        try c.ok(#"{"cmd":"set_hidden","controller":"pad","tab":"news","hidden":true}"#)
        try c.ok(#"{"cmd":"reorder","controller":"pad","group":"library","order":["songs","artists","albums"]}"#)
        let state = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        #expect(Self.sidebarIDs(state.object("sidebar")?["items"]) == ["home", "library", "(songs artists albums)", "search"])
        // None on phone and tv, even with a group: not_available, nothing changes.
        for idiom in ["phone", "tv"] {
            try c.ok(#"{"cmd":"controller.create","controller":"\#(idiom)1","idiom":"\#(idiom)"}"#)
            try c.ok(#"{"cmd":"set_tabs","controller":"\#(idiom)1","tabs":[{"id":"g","children":[{"id":"a"},{"id":"b"}]},{"id":"c"}]}"#)
            let e = try c.error(#"{"cmd":"sidebar","controller":"\#(idiom)1","visible":true}"#)
            #expect(e.string("code") == "not_available")
            #expect(e.string("message")?.contains("\(idiom) idiom has no sidebar") == true)
            let s = try c.ok(#"{"cmd":"state","controller":"\#(idiom)1"}"#)
            #expect(s.object("sidebar")?.bool("available") == false)
            #expect(s.object("sidebar")?.bool("visible") == false)
            #expect(s.object("sidebar")?["items"] == .array([]))
        }
        #expect(try c.error(#"{"cmd":"sidebar","controller":"pad"}"#).string("field") == "visible")
    }

    // MARK: strict input

    @Test func strictInputNamesThePathInsideChildren() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try Self.makePad(c)
        let before = try c.ok(#"{"cmd":"state","controller":"pad"}"#)
        let cases: [(String, String)] = [
            (#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"a"},{"id":"g","children":[{"id":"b","colour":"red"}]}]}"#, "tabs[1].children[0].colour"),
            (#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"g","children":[{"id":"h","children":[{"id":"b","placement":"floating"}]}]}]}"#, "tabs[0].children[0].children[0].placement"),
            (#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"a","placement":"floating"}]}"#, "tabs[0].placement"),
            (#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"a","children":{"id":"b"}}]}"#, "tabs[0].children"),
            (#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"a","hidden":"yes"}]}"#, "tabs[0].hidden"),
            (#"{"cmd":"add_tab","controller":"pad","tab":{"id":"g2","children":[{"id":"b","colour":1}]}}"#, "tab.children[0].colour"),
        ]
        for (line, field) in cases {
            let e = try c.error(line)
            #expect(e.string("code") == "invalid_request", "\(line)")
            #expect(e.string("field") == field, "\(line)")
            #expect(e.string("message")?.contains(field) == true, "\(line)")
        }
        let placement = try c.error(#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"a","placement":"floating"}]}"#)
        #expect(placement.string("message")?.contains("fixed, sidebar_only") == true)
        // The tree's own rules: ids unique in the whole tree, a default child among the
        // children, groups at most 4 deep.
        let tree: [(String, String)] = [
            (#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"a"},{"id":"g","children":[{"id":"a"}]}]}"#, "conflict"),
            (#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"g","children":[{"id":"a"}],"default_child":"b"}]}"#, "invalid_request"),
            (#"{"cmd":"set_tabs","controller":"pad","tabs":[{"id":"1","children":[{"id":"2","children":[{"id":"3","children":[{"id":"4","children":[{"id":"5"}]}]}]}]}]}"#, "invalid_request"),
            (#"{"cmd":"add_tab","controller":"pad","tab":{"id":"g2","children":[{"id":"albums"}]}}"#, "conflict"),
        ]
        for (line, code) in tree { #expect(try c.error(line).string("code") == code, "\(line)") }
        #expect(try c.ok(#"{"cmd":"state","controller":"pad"}"#) == before)
    }

    // MARK: a flat controller (R13.7)

    @Test func aFlatControllerStateHasNoneOfTheNewMembers() throws {
        let t = try TabdProcess()
        let c = try t.client()
        try c.ok(#"{"cmd":"controller.create","controller":"flat","idiom":"pad"}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"flat","tabs":[{"id":"a","title":"A"},{"id":"b"}]}"#)
        let selected = try c.ok(#"{"cmd":"select","controller":"flat","tab":"b"}"#)
        #expect(selected["selected_path"] == nil)
        let state = try c.ok(#"{"cmd":"state","controller":"flat"}"#)
        for key in ["selected_path", "mode", "sidebar"] { #expect(state[key] == nil, "\(key)") }
        for (_, t) in Self.tabObjects(state) {
            for key in ["placement", "hidden", "allows_hiding", "hidden_by_default", "subtitle", "children", "display_order", "selected_child"] {
                #expect(t[key] == nil, "\(key)")
            }
        }
        // Its events are R1–R12's too.
        let sub = try t.client()
        try sub.ok(#"{"cmd":"subscribe","controllers":["flat"],"events":["selection_changed","did_select"]}"#)
        let (events, _) = try Self.eventsAndReply(sub, #"{"cmd":"tap","controller":"flat","tab":"a"}"#)
        #expect(try Self.data(events, "selection_changed")["path"] == nil)
        #expect(try Self.data(events, "did_select")["path"] == nil)
        #expect(try Self.data(events, "did_select")["previous"] == nil)
        // R13 commands on a flat controller: sidebar is not available (no group, automatic mode).
        #expect(try c.error(#"{"cmd":"sidebar","controller":"flat","visible":true}"#).string("code") == "not_available")
    }

    // MARK: a restart

    /// Everything above survives SIGTERM and kill -9: the `state` replies are the same bytes.
    @Test func r13StateSurvivesRestartsByteForByte() throws {
        let t = try TabdProcess()
        var c = try t.client()
        try Self.makePad(c)
        try c.ok(#"{"cmd":"controller.create","controller":"side","idiom":"pad","mode":"tab_sidebar"}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"side","tabs":[{"id":"a","placement":"sidebar_only"},{"id":"b","subtitle":"bee"}]}"#)
        try c.ok(#"{"cmd":"controller.create","controller":"phone","idiom":"phone","max_visible":3}"#)
        try c.ok(#"{"cmd":"set_tabs","controller":"phone","tabs":[{"id":"p","placement":"pinned"},{"id":"f","placement":"fixed"},{"id":"g","children":[{"id":"g1"},{"id":"g2","children":[{"id":"g21"},{"id":"g22"}],"default_child":"g22"}]},{"id":"d"},{"id":"e"}]}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"x"},{"id":"y"}]}"#)  // main stays flat
        try c.ok(#"{"cmd":"tap","controller":"pad","tab":"songs"}"#)
        try c.ok(#"{"cmd":"set_hidden","controller":"pad","tab":"radio","hidden":false}"#)
        try c.ok(#"{"cmd":"reorder","controller":"pad","group":"library","order":["artists","songs","albums"]}"#)
        try c.ok(#"{"cmd":"reorder","controller":"pad","order":["radio","library"]}"#)
        try c.ok(#"{"cmd":"sidebar","controller":"pad","visible":false}"#)
        try c.ok(#"{"cmd":"select","controller":"phone","tab":"g2"}"#)
        try c.ok(#"{"cmd":"select","controller":"side","tab":"a"}"#)
        let names = ["main", "pad", "side", "phone"]
        func states(_ c: LineClient) throws -> [String] { try stateLines(c, names) }
        let before = try states(c)
        let phone = try object(before[3]).object("result")
        #expect(phone?.strings("selected_path") == ["g", "g2", "g22"])
        // Fixed and pinned tabs are never pushed into More; the group (selected, under More) is.
        #expect(phone?.object("bar")?.strings("visible") == ["f", "p", "more"])
        #expect(phone?.object("bar")?.strings("more") == ["g", "d", "e"])
        #expect(phone?.object("bar")?.string("selected") == "more")
        #expect(try object(before[0]).object("result")?["selected_path"] == nil)
        for signal in [SIGTERM, SIGKILL] {
            _ = t.stop(signal: signal)
            try t.start()
            c = try t.client()
            let after = try states(c)
            for (name, (a, b)) in zip(names, zip(before, after)) {
                #expect(a == b, "controller \(name) after \(signal == SIGKILL ? "kill -9" : "SIGTERM"):\n\(a)\n\(b)")
            }
        }
        // And it keeps working where it left off.
        #expect(try c.ok(#"{"cmd":"select","controller":"pad","tab":"library"}"#).strings("selected_path") == ["library", "songs"])
    }
}
