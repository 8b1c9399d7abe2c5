// `Tab.fields`, the one description of a tab: every row is tested through every form it is
// in, so a field added as docs/architecture.md says ("How to add a field") is tested here
// with no test written for it.

import Testing
import TabJSON
@testable import TabCore

@Suite("The tab schema")
struct TabSchemaTests {
    static func parse(_ w: borrowing JSONWriter) throws -> JSONValue {
        let bytes = w.bytes
        return try bytes.withUnsafeBytes { try JSONParser.parse($0, maxDepth: 64) }
    }

    static func json(_ t: Tab, _ form: TabForm) throws -> JSONValue {
        var w = JSONWriter()
        t.write(to: &w, form)
        return try parse(w)
    }

    /// The rows of stored fields, by name (for the tests' arguments).
    static let stored = Tab.fields.filter { $0.path != nil }.map(\.name)

    static func row(_ name: String) throws -> TabField {
        try #require(Tab.fields.first { $0.name == name })
    }

    /// A tab whose field `name` holds something other than its default, in a group that uses
    /// R13 (so that `state` shows every member).
    static func tab(with name: String) throws -> Tab {
        var t = Tab(id: "g", children: [Tab(id: "kid")], placement: .pinned)
        try row(name).setOther(&t)
        return t
    }

    /// Every stored property of `Tab` has its row: a property added without one would be
    /// lost by every codec.
    @Test func everyStoredPropertyOfATabHasARow() {
        let properties = Set(Mirror(reflecting: Tab(id: "a")).children.compactMap(\.label))
        let rows = Set(Tab.fields.filter { $0.path != nil }.map(\.key))
        #expect(properties == rows)
        #expect(Set(Tab.fields.map(\.name)).count == Tab.fields.count)
        #expect(Set(Tab.fields.map(\.key)).count == Tab.fields.count)
    }

    @Test(arguments: stored)
    func theJournalKeepsTheField(_ name: String) throws {
        let t = try Self.tab(with: name)
        let back = try Tab(json: Self.json(t, .journal), at: "tab", .journal)
        #expect(back == t)
        #expect(back.keepsHidden == t.keepsHidden)
    }

    @Test(arguments: stored)
    func theSnapshotKeepsTheField(_ name: String) throws {
        guard try Self.row(name).snapshot != .never else { return }
        let t = try Self.tab(with: name)
        #expect(try Tab(json: Self.json(t, .snapshot), at: "tab", .snapshot) == t)
    }

    /// What a client sends: the field is read from its description, and `update_tab`
    /// changes it, on the wire and in the journal.
    @Test(arguments: stored)
    func aClientSetsTheField(_ name: String) throws {
        let f = try Self.row(name)
        guard f.accepts == .read else { return }
        let t = try Self.tab(with: name)
        let described = try Tab(json: Self.json(t, .journal), at: "tab", .description)
        #expect(f.equal(described, t))
        guard name != "id" else { return }
        var u = TabUpdate()
        let i = try #require(Tab.fields.firstIndex { $0.name == name })
        u.changed = 1 << UInt64(i)
        f.copy(t, &u.values)
        var w = JSONWriter()
        w.beginObject()
        u.write(to: &w, .journal)
        w.endObject()
        guard case .object(let members) = try Self.parse(w) else { Issue.record("not an object"); return }
        #expect(members.keys == [f.updateName])  // `content_controller` for a tab's `controller`
        #expect(try TabUpdate(.description) { members[$0] } == u)
        #expect(try TabUpdate(.journal) { members[$0] } == u)
        var old = Tab(id: "g")
        u.apply(to: &old, arranging: f.arranges)
        #expect(f.equal(old, t))
    }

    /// `state` shows the field (of a group that uses R13), and its object is read back.
    @Test(arguments: stored)
    func stateShowsTheField(_ name: String) throws {
        guard try Self.row(name).shown != .never else { return }
        let t = try Self.tab(with: name)
        guard case .object(let o) = try Self.json(t, .state) else { Issue.record("not an object"); return }
        #expect(o[name] != nil)
        let back = try Tab(json: .object(o), at: "tab", .state)
        #expect(back.id == t.id)
    }

    /// `Tab.usesModernModel` names R13's and R14's fields: those `state` shows among R13's
    /// members, and no field it shows in every tab object.
    @Test(arguments: stored)
    func theModernFieldsAreTheModelsOwn(_ name: String) throws {
        let f = try Self.row(name)
        guard f.shown != .group else { return }
        var t = Tab(id: "a")
        f.setOther(&t)
        #expect(t.usesModernModel == (f.shown == .modern))
    }

    /// A wrong member is refused with a sentence naming it, in a client's words and the
    /// journal's.
    @Test func aWrongMemberIsNamed() throws {
        let bad: JSONValue = .object(JSONObject([("id", .string("a")), ("placement", .string("nowhere"))]))
        #expect(throws: TabFieldError("tabs[0].placement", .value("'tabs[0].placement' must be one of automatic, default, optional, movable, pinned, fixed, sidebar_only (got 'nowhere')"))) {
            try Tab(json: bad, at: "tabs[0]", .description)
        }
        let unknown: JSONValue = .object(JSONObject([("id", .string("a")), ("colour", .string("red"))]))
        do {
            _ = try Tab(json: unknown, at: "tab", .journal)
            Issue.record("an unknown member was read")
        } catch {
            #expect(error.journalMessage == "'tab' has a field this tabd does not know: 'tab.colour'")
            #expect(error.wireMessage == "unknown field 'tab.colour' for this object")
        }
        // The snapshot skips it, as Codable did.
        #expect(try Tab(json: unknown, at: "tab", .snapshot) == Tab(id: "a"))
    }
}

@Suite("Command names")
struct CommandNameTests {
    /// `index` reads a case's place from its one byte: it must be its place in `allCases`.
    @Test func eachNamesIndexIsItsPlace() {
        #expect(MemoryLayout<CommandName>.size == 1)
        for (i, name) in CommandName.allCases.enumerated() { #expect(name.index == i, "\(name)") }
        #expect(Set(CommandName.allCases.map(\.rawValue)).count == CommandName.allCases.count)
    }

    @Test func aCommandsNameIsItsJournalsOperation() {
        #expect(Command.select(.tab("a")).name == "select")
        #expect(Command.customizeBegin.name == "customize.begin")
        #expect(Command.setOrientation(.portrait).name == "set_orientation")
        #expect(Command.setOrientation(.portrait).commandName == .rotate)
    }
}
