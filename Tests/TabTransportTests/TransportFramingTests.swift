// Line framing: "\n" and "\r\n", pipelining, a last line without "\n" before a half-close,
// and the line-length bound.

import Foundation
import Glibc
import Testing
@testable import TabTransport

extension TransportTests {
    @Suite struct Framing {
        /// 10,000 requests written at once are all answered, in order.
        @Test func pipelinedRequestsAreAnsweredInOrder() throws {
            let server = try TestServer()
            let client = try Client(path: server.path)
            let count = 10_000
            var batch = ""
            for i in 0..<count { batch += "request-\(i)\n" }
            #expect(client.write(batch))
            for i in 0..<count {
                let line = client.readLine()
                guard line == "echo:request-\(i)" else {
                    Issue.record("reply \(i) was \(line ?? "nothing")")
                    return
                }
            }
            #expect(server.sync { server.delegate.lines.count } == count)
        }

        /// "\r\n" ends a line like "\n" (the "\r" is removed); empty lines are skipped; a "\r"
        /// inside a line is kept.
        @Test func crlfIsAcceptedAndEmptyLinesAreSkipped() throws {
            let server = try TestServer()
            let client = try Client(path: server.path)
            client.write("one\r\n\n\r\ntw\ro\r\nthree\n")
            #expect(client.readLine() == "echo:one")
            #expect(client.readLine() == "echo:tw\ro")
            #expect(client.readLine() == "echo:three")
            #expect(server.sync { server.delegate.lines } == ["one", "tw\ro", "three"])
        }

        /// A request split across many writes is put back together.
        @Test func requestSplitAcrossWritesIsOneLine() throws {
            let server = try TestServer()
            let client = try Client(path: server.path)
            for piece in ["{\"cmd\":", "\"ping\"", ",\"id\":1}", "\r", "\n"] {
                client.write(piece)
                usleep(20_000)
            }
            #expect(client.readLine() == "echo:{\"cmd\":\"ping\",\"id\":1}")
        }

        /// A last line without "\n", then shutdown(SHUT_WR): every request is answered, after
        /// the commit, and then the server closes (end of file, not a reset).
        @Test func finalLineWithoutNewlineBeforeHalfCloseIsAnswered() throws {
            let server = try TestServer()
            let client = try Client(path: server.path)
            client.write("a\nb\nc")
            client.shutdownWrite()
            let result = client.readUntilClosed()
            #expect(result.lines == ["echo:a", "echo:b", "echo:c"])
            #expect(result.eof)
            try server.wait("the connection is closed") { server.server.connectionCount == 0 }
            #expect(server.sync { server.delegate.closed.values.first } == .clientClosed)
            #expect(server.sync { server.delegate.commits } >= 1)
        }

        /// A line that is exactly the limit long is a request; one byte more is too long.
        @Test func lineOfExactlyTheLimitIsAccepted() throws {
            let limit = 200_000
            let server = try TestServer(limits: TransportLimits(maxLineBytes: limit))
            server.delegate.reply = { c, line in c.send(Array("length:\(line.utf8.count)\n".utf8)) }
            let client = try Client(path: server.path)
            let line = [UInt8](repeating: UInt8(ascii: "x"), count: limit)
            client.write(line + [UInt8(ascii: "\n")])
            #expect(client.readLine() == "length:\(limit)")

            let other = try Client(path: server.path)
            other.write([UInt8](repeating: UInt8(ascii: "y"), count: limit + 1) + [UInt8(ascii: "\n")])
            let result = other.readUntilClosed()
            #expect(result.lines == ["error:lineTooLong"])
        }

        /// With a small limit, a whole over-long line arriving in one read is refused too,
        /// after the requests before it were answered.
        @Test func overlongCompleteLineInOneRead() throws {
            let server = try TestServer(limits: TransportLimits(maxLineBytes: 10))
            let client = try Client(path: server.path)
            client.write("0123456789\n0123456789A\nnever\n")
            let result = client.readUntilClosed()
            #expect(result.lines == ["echo:0123456789", "error:lineTooLong"])
            #expect(server.sync { server.delegate.lines } == ["0123456789"])
        }

        /// A 2 MiB line without "\n" gets the delegate's error, then the connection closes,
        /// while another client keeps being served.
        @Test func tooLongLineGetsErrorThenClose() throws {
            let server = try TestServer()
            let flooder = try Client(path: server.path)
            let bystander = try Client(path: server.path)
            let sender = Thread {
                // Blocks once the server stops reading; fails (EPIPE) when it closes.
                flooder.write([UInt8](repeating: UInt8(ascii: "z"), count: 2 << 20))
            }
            sender.start()
            bystander.write("still here\n")
            #expect(bystander.readLine() == "echo:still here")
            let result = flooder.readUntilClosed()
            #expect(result.lines == ["error:lineTooLong"])
            try server.wait("the flooder is closed") { server.delegate.closed.count == 1 }
            #expect(server.sync { server.delegate.closed.values.first } == .lineTooLong)
            #expect(server.sync { server.delegate.tooLong } == 1)
            bystander.write("and again\n")
            #expect(bystander.readLine() == "echo:and again")
        }

        /// `socat` (which shuts down its writing side at end of input) gets every answer.
        @Test func halfCloseThroughSocat() throws {
            let server = try TestServer()
            let out = try shell("printf 'one\\ntwo\\nthree' | socat -t 5 - UNIX-CONNECT:\(server.path)")
            #expect(out == "echo:one\necho:two\necho:three\n")
        }

        /// `nc -N` (shutdown after end of input) gets every answer.
        @Test func halfCloseThroughNetcat() throws {
            let server = try TestServer()
            let out = try shell("printf 'one\\r\\ntwo\\nthree' | nc -N -U \(server.path)")
            #expect(out == "echo:one\necho:two\necho:three\n")
        }
    }
}
