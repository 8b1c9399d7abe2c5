// Connections: bounded output, peer credentials, many short connections, memory, closing.

import Foundation
import Glibc
import Logging
import TabSystem
import Testing
@testable import TabTransport

extension TransportTests {
    @Suite struct Connections {
        /// A client that never reads while its replies pile up past `maxOutputBytes` is
        /// dropped once it stays there for `outputTimeout` (output overflow); another client
        /// is served meanwhile and the loop never blocks.
        @Test func nonReadingClientIsDroppedOnOutputOverflow() throws {
            let server = try TestServer(limits: TransportLimits(maxOutputBytes: 1 << 20, outputTimeout: 0.2, pauseInputBytes: 4 << 20))
            let big = [UInt8](repeating: UInt8(ascii: "b"), count: 100_000) + [UInt8(ascii: "\n")]
            server.delegate.reply = { c, line in
                c.send(line == "big" ? big : Array("echo:\(line)\n".utf8))
            }
            let sleeper = try Client(path: server.path)
            let reader = try Client(path: server.path)
            // One request per turn, so the output first fills the socket, then the queue.
            for _ in 0..<40 {
                guard sleeper.write("big\n") else { break }
                usleep(5_000)
            }
            try server.wait("the sleeper is dropped") { !server.delegate.closed.isEmpty }
            #expect(server.sync { Array(server.delegate.closed.values) } == [.outputOverflow])
            reader.write("ping\n")
            #expect(reader.readLine() == "echo:ping")
            // The sleeper finds what the socket held, then the end.
            let rest = sleeper.readUntilClosed()
            #expect(rest.lines.count < 40)
        }

        /// The peer credentials are ours (SO_PEERCRED).
        @Test func peerCredentialsAreTheClientProcess() throws {
            let server = try TestServer()
            let client = try Client(path: server.path)
            client.write("who\n")
            #expect(client.readLine() == "echo:who")
            let peer = server.sync { server.delegate.opened[0].peer }
            #expect(peer == PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid()))
        }

        /// 5,000 connections opened and dropped at once: the server keeps serving and no
        /// descriptor leaks (the server's own are counted: the suites running meanwhile in
        /// this process open and close theirs).
        @Test func manyShortConnectionsLeakNothing() throws {
            let server = try TestServer()
            let before = serverDescriptorCount(path: server.path)
            #expect(before == 1, "the listening socket")
            for i in 0..<5_000 {
                let c = try Client(path: server.path)
                if i % 100 == 0 { c.write("partial request without newline") }
            }
            let client = try Client(path: server.path)
            client.write("after the storm\n")
            #expect(client.readLine() == "echo:after the storm")
            try server.wait("only one connection is left") { server.server.connectionCount == 1 }
            #expect(server.sync { server.delegate.closed.count } == 5_000)
            // The listening socket and our client's connection: one more than before.
            let after = serverDescriptorCount(path: server.path)
            #expect(after == before + 1, "the server's descriptors before \(before), after \(after)")
        }

        /// An idle connection costs well under 4 KiB of resident memory. Measured in a child
        /// process that runs only the server: the suites running meanwhile in this process
        /// allocate too, and what they hold would be counted as the connections'.
        @Test func idleConnectionsAreSmall() throws {
            let path = temporarySocketPath()
            defer { unlink(path) }
            let listener = try ListeningSocket.bind(path: path)
            defer { close(listener.fd) }
            let count = 4_000, warmUp = 200
            let figure = temporarySocketPath("rss") + ".txt"  // where the child says what it measured
            defer { unlink(figure) }
            let (status, parentOK) = runInChild {
                // Only what the server needs: stdio, the listener (another suite's descriptors
                // held here would keep its connections open).
                for fd in 3..<Int32(clamping: sysconf(Int32(_SC_OPEN_MAX))) where fd != listener.fd { close(fd) }
                guard let loop = try? EventLoop() else { return 10 }
                let delegate = EchoDelegate()
                var before = 0, measured = false
                delegate.reply = { c, line in
                    switch line {
                    case "count": c.send(Array("count:\(delegate.opened.count)\n".utf8)); return
                    case "baseline": before = residentBytes()
                    case "measure":
                        let perConnection = (residentBytes() - before) / count
                        let text = Array("\(perConnection)".utf8)
                        let fd = open(figure, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                        close(fd)
                        measured = true
                        loop.stop()
                    default: break
                    }
                    c.send(Array("echo:\(line)\n".utf8))
                }
                let server = LineServer(loop: loop, listener: listener, limits: TransportLimits(), delegate: delegate,
                                        logger: Logger(label: "child", factory: { _ in SwiftLogNoOpLogHandler() }))
                server.start()
                loop.after(55) { loop.stop() }  // give up: under runInChild's 60 s
                do { try loop.run() } catch { return 12 }
                return measured ? 0 : 13
            } parent: {
                guard let control = try? Client(path: path) else { return false }
                func ask(_ line: String) -> String? { control.write(line + "\n"); return control.readLine() }
                // Warm up: the first connections grow tables once.
                var clients: [Client] = []
                for _ in 0..<warmUp {
                    guard let c = try? Client(path: path) else { return false }
                    clients.append(c)
                }
                let deadline = Date().addingTimeInterval(50)
                while ask("count") != "count:\(warmUp + 1)" {
                    if Date() > deadline { return false }
                    usleep(2_000)
                }
                guard ask("baseline") == "echo:baseline" else { return false }
                for _ in 0..<count {
                    guard let c = try? Client(path: path) else { return false }
                    c.write("hello\n")
                    clients.append(c)
                }
                for c in clients.suffix(count) { guard c.readLine() == "echo:hello" else { return false } }
                _ = ask("measure")
                return true
            }
            #expect(parentOK)
            #expect(status == 0)
            let perConnection = Int((try? String(contentsOfFile: figure, encoding: .utf8)) ?? "") ?? Int.max
            #expect(perConnection < 4096, "\(perConnection) bytes per idle connection")
        }

        /// close() from the delegate: what is queued is written, then the connection closes.
        @Test func delegateCloseFlushesFirst() throws {
            let server = try TestServer()
            server.delegate.reply = { c, line in
                c.send(Array("bye:\(line)\n".utf8))
                if line == "quit" { c.close() }
            }
            let client = try Client(path: server.path)
            client.write("one\nquit\nnever answered\n")
            let result = client.readUntilClosed()
            #expect(result.lines == ["bye:one", "bye:quit"])
            try server.wait("closed") { !server.delegate.closed.isEmpty }
            #expect(server.sync { Array(server.delegate.closed.values) } == [.closedByServer])
        }

        /// beginShutdown stops accepting, lets clients take their replies, closes them
        /// (reason serverShutdown) and then calls its completion.
        @Test func shutdownFlushesThenCompletes() throws {
            let server = try TestServer()
            let client = try Client(path: server.path)
            client.write("last words\n")
            #expect(client.readLine() == "echo:last words")
            let done = DispatchSemaphore(value: 0)
            server.loop.door.async {
                server.delegate.opened[0].send(Array("goodbye\n".utf8))
                server.server.beginShutdown { done.signal() }
            }
            #expect(done.wait(timeout: .now() + 60) == .success)
            let rest = client.readUntilClosed()
            #expect(rest.lines == ["goodbye"])
            #expect(rest.eof)
            #expect(server.sync { Array(server.delegate.closed.values) } == [.serverShutdown])
            #expect(throws: SystemError.self) { try Client(path: server.path) }
        }

        /// A closing client that does not take its output is dropped under the output rules
        /// of any client (it does not keep its descriptor forever): after `outputTimeout`
        /// without taking any, counted under max_output_bytes — no grace period of its own.
        /// (2 s: the test sees the connection still open before then, on a loaded machine too.)
        @Test func closingClientThatDoesNotReadIsDroppedAfterTheOutputTimeout() throws {
            let server = try TestServer(limits: TransportLimits(outputTimeout: 2, closeGracePeriod: 600))
            let big = [UInt8](repeating: UInt8(ascii: "b"), count: 1 << 20) + [UInt8(ascii: "\n")]
            server.delegate.reply = { c, _ in
                c.send(big)
                c.close()
            }
            let sleeper = try Client(path: server.path)
            sleeper.write("big\n")
            try server.wait("the reply is queued") { server.delegate.lines.count == 1 }
            #expect(server.sync { server.server.connectionCount } == 1)
            try server.wait("the sleeper is closed") { server.server.connectionCount == 0 }
            #expect(server.sync { Array(server.delegate.closed.values) } == [.outputOverflow])
            #expect(server.sync { server.server.limitHits } == ["max_output_bytes": 1])
        }

        /// A server under `limits` that answers any line with `megabytes` of "b" and a newline,
        /// and a client whose reply to one line is queued, unread.
        static func bigReplyQueued(_ limits: TransportLimits, megabytes: Int) throws -> (TestServer, Client, [UInt8]) {
            let server = try TestServer(limits: limits)
            let big = [UInt8](repeating: UInt8(ascii: "b"), count: megabytes << 20) + [UInt8(ascii: "\n")]
            server.delegate.reply = { c, _ in c.send(big) }
            let client = try Client(path: server.path)
            client.write("big\n")
            try server.wait("the reply is queued") { server.delegate.lines.count == 1 }
            return (server, client, big)
        }

        /// Begins the server's shutdown on its loop: signalled when it completes.
        static func beginShutdown(_ server: TestServer) -> (DispatchSemaphore, Date) {
            let done = DispatchSemaphore(value: 0)
            let started = Date()
            server.loop.door.async { server.server.beginShutdown { done.signal() } }
            return (done, started)
        }

        /// A client that does not read its output does not hold up shutdown past the grace
        /// period: 0.3 s, the longest wait 600 s; shutdown ends well under 30 s (100 times the
        /// grace, for a loaded machine; without the grace it would take the longest wait).
        @Test func shutdownIsBounded() throws {
            var limits = TransportLimits(closeGracePeriod: 0.3)
            limits.maxShutdownWait = 600
            let (server, sleeper, _) = try Self.bigReplyQueued(limits, megabytes: 1)
            let (done, started) = Self.beginShutdown(server)
            #expect(done.wait(timeout: .now() + 60) == .success)
            #expect(Date().timeIntervalSince(started) < 30)
            #expect(server.sync { Array(server.delegate.closed.values) } == [.serverShutdown])
            withExtendedLifetime(sleeper) {}  // it never reads, but stays connected
        }

        /// The grace period counts from the last time a client took output: one reading a big
        /// reply slowly, for longer than the grace in all, gets all of it before it is closed.
        /// (Grace 2 s, a pause of 0.1 s between reads: 20 times, for a loaded machine's slower
        /// reader.)
        @Test func shutdownWaitsForAClientTakingItsOutputSlowly() throws {
            var limits = TransportLimits(closeGracePeriod: 2)
            limits.maxShutdownWait = 600
            let (server, reader, big) = try Self.bigReplyQueued(limits, megabytes: 8)
            let (done, started) = Self.beginShutdown(server)
            var got = 0
            while got < big.count {  // 256 KiB every 0.1 s: at least 3.2 s in all
                let chunk = reader.read(count: min(256 << 10, big.count - got))
                if chunk.isEmpty { break }
                got += chunk.count
                usleep(100_000)
            }
            #expect(got == big.count)
            #expect(Date().timeIntervalSince(started) > 3)
            #expect(done.wait(timeout: .now() + 60) == .success)
            #expect(server.sync { Array(server.delegate.closed.values) } == [.serverShutdown])
        }

        /// A reply the delegate makes later (`deferReply`, a big state encoded off the loop) is
        /// not the client's delay: shutdown waits for it past the grace period, then lets the
        /// client take it.
        @Test func shutdownWaitsForADeferredReply() throws {
            let server = try TestServer(limits: TransportLimits(closeGracePeriod: 0.2))
            server.delegate.reply = { c, _ in
                c.deferReply()
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.8) {
                    server.loop.door.async {
                        c.send(Array("late\n".utf8))
                        c.endDeferredReply()
                    }
                }
            }
            let client = try Client(path: server.path)
            client.write("ask\n")
            try server.wait("the line is handled") { server.delegate.lines.count == 1 }
            let done = DispatchSemaphore(value: 0)
            server.loop.door.async { server.server.beginShutdown { done.signal() } }
            #expect(client.readLine() == "late")
            #expect(done.wait(timeout: .now() + 60) == .success)
        }

        /// The longest wait bounds the shutdown even where it is shorter than the grace period
        /// (0.3 s against 600 s: shutdown ends well under 30 s, on a loaded machine too).
        @Test func theLongestWaitBoundsAGracePeriodLongerThanIt() throws {
            var limits = TransportLimits(closeGracePeriod: 600)
            limits.maxShutdownWait = 0.3
            let (server, sleeper, _) = try Self.bigReplyQueued(limits, megabytes: 1)
            let (done, started) = Self.beginShutdown(server)
            #expect(done.wait(timeout: .now() + 60) == .success)
            #expect(Date().timeIntervalSince(started) < 30)
            withExtendedLifetime(sleeper) {}
        }

        /// docs/operations.md states tabd's shutdown limits: the same numbers as the defaults
        /// (which tabd uses).
        @Test func operationsStatesTheShutdownLimits() throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let text = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
                .replacingOccurrences(of: "\n", with: " ")
            let limits = TransportLimits()
            #expect(text.contains("takes none of its output for \(Int(limits.closeGracePeriod)) s is closed"))
            #expect(text.contains("\(Int(limits.maxShutdownWait)) s at most in all"))
            // The unit lets a stop take longer than the longest wait, with room for the journal.
            let unit = try String(contentsOf: root.appendingPathComponent("systemd/tabd.service"), encoding: .utf8)
            let stop = unit.split(separator: "\n").first { $0.hasPrefix("TimeoutStopSec=") }
                .flatMap { Double($0.dropFirst("TimeoutStopSec=".count).filter(\.isNumber)) }
            #expect(try #require(stop) >= limits.maxShutdownWait + 5)
        }

        /// However slowly a client reads, shutdown ends after `maxShutdownWait` (4 s; the
        /// grace 2 s, 40 times the reader's pause, so that it never lapses on a loaded machine).
        @Test func shutdownWaitsForSlowReadersAtMostTheLongestWait() throws {
            var limits = TransportLimits(closeGracePeriod: 2)
            limits.maxShutdownWait = 4
            let (server, reader, _) = try Self.bigReplyQueued(limits, megabytes: 8)
            let (done, started) = Self.beginShutdown(server)
            var ended = false
            while !ended, Date().timeIntervalSince(started) < 60 {  // 64 KiB every 0.05 s: 6.4 s at least, never done in time
                ended = reader.read(count: 64 << 10).isEmpty
                usleep(50_000)
                if done.wait(timeout: .now()) == .success { break }
            }
            let took = Date().timeIntervalSince(started)
            #expect(took > 3.9 && took < 40, "\(took)")
            #expect(server.sync { Array(server.delegate.closed.values) } == [.serverShutdown])
        }
    }
}
