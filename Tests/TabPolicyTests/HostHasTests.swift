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

    /// The store's generation (ABI 1.12) through the SDK: nil from a tabd whose table ends
    /// before it (the login gate then reads its session on every tap, as before 1.12); else
    /// what the table's function answers, asked anew each time (the SDK keeps the function,
    /// never an answer).
    @Test func storeGenerationIsNilBeforeABI112AndAskedEachTimeAfter() {
        var t = tabd_host()
        t.struct_size = MemoryLayout<tabd_host>.offset(of: \.store_generation)!  // a 1.9–1.11 tabd
        t.store_generation = { _ in generationsAnswered &+= 1; return generationsAnswered }
        withUnsafePointer(to: &t) { p in
            #expect(PolicyHost(p).storeGeneration == nil)
        }
        t.struct_size = MemoryLayout<tabd_host>.size
        withUnsafePointer(to: &t) { p in
            let host = PolicyHost(p)
            let first = host.storeGeneration, second = host.storeGeneration
            #expect(first != nil && second != nil && first != second, "\(String(describing: first)), \(String(describing: second))")
        }
    }

    /// The clock (ABI 1.9) through the SDK: nil from a tabd whose table ends before it; else
    /// the instant asked (now: wall_clock_ms's) with the fields tabd filled.
    @Test func clockIsNilBeforeABI19AndReadsTheTableAfter() {
        var t = tabd_host()
        t.struct_size = MemoryLayout<tabd_host>.offset(of: \.wall_clock_ms)!  // a 1.7/1.8 tabd
        t.wall_clock_ms = { _ in 1_795_896_307_000 }
        t.local_time = { _, ms, out in
            guard let out else { return TABD_ERROR }
            out.pointee.unix_ms = ms; out.pointee.year = 2026; out.pointee.hour = 21; out.pointee.weekday = 6
            out.pointee.utc_offset_seconds = 3600; out.pointee.is_dst = -1; out.pointee.zone = nil
            return TABD_OK
        }
        withUnsafePointer(to: &t) { p in
            let host = PolicyHost(p)
            #expect(host.wallClockMilliseconds == nil && host.localTime() == nil)
        }
        t.struct_size = MemoryLayout<tabd_host>.size
        withUnsafePointer(to: &t) { p in
            let host = PolicyHost(p)
            #expect(host.wallClockMilliseconds == 1_795_896_307_000)
            let now = host.localTime()
            #expect(now?.unixMilliseconds == 1_795_896_307_000 && now?.hour == 21 && now?.weekday == 6 && now?.year == 2026)
            #expect(now?.utcOffsetSeconds == 3600 && now?.isDaylightSaving == nil && now?.zone == nil)
            #expect(host.localTime(at: 5)?.unixMilliseconds == 5)
        }
    }
}

/// What HostHasTests' store_generation answers (a C function pointer captures nothing).
nonisolated(unsafe) private var generationsAnswered: UInt64 = 0
