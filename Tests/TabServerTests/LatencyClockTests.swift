// The latency clock reads the CPU's cycle counter only where the kernel keeps time with it,
// and its tick differences convert to the nanoseconds CLOCK_MONOTONIC measures.

import Foundation
import Testing
import TabSystem
@testable import TabServer

@Suite struct LatencyClockTests {
    @Test func anotherClocksourceMeansClockGettime() {
        let clock = LatencyClock(clocksource: "kvm-clock\n")
        #expect(!clock.usesCycleCounter)
        // Ticks are nanoseconds: the fixed-point conversion gives every value back exactly.
        for ticks: UInt64 in [0, 1, 12_345, 1 << 40, UInt64.max] { #expect(clock.nanoseconds(ticks) == ticks) }
        let a = clock.now()
        let b = clock.now()
        #expect(b >= a)
    }

    /// A rate the counter cannot have (no ticks, none measured, a tick over a second) falls
    /// back to ticks as nanoseconds instead of trapping; a plausible one is kept.
    @Test func implausibleRatesFallBack() {
        for (nanos, ticks): (UInt64, UInt64) in [(1_000_000, 0), (0, 1_000_000), (UInt64.max, 1)] {
            #expect(LatencyClock.scale(nanos: nanos, ticks: ticks) == 1 << 32, "\(nanos) ns over \(ticks) ticks")
        }
        #expect(LatencyClock.scale(nanos: 1_000_000, ticks: 2_500_000) == UInt64(0.4 * 4_294_967_296))
    }

    /// Whichever clock the machine gives, an interval it measures is the interval
    /// CLOCK_MONOTONIC measures (within 5%, and 200 ms is long against the readings' cost and
    /// against a loaded machine taking the thread away between two readings).
    @Test(arguments: ["tsc", "kvm-clock"])
    func intervalsAreInNanoseconds(source: String) {
        var clock = LatencyClock(clocksource: source)
        #if arch(x86_64)
        #expect(clock.usesCycleCounter == (source == "tsc"))
        #else
        #expect(!clock.usesCycleCounter)
        #endif
        let t0 = clock.now(), m0 = monotonicNanoseconds()
        usleep(200_000)
        clock.calibrate()
        let t1 = clock.now(), m1 = monotonicNanoseconds()
        let measured = Double(clock.nanoseconds(t1 &- t0)), truth = Double(m1 - m0)
        #expect(abs(measured - truth) / truth < 0.05, "measured \(measured) ns, CLOCK_MONOTONIC \(truth) ns")
    }
}
