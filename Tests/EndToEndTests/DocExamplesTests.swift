// Every ```console block of README.md and docs/*.md is run against a real tabd started
// as `make run` starts it (config/run.yaml: login gate with demo/demo, orientation rules),
// and its output must be what the document shows.
//
// Convention for documents: in a ```console block, a line starting with "$ " is a command
// (bash, run from a directory that looks like the checkout: ./run/tabd.sock, .build/debug,
// tabctl on PATH, TABD_SOCKET unset); the lines after it, up to the next command, are its
// expected output. A command `export NAME=…` holds for the document's later commands, as it
// would in the reader's shell (`export TABD_SOCKET=$PWD/run/tabd.sock`, what `make run` says).
// "…" in an expected line matches any text; a line "…" alone matches any number of lines.
// Blocks of one document share one tabd, in order. Other fenced blocks are not run.
//
// TABD_DOCS_UPDATE=1 swift test --filter DocExamplesTests rewrites the expected outputs
// with what tabd printed (then put "…" back where values vary).

import Foundation
import Glibc
import TabProtocol
import Testing

struct DocCommand {
    var command: String
    var expected: [String]
    /// Line range of the expected output in the document (for updating).
    var outputLines: Range<Int>
}

enum DocExamples {
    /// The console blocks' commands of a Markdown text, in order.
    static func commands(in text: String) -> [DocCommand] {
        let lines = text.components(separatedBy: "\n")
        var result: [DocCommand] = []
        var inConsole = false, inOther = false
        var current: DocCommand?
        for (n, line) in lines.enumerated() {
            if line.hasPrefix("```") {
                if inConsole {
                    if let c = current { result.append(c) }
                    current = nil
                    inConsole = false
                } else if inOther {
                    inOther = false
                } else if line == "```console" {
                    inConsole = true
                } else {
                    inOther = true
                }
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                if let c = current { result.append(c) }
                current = DocCommand(command: String(line.dropFirst(2)), expected: [], outputLines: (n + 1)..<(n + 1))
            } else if current != nil {
                current!.expected.append(line)
                current!.outputLines = current!.outputLines.lowerBound..<(n + 1)
            }
        }
        // Trailing blank lines separate commands; they are not output.
        return result.map { c in
            var c = c
            while c.expected.last == "" { c.expected.removeLast(); c.outputLines = c.outputLines.lowerBound..<(c.outputLines.upperBound - 1) }
            return c
        }
    }

    /// Whether `actual` matches `expected` with the "…" wildcards.
    static func matches(_ expected: [String], _ actual: [String]) -> Bool {
        guard let first = expected.first else { return actual.isEmpty }
        if first == "…" {
            let rest = Array(expected.dropFirst())
            return (0...actual.count).contains { matches(rest, Array(actual.dropFirst($0))) }
        }
        guard let line = actual.first, matchesLine(first, line) else { return false }
        return matches(Array(expected.dropFirst()), Array(actual.dropFirst()))
    }

    static func matchesLine(_ pattern: String, _ line: String) -> Bool {
        let parts = pattern.components(separatedBy: "…")
        guard parts.count > 1 else { return pattern == line }
        guard line.hasPrefix(parts[0]) else { return false }
        var rest = line.dropFirst(parts[0].count)
        for (i, part) in parts.enumerated().dropFirst() {
            if i == parts.count - 1 { return rest.hasSuffix(part) && rest.count >= part.count }
            guard let r = rest.range(of: part) else { return false }
            rest = rest[r.upperBound...]
        }
        return true
    }

    /// What TABD_DOCS_UPDATE=1 writes for an output that no longer matches: the actual lines,
    /// with each `"key":…` of the old expected lines kept as a placeholder where the actual
    /// line has that key with a scalar value (a time, a duration: what changes every run).
    static func updated(_ expected: [String], _ actual: [String]) -> [String] {
        let keys = Set(expected.flatMap { line in
            line.components(separatedBy: ":…").dropLast().compactMap { before -> String? in
                guard before.hasSuffix("\""), let open = before.dropLast().lastIndex(of: "\"") else { return nil }
                return String(before[open...])  // the key with its quotes
            }
        })
        return actual.map { line in
            var out = line
            for key in keys {
                var from = out.startIndex
                while let k = out.range(of: key + ":", range: from..<out.endIndex) {
                    let value = out[k.upperBound...].prefix { !",}]".contains($0) }
                    guard !value.isEmpty, !value.hasPrefix("{"), !value.hasPrefix("[") else { from = k.upperBound; continue }
                    let at = out.distance(from: out.startIndex, to: k.upperBound)
                    out.replaceSubrange(k.upperBound..<value.endIndex, with: "…")
                    from = out.index(out.startIndex, offsetBy: at + 1)
                }
            }
            return out
        }
    }

    /// A directory laid out like the checkout while `make run` runs: config/run.yaml,
    /// run/credentials (demo:demo), .build/debug and .build/run/debug (make run's) → the built
    /// binaries; tabd started on it.
    static func checkout() throws -> (dir: String, tabd: Process) {
        let dir = temporaryDirectory("doc")
        let root = Build.packageRoot.path
        let setup = try shell("""
            set -e
            cd \(dir)
            mkdir -p config run/state .build
            cp \(root)/config/run.yaml config/
            ln -s \(Build.binDirectory.path) .build/debug
            mkdir .build/run && ln -s \(Build.binDirectory.path) .build/run/debug
            ln -s \(root)/Sources Sources
            ln -s \(root)/Plugins Plugins
            for f in Makefile README.md BENCHMARKS.md BENCHMARKS-HISTORY.md tabd.example.yaml systemd docs man clients examples sdk; do ln -s \(root)/$f $f; done
            printf 'demo:%s\\n' "$(openssl passwd -6 demo)" > run/credentials
            chmod 600 run/credentials
            """)
        guard setup.status == 0 else { throw TestFailure("setup failed: \(setup.output)") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Build.tabd)
        p.arguments = ["--config", dir + "/config/run.yaml"]
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        _ = FileManager.default.createFile(atPath: dir + "/tabd.log", contents: nil)
        p.standardError = FileHandle(forWritingAtPath: dir + "/tabd.log")
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let c = try? LineClient(path: dir + "/run/tabd.sock"), (try? c.request(#"{"cmd":"ping"}"#)) != nil { return (dir, p) }
            guard p.isRunning else { break }
            usleep(20_000)
        }
        let log = (try? String(contentsOfFile: dir + "/tabd.log", encoding: .utf8)) ?? ""
        p.terminate()
        throw TestFailure("tabd with config/run.yaml did not start: \(log)")
    }

    static func check(_ document: String) throws {
        let path = Build.packageRoot.appendingPathComponent(document).path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let commands = Self.commands(in: text)
        #expect(!commands.isEmpty, "\(document) has no console examples")
        let (dir, tabd) = try checkout()
        defer { tabd.terminate(); tabd.waitUntilExit(); try? FileManager.default.removeItem(atPath: dir) }
        let update = ProcessInfo.processInfo.environment["TABD_DOCS_UPDATE"] == "1"
        var lines = text.components(separatedBy: "\n")
        var shift = 0
        var exports = "unset TABD_SOCKET"
        for c in commands {
            let r = try shell("cd \(dir) && export PATH=\(Build.binDirectory.path):$PATH && \(exports) && \(c.command)")
            if c.command.hasPrefix("export ") { exports += " && " + c.command }
            var actual = r.output.components(separatedBy: "\n")
            if actual.last == "" { actual.removeLast() }
            if update && !matches(c.expected, actual) {
                let range = (c.outputLines.lowerBound + shift)..<(c.outputLines.upperBound + shift)
                let written = updated(c.expected, actual)
                lines.replaceSubrange(range, with: written)
                shift += written.count - range.count
                continue
            }
            #expect(matches(c.expected, actual), """
                \(document): `\(c.command)` printed
                \(actual.joined(separator: "\n"))
                but the document shows
                \(c.expected.joined(separator: "\n"))
                """)
        }
        if update { try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8) }
    }
}

@Suite(.serialized) struct DocExamplesTests {
    @Test func wildcards() {
        #expect(DocExamples.matchesLine(#"{"uptime":…,"ok":true}"#, #"{"uptime":1.5,"ok":true}"#))
        #expect(!DocExamples.matchesLine(#"{"a":…}"#, #"{"b":1}"#))
        // An update keeps the placeholders of the lines it rewrites.
        #expect(DocExamples.updated([#"{"seq":84,"ns":…,"t":[{"ns":…}]}"#], [#"{"seq":88,"ns":70471,"t":[{"ns":5}]}"#])
                == [#"{"seq":88,"ns":…,"t":[{"ns":…}]}"#])
        #expect(DocExamples.updated([#"{"a":1}"#], [#"{"a":2}"#]) == [#"{"a":2}"#])
        #expect(DocExamples.matches(["a", "…", "z"], ["a", "b", "c", "z"]))
        #expect(!DocExamples.matches(["a", "z"], ["a", "b", "z"]))
        let cmds = DocExamples.commands(in: "x\n```console\n$ echo 1\n1\n\n$ true\n```\n```sh\n$ not run\n```\n")
        #expect(cmds.map(\.command) == ["echo 1", "true"])
        #expect(cmds.first?.expected == ["1"])
    }

    @Test func readme() throws { try DocExamples.check("README.md") }
    @Test func protocolReference() throws { try DocExamples.check("docs/protocol.md") }
    @Test func operations() throws { try DocExamples.check("docs/operations.md") }
    @Test func plugins() throws { try DocExamples.check("docs/plugins.md") }
    @Test func clients() throws { try DocExamples.check("docs/clients.md") }
    @Test func examples() throws { try DocExamples.check("examples/README.md") }
}
