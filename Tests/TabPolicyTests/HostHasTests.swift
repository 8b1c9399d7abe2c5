// PolicyHost.has(\.field): TABD_HOST_HAS for Swift (which cannot call the macro), through
// policy.h's tabd_host_has_function_at: a function past the table's struct_size, or NULL,
// is not there.

import CTabPolicy
import Testing
@testable import TabPolicy

@Suite struct HostHasTests {
    /// A 1.5 table with json_object_key has it; the same table claiming a 1.4 size, or with
    /// the function NULL, does not; a 1.0 function within any table is there when set.
    @Test func hasAnswersLikeTheMacro() {
        var t = tabd_host()
        t.struct_size = MemoryLayout<tabd_host>.size
        t.json_object_key = { _, _, _, _ in TABD_JSON_OK }
        t.log = { _, _, _ in }
        withUnsafePointer(to: &t) { p in
            let host = PolicyHost(p)
            #expect(host.has(\.json_object_key))
            #expect(host.has(\.log))
            #expect(!host.has(\.json_get_array), "NULL is not there")
        }
        t.struct_size = MemoryLayout<tabd_host>.offset(of: \.json_get_array)!  // a 1.4 tabd
        withUnsafePointer(to: &t) { p in
            let host = PolicyHost(p)
            #expect(!host.has(\.json_object_key), "past struct_size")
            #expect(host.has(\.log))
        }
        var c = tabd_candidate()
        c.struct_size = MemoryLayout<tabd_candidate>.offset(of: \.path)!
        #expect(tabd_candidate_has_field_at(&c, MemoryLayout<tabd_candidate>.offset(of: \.path)!, MemoryLayout<UnsafeRawPointer>.size) == 0)
        c.struct_size = MemoryLayout<tabd_candidate>.size
        #expect(tabd_candidate_has_field_at(&c, MemoryLayout<tabd_candidate>.offset(of: \.path_count)!, MemoryLayout<Int>.size) == 1)
    }
}
