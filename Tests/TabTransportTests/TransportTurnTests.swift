// Turns: the delegate commits once per turn, before any reply of the turn leaves.

import Foundation
import Glibc
import Testing
@testable import TabTransport

extension TransportTests {
    @Suite struct Turns {
        /// During commitTurn nothing of the turn has reached the client; right after, it has.
        @Test func repliesLeaveOnlyAfterCommit() throws {
            let server = try TestServer()
            let client = try Client(path: server.path)
            var waitingDuringCommit: [Int] = []
            server.sync {
                server.delegate.onCommit = { waitingDuringCommit.append(Client.bytesWaiting(client.fd)) }
            }
            client.write("first\nsecond\nthird\n")
            // Read nothing before the commit happened, so that the check above sees the socket.
            try server.wait("the turn is committed") { server.delegate.commits == 1 }
            #expect(client.readLine() == "echo:first")
            #expect(client.readLine() == "echo:second")
            #expect(client.readLine() == "echo:third")
            #expect(server.sync { waitingDuringCommit } == [0])
            #expect(server.sync { server.delegate.commits } == 1)
        }

        /// Two clients whose requests are ready in the same turn share one commit.
        @Test func oneCommitForAllConnectionsOfATurn() throws {
            let server = try TestServer()
            let a = try Client(path: server.path)
            let b = try Client(path: server.path)
            try server.wait("both connections are open") { server.server.connectionCount == 2 }
            // Hold the loop while both clients write, so both are readable in the next turn:
            // the writes wait until the loop is held (else it could read one line first).
            server.holdLoop(seconds: 0.5)
            a.write("from a\n")
            b.write("from b\n")
            #expect(a.readLine() == "echo:from a")
            #expect(b.readLine() == "echo:from b")
            #expect(server.sync { server.delegate.commits } == 1)
        }

        /// Replies of one turn share the server's turn buffer; when two connections' output
        /// alternates (replies and the events other requests cause), each client still gets its
        /// own lines, in order, and only its own.
        @Test func interleavedOutputOfOneTurnReachesEachClientInOrder() throws {
            let server = try TestServer()
            let a = try Client(path: server.path)
            let b = try Client(path: server.path)
            try server.wait("both connections are open") { server.delegate.opened.count == 2 }
            server.sync {
                server.delegate.reply = { c, line in
                    // Every request is answered, and announced to every other connection.
                    c.send(Array("echo:\(line)\n".utf8))
                    for other in server.delegate.opened where other !== c { other.send(Array("event:\(line)\n".utf8)) }
                }
            }
            server.holdLoop(seconds: 0.3)  // both clients' lines are ready in one turn
            a.write("a1\na2\na3\n")
            b.write("b1\nb2\n")
            var fromA: [String] = [], fromB: [String] = []
            for _ in 0..<5 { fromA.append(a.readLine() ?? "-") }
            for _ in 0..<5 { fromB.append(b.readLine() ?? "-") }
            #expect(fromA.filter { $0.hasPrefix("echo:") } == ["echo:a1", "echo:a2", "echo:a3"])
            #expect(fromA.filter { $0.hasPrefix("event:") } == ["event:b1", "event:b2"])
            #expect(fromB.filter { $0.hasPrefix("echo:") } == ["echo:b1", "echo:b2"])
            #expect(fromB.filter { $0.hasPrefix("event:") } == ["event:a1", "event:a2", "event:a3"])
            #expect(server.sync { server.delegate.commits } == 1)
        }

        /// A turn's output bigger than the turn buffer and than a socket takes at once: the
        /// buffer grows, what the socket does not take waits in the connection's own buffer,
        /// and every byte arrives, in order.
        @Test func outputBeyondTheTurnBufferAndTheSocketArrivesWhole() throws {
            let server = try TestServer(limits: TransportLimits(maxOutputBytes: 64 << 20))
            let line = String(repeating: "x", count: 999)
            server.sync {
                server.delegate.reply = { c, request in
                    for i in 0..<2000 { c.send(Array("\(request) \(i) \(line)\n".utf8)) }  // ~2 MB
                }
            }
            let client = try Client(path: server.path)
            client.write("big\n")
            for i in 0..<2000 {
                guard client.readLine() == "big \(i) \(line)" else {
                    Issue.record("line \(i) is missing or out of order"); return
                }
            }
            client.write("small\n")
            #expect(client.readLine() == "small 0 \(line)")
        }

        /// A turn without requests (a connection opening, a timer) commits nothing; what a timer
        /// sends is still delivered.
        @Test func noCommitWithoutRequests() throws {
            let server = try TestServer()
            let client = try Client(path: server.path)
            try server.wait("the connection is open") { server.delegate.opened.count == 1 }
            server.sync {
                server.loop.after(0.01) { server.delegate.opened[0].send(Array("tick\n".utf8)) }
            }
            #expect(client.readLine() == "tick")
            #expect(server.sync { server.delegate.commits } == 0)
        }

        /// Clients streaming requests without pause cannot hold back another client's reply:
        /// a turn is closed after `maxTurnDelay` even if sockets are still ready.
        @Test func streamingClientsDoNotStarveOthers() throws {
            let server = try TestServer(limits: TransportLimits(maxOutputBytes: 1 << 30))
            server.delegate.reply = { c, line in
                if line != "noise" { c.send(Array("echo:\(line)\n".utf8)) }
            }
            let stop = ManagedFlag()
            defer { stop.set() }
            let noise = Array(String(repeating: "noise\n", count: 10_000).utf8)
            for _ in 0..<2 {
                let streamer = try Client(path: server.path)
                Thread {
                    while !stop.isSet, streamer.write(noise) {}
                }.start()
            }
            let other = try Client(path: server.path)
            usleep(200_000)
            for i in 0..<5 {
                let started = Date()
                other.write("hello \(i)\n")
                let reply = other.readLine()
                let waited = Date().timeIntervalSince(started)
                // Typically a few milliseconds; without the bound, never (30 s: room for a
                // loaded machine).
                guard reply == "echo:hello \(i)", waited < 30 else {
                    Issue.record("reply \(i) was \(reply ?? "nothing") after \(waited) s")
                    return
                }
            }
        }
    }
}

final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
