// The Swift SDK's hooks of plugin ABI 1.11 through the descriptor `exportPolicy` builds, as
// tabd calls them: top_column_for_collapsing and display_mode_for_expanding hand the plugin
// what tabd passed and hand back its answer (nil: TABD_ABSTAIN), notify hands it the event.
// (One exported type per process: this is the only test of TabPolicyTests that exports one.)

import CTabPolicy
import Glibc
import Testing
@testable import TabPolicy

final class SplitSwift: PolicyPlugin, TopColumnForCollapsingHook, DisplayModeForExpandingHook, NotifyHook {
    static let name = "split-swift"
    static let version = "1.0.0"
    static let summary = "Answers a split's proposals."
    nonisolated(unsafe) static var collapses: [SplitCollapse] = []
    nonisolated(unsafe) static var expands: [SplitExpand] = []
    nonisolated(unsafe) static var events: [ContainerEvent] = []

    init(settings: JSON, host: PolicyHost) throws {}

    func topColumnForCollapsing(_ collapse: SplitCollapse) -> String? {
        Self.collapses.append(collapse)
        return collapse.style == "triple" ? "supplementary" : nil
    }

    func displayModeForExpanding(_ expand: SplitExpand) -> String? {
        Self.expands.append(expand)
        return expand.behavior == "overlay" ? "one_over" : nil
    }

    func notify(_ event: ContainerEvent) { Self.events.append(event) }
}

@Suite struct SplitHooksTests {
    @Test func descriptorCarriesTheHooksAndTheirAnswers() throws {
        let d = exportPolicy(SplitSwift.self).assumingMemoryBound(to: tabd_policy_descriptor.self).pointee
        #expect(d.abi_minor == UInt32(TABD_POLICY_ABI_MINOR))
        #expect(d.may_open_drawer == nil && d.should_select == nil, "only the hooks the type conforms to")
        let collapse = try #require(d.top_column_for_collapsing), expand = try #require(d.display_mode_for_expanding), notify = try #require(d.notify)
        var table = tabd_host()
        table.struct_size = MemoryLayout<tabd_host>.size
        var state: UnsafeMutableRawPointer?
        var reply = tabd_reply()
        #expect(withUnsafePointer(to: &table) { d.`init`!($0, "{}", &state, &reply) } == TABD_OK)
        defer { d.fini?(state) }

        // C strings that live as long as the test (a String passed to a struct's init would not).
        var kept: [UnsafeMutablePointer<CChar>] = []
        defer { for p in kept { free(p) } }
        func cs(_ s: String) -> UnsafePointer<CChar> { kept.append(strdup(s)!); return UnsafePointer(kept.last!) }

        var answer: UnsafePointer<CChar>?
        var c = tabd_split_collapse(struct_size: MemoryLayout<tabd_split_collapse>.size, controller: cs("mail"), style: cs("triple"), proposed: cs("secondary"))
        #expect(collapse(state, &c, &answer) == TABD_OK)
        #expect(answer.map { String(cString: $0) } == "supplementary")
        c.style = cs("double")
        answer = nil
        #expect(collapse(state, &c, &answer) == TABD_ABSTAIN)
        #expect(answer == nil)
        #expect(SplitSwift.collapses == [SplitCollapse(controller: "mail", style: "triple", proposed: "secondary"),
                                         SplitCollapse(controller: "mail", style: "double", proposed: "secondary")])

        var e = tabd_split_expand(struct_size: MemoryLayout<tabd_split_expand>.size, controller: cs("mail"), style: cs("double"), behavior: cs("overlay"), proposed: cs("secondary_only"))
        #expect(expand(state, &e, &answer) == TABD_OK)
        #expect(answer.map { String(cString: $0) } == "one_over")
        #expect(SplitSwift.expands == [SplitExpand(controller: "mail", style: "double", behavior: "overlay", proposed: "secondary_only")])

        let json = #"{"event":"drawer_changed","controller":"root","seq":2,"data":{"open_side":"left"}}"#
        var n = tabd_notification(struct_size: MemoryLayout<tabd_notification>.size, name: cs("drawer_changed"), controller: cs("root"), json: cs(json), json_length: json.utf8.count)
        #expect(notify(state, &n) == TABD_OK)
        #expect(SplitSwift.events == [ContainerEvent(name: "drawer_changed", controller: "root", json: json)])
        #expect(SplitSwift.events.first?.value?["data"]?["open_side"]?.stringValue == "left")
    }
}
