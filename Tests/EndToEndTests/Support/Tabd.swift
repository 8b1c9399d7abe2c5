// End-to-end support: a real tabd process on a temporary socket, and a JSON line client.

import Foundation
import TabJSON
import Testing
import TabProtocol
import TabSystem

#if canImport(Glibc)
import Glibc
#endif

/// Where the package's products are: next to this test bundle.
enum Build {
    static let binDirectory: URL = {
        // Another build's products (TABD_TEST_BIN_DIR): the release build (`make test-release`),
        // or an older tabd, to show that a test fails on it. With its links resolved, as tabd
        // names its plugins' paths (.build/release is a link).
        if let other = ProcessInfo.processInfo.environment["TABD_TEST_BIN_DIR"] {
            return URL(fileURLWithPath: other).resolvingSymlinksInPath()
        }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        // swift test runs .build/<triple>/debug/<Pkg>PackageTests.xctest
        for _ in 0..<3 where !FileManager.default.fileExists(atPath: dir.appendingPathComponent("tabd").path) {
            dir = dir.deletingLastPathComponent()
        }
        if FileManager.default.fileExists(atPath: dir.appendingPathComponent("tabd").path) { return dir }
        return packageRoot.appendingPathComponent(".build/debug")
    }()

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var tabd: String { binDirectory.appendingPathComponent("tabd").path }
    static var tabctl: String { binDirectory.appendingPathComponent("tabctl").path }
    static func plugin(_ name: String) -> String { binDirectory.appendingPathComponent("lib\(name).so").path }
}

/// A temporary directory under /tmp with a short path (sun_path is 108 bytes).
func temporaryDirectory(_ tag: String = "t") -> String {
    var template = Array("/tmp/tabd-\(tag)-XXXXXX".utf8CString)
    let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(p != nil, "mkdtemp failed")
    return String(cString: p!)
}

/// A scratch directory for a tabd whose journal writes can be made to fail, and the
/// environment that tells it so: while `faultFile` exists, its content ("ENOSPC", "EIO",
/// "EROFS", "fsync:EIO") is the error (docs/operations.md, "When the disk is full").
func faultInjection(_ tag: String) -> (dir: String, faultFile: String, environment: [String: String]) {
    let dir = temporaryDirectory(tag)
    var env = ProcessInfo.processInfo.environment
    env["TABD_TEST_FAULT_FILE"] = dir + "/fault"
    return (dir, dir + "/fault", env)
}

final class TabdProcess {
    let dir: String
    let socket: String
    let stateDir: String
    let configPath: String
    private(set) var process: Process?
    let stderrPath: String

    /// Starts tabd with `config` (YAML, may be empty) and waits until its socket answers.
    init(config: String = "", arguments: [String] = [], dir: String? = nil, environment: [String: String]? = nil) throws {
        self.dir = dir ?? temporaryDirectory()
        socket = self.dir + "/tabd.sock"
        stateDir = self.dir + "/state"
        configPath = self.dir + "/tabd.yaml"
        stderrPath = self.dir + "/stderr.log"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        try start(arguments: arguments, environment: environment)
    }

    func start(arguments: [String] = [], environment: [String: String]? = nil, waitForSocket: Bool = true) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Build.tabd)
        p.arguments = ["--config", configPath, "--socket", socket, "--state-dir", stateDir] + arguments
        if let environment { p.environment = environment }
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let log = FileHandle(forWritingAtPath: stderrPath)!
        log.seekToEndOfFile()
        p.standardError = log
        p.standardOutput = log
        try p.run()
        process = p
        if waitForSocket { try waitUntilServing() }
    }

    /// The bounds of the harness's own waits are give-up bounds, far above what a start or a
    /// stop takes (milliseconds): on a loaded machine they are what keeps a slow test from
    /// failing, and a test that passes never waits them out (README, "Testing").
    func waitUntilServing(timeout: Double = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let c = try? LineClient(path: socket), (try? c.request(#"{"cmd":"ping"}"#)) != nil { return }
            if let p = process, !p.isRunning {
                throw TestFailure("tabd exited with \(p.terminationStatus) before serving: \(log)")
            }
            usleep(20_000)
        }
        throw TestFailure("tabd did not answer on \(socket) within \(timeout) s: \(log)")
    }

    var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    var pid: Int32 { process?.processIdentifier ?? 0 }

    /// Sends `signal` and waits for the process to exit; returns its status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeout: Double = 60) -> Int32 {
        guard let p = process else { return -1 }
        if p.isRunning { kill(p.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        process = nil
        return p.terminationStatus
    }

    func restart(arguments: [String] = []) throws {
        stop()
        try start(arguments: arguments)
    }

    func client() throws -> LineClient { try LineClient(path: socket) }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: dir)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A blocking client for one connection: send lines, read lines.
final class LineClient {
    /// -1 once closed: a descriptor must never be closed twice (the number may already belong
    /// to another test's socket in this process).
    private(set) var fd: Int32
    private var buffer: [UInt8] = []
    /// How much of `buffer` holds no newline.
    private var scanned = 0

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let ok = UnixAddress(path)!.withSockaddr { connect(fd, $0, $1) }
        if ok != 0 {
            let e = errno
            close(fd)
            fd = -1
            throw TestFailure("connect \(path): \(String(cString: strerror(e)))")
        }
        // A reply that never comes fails the test after a minute, not never; a minute is
        // ample for any reply on a loaded machine.
        var tv = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { if fd >= 0 { close(fd) } }

    func write(_ text: String) throws { try write(Array(text.utf8)) }

    func write(_ bytes: [UInt8]) throws {
        do { try sendAll(fd, bytes) } catch { throw TestFailure(error.description) }
    }

    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// The next line, or nil at end of stream.
    func readLine() throws -> String? {
        while true {
            // Only bytes not looked at yet are searched: a reply of megabytes costs O(n).
            if let nl = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                scanned = 0
                return line
            }
            scanned = buffer.count
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw TestFailure("recv: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// True when the stream has ended: end of file, or ECONNRESET — what a Unix socket
    /// reports once the peer closed with some of our writes still unread (the lines it sent
    /// before closing are always delivered first). False when a line arrives instead.
    func readsEndOfStream() throws -> Bool {
        do {
            return try readLine() == nil
        } catch let failure as TestFailure where failure.description.contains(String(cString: strerror(ECONNRESET))) {
            return true
        }
    }

    /// Sends one request line and returns its reply as an object.
    @discardableResult
    func request(_ line: String) throws -> JSONObject {
        try write(line + "\n")
        guard let reply = try readLine() else { throw TestFailure("connection closed instead of a reply to \(line)") }
        return try object(reply)
    }

    /// Sends one request and returns the result, failing when the reply is an error.
    @discardableResult
    func ok(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
        let reply = try request(line)
        guard case .bool(true)? = reply["ok"], case .object(let result)? = reply["result"] else {
            throw TestFailure("expected success for \(line), got \(JSONValue.object(reply).jsonString)")
        }
        return result
    }

    /// Sends one request and returns the error object, failing on success.
    @discardableResult
    func error(_ line: String) throws -> JSONObject {
        let reply = try request(line)
        guard case .bool(false)? = reply["ok"], case .object(let error)? = reply["error"] else {
            throw TestFailure("expected an error for \(line), got \(JSONValue.object(reply).jsonString)")
        }
        return error
    }

    /// Sends each request, which must be refused with its code (and, when given, naming its
    /// field) in a sentence: bad input gets a clear error.
    func expectRefusals(_ cases: [(request: String, code: String, field: String?)]) throws {
        for (request, code, field) in cases {
            let e = try error(request)
            #expect(e.string("code") == code, "\(request.prefix(200)): \(e)")
            if let field { #expect(e.string("field") == field, "\(request.prefix(200)): \(e)") }
            #expect(!(e.string("message") ?? "").isEmpty, "\(request.prefix(200)): \(e)")
        }
    }

    func expectRefusals(_ cases: [(request: String, code: String)]) throws {
        try expectRefusals(cases.map { ($0.request, $0.code, nil) })
    }
}

func object(_ line: String) throws -> JSONObject {
    guard case .object(let o) = try JSONParser.parse(line) else { throw TestFailure("not an object: \(line)") }
    return o
}

extension JSONObject {
    func string(_ key: String) -> String? {
        if case .string(let s)? = self[key] { return s }
        return nil
    }
    func int(_ key: String) -> Int? {
        if case .int(let i)? = self[key] { return Int(i) }
        return nil
    }
    /// A number, whichever way it was written (`3` or `3.5`).
    func double(_ key: String) -> Double? {
        switch self[key] {
        case .double(let d)?: return d
        case .int(let i)?: return Double(i)
        default: return nil
        }
    }
    func bool(_ key: String) -> Bool? {
        if case .bool(let b)? = self[key] { return b }
        return nil
    }
    func object(_ key: String) -> JSONObject? {
        if case .object(let o)? = self[key] { return o }
        return nil
    }
    func strings(_ key: String) -> [String]? {
        guard case .array(let a)? = self[key] else { return nil }
        return a.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
    }
    func isNull(_ key: String) -> Bool { self[key] == .null }
}

/// The `state` reply line of each controller in `names`, in order (what a restart must give back).
func stateLines(_ c: LineClient, _ names: [String]) throws -> [String] {
    try names.map { name in
        try c.write(#"{"cmd":"state","controller":"\#(name)"}"# + "\n")
        return try #require(try c.readLine())
    }
}

/// Runs a shell command, returns (status, stdout).
@discardableResult
func shell(_ command: String, input: String? = nil) throws -> (status: Int32, output: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/bash")
    p.arguments = ["-c", command]
    // A command is run as a person would run it: not as a sub-make of whatever make ran the
    // tests (make test runs the suites), whose MAKEFLAGS would have a `make -s`
    // in the command print "Entering directory" lines.
    p.environment = ProcessInfo.processInfo.environment.filter { !["MAKEFLAGS", "MFLAGS", "MAKELEVEL"].contains($0.key) }
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    let inPipe = Pipe()
    p.standardInput = inPipe
    try p.run()
    if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try? inPipe.fileHandleForWriting.close()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

extension Build {
    /// The plugin ABI the header describes ("1.5"): what a plugin built against it reports,
    /// read from policy.h itself, so that tests and docs follow the header.
    static let headerABI: String = {
        let header = (try? String(contentsOf: packageRoot.appendingPathComponent("Sources/CTabPolicy/include/tabd/policy.h"), encoding: .utf8)) ?? ""
        func define(_ name: String) -> String {
            header.split(separator: "\n").first { $0.hasPrefix("#define \(name) ") }.map { String($0.split(separator: " ")[2]) } ?? "?"
        }
        return define("TABD_POLICY_ABI_MAJOR") + "." + define("TABD_POLICY_ABI_MINOR")
    }()
}

/// A log line without the RFC 3339 timestamp tabd writes when stderr is not the journal.
func withoutTimestamp<S: StringProtocol>(_ line: S) -> String {
    String(line).replacing(#/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /#, with: "")
}

/// Log text with each line's timestamp taken away.
func withoutTimestamps(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map(withoutTimestamp).joined(separator: "\n")
}
