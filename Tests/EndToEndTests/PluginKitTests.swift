// The plugin author's kit, used as an outside author would: a C plugin built against the
// installed header with nothing but `pkg-config --cflags tabd-policy` uses the JSON helpers
// (ABI 1.3) in a real tabd; `tabd --check-plugin` is the first test of a plugin file.

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

@Suite struct PluginKitTests {
    /// `make install-files` into a DESTDIR, then Fixtures/json.c copied out of the tree and
    /// built with only the flags pkg-config gives for the installed tabd-policy.pc
    /// (PKG_CONFIG_SYSROOT_DIR for the staged tree). Returns the DESTDIR and the plugin's directory.
    static func buildAgainstInstalledHeader() throws -> (destdir: String, dir: String) {
        let destdir = try OperationsTests.install()
        let dir = temporaryDirectory("kit")
        let pc = "PKG_CONFIG_SYSROOT_DIR=\(destdir) PKG_CONFIG_PATH=\(destdir)/usr/lib/pkgconfig"
        let cflags = try shell("\(pc) pkg-config --cflags tabd-policy").output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(cflags == "-I\(destdir)/usr/include", "only the installed include directory: \(cflags)")
        let build = try shell("""
            cp \(Plugins.fixture("json.c")) \(dir)/ && cd \(dir) && \
            cc -shared -fPIC -Wall -Werror $(\(pc) pkg-config --cflags tabd-policy) json.c -o json.so
            """)
        guard build.status == 0 else { throw TestFailure("cc with pkg-config flags failed: \(build.output)") }
        return (destdir, dir)
    }

    /// Settings with a nested object are read with the getters; a hostile string (a quote
    /// and a newline) comes back escaped in the call result and in the emitted event, each on
    /// one line; a missing key and a wrong type are told apart.
    @Test func aPluginBuiltWithPkgConfigUsesTheJSONHelpers() throws {
        let (destdir, dir) = try Self.buildAgainstInstalledHeader()
        let load = """
                - path: json.so
                  settings: {greeting: "hi", limits: {max: 3, ratio: 0.5, loud: true}}

            """
        let config = "plugins:\n  directories: [\(dir)]\n  load:\n" + load
        let tabd = try TabdProcess(config: config, dir: dir)
        _ = destdir
        let c = try tabd.client()
        let watcher = try tabd.client()
        try watcher.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"home"}]}"#)

        try c.write(#"{"cmd":"plugin.call","plugin":"json","method":"settings"}"# + "\n")
        #expect(try c.readLine() == #"{"ok":true,"result":{"plugin":"json","value":{"greeting":"hi","limits":{"max":3,"ratio":0.5,"loud":true}}}}"#)

        try c.write(#"{"cmd":"plugin.call","plugin":"json","method":"echo","args":{"text":"a\"b\n"}}"# + "\n")
        #expect(try c.readLine() == #"{"ok":true,"result":{"plugin":"json","value":{"text":"a\"b\n","length":4}}}"#)
        let event = try #require(try watcher.readLine())
        #expect(event.hasPrefix(#"{"event":"plugin","controller":"main","seq":"#), "\(event)")
        #expect(event.replacingOccurrences(of: #","last":true}"#, with: "}").hasSuffix(#","data":{"plugin":"json","data":{"event":"echo","text":"a\"b\n"}}}"#), "\(event)")

        let get = { (key: String, type: String) throws -> JSONObject in
            try c.ok(#"{"cmd":"plugin.call","plugin":"json","method":"get","args":{"json":"{\"n\":1.5,\"s\":\"x\"}","key":"\#(key)","type":"\#(type)"}}"#).object("value") ?? JSONObject()
        }
        #expect(try get("n", "number").double("value") == 1.5)
        #expect(try get("absent", "string").int("status") == 1, "missing")
        #expect(try get("s", "int").int("status") == 2, "wrong type")
        #expect(try get("n", "int").int("status") == 2, "1.5 is not an integer")

        // A builder used wrongly: json_finish gives NULL, the plugin says so, tabd logs why.
        let misuse = try c.error(#"{"cmd":"plugin.call","plugin":"json","method":"misuse","args":{"case":"no-key"}}"#)
        #expect(misuse.string("message") == "json_finish returned NULL")
        #expect(tabd.log.contains("json_finish returned NULL: the builder was used wrongly (json_add_int with no key inside an object); fix the plugin's json_* calls plugin.name=json"), "\(tabd.log)")
    }

    /// A setting of the wrong type refuses the plugin with its sentence naming the key.
    @Test func wrongSettingsTypeRefusesThePluginNamingTheKey() throws {
        let (_, dir) = try Self.buildAgainstInstalledHeader()
        let config = "plugins:\n  directories: [\(dir)]\n  load:\n    - path: json.so\n      settings: {limits: {max: lots}}\n"
        let tabd = try TabdProcess(config: config, dir: dir)
        let plugins = try tabd.client().ok(#"{"cmd":"plugins"}"#)["plugins"]?.jsonString ?? ""
        #expect(plugins.contains(#""loaded":false,"error":"init failed: settings: limits.max must be a whole number""#), "\(plugins)")
    }

    /// A plugin may emit from should_select: a tap it refuses still delivers its event to
    /// subscribers (after the command, as for any other hook).
    @Test func aRefusedTapStillDeliversThePluginsEvents() throws {
        let dir = temporaryDirectory("emitdeny")
        try Plugins.build(Plugins.fixture("json.c"), "json.so", in: dir)
        let tabd = try TabdProcess(config: Plugins.config("    - path: json.so\n", extraDirectory: dir), dir: dir)
        let c = try tabd.client()
        let watcher = try tabd.client()
        try watcher.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"home"},{"id":"emit-x"}]}"#)
        let denied = try c.error(#"{"cmd":"tap","tab":"emit-x"}"#)
        #expect(denied.string("code") == "denied" && denied.string("plugin") == "json")
        let event = try #require(try watcher.readLine())
        #expect(event.replacingOccurrences(of: #","last":true}"#, with: "}").hasSuffix(#","data":{"plugin":"json","data":{"event":"asked","tab":"emit-x"}}}"#), "\(event)")
    }

    // MARK: tabd --check-plugin

    /// hello.c, built as the docs say: --check-plugin prints its descriptor and exits 0; bad
    /// settings (init refuses), a file without the entry symbol, and a missing file each give
    /// one line naming the file and exit 78.
    @Test func checkPluginPrintsTheDescriptorOrWhyNot() throws {
        let dir = temporaryDirectory("chk")
        try Plugins.build(Build.packageRoot.appendingPathComponent("Plugins/examples/hello.c").path, "hello.so", in: dir)
        let ok = try shell("\(Build.tabd) --check-plugin \(dir)/hello.so --settings '{\"prefix\": \"vault\"}'")
        #expect(ok.status == 0, "\(ok.output)")
        for line in ["plugin OK: \(dir)/hello.so: loaded, init ran with settings {\"prefix\": \"vault\"} and fini ran",
                     "  name         hello", "  version      1.0.0", "  abi          \(Build.headerABI)",
                     "  description  Locks tabs whose id starts with a prefix until its unlock method is called.",
                     "  hooks        init, fini, should_select, did_select, will_begin_customizing, did_end_customizing, call, selection_changed, timer, controller_created, controller_deleted, may_open_drawer, top_column_for_collapsing, notify"] {
            #expect(ok.output.contains(line + "\n"), "\(line) in \(ok.output)")
        }
        #expect(ok.output.contains("hello ready: tabs starting with 'vault' are locked"), "the plugin's own log line: \(ok.output)")

        let bad = try shell("cd \(dir) && \(Build.tabd) --check-plugin ./hello.so --settings '{\"prefix\": 7}' 2>&1 >/dev/null")
        #expect(bad.status == 78)
        #expect(bad.output == "\(dir)/hello.so: error: tabd would not load this plugin: init failed: settings: prefix must be a string\n", "\(bad.output)")

        try "int not_a_plugin(void) { return 1; }\n".write(toFile: dir + "/none.c", atomically: true, encoding: .utf8)
        #expect(try shell("cc -shared -fPIC \(dir)/none.c -o \(dir)/none.so").status == 0)
        let none = try shell("\(Build.tabd) --check-plugin \(dir)/none.so")
        #expect(none.status == 78)
        #expect(none.output.hasPrefix("\(dir)/none.so: error: tabd would not load this plugin: it does not export tabd_policy_entry"), "\(none.output)")

        let missing = try shell("\(Build.tabd) --check-plugin \(dir)/missing.so")
        #expect(missing.status == 78)
        #expect(missing.output == "\(dir)/missing.so: error: tabd would not load this plugin: cannot open \(dir)/missing.so: No such file or directory\n", "\(missing.output)")

        let alone = try shell("\(Build.tabd) --settings '{}'")
        #expect(alone.status == 64 && alone.output.contains("--settings goes with --check-plugin"), "\(alone.output)")
    }
}

/// A Swift plugin against the built TabPolicy module (and TabJSON, its codec, with TabStrings
/// under it), compiled with swiftc as an author's build would: a hook is one the SDK calls or
/// a compile error.
@Suite struct SwiftSDKTests {
    static let source = #"""
        import TabPolicy

        @_cdecl("tabd_policy_entry") public func tabdPolicyEntry() -> UnsafeRawPointer { exportPolicy(Landscape.self) }

        final class Landscape: PolicyPlugin, SupportedOrientationsHook, ShouldSelectHook {
            static let name = "landscape"
            static let version = "1.0.0"
            static let summary = "Landscape only, and no tab called 'nope'."
            init(settings: JSON, host: PolicyHost) throws {}
            func supportedOrientations(proposed: Orientations, in controller: ControllerView) -> Orientations? { .landscape }
            func shouldSelect(_ candidate: Candidate, in controller: ControllerView) -> Verdict {
                candidate.id == "nope" ? .deny(reason: "nope") : .abstain
            }
        }
        """#

    /// swiftc of `text` into `dir/libLandscape.so`: (exit status, diagnostics).
    static func compile(_ text: String, in dir: String) throws -> (status: Int32, output: String) {
        try text.write(toFile: dir + "/Landscape.swift", atomically: true, encoding: .utf8)
        let bin = Build.binDirectory.path
        return try shell("""
            cd \(dir) && swiftc -emit-library -o libLandscape.so -I \(bin)/Modules \
              -Xcc -fmodule-map-file=\(bin)/CTabPolicy.build/module.modulemap Landscape.swift \(bin)/TabPolicy.build/*.o \(bin)/TabJSON.build/*.o \(bin)/TabStrings.build/*.o
            """)
    }

    /// Near misses of a hook — another label, a misspelled name, another return type — and
    /// the pre-1.3 hook list each fail to compile with a diagnostic naming what is wrong.
    @Test func aNearMissHookDoesNotCompile() throws {
        let dir = temporaryDirectory("sdkmiss")
        let misses: [(String, String, String)] = [
            ("func supportedOrientations(proposed: Orientations, in controller: ControllerView)",
             "func supportedOrientations(in controller: ControllerView)",
             "type 'Landscape' does not conform to protocol 'SupportedOrientationsHook'"),
            ("func shouldSelect(_ candidate", "func shouldSelct(_ candidate",
             "type 'Landscape' does not conform to protocol 'ShouldSelectHook'"),
            ("-> Orientations? { .landscape }", "-> Orientations { .landscape }",
             "type 'Landscape' does not conform to protocol 'SupportedOrientationsHook'"),
            ("init(settings: JSON, host: PolicyHost) throws {}",
             "init(settings: JSON, host: PolicyHost) throws {}\n    static let hooks: PolicyHooks = []",
             "'PolicyHooks' is unavailable: conform to the hook protocols instead"),
        ]
        for (right, wrong, diagnostic) in misses {
            #expect(Self.source.contains(right))
            let r = try Self.compile(Self.source.replacingOccurrences(of: right, with: wrong), in: dir)
            #expect(r.status != 0, "\(wrong) compiled")
            #expect(r.output.contains("error: \(diagnostic)"), "\(wrong): \(r.output)")
        }
    }

    /// The SDK's view of groups (ABI 1.4): the candidate's path and group, the selected
    /// path, and the visibility and display-order hooks, in a real tabd.
    @Test func groupsReachASwiftPlugin() throws {
        let source = #"""
            import TabPolicy

            @_cdecl("tabd_policy_entry") public func tabdPolicyEntry() -> UnsafeRawPointer { exportPolicy(Groups.self) }

            final class Groups: PolicyPlugin, ShouldSelectHook, DidSelectHook, VisibilityChangedHook, DisplayOrderChangedHook {
                static let name = "groups"
                static let version = "1.0.0"
                static let summary = "Locks the vault group and tells what it sees."
                let host: PolicyHost
                init(settings: JSON, host: PolicyHost) throws { self.host = host }
                func shouldSelect(_ candidate: Candidate, in controller: ControllerView) -> Verdict {
                    candidate.path.first == "vault" ? .deny(reason: "locked", message: "'\(candidate.id)' is in the vault (group \(candidate.group ?? "none"))") : .abstain
                }
                func didSelect(_ candidate: Candidate, in controller: ControllerView) {
                    host.emit(["path": .array(candidate.path.map { .string($0) }), "selected": .array(controller.selectedPath.map { .string($0) })], in: controller)
                }
                func visibilityChanged(_ changes: [(id: String, hidden: Bool)], in controller: ControllerView) {
                    host.emit(["hidden": .array(changes.filter(\.hidden).map { .string($0.id) })], in: controller)
                }
                func displayOrderChanged(group: String?, order: [String], in controller: ControllerView) {
                    host.emit(["group": group.map { .string($0) } ?? .null, "order": .array(order.map { .string($0) })], in: controller)
                }
            }
            """#
        let dir = temporaryDirectory("sdkgroups")
        let r = try Self.compile(source, in: dir)
        try #require(r.status == 0, "\(r.output)")
        let tabd = try TabdProcess(config: Plugins.config("    - path: libLandscape.so\n", extraDirectory: dir), dir: dir)
        defer { tabd.stop() }
        let c = try tabd.client(), sub = try tabd.client()
        _ = try sub.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"home"},{"id":"library","allows_reordering":true,"children":[{"id":"songs","allows_hiding":true},{"id":"albums"}]},{"id":"vault","children":[{"id":"keys"}]}]}"#)
        // R13.8: a tab inside a group is tapped where the user sees it: inside the selected root.
        try c.ok(#"{"cmd":"select","tab":"vault"}"#)
        let denied = try c.error(#"{"cmd":"tap","tab":"keys"}"#)
        #expect(denied.string("plugin") == "groups" && denied.string("message") == "'keys' is in the vault (group vault)")
        try c.ok(#"{"cmd":"select","tab":"library"}"#)
        try c.ok(#"{"cmd":"tap","tab":"albums"}"#)
        #expect(try TreePluginTests.pluginData(sub).description == #"{"path":["library","albums"],"selected":["library","albums"]}"#)
        try c.ok(#"{"cmd":"set_hidden","tab":"songs","hidden":true}"#)
        #expect(try TreePluginTests.pluginData(sub).description == #"{"hidden":["songs"]}"#)
        try c.ok(#"{"cmd":"reorder","group":"library","order":["albums","songs"]}"#)
        #expect(try TreePluginTests.pluginData(sub).description == #"{"group":"library","order":["albums","songs"]}"#)
    }

    /// The right spelling compiles, and tabd calls both hooks.
    @Test func theRightSpellingCompilesAndIsCalled() throws {
        let dir = temporaryDirectory("sdkok")
        let r = try Self.compile(Self.source, in: dir)
        try #require(r.status == 0, "\(r.output)")
        let check = try shell("\(Build.tabd) --check-plugin \(dir)/libLandscape.so")
        #expect(check.output.contains("  hooks        init, fini, should_select, supported_orientations\n"), "\(check.output)")
        let tabd = try TabdProcess(config: Plugins.config("    - path: libLandscape.so\n", extraDirectory: dir), dir: dir)
        let c = try tabd.client()
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"home","orientations":["portrait","landscape_left"]},{"id":"nope","orientations":["portrait","landscape_left"]}]}"#)
        #expect(try c.error(#"{"cmd":"tap","tab":"nope"}"#).string("plugin") == "landscape")
        let supported = try c.ok(#"{"cmd":"state"}"#).object("orientation")?.strings("supported")
        #expect(supported == ["landscape_left"], "\(supported ?? [])")
    }
}
