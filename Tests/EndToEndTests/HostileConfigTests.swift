// Issue 32, configuration files that cannot hang or explode tabd: the configuration and the
// login gate's credentials file are opened non-blocking and must be regular files of a
// bounded size; a YAML alias bomb is a config error with its file and line — at start, at
// --check-config and at reload alike — and a reload that meets one leaves tabd serving.

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

@Suite(.serialized) struct HostileConfigTests {
    /// Nested aliases under a plugin's settings: `levels` levels of ten, 10^levels nodes.
    static func aliasBomb(levels: Int) -> String {
        var yaml = "plugins:\n  load:\n    - path: libOrientationRules.so\n      settings:\n        l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...levels { yaml += "        l\(i): &l\(i) [" + Array(repeating: "*l\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
        return yaml
    }

    /// What a refused reload says: its message and each problem (config_invalid lists the
    /// file's problems apart from the one-sentence message).
    static func said(_ error: JSONObject) -> String {
        var text = error.string("message") ?? ""
        if case .array(let problems)? = error["problems"] { for case .string(let p) in problems { text += "\n" + p } }
        return text
    }

    /// A million nodes from 300 bytes: refused with the file and the line where the walk
    /// passed the bound, at reload (tabd keeps serving), at --check-config and at start.
    @Test func aYAMLAliasBombIsAConfigErrorWithItsLine() throws {
        let t = try TabdProcess(config: "")
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"}]}"#)
        try Self.aliasBomb(levels: 6).write(toFile: t.configPath, atomically: true, encoding: .utf8)
        let error = try c.error(#"{"cmd":"reload"}"#)
        let message = Self.said(error)
        #expect(message.contains("\(t.configPath):") && message.contains("YAML nodes once its aliases are expanded"), "\(message)")
        try c.ok(#"{"cmd":"state"}"#)  // still serving, with the running configuration
        t.stop()

        let check = try ConfigAndLockTests.runTabd(["--check-config", "--config", t.configPath])
        #expect(check.status == 78, "\(check.stderr)")
        #expect(check.stderr.contains("\(t.configPath):") && check.stderr.contains("YAML nodes once its aliases are expanded"), "\(check.stderr)")
        let start = try ConfigAndLockTests.runTabd(["--config", t.configPath, "--socket", t.socket, "--state-dir", t.stateDir])
        #expect(start.status != 0 && start.stderr.contains("YAML nodes once its aliases are expanded"), "\(start.stderr)")
    }

    /// 100,000 nested brackets (200 KB): a config error at their line, not a crash of the
    /// YAML reader's recursion — at --check-config and at reload.
    @Test func deepNestingIsAConfigErrorNotACrash() throws {
        let t = try TabdProcess(config: "")
        let deep = "plugins:\n  load:\n    - path: libOrientationRules.so\n      settings:\n        a: "
            + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "\n"
        try deep.write(toFile: t.configPath, atomically: true, encoding: .utf8)
        let sentence = "\(t.configPath):5:1047: the configuration nests more than 1040 levels deep; tabd reads no deeper (its YAML reader would run out of stack): flatten the settings"
        let error = try t.client().error(#"{"cmd":"reload"}"#)
        #expect(Self.said(error).contains(sentence), "\(JSONValue.object(error).jsonString)")
        t.stop()
        let check = try ConfigAndLockTests.runTabd(["--check-config", "--config", t.configPath])
        #expect(check.status == 78, "\(check.stderr.prefix(300))")
        #expect(check.stderr.contains("\(t.configPath):5:1047: error: the configuration nests more than 1040 levels deep"), "\(check.stderr.prefix(300))")
    }

    /// The configuration replaced by a FIFO, then `reload`: refused at once in one sentence
    /// (open(2) would wait for a writer with the loop held); other clients are answered.
    @Test func aConfigurationThatIsAFIFOIsRefusedAtReloadWithoutAStall() throws {
        let t = try TabdProcess(config: "")
        let c = try t.client()
        unlink(t.configPath)
        #expect(mkfifo(t.configPath, 0o600) == 0)
        let error = try c.error(#"{"cmd":"reload"}"#)
        #expect(Self.said(error).contains("the configuration file \(t.configPath) is a FIFO, not a regular file"), "\(JSONValue.object(error).jsonString)")
        try t.client().ok(#"{"cmd":"state"}"#)
        // And one too large to be a configuration.
        unlink(t.configPath)
        try String(repeating: "# padding\n", count: 200_000).write(toFile: t.configPath, atomically: true, encoding: .utf8)
        let large = try c.error(#"{"cmd":"reload"}"#)
        #expect(Self.said(large).contains("holds 2000000 bytes, more than the 1048576 tabd reads from it"), "\(JSONValue.object(large).jsonString)")
    }

    /// The login gate reads its credentials file at every login, on the loop: a FIFO there
    /// is refused at once (the login fails with the sentence), and tabd keeps answering.
    @Test func aCredentialsFileThatIsAFIFOFailsTheLoginNotTheLoop() throws {
        let dir = temporaryDirectory("cfifo")
        let credentials = try Plugins.credentials(in: dir)
        let t = try TabdProcess(config: Plugins.config(Plugins.loginGate(credentials: credentials)), dir: dir)
        let c = try t.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"login"},{"id":"home"}]}"#)
        unlink(credentials)
        #expect(mkfifo(credentials, 0o600) == 0)
        let reply = try c.request(#"{"cmd":"plugin.call","plugin":"login-gate","method":"login","args":{"user":"demo","password":"demo"}}"#)
        #expect(JSONValue.object(reply).jsonString.contains("credentials_file \(credentials) is a FIFO, not a regular file"), "\(JSONValue.object(reply).jsonString)")
        try t.client().ok(#"{"cmd":"state"}"#)
    }
}
