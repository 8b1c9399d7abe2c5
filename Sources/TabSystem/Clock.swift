// The one monotonic clock of tabd, its store, its plugin host and tabctl: clock_gettime
// (CLOCK_MONOTONIC), through the vDSO. Read in whichever unit the caller keeps; every unit
// is the same reading. (The request-latency clock, TabServer's LatencyClock, reads the CPU's
// cycle counter where that is cheaper, and calibrates it against this one.)

import Glibc

/// The monotonic clock in nanoseconds.
@inlinable
public func monotonicNanoseconds() -> UInt64 {
    let ts = monotonicTimespec()
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// The monotonic clock in microseconds (what systemd's MONOTONIC_USEC= takes).
@inlinable
public func monotonicMicroseconds() -> UInt64 {
    monotonicNanoseconds() / 1000
}

/// The monotonic clock in seconds.
@inlinable
public func monotonicSeconds() -> Double {
    let ts = monotonicTimespec()
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// clock_gettime(CLOCK_MONOTONIC).
@inlinable
func monotonicTimespec() -> timespec {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts
}
