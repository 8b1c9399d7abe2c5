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

/// How long the calling thread has waited, runnable, for a CPU since it started, in
/// nanoseconds (the second field of /proc/thread-self/schedstat), or nil where the kernel does
/// not keep it. The part of a wall-clock interval the machine's load took, not the code that
/// ran: a hook's time minus this interval's growth is what the hook itself cost. A file read,
/// so for rare calls (a plugin's init), not per request.
public func runQueueWaitNanoseconds() -> UInt64? {
    let fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 96)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard n > 0 else { return nil }
    let fields = buffer[..<n].split(separator: UInt8(ascii: " "))
    guard fields.count >= 2 else { return nil }
    return UInt64(String(decoding: fields[1], as: UTF8.self))
}
