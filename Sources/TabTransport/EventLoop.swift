// The one libevent loop of the process: timers, signals, and a door for other threads.
//
// Everything registered here runs on the loop's thread, one callback at a time. Every event
// has the same priority: an event activated by a callback (the end of a turn, see
// LineServer) joins the back of the active queue and runs after everything the same poll
// found ready — once per poll, however busy the sockets stay.

import CLibevent
import CLinux
import Foundation
import Glibc
import Synchronization
import TabSystem

/// Loop-bound: every method but `door`'s runs on the loop's thread. Not Sendable (see below),
/// so the compiler refuses to let it, or a closure holding it, reach another thread.
public final class EventLoop {
    /// The event_base. Valid for the loop's lifetime.
    let base: OpaquePointer

    /// Priority of I/O, timers, signals and `async` work.
    static let ioPriority: Int32 = 0
    /// Priority of the end of a turn: the same as I/O. Activated from an I/O callback, it
    /// queues behind the descriptors that poll reported ready and runs after them. (A lower
    /// priority would wait until a poll finds nothing ready: under steady load, never.)
    static let endOfTurnPriority: Int32 = 0

    private var timers: [ObjectIdentifier: TimerHandle] = [:]
    private var signalHandlers: [SignalHandler] = []

    /// What other threads may hold of the loop: `door.async` runs a closure on the loop thread.
    public let door: LoopDoor
    private var wakeEvent: OpaquePointer?
    /// The event `stop()` activates, at the priority of everything else: it breaks the loop
    /// once the callbacks queued before it have run. (event_base_loopexit queues its own event
    /// at libevent's default priority, the lower one, which never ran while timers kept the
    /// higher one busy: a plugin's 64 timers every 1 ms kept a stopping tabd alive for good.)
    private var stopEvent: OpaquePointer?
    /// Runs before every timer's body: the line server closes an overdue turn there, as it
    /// does before every I/O callback, so that a loop busy with timers still ends its turns.
    public var beforeTimer: (() -> Void)?

    /// Creates the event_base (libevent is given two priority levels, but every event uses
    /// level 0: `ioPriority` and `endOfTurnPriority` are the same, see above) and ignores
    /// SIGPIPE for the whole process:
    /// a client that goes away must be an EPIPE error, never a fatal signal.
    public init() throws {
        signal(SIGPIPE, SIG_IGN)
        guard let base = event_base_new() else { throw SystemError.current("event_base_new") }
        guard event_base_priority_init(base, 2) == 0 else {
            event_base_free(base)
            throw SystemError("event_base_priority_init", errno: EINVAL)
        }
        let fd: Int32
        do {
            fd = try Sys.eventfd()
        } catch {
            event_base_free(base)
            throw error
        }
        self.base = base
        self.door = LoopDoor(wakeFD: fd)
        let ev = event_new(base, fd, Int16(EV_READ | EV_PERSIST), { _, _, ctx in
            for body in Unmanaged<EventLoop>.fromOpaque(ctx!).takeUnretainedValue().door.take() { body() }
        }, Unmanaged.passUnretained(self).toOpaque())
        event_priority_set(ev, Self.ioPriority)
        event_add(ev, nil)
        wakeEvent = ev
        stopEvent = tabd_evtimer_new(base, 0, { _, _, ctx in
            event_base_loopbreak(Unmanaged<EventLoop>.fromOpaque(ctx!).takeUnretainedValue().base)
        }, Unmanaged.passUnretained(self).toOpaque())
        event_priority_set(stopEvent, Self.ioPriority)
    }

    deinit {
        for t in timers.values { t.free() }
        for s in signalHandlers { event_free(s.event) }
        if let wakeEvent { event_free(wakeEvent) }
        if let stopEvent { event_free(stopEvent) }
        Sys.close(door.wakeFD)
        event_base_free(base)
    }

    /// Runs the loop (event_base_dispatch) until `stop()`.
    public func run() throws {
        if event_base_dispatch(base) == -1 {
            throw SystemError.current("event_base_dispatch")
        }
    }

    /// Ends `run()` once the callbacks already queued have run, however busy the loop is (an
    /// event of the one priority everything has, whose callback breaks the loop). Safe from
    /// within callbacks; from another thread, through `door` to a closure that holds the loop
    /// as a `LoopBound`.
    public func stop() {
        if let stopEvent { event_active(stopEvent, EV_TIMEOUT, 0) } else { event_base_loopexit(base, nil) }
    }

    // MARK: Timers

    /// Calls `body` every `seconds` until the returned handle is cancelled.
    @discardableResult
    public func addTimer(every seconds: Double, _ body: @escaping () -> Void) -> TimerHandle {
        schedule(seconds, repeating: true, body)
    }

    /// Calls `body` once, `seconds` from now.
    public func after(_ seconds: Double, _ body: @escaping () -> Void) {
        _ = schedule(seconds, repeating: false, body)
    }

    /// Like `after`, with a handle to cancel it.
    @discardableResult
    public func once(after seconds: Double, _ body: @escaping () -> Void) -> TimerHandle {
        schedule(seconds, repeating: false, body)
    }

    private func schedule(_ seconds: Double, repeating: Bool, _ body: @escaping () -> Void) -> TimerHandle {
        let timer = TimerHandle(loop: self, body: body)
        let flags = Int16(repeating ? EV_PERSIST : 0)
        timer.event = tabd_evtimer_new(base, flags, { _, _, ctx in
            Unmanaged<TimerHandle>.fromOpaque(ctx!).takeUnretainedValue().fire()
        }, Unmanaged.passUnretained(timer).toOpaque())
        timer.repeating = repeating
        event_priority_set(timer.event, Self.ioPriority)
        tabd_event_add_seconds(timer.event, seconds)
        timers[ObjectIdentifier(timer)] = timer
        return timer
    }

    fileprivate func forget(_ timer: TimerHandle) {
        timers[ObjectIdentifier(timer)] = nil
    }

    // MARK: Signals

    /// Calls `body` on the loop each time `signo` arrives (a libevent signal event: the
    /// handler itself only wakes the loop).
    public func onSignal(_ signo: Int32, _ body: @escaping () -> Void) {
        // A parent may hand us a blocked signal mask (Foundation's Process, some
        // supervisors); a signal we handle must reach this thread.
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, signo)
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        let handler = SignalHandler(body: body)
        handler.event = tabd_evsignal_new(base, signo, { _, _, ctx in
            Unmanaged<SignalHandler>.fromOpaque(ctx!).takeUnretainedValue().body()
        }, Unmanaged.passUnretained(handler).toOpaque())
        event_priority_set(handler.event, Self.ioPriority)
        event_add(handler.event, nil)
        signalHandlers.append(handler)
    }
}

@available(*, unavailable, message: "the event loop is used only on its own thread; other threads have its `door`")
extension EventLoop: Sendable {}

/// The one part of an `EventLoop` other threads may hold: `async` queues a closure under a
/// lock and wakes the loop through an eventfd; the loop runs the queue on its thread.
public final class LoopDoor: Sendable {
    /// The eventfd: written here, read and closed by the loop.
    let wakeFD: Int32
    private let queued = Mutex<[@Sendable () -> Void]>([])

    init(wakeFD: Int32) { self.wakeFD = wakeFD }

    /// Runs `body` on the loop thread, soon. May be called from any thread (tests use it to
    /// reach the loop they run on a background thread). What `body` needs of the loop's own
    /// objects it carries as `LoopBound` values.
    public func async(_ body: @escaping @Sendable () -> Void) {
        let wasEmpty = queued.withLock { queue in
            queue.append(body)
            return queue.count == 1
        }
        if wasEmpty {
            let one: UInt64 = 1
            _ = withUnsafeBytes(of: one) { try? Sys.write(wakeFD, $0) }
        }
    }

    /// On the loop, when the eventfd is readable: everything queued so far.
    func take() -> [@Sendable () -> Void] {
        var counter: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &counter) { try? Sys.read(wakeFD, into: $0) }
        return queued.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }
}

/// A loop-bound value (a service, a connection: anything not Sendable) carried through
/// another thread and back to the thread that made it, as with SwiftNIO's `NIOLoopBound`.
/// `@unchecked Sendable` because of what `value` checks: the value is opened only on the
/// thread that wrapped it (a precondition, in release builds too), so it is never used on
/// two threads; the other thread only retains and releases it, which is atomic. Should the
/// other thread drop the last reference, the value's deinit would run there: wrap only what
/// outlives the trip (tabd wraps the service, which the daemon keeps until the loop has
/// stopped and `finish` has waited for the store's helper).
public struct LoopBound<Value>: @unchecked Sendable {
    private let wrapped: Value
    private let thread: pthread_t

    /// Wraps `value` on its loop's thread (the current one).
    public init(_ value: Value) {
        wrapped = value
        thread = pthread_self()
    }

    /// The value, on the thread that wrapped it; anywhere else, a crash.
    public var value: Value {
        precondition(pthread_equal(thread, pthread_self()) != 0, "a loop-bound value was opened off its loop's thread")
        return wrapped
    }
}

/// A timer registered with `EventLoop.addTimer`; `cancel()` stops it. Loop-bound.
public final class TimerHandle {
    fileprivate var event: OpaquePointer?
    fileprivate var repeating = false
    private let body: () -> Void
    /// Weak: a handle may outlive its loop (whose deinit frees every timer's event).
    private weak var loop: EventLoop?

    fileprivate init(loop: EventLoop, body: @escaping () -> Void) {
        self.loop = loop
        self.body = body
    }

    /// Whether the timer will still fire.
    public var isActive: Bool { event != nil }

    /// Stops the timer. Safe from within its own body; does nothing the second time.
    public func cancel() {
        guard event != nil else { return }
        free()
        loop?.forget(self)
    }

    fileprivate func fire() {
        let loop = self.loop
        if !repeating { cancel() }
        loop?.beforeTimer?()
        body()
    }

    fileprivate func free() {
        if let event { event_free(event) }
        event = nil
    }
}

private final class SignalHandler {
    var event: OpaquePointer?
    let body: () -> Void
    init(body: @escaping () -> Void) { self.body = body }
}

@available(*, unavailable, message: "timers are used only on their loop's thread")
extension TimerHandle: Sendable {}
