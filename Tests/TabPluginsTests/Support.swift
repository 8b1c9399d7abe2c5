// Shared by the plugin tests: the real plugin files, C plugins compiled on the fly, a
// log that can be read back, and controllers to decide about.

import Foundation
import Logging
import TestLogging
import TabCore
import CTabPolicy
import TabPlugins
import Testing

/// The build directory holding the test binary and the reference plugins
/// (`swift build` makes libLoginGate.so and libOrientationRules.so there).
let buildDirectory: String = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
    // The binary may sit inside a bundle directory (…/tabdPackageTests.xctest/…).
    while dir.path != "/", !FileManager.default.fileExists(atPath: dir.appendingPathComponent("libLoginGate.so").path) {
        dir.deleteLastPathComponent()
    }
    return dir.path
}()

/// The package's root (for the header and the example sources).
let packageRoot: String = {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}()

let includeDirectory = packageRoot + "/Sources/CTabPolicy/include"

/// The path of a reference plugin, failing the test when it was not built.
func referencePlugin(_ file: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let path = buildDirectory + "/" + file
    try #require(FileManager.default.fileExists(atPath: path),
                 "\(file) is missing next to the tests: run `swift build` (all products) before `swift test`",
                 sourceLocation: sourceLocation)
    return path
}

/// A fresh private directory (mode 0700) under the temporary directory; left behind (tiny).
func temporaryDirectory() throws -> String {
    var template = Array((NSTemporaryDirectory() + "/tabd-plugins-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    let path = try #require(made.map { String(cString: $0) })
    return URL(fileURLWithPath: path).standardizedFileURL.path
}

struct CommandFailed: Error, CustomStringConvertible {
    var description: String
}

/// Runs a command, returning its standard output; throws with its stderr when it fails.
@discardableResult
func run(_ arguments: [String], in directory: String? = nil) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = arguments
    if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let error = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
        throw CommandFailed(description: "\(arguments.joined(separator: " ")) failed: \(String(decoding: error, as: UTF8.self))")
    }
    return String(decoding: output, as: UTF8.self)
}

/// Compiles C source into `directory/file` the way a plugin author would:
/// `cc -shared -fPIC -I <include> source.c -o file`.
@discardableResult
func compilePlugin(_ source: String, named file: String, in directory: String) throws -> String {
    let src = directory + "/" + file + ".c"
    try source.write(toFile: src, atomically: true, encoding: .utf8)
    try run(["cc", "-shared", "-fPIC", "-Wall", "-Werror", "-I", includeDirectory, src, "-o", directory + "/" + file])
    return directory + "/" + file
}

/// Tests/EndToEndTests/Fixtures/`name`.c built into a fresh directory as `name`.so; returns
/// the directory.
func buildFixture(_ name: String) throws -> String {
    let dir = try temporaryDirectory()
    try run(["cc", "-shared", "-fPIC", "-Wall", "-Werror", "-I", includeDirectory,
             packageRoot + "/Tests/EndToEndTests/Fixtures/\(name).c", "-o", dir + "/\(name).so"])
    return dir
}

/// C source of a small plugin: `hooks` defines functions, `fields` sets descriptor fields.
func cPlugin(name: String, abiMajor: String = "TABD_POLICY_ABI_MAJOR",
             structSize: String = "sizeof(tabd_policy_descriptor)", hooks: String = "", fields: String = "") -> String {
    """
    #include <tabd/policy.h>
    #include <stddef.h>
    #include <string.h>
    \(hooks)
    static const tabd_policy_descriptor descriptor = {
        .abi_major = \(abiMajor), .abi_minor = TABD_POLICY_ABI_MINOR, .struct_size = \(structSize),
        .name = "\(name)", .version = "0.1", .description = "a test plugin",
        \(fields)
    };
    TABD_POLICY_EXPORT const tabd_policy_descriptor *tabd_policy_entry(void) { return &descriptor; }
    """
}

/// A gate that always answers `result` (a tabd_result name), with a reason when denying.
func gatePlugin(name: String, result: String, reason: String = "no") -> String {
    cPlugin(name: name, hooks: """
        static tabd_result gate(void *state, const tabd_controller *c, const tabd_candidate *cand, tabd_reply *reply) {
            (void)state; (void)c; (void)cand;
            reply->reason = "\(reason)";
            reply->message = "\(name) says \(reason)";
            return \(result);
        }
        """, fields: ".should_select = gate,")
}


/// A host over `directories`, logging into a recorder.
func makeHost(_ directories: [String]) -> (PluginHost, LogRecorder) {
    let log = LogRecorder()
    return (PluginHost(directories: directories, logger: log.logger), log)
}

/// A phone controller with these tabs (the first one selected).
func controller(_ ids: [String], name: String = "main", orientations: OrientationMask? = nil) throws -> Controller {
    var c = Controller(name: name, idiom: .phone)
    _ = try c.apply(.setTabs(ids.map { Tab(id: $0, title: $0.capitalized, orientations: orientations) }, animated: false))
    return c
}

/// The candidate for tab `id` of `c`.
func tab(_ id: String, of c: Controller) -> Candidate {
    .tab(id: id, index: c.index(of: id) ?? -1)
}

/// A tap through TabCore with `policy`; returns the denial, or nil when the tap happened.
func tapDenial(_ c: inout Controller, _ id: String, policy: Policy) -> TabError? {
    do {
        return try tap(&c, id, policy: policy).refusal
    } catch {
        return error
    }
}

/// Taps `id` ("more": More); the outcome, with the refusal and the effects.
func tap(_ c: inout Controller, _ id: String, policy: Policy) throws(TabError) -> Outcome {
    try c.apply(.tap(id == "more" ? .more : .tab(id)), policy: policy)
}

extension PluginHost {
    func status(_ name: String) -> PluginStatus? { plugins.first { $0.name == name } }
}

/// The chains' answers alone, for tests about the decision: what the plugins asked for
/// meanwhile is left out (tests about effects pass `effects`).
extension Policy {
    func shouldSelect(_ candidate: Candidate, in controller: Controller) -> Decision {
        var effects: [PolicyEffect] = []
        return withUnsafePointer(to: controller) { shouldSelect(candidate, in: LentController($0), effects: &effects) }
    }
    func supportedOrientations(proposed: OrientationMask, in controller: Controller) -> OrientationMask {
        var effects: [PolicyEffect] = []
        return withUnsafePointer(to: controller) { supportedOrientations(proposed: proposed, in: LentController($0), effects: &effects) }
    }
    func preferredOrientation(in controller: Controller) -> Orientation? {
        var effects: [PolicyEffect] = []
        return withUnsafePointer(to: controller) { preferredOrientation(in: LentController($0), effects: &effects) }
    }
}

extension Controller {
    /// R9.2's supported orientations as `policy` decides them now (its preference unasked).
    func supportedOrientations(policy: Policy) -> OrientationMask {
        var effects: [PolicyEffect] = []
        return withUnsafePointer(to: self) { policy.supportedOrientations(proposed: tabsOrientations, in: LentController($0), effects: &effects) }
    }
    /// R9.2's preferred orientation as `policy` decides it now.
    func preferredOrientation(policy: Policy) -> Orientation? {
        var effects: [PolicyEffect] = []
        return orientations(policy: policy, effects: &effects).preferred
    }
}

extension PluginCallReply {
    var failure: TabError? { if case .failure(let e) = result { return e } else { return nil } }
    /// The events the plugin emitted during the call: (plugin, controller, data).
    var events: [(plugin: String, controller: String, dataJSON: String)] {
        effects.compactMap { if case .event(let p, let c, let d) = $0 { return (p, c, d) } else { return nil } }
    }
    /// The selections the plugin asked for during the call.
    var selections: [(controller: String, target: SelectTarget)] {
        effects.compactMap { if case .select(let c, let t) = $0 { return (c, t) } else { return nil } }
    }
}

extension Array where Element == PolicyEffect {
    /// The events among the effects: (plugin, controller, data).
    var events: [(plugin: String, controller: String, dataJSON: String)] {
        compactMap { if case .event(let p, let c, let d) = $0 { return (p, c, d) } else { return nil } }
    }
}

/// The plugin ABI of the header these tests build plugins against ("1.5").
let headerABI = "\(TABD_POLICY_ABI_MAJOR).\(TABD_POLICY_ABI_MINOR)"
