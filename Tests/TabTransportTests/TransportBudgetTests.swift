// What clients may hold: replies of any size for a client that reads, back-pressure on one
// that pipelines without reading, unfinished lines that stall, and one memory budget for
// all connections.

import Foundation
import Glibc
import Testing
@testable import TabTransport

extension TransportTests {
    @Suite struct Budget {
        /// One reply far bigger than `maxOutputBytes` reaches a client that reads: the limit
        /// is on what stays unread, not on one reply. (The output timeout, 5 s, is not what
        /// is tested: a reader paused by a loaded machine is not taken for one that stalls.)
        @Test func aReplyBiggerThanTheOutputLimitArrivesWhole() throws {
            let server = try TestServer(limits: TransportLimits(maxOutputBytes: 64 << 10, outputTimeout: 5))
            let big = [UInt8](repeating: UInt8(ascii: "b"), count: 20 << 20) + [UInt8(ascii: "\n")]
            server.delegate.reply = { c, line in c.send(line == "big" ? big : Array("echo:\(line)\n".utf8)) }
            let client = try Client(path: server.path)
            client.write("big\nafter\n")
            let got = client.read(count: big.count)
            #expect(got.count == big.count && got.elementsEqual(big), "got \(got.count) of \(big.count) bytes")
            #expect(client.readLine() == "echo:after")
            #expect(server.sync { server.delegate.closed.isEmpty })
            try server.wait("nothing is held once it is read") { server.server.heldBytes == 0 }
        }

        /// A big event sent alike to many connections is one copy they all refer to: each
        /// reader gets it whole, and the copy is freed once the last one wrote or dropped it.
        @Test func sharedOutputIsOneCopyFreedAfterTheLastConnection() throws {
            let server = try TestServer()
            let event = [UInt8](repeating: UInt8(ascii: "e"), count: 1 << 20) + [UInt8(ascii: "\n")]
            weak var watched: SharedOutput?
            server.delegate.reply = { c, line in
                guard line == "fan" else { return c.send(Array("echo:\(line)\n".utf8)) }
                let shared = event.withUnsafeBytes { SharedOutput($0) }
                watched = shared
                for other in server.delegate.opened { other.send(shared) }
            }
            let readers = try (0..<3).map { _ in try Client(path: server.path) }
            let sleeper = try Client(path: server.path)  // never reads: dropped below
            try server.wait("all connected") { server.delegate.opened.count == 4 }
            readers[0].write("fan\n")
            for r in readers {
                let got = r.read(count: event.count)
                #expect(got.count == event.count && got.elementsEqual(event))
            }
            #expect(server.sync { watched != nil })  // the sleeper's buffer still refers to it
            server.sync { for c in server.delegate.opened where c.pendingOutputBytes > 0 { c.close() } }
            _ = sleeper.readUntilClosed()
            try server.wait("the copy is freed with the last reference") { watched == nil }
        }

        /// A client that pipelines requests and does not read holds about `pauseInputBytes`
        /// of output: its further requests wait until it reads, then all are answered in order.
        @Test func pipelinedRequestsWaitUntilTheClientReads() throws {
            let server = try TestServer(limits: TransportLimits(maxOutputBytes: 1 << 30, outputTimeout: 60, pauseInputBytes: 256 << 10))
            let payload = String(repeating: "p", count: 100_000)
            server.delegate.reply = { c, line in c.send(Array("\(line) \(payload)\n".utf8)) }
            let client = try Client(path: server.path)
            let count = 500  // 50 MB of replies if every request were answered at once
            client.write((0..<count).map { "r\($0)\n" }.joined())
            try server.wait("the first requests are answered") { server.delegate.lines.count >= 2 }
            usleep(200_000)
            let (handled, held) = server.sync { (server.delegate.lines.count, server.server.heldBytes) }
            #expect(handled < 10, "\(handled) requests handled while the client read nothing")
            #expect(held < 1 << 20, "\(held) bytes held for a client that reads nothing")
            for i in 0..<count {
                guard client.readLine() == "r\(i) \(payload)" else {
                    Issue.record("reply \(i) is missing or out of order"); return
                }
            }
            #expect(server.sync { server.delegate.closed.isEmpty })
        }

        /// A line that does not end within `lineTimeout` is answered with an error and its
        /// connection closed; a line that ends in time is served. (2 s: 20 times the typist's
        /// pause, which a loaded machine may stretch.)
        @Test func aStalledLineIsClosedAfterTheLineTimeout() throws {
            let server = try TestServer(limits: TransportLimits(lineTimeout: 2))
            let staller = try Client(path: server.path)
            let typist = try Client(path: server.path)
            staller.write("never finished")
            typist.write("slow")
            usleep(100_000)
            typist.write(" but finished\n")
            #expect(typist.readLine() == "echo:slow but finished")
            let result = staller.readUntilClosed()
            #expect(result.lines == ["error:lineTimeout"])
            #expect(result.eof)
            try server.wait("the staller is closed") { server.delegate.closed.values.contains(.lineTimeout) }
            #expect(server.sync { server.server.limitHits } == ["line_timeout_seconds": 1])
            typist.write("still here\n")
            #expect(typist.readLine() == "echo:still here")
        }

        /// Unfinished lines over the budget: the connections holding the most are answered
        /// `overBudget` and closed, the total stays within the budget, others are served.
        @Test func unfinishedLinesOverTheBudgetCloseTheBiggestHolders() throws {
            let budget = 4 << 20
            let server = try TestServer(limits: TransportLimits(maxLineBytes: 2 << 20, memoryBudget: budget))
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 700_000)
            var holders: [Client] = []
            var peak = 0
            for _ in 0..<10 {
                let c = try Client(path: server.path)
                c.write(chunk)
                holders.append(c)
                usleep(20_000)
                peak = max(peak, server.sync { server.server.heldBytes })
            }
            #expect(peak <= budget, "\(peak) bytes held with a budget of \(budget)")
            // The refusals, once made (a loaded machine's loop may come to them after the writes).
            try server.wait("three holders are refused") { server.server.limitHits["memory_budget_bytes", default: 0] >= 3 }
            let refused = holders.filter { $0.readUntilClosed(timeout: 0.5).lines == ["error:overBudget"] }.count
            #expect(refused >= 3, "only \(refused) of 10 refused")
            #expect(server.sync { server.server.limitHits["memory_budget_bytes"] } == refused)
            let other = try Client(path: server.path)
            other.write("served\n")
            #expect(other.readLine() == "echo:served")
            holders = []
            try server.wait("nothing is held once they are gone") { server.server.heldBytes == 0 }
        }

        /// A client whose requests wait for it to read, and which takes none of its replies for
        /// `outputTimeout`, is dropped even below `maxOutputBytes`: it cannot squat the budget.
        @Test func aPausedClientThatTakesNothingIsDropped() throws {
            let server = try TestServer(limits: TransportLimits(maxOutputBytes: 64 << 20, outputTimeout: 0.3, pauseInputBytes: 256 << 10))
            let reply = [UInt8](repeating: UInt8(ascii: "r"), count: 100_000) + [UInt8(ascii: "\n")]
            server.delegate.reply = { c, _ in c.send(reply) }
            let squatter = try Client(path: server.path)
            squatter.write(String(repeating: "q\n", count: 100))
            try server.wait("the squatter is dropped") { server.delegate.closed.values.contains(.outputOverflow) }
            try server.wait("nothing is held") { server.server.heldBytes == 0 }
        }

        /// Over the budget, clients that take none of their output go before a bigger one that
        /// reads: a reader of a big reply is not closed for squatters.
        @Test func theBudgetClosesStalledClientsBeforeAReader() throws {
            let budget = 8 << 20
            let server = try TestServer(limits: TransportLimits(maxOutputBytes: 64 << 20, outputTimeout: 60, pauseInputBytes: 1 << 20,
                                                                memoryBudget: budget))
            let small = [UInt8](repeating: UInt8(ascii: "s"), count: 200_000) + [UInt8(ascii: "\n")]
            let big = [UInt8](repeating: UInt8(ascii: "b"), count: 3 << 20) + [UInt8(ascii: "\n")]
            server.delegate.reply = { c, line in c.send(line == "big" ? big : small) }
            var squatters: [Client] = []
            for _ in 0..<4 {
                let s = try Client(path: server.path)
                s.write(String(repeating: "q\n", count: 50))
                squatters.append(s)
            }
            // Each has its requests waiting (its output is full), then takes nothing for over a
            // second: counted from when the loop came to them, not from when they wrote.
            try server.wait("the squatters wait to be read") { server.delegate.opened.filter(\.inputPaused).count == 4 }
            usleep(1_300_000)
            let reader = try Client(path: server.path)
            reader.write("big\n")
            let got = reader.read(count: big.count)
            #expect(got.count == big.count && got.elementsEqual(big), "the reader got \(got.count) of \(big.count) bytes")
            let closed = server.sync { server.delegate.closed.values.filter { $0 == .overBudget }.count }
            #expect(closed >= 1, "no squatter was closed")
            squatters = []
        }

        /// Clients that never read what is sent to them (subscribers) over the budget: the
        /// ones holding the most are dropped, the total stays within the budget, and the
        /// client causing the output is served throughout.
        @Test func unreadOutputOverTheBudgetDropsTheBiggestHolders() throws {
            let budget = 8 << 20
            let server = try TestServer(limits: TransportLimits(maxOutputBytes: 1 << 30, outputTimeout: 60, memoryBudget: budget))
            let event = [UInt8](repeating: UInt8(ascii: "e"), count: 256 << 10) + [UInt8(ascii: "\n")]
            var subscribers: [Connection] = []
            server.delegate.reply = { c, line in
                if line == "subscribe" { subscribers.append(c) }
                if line == "publish" { for s in subscribers where !s.isClosed { s.send(event) } }
                c.send(Array("echo:\(line)\n".utf8))
            }
            var sleepers: [Client] = []
            for _ in 0..<6 {
                let s = try Client(path: server.path)
                s.write("subscribe\n")
                sleepers.append(s)
            }
            try server.wait("six subscribers") { subscribers.count == 6 }
            let publisher = try Client(path: server.path)
            var peak = 0
            for i in 0..<40 {  // 60 MB of events in all
                publisher.write("publish\n")
                guard publisher.readLine() == "echo:publish" else { Issue.record("publish \(i) not answered"); return }
                peak = max(peak, server.sync { server.server.heldBytes })
            }
            #expect(peak <= budget, "\(peak) bytes held with a budget of \(budget)")
            let dropped = server.sync { server.delegate.closed.values.filter { $0 == .overBudget }.count }
            #expect(dropped >= 4, "only \(dropped) of 6 subscribers dropped")
            sleepers = []
            server.sync { subscribers = [] }
            try server.wait("nothing is held once they are gone") { server.server.heldBytes == 0 }
        }
    }
}
