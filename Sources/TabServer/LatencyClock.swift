// The clock of per-request latency (`stats`): read twice per request line, so its cost is
// part of every request's. Where the kernel itself keeps time with the CPU's cycle counter
// (clocksource "tsc": constant rate, the same on every CPU), tabd reads that counter
// directly — about 10 ns on the benchmark VM, against 23 ns for clock_gettime through the
// vDSO, which also reads it and converts — and converts tick differences to nanoseconds
// with a rate measured against CLOCK_MONOTONIC. Anywhere else it is clock_gettime.

import CLinux
import Foundation
import TabSystem

struct LatencyClock {
    /// The cycle counter is used (else clock_gettime: ticks are nanoseconds).
    let usesCycleCounter: Bool
    /// Nanoseconds per tick in 32.32 fixed point (exactly 1 when ticks are nanoseconds),
    /// refined by `calibrate()`: a conversion is one multiply and a shift, where a `Double`
    /// multiply and its checked conversion back cost ~25 instructions a request.
    private(set) var scale: UInt64 = 1 << 32
    /// The first reading of both clocks: the rate is measured over everything since.
    private var origin: (ticks: UInt64, nanos: UInt64) = (0, 0)

    /// `clocksource`: the kernel's current clocksource (nil reads it from sysfs).
    init(clocksource: String? = nil) {
        let source = clocksource ?? (try? String(contentsOfFile: "/sys/devices/system/clocksource/clocksource0/current_clocksource", encoding: .utf8))
        usesCycleCounter = tabd_cycle_counter() != 0
            && source?.trimmingCharacters(in: .whitespacesAndNewlines) == "tsc"
        guard usesCycleCounter else { return }
        // A first rate over one millisecond (the reading error is tens of nanoseconds:
        // under 0.01%); `calibrate` then measures over the whole uptime.
        origin = (tabd_cycle_counter(), monotonicNanoseconds())
        var now = origin
        while now.nanos &- origin.nanos < 1_000_000 { now = (tabd_cycle_counter(), monotonicNanoseconds()) }
        scale = Self.scale(nanos: now.nanos &- origin.nanos, ticks: now.ticks &- origin.ticks)
    }

    /// `nanos / ticks` in 32.32 fixed point; 1 (ticks as nanoseconds) for a rate no cycle
    /// counter has (none measured, or a tick over a second), rather than a trap converting it.
    static func scale(nanos: UInt64, ticks: UInt64) -> UInt64 {
        let rate = Double(nanos) / Double(ticks) * 4_294_967_296
        guard rate >= 1, rate < 4_294_967_296 * 1e9 else { return 1 << 32 }
        return UInt64(rate)
    }

    /// Now, in ticks.
    @inline(__always)
    func now() -> UInt64 {
        usesCycleCounter ? tabd_cycle_counter() : monotonicNanoseconds()
    }

    /// A difference of two `now()` readings, in nanoseconds.
    @inline(__always)
    func nanoseconds(_ ticks: UInt64) -> UInt64 {
        let (high, low) = ticks.multipliedFullWidth(by: scale)
        return high << 32 | low >> 32
    }

    /// Measures the rate again, over the time since the start (called once a second).
    mutating func calibrate() {
        guard usesCycleCounter else { return }
        let ticks = tabd_cycle_counter(), nanos = monotonicNanoseconds()
        guard ticks > origin.ticks, nanos > origin.nanos else { return }
        scale = Self.scale(nanos: nanos - origin.nanos, ticks: ticks - origin.ticks)
    }
}
