// The event loop: timers, signals, work sent from other threads.

import Foundation
import Glibc
import Testing
@testable import TabTransport

extension TransportTests {
    @Suite struct Loop {
        /// A repeating timer fires until cancelled; a one-shot fires once.
        @Test func timersRepeatUntilCancelledAndOneShotsFireOnce() throws {
            let server = try TestServer()
            var ticks = 0
            var once = 0
            let timer = server.sync {
                server.loop.after(0.01) { once += 1 }
                return server.loop.addTimer(every: 0.01) { ticks += 1 }
            }
            try server.wait("the timer fired three times") { ticks >= 3 }
            server.sync { timer.cancel() }
            let stopped = server.sync { ticks }
            usleep(100_000)
            #expect(server.sync { ticks } == stopped)
            #expect(server.sync { once } == 1)
            #expect(!timer.isActive)
        }

        /// A timer may cancel itself from its own body.
        @Test func timerCancelsItself() throws {
            let server = try TestServer()
            var ticks = 0
            server.sync {
                var handle: TimerHandle?
                handle = server.loop.addTimer(every: 0.005) {
                    ticks += 1
                    if ticks == 2 { handle?.cancel() }
                }
            }
            try server.wait("the timer fired twice") { ticks >= 2 }
            usleep(100_000)  // 20 periods: it would have fired again
            #expect(server.sync { ticks } == 2)
        }

        /// A signal handler runs on the loop thread when the signal arrives.
        @Test func signalHandlerRunsOnTheLoop() throws {
            let server = try TestServer()
            var received = 0
            var onLoopThread = false
            let loopThread = server.sync { pthread_self() }
            server.sync {
                server.loop.onSignal(SIGUSR2) {
                    received += 1
                    onLoopThread = pthread_equal(pthread_self(), loopThread) != 0
                }
            }
            kill(getpid(), SIGUSR2)
            try server.wait("the handler ran") { received == 1 }
            #expect(server.sync { onLoopThread })
        }

        /// Work sent with async from many threads all runs, on the loop thread.
        @Test func asyncFromManyThreads() throws {
            let server = try TestServer()
            let counter = Counter()
            let group = DispatchGroup()
            for _ in 0..<8 {
                group.enter()
                Thread {
                    for _ in 0..<1_000 { server.loop.door.async { counter.value += 1 } }
                    group.leave()
                }.start()
            }
            group.wait()
            try server.wait("all work ran") { counter.value == 8_000 }
        }

        /// SIGPIPE is ignored once a loop exists: writing to a closed socket is an error, not death.
        @Test func sigpipeIsIgnored() throws {
            _ = try EventLoop()
            var action = sigaction()
            sigaction(SIGPIPE, nil, &action)
            #expect(unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self))
        }
    }
}

/// Touched only on the loop thread.
private final class Counter: @unchecked Sendable {
    var value = 0
}
