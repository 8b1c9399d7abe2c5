// Where plugins may live, through a real tabd and `tabd --check-config`: directories above a
// plugin that another user owns or may write are refused in one sentence (tabd serves with
// the plugins that did load), and --check-config reports exactly the refusals tabd makes.

import Foundation
import Glibc
import TabProtocol
import Testing

extension PluginEndToEndTests {
    /// `dir` (made with mode 0755) holding the gate plugin `file`, answering deny.
    @discardableResult
    static func gateDirectory(_ dir: String, _ file: String) throws -> String {
        #expect(mkdir(dir, 0o755) == 0)
        try Plugins.gate(file, in: dir, [#"NAME="\#(file.replacingOccurrences(of: ".so", with: ""))""#, "RESULT=TABD_DENY", #"REASON="guarded""#])
        return dir
    }

    /// The errors `plugins` lists, by configured file name.
    static func pluginErrors(_ tabd: TabdProcess) throws -> [String: String] {
        guard case .array(let list)? = try tabd.client().ok(#"{"cmd":"plugins"}"#)["plugins"] else { throw TestFailure("plugins has no list") }
        var errors: [String: String] = [:]
        for case .object(let p) in list {
            if let path = p.string("path"), let error = p.string("error") { errors[(path as NSString).lastPathComponent] = error }
        }
        return errors
    }

    static func writable(_ dir: String, _ who: String, _ mode: String) -> String {
        "\(dir) is writable by \(who) (mode \(mode)); run chmod go-w \(dir) or move the plugins to a directory only root can write"
    }

    static func owned(_ dir: String) -> String {
        "\(dir) is owned by uid \(AccessTests.otherUID); every directory above a plugin must be owned by root or by tabd's user (uid 0): run chown root \(dir) or move the plugins to a directory only root can write"
    }

    /// A plugin directory anyone may write, and one under a directory of uid 65534, are
    /// refused with the sentence and the fix; a plugin directory in a sticky world-writable
    /// directory (like /tmp) is fine. tabd starts and serves with the plugin that loaded, and
    /// --check-config reports the same two sentences.
    @Test func untrustedDirectoriesAreRefusedAndTabdServes() throws {
        let base = temporaryDirectory("pdir")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let open = try Self.gateDirectory(base + "/open", "open.so")
        chmod(open, 0o777)
        let theirs = base + "/theirs"
        mkdir(theirs, 0o755)
        let below = try Self.gateDirectory(theirs + "/plugins", "below.so")
        chown(theirs, AccessTests.otherUID, AccessTests.otherUID)
        let sticky = base + "/sticky"
        mkdir(sticky, 0o755)
        chmod(sticky, 0o1777)
        let kept = try Self.gateDirectory(sticky + "/plugins", "kept.so")
        let config = "plugins:\n  directories: [\(open), \(below), \(kept)]\n  load:\n    - path: open.so\n    - path: below.so\n    - path: kept.so\n"
        let expected = ["open.so": Self.writable(open, "group and others", "777"), "below.so": Self.owned(theirs)]

        let tabd = try TabdProcess(config: config)
        #expect(try Self.pluginErrors(tabd) == expected)
        for sentence in expected.values { #expect(tabd.log.contains(sentence), "the log says \(sentence)") }
        let c = try tabd.client()
        _ = try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"a"},{"id":"b"}]}"#)
        #expect(try c.error(#"{"cmd":"tap","tab":"b"}"#).string("plugin") == "kept", "the plugin that loaded is consulted")
        tabd.stop()

        let check = try ConfigAndLockTests.runTabd(["--check-config", "--config", tabd.configPath, "--socket", tabd.socket])
        #expect(check.status == 0, "\(check.stderr)")
        for (file, sentence) in expected {
            #expect(check.stderr.contains(": warning: plugin '\(file)' (\(file)) would not run: \(sentence)\n"), "\(check.stderr)")
        }
        #expect(check.stderr.contains("configuration OK with 2 warnings"), "\(check.stderr)")
    }

    /// A required plugin in a directory another user may write: tabd does not start, and
    /// --check-config says so (exit 78, EX_CONFIG) in the same sentence, at the plugin's line.
    @Test func requiredPluginInAnUntrustedDirectoryStopsTabdAndFailsTheCheck() throws {
        let base = temporaryDirectory("preq")
        defer { try? FileManager.default.removeItem(atPath: base) }
        chmod(base, 0o775)
        let dir = try Self.gateDirectory(base + "/plugins", "gate.so")
        try "plugins:\n  directories: [\(dir)]\n  load:\n    - path: gate.so\n      required: true\n"
            .write(toFile: base + "/tabd.yaml", atomically: true, encoding: .utf8)
        let sentence = Self.writable(base, "group", "775")
        let start = try ConfigAndLockTests.runTabd(["--config", base + "/tabd.yaml", "--socket", base + "/s", "--state-dir", base + "/state"])
        #expect(start.status == 78, "\(start.stderr)")
        #expect(start.stderr.contains(sentence), "\(start.stderr)")
        let check = try ConfigAndLockTests.runTabd(["--check-config", "--config", base + "/tabd.yaml", "--socket", base + "/s"])
        #expect(check.status == 78)
        #expect(check.stderr == "\(base)/tabd.yaml:4:7: error: required plugin 'gate.so' (gate.so) cannot run: \(sentence)\ntabd: \(base)/tabd.yaml cannot start: 1 error\n", "\(check.stderr)")
    }

    /// --check-config runs the checks tabd runs before loading a file — the same code — and
    /// reports each refusal in the sentence tabd lists in `plugins`: a symbolic link, a FIFO,
    /// a group-writable file, a file of another user, a missing file.
    @Test func checkConfigReportsTheFileRefusalsTabdMakes() throws {
        let dir = temporaryDirectory("pchk")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Plugins.gate("good.so", in: dir, [#"NAME="good""#])
        symlink("good.so", dir + "/link.so")
        mkfifo(dir + "/pipe.so", 0o644)
        chmod(try Plugins.gate("group.so", in: dir, [#"NAME="group""#]), 0o775)
        chown(try Plugins.gate("theirs.so", in: dir, [#"NAME="theirs""#]), AccessTests.otherUID, AccessTests.otherUID)
        let files = ["link.so", "pipe.so", "group.so", "theirs.so", "missing.so", "good.so"]
        let config = "plugins:\n  directories: [\(dir)]\n  load:\n" + files.map { "    - path: \($0)\n" }.joined()
        let tabd = try TabdProcess(config: config)
        let errors = try Self.pluginErrors(tabd)
        #expect(errors["link.so"] == "\(dir)/link.so is a symbolic link to \(dir)/good.so; plugins are opened without following links: list \(dir)/good.so in plugins.load instead")
        #expect(errors["pipe.so"] == "\(dir)/pipe.so is a FIFO, not a regular file; put the plugin's shared object there")
        #expect(errors["group.so"] == "\(dir)/group.so is group- or world-writable (mode 775); run chmod go-w on it")
        #expect(errors["theirs.so"] == "\(dir)/theirs.so is owned by uid 65534; plugins must be owned by root or by tabd's user (uid 0): run chown root \(dir)/theirs.so")
        #expect(errors["missing.so"] == "no file named 'missing.so' in the plugin directories (\(dir))")
        #expect(errors.count == 5, "good.so loads: \(errors)")
        tabd.stop()

        let check = try ConfigAndLockTests.runTabd(["--check-config", "--config", tabd.configPath, "--socket", tabd.socket])
        #expect(check.status == 0, "\(check.stderr)")
        let reported = check.stderr.split(separator: "\n").compactMap { line in line.range(of: ": warning: ").map { String(line[$0.upperBound...]) } }
        #expect(reported.sorted() == errors.map { "plugin '\($0.key)' (\($0.key)) would not run: \($0.value)" }.sorted(), "\(check.stderr)")
        #expect(check.stderr.contains("configuration OK with 5 warnings"), "\(check.stderr)")
        #expect(check.stderr.contains("plugin good 1.0"), "\(check.stderr)")
    }
}
