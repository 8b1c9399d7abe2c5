// The golden transcript (issue 31): the same requests get the same replies and events as they
// did when the transcript was recorded. Each fixture under Fixtures/golden holds one restart
// law stream (its seed's requests, with its restarts by SIGTERM and SIGKILL) and, after each
// request, the reply tabd gave and the events a connection subscribed to everything was sent.
// A rewrite of the service (the engine, the schema, the syscall layer) must leave every line
// as it was; where SEMANTICS changes what tabd answers, record the transcript again and let
// the diff show the change in review.
//
// What differs from run to run is masked before comparing, and only that: the temporary
// directory's path and the build's (where the plugins are), wall-clock times and durations, the process's instance, the version, and
// the values of `metrics`' samples.
//
// Record again (after a change SEMANTICS asks for):
//   TABD_GOLDEN_RECORD=1 swift test --skip-build --filter GoldenTranscript

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

/// One recorded stream: its settings' seed, and per entry the request (or restart) with what came back.
struct GoldenTranscript {
    static let directory = Build.packageRoot.appendingPathComponent("Tests/EndToEndTests/Fixtures/golden")
    static let seeds: [UInt64] = [27, 37, 20]
    static let steps = 800

    /// The fixture's lines: `> request`, `< reply`, `! event`, `~ restart by SIGTERM|SIGKILL`.
    var lines: [String]

    static func path(_ seed: UInt64) -> String { directory.appendingPathComponent("seed-\(seedText(seed)).txt").path }

    /// The entries a fixture replays: its requests and restarts, in order.
    static func entries(of lines: [String]) -> [LawEntry] {
        lines.compactMap { line in
            if line.hasPrefix("> ") { return .line(String(line.dropFirst(2))) }
            if line == "~ restart by SIGKILL" { return .restart(SIGKILL) }
            if line == "~ restart by SIGTERM" { return .restart(SIGTERM) }
            return nil
        }
    }

    /// Runs `entries` one request at a time on a fresh tabd with the seed's settings, a
    /// connection subscribed to every event beside it, and writes down what came back.
    static func transcribe(_ entries: [LawEntry], settings: LawSettings) throws -> [String] {
        let run = try RestartLawRun(settings: settings, watchesEvents: true)
        defer {
            _ = run.tabd.stop(signal: SIGKILL)
            _ = try? shell("rm -rf \(run.tabd.dir)")
        }
        var out: [String] = []
        var pings = 0
        /// The events sent to the watcher so far: a ping's reply comes after every event queued before it.
        func events() throws {
            guard let w = run.watcher else { return }
            pings += 1
            let id = "golden-\(pings)"
            try w.write(#"{"cmd":"ping","id":"\#(id)"}"# + "\n")
            while let raw = try w.readLine() {
                let o = try object(raw)
                if o["ok"] != nil {
                    if o.string("id") == id { return }
                    continue
                }
                out.append("! " + mask(raw, dir: run.tabd.dir))
            }
            throw TestFailure("the subscribed connection closed")
        }
        do {
            for entry in entries {
                switch entry {
                case .line(let line):
                    out.append("> " + line)
                    try run.client.write(line + "\n")
                    out.append("< " + mask(try run.reply(from: run.client, to: line).0, dir: run.tabd.dir))
                    try events()
                case .restart(let signal):
                    out.append("~ restart by \(signal == SIGKILL ? "SIGKILL" : "SIGTERM")")
                    _ = run.tabd.stop(signal: signal)
                    try run.tabd.start()
                    run.client = try run.tabd.client()
                    try run.openWatcher()
                }
            }
        } catch {
            // What tabd said is what explains a connection it closed.
            throw TestFailure("\(error)\nafter \(out.suffix(4).joined(separator: "\n"))\ntabd's log:\n\(run.tabd.log.split(separator: "\n").suffix(30).joined(separator: "\n"))")
        }
        return out
    }

    /// Keys whose values differ from run to run, whatever the requests (or machine to machine): masked.
    static let volatileKeys: Set<String> = ["until", "uptime_seconds", "instance", "version", "pid", "max_connections", "ns"]
    /// Endings of keys that hold durations and times (`stats`' latencies, hooks' nanoseconds).
    static let volatileEndings = ["_us", "_ns", "_time", "_at"]

    static func isVolatile(_ key: String) -> Bool {
        volatileKeys.contains(key) || volatileEndings.contains { key.hasSuffix($0) }
    }

    /// `raw` with the run's and the build's directories and the values of `volatileKeys` masked.
    static func mask(_ raw: String, dir: String) -> String {
        let text = raw.replacingOccurrences(of: dir, with: "$DIR").replacingOccurrences(of: Build.binDirectory.path, with: "$BIN")
        guard let value = try? JSONParser.parse(text) else { return text }
        return masked(value).jsonString
    }

    static func masked(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let o):
            return .object(JSONObject((0..<o.count).map { i in
                let (key, v) = (o.key(at: i), o.value(at: i))
                return (key, isVolatile(key) && v != .null ? .string("*") : masked(v))
            }))
        case .array(let a):
            return .array(a.map(masked))
        case .string(let text) where text.hasPrefix("# TYPE "):
            // `metrics`' OpenMetrics text: its names and labels stay, its samples' values
            // (latencies, times, bytes held) are masked, and the build's labels.
            return .string(text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                guard !line.hasPrefix("#"), let space = line.lastIndex(of: " ") else { return String(line) }
                return line[..<space].replacing(/(version|swift)="[^"]*"/) { "\($0.output.1)=\"*\"" } + " *"
            }.joined(separator: "\n"))
        default:
            return value
        }
    }
}

@Suite struct GoldenTranscriptTests {
    static var recording: Bool { ProcessInfo.processInfo.environment["TABD_GOLDEN_RECORD"] == "1" }

    /// The restart law's streams get, request by request, the replies and events they got
    /// when the transcript was recorded (restarts by SIGTERM and SIGKILL among them).
    @Test("R15.35 old clients: tab controllers with no nesting get the same replies and events, in the same order, as they did before R15", arguments: GoldenTranscript.seeds)
    func theSameRequestsGetTheSameRepliesAndEvents(_ seed: UInt64) throws {
        let settings = LawSettings(seed: seed)
        let path = GoldenTranscript.path(seed)
        if Self.recording {
            let run = try RestartLawRun(settings: settings)
            _ = run.run(steps: GoldenTranscript.steps)
            _ = run.tabd.stop(signal: SIGKILL)
            var entries = run.entries
            if case .restart? = entries.last { entries.removeLast() }
            let lines = try GoldenTranscript.transcribe(entries, settings: settings)
            try FileManager.default.createDirectory(at: GoldenTranscript.directory, withIntermediateDirectories: true)
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            print("golden transcript: \(settings.summary): \(lines.count) lines written to \(path)")
        }
        let recorded = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
        let entries = GoldenTranscript.entries(of: recorded)
        #expect(entries.count > GoldenTranscript.steps / 2, "the fixture \(path) holds \(entries.count) requests")
        let now = try GoldenTranscript.transcribe(entries, settings: settings)
        if ProcessInfo.processInfo.environment["TABD_GOLDEN_REANSWER"] == "1" {
            // The same requests, answered anew (a reply SEMANTICS changed, e.g. `hello`'s
            // lists): the diff of the fixture shows exactly what changed.
            try (now.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        // The first line that differs, with the requests before it: one difference usually explains the rest.
        if let i = (0..<min(recorded.count, now.count)).first(where: { recorded[$0] != now[$0] }) ?? (recorded.count == now.count ? nil : min(recorded.count, now.count)) {
            let before = recorded[max(0, i - 6)..<i].joined(separator: "\n")
            Issue.record("golden transcript \(settings.summary), line \(i + 1) of \(path) differs:\n\(before)\nrecorded: \(i < recorded.count ? recorded[i] : "(nothing)")\nnow:      \(i < now.count ? now[i] : "(nothing)")\n(\(zip(recorded, now).filter { $0 != $1 }.count) lines differ in all; if SEMANTICS asks for the change, record again: TABD_GOLDEN_RECORD=1 swift test --skip-build --filter GoldenTranscript, or answer the same requests anew: TABD_GOLDEN_REANSWER=1)")
        }
    }
}
