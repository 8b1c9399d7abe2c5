// Request decoding of the fields issue 17 added (PROTOCOL.md "Additions"): `set_tabs`
// `selected` (R2.6), `controller.create` `tap_pops` (R4.3), layout sizes (R10.1), and tab
// objects copied from `state` accepted back by set_tabs, add_tab and update_tab.

import TabJSON
import Testing
import TabCore
@testable import TabProtocol

@Suite("Request decoding: issue 17 fields")
struct RequestDecodingTests {
    private func decode(_ line: String) -> Result<RequestCommand, ProtocolError> {
        RequestDecoder.decode(line).result.map(\.command)
    }

    private func error(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> ProtocolError? {
        guard case .failure(let e) = decode(line) else {
            Issue.record("expected an error for \(line)", sourceLocation: sourceLocation)
            return nil
        }
        return e
    }

    private func field(_ e: ProtocolError?) -> String? { e?.details.first { $0.0 == "field" }?.1 }

    /// "brief": true boxes a list command (its reply leaves the list out); false is the
    /// command as it is; on a command without a list it is an unknown field.
    @Test func briefMarksTheListCommandsOnly() throws {
        #expect(try decode(#"{"cmd":"customize.move","tab":"a","to":1,"brief":true}"#).get() == .brief(.customizeMove(tab: "a", to: 1)))
        #expect(try decode(#"{"cmd":"customize.move","tab":"a","to":1,"brief":false}"#).get() == .core(.customizeMove(tab: "a", to: 1)))
        #expect(try decode(#"{"cmd":"remove_tab","tab":"a","brief":true}"#).get().name == "remove_tab")
        #expect(field(error(#"{"cmd":"add_tab","tab":{"id":"a"},"brief":1}"#)) == "brief")
        let e = error(#"{"cmd":"select","tab":"a","brief":true}"#)
        #expect(e?.code == .invalidRequest)
        #expect(e?.message.contains("unknown field 'brief'") == true)
        for command in [Command.setTabs([], animated: false), .addTab(Tab(id: "a"), index: nil), .removeTab("a"), .setCustomizable(nil),
                        .customizeBegin, .customizeMove(tab: "a", to: 0), .customizeEnd] {
            #expect(command.repliesWithList, "\(command.commandName)")
        }
        #expect(!Command.select(.tab("a")).repliesWithList)
    }

    /// R2.6: `selected` is a tab id or an index; absent or null names none.
    @Test("R2.6 set_tabs selected: an id, an index, or nothing")
    func r2_6_setTabsSelected() throws {
        let tabs = #""tabs":[{"id":"a"},{"id":"b"}]"#
        #expect(try decode(#"{"cmd":"set_tabs",\#(tabs),"selected":"b"}"#).get() == .core(.setTabs([Tab(id: "a"), Tab(id: "b")], animated: false, selected: .tab("b"))))
        #expect(try decode(#"{"cmd":"set_tabs",\#(tabs),"selected":1,"animated":true}"#).get() == .core(.setTabs([Tab(id: "a"), Tab(id: "b")], animated: true, selected: .index(1))))
        #expect(try decode(#"{"cmd":"set_tabs",\#(tabs),"selected":null}"#).get() == .core(.setTabs([Tab(id: "a"), Tab(id: "b")], animated: false)))
        #expect(try decode(#"{"cmd":"set_tabs",\#(tabs)}"#).get() == .core(.setTabs([Tab(id: "a"), Tab(id: "b")], animated: false, selected: nil)))
        for bad in [#"true"#, #"1.5"#, #"{"more":true}"#, #"["a"]"#] {
            let e = error(#"{"cmd":"set_tabs",\#(tabs),"selected":\#(bad)}"#)
            #expect(e?.code == .invalidRequest)
            #expect(field(e) == "selected")
        }
    }

    /// R4.3: `tap_pops` is "always" (the default) or "reselect"; anything else names the field.
    @Test("R4.3 controller.create tap_pops: always, reselect, or invalid_request")
    func r4_3_tapPops() throws {
        #expect(try decode(#"{"cmd":"controller.create","controller":"p"}"#).get() == .controllerCreate(.tab(TabBarOptions(idiom: .phone, tapPops: .always))))
        #expect(try decode(#"{"cmd":"controller.create","controller":"p","tap_pops":"always"}"#).get() == .controllerCreate(.tab(TabBarOptions(idiom: .phone, tapPops: .always))))
        #expect(try decode(#"{"cmd":"controller.create","controller":"p","idiom":"pad","tap_pops":"reselect"}"#).get() == .controllerCreate(.tab(TabBarOptions(idiom: .pad, tapPops: .reselect))))
        for bad in [#""never""#, #""Always""#, "true", "null"] {
            let e = error(#"{"cmd":"controller.create","controller":"p","tap_pops":\#(bad)}"#)
            #expect(e?.code == .invalidRequest)
            #expect(field(e) == "tap_pops")
        }
    }

    /// R10.1: negative sizes, the status bar included, are out_of_range and name the field.
    @Test("R10.1 layout refuses negative sizes with out_of_range")
    func r10_1_layoutSizes() throws {
        #expect(try decode(#"{"cmd":"layout","width":390,"height":844,"status_bar":0}"#).get() == .layout(width: 390, height: 844, statusBar: 0))
        for (line, name) in [(#"{"cmd":"layout","width":-1,"height":844}"#, "width"),
                             (#"{"cmd":"layout","width":390,"height":-0.5}"#, "height"),
                             (#"{"cmd":"layout","width":390,"height":844,"status_bar":-20}"#, "status_bar")] {
            let e = error(line)
            #expect(e?.code == .outOfRange)
            #expect(field(e) == name)
            #expect(e?.message.contains(name) == true)
        }
        // Non-finite numbers cannot be written in JSON: the parser refuses 1e999.
        #expect(error(#"{"cmd":"layout","width":1e999,"height":844}"#)?.code == .parseError)
    }

    /// R1.3: `state` shows a tab without a title with a null title, in the tab and its item.
    @Test("R1.3 state writes a null title for a tab without one, never its id")
    func r1_3_stateTitleIsNull() {
        var w = JSONWriter()
        ReplyEncoder.tab(Tab(id: "music"), &w)
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"id":"music","title":null,"item":{"title":null,"#))
    }

    /// A tab with every field set, as `state` reports it after some use (stack, loaded content,
    /// badge), in the JSON `state` writes.
    private static func stateObject() -> (Tab, String) {
        var c = Controller(name: "c")
        let tab = Tab(id: "mail", title: "Mail", item: TabItem(title: "Inbox", image: "mail.png", tag: nil, badge: nil),
                      restorationID: "m", orientations: [.portrait, .landscapeLeft], fullScreenLayout: true, navigation: true)
        _ = try! c.apply(.setTabs([tab, Tab(id: "plain")], animated: false))
        _ = try! c.apply(.push(tab: "mail", screen: Screen(id: "msg", title: "Message")))
        _ = try! c.apply(.badge(tab: "mail", value: "4"))
        var w = JSONWriter()
        ReplyEncoder.tab(c.tab("mail")!, &w)
        return (c.tab("mail")!, String(decoding: w.bytes, as: UTF8.self))
    }

    /// The description a client gets back from a `state` tab object: everything a client
    /// sets, without the runtime state (stack, content_loaded) and with the badge in the item.
    private static let described = Tab(id: "mail", title: "Mail", item: TabItem(title: "Inbox", image: "mail.png", tag: nil, badge: "4"),
                                       restorationID: "m", orientations: [.portrait, .landscapeLeft], fullScreenLayout: true, navigation: true)

    /// A tab object copied from `state` is accepted by set_tabs and add_tab: the members only
    /// state reports (stack, content_loaded, the top-level badge) are ignored; nulls mean none.
    @Test("tab objects copied from state are accepted back by set_tabs and add_tab")
    func stateTabObjectsAreAcceptedBack() throws {
        let (_, object) = Self.stateObject()
        #expect(object.contains(#""stack":[{"id":"msg","title":"Message"}]"#))
        #expect(object.contains(#""content_loaded":true"#))
        #expect(object.contains(#""tag":null"#))
        #expect(try decode(#"{"cmd":"set_tabs","tabs":[\#(object)]}"#).get() == .core(.setTabs([Self.described], animated: false)))
        #expect(try decode(#"{"cmd":"add_tab","tab":\#(object),"index":0}"#).get() == .core(.addTab(Self.described, index: 0)))
        // A state object of a tab without a title or item: nulls everywhere.
        var w = JSONWriter()
        ReplyEncoder.tab(Tab(id: "plain"), &w)
        let plain = String(decoding: w.bytes, as: UTF8.self)
        #expect(try decode(#"{"cmd":"add_tab","tab":\#(plain)}"#).get() == .core(.addTab(Tab(id: "plain", item: TabItem(), orientations: .portrait), index: nil)))
        // Strict input otherwise: a member state never writes is still an error.
        let e = error(#"{"cmd":"add_tab","tab":{"id":"x","stak":[]}}"#)
        #expect(field(e) == "tab.stak")
    }

    /// update_tab takes the same members (but `id`, which is the request's own): the
    /// state-only ones are ignored, `navigation` is applied.
    @Test("the members of a state tab object are accepted by update_tab")
    func updateTabAcceptsStateMembers() throws {
        let (_, object) = Self.stateObject()
        // The object's members after its "id" as update_tab members.
        let members = String(object.dropFirst(#"{"id":"mail","#.count).dropLast())
        let update = try decode(#"{"cmd":"update_tab","tab":"mail",\#(members)}"#).get()
        #expect(update == .core(.updateTab("mail", TabUpdate { $0.title = .set("Mail"); $0.item = .set(TabItem(title: "Inbox", image: "mail.png", tag: nil, badge: "4")); $0.restorationID = .set("m"); $0.orientations = .set([.portrait, .landscapeLeft]); $0.fullScreenLayout = .set(true); $0.navigation = .set(true) })))
        // Applied to the tab it came from, it changes nothing.
        var c = Controller(name: "c")
        let (tab, _) = Self.stateObject()
        _ = try c.apply(.setTabs([tab], animated: false))
        guard case .core(let command) = update else { return }
        let out = try c.apply(command)
        #expect(!out.changed)
    }
}
