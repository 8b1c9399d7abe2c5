// The Swift SDK as a plugin author gets it (issue 29, item 1): `make install-files` into a
// DESTDIR, then docs/plugins.md's QuietHours package — its Package.swift and its source, as
// the page shows them — written into a temporary directory, depending only on the installed
// SDK by its path, built with `swift build` (once per test run: the slow part), and loaded
// into a real tabd. Nothing of the build may reach into tabd's source tree.

import Foundation
import Glibc
import TabJSON
import TabProtocol
import Testing

@Suite struct SwiftSDKPackageTests {
    /// The staged install and the guide's plugin built against each of its two SDKs.
    struct Built: Sendable {
        /// DESTDIR of `make install-files … PREFIX=/usr`.
        let destdir: String
        /// The plugin built against the SDK's sources (DESTDIR/usr/`sdkDirectory`) and against
        /// the prebuilt SDK (DESTDIR/usr/`prebuiltDirectory`).
        let sources: Plugin
        let prebuilt: Plugin
    }

    /// One build of the guide's QuietHours package.
    struct Plugin: Sendable {
        /// The installed SDK it depends on.
        let sdk: String
        /// The plugin's package (a temporary directory) and the library `swift build` made.
        let package: String
        let library: String
        let buildOutput: String
    }

    /// Where `make install` puts the SDK under its PREFIX: the Makefile's SDKDIR, the one place
    /// that says it (`share/tabd/swift/tabd-sdk`; `tabd-sdk` is its package identity), and the
    /// prebuilt SDK beside it, its SDKPREBUILTDIR.
    static let sdkDirectory = makefileDirectory("SDKDIR")
    static let prebuiltDirectory = makefileDirectory("SDKPREBUILTDIR")

    static func makefileDirectory(_ variable: String) -> String {
        let makefile = (try? String(contentsOf: Build.packageRoot.appendingPathComponent("Makefile"), encoding: .utf8)) ?? ""
        let line = makefile.components(separatedBy: "\n").first { $0.hasPrefix(variable + " ") } ?? ""
        return line.components(separatedBy: "$(PREFIX)/").last ?? ""
    }

    /// Made once, by the first test that asks (a static let is initialised once).
    static let built = Result<Built, any Error> { try build() }

    static var guide: String {
        get throws { try String(contentsOf: Build.packageRoot.appendingPathComponent("docs/plugins.md"), encoding: .utf8) }
    }

    /// The ```swift blocks of a Markdown text.
    static func swiftBlocks(_ text: String) -> [String] {
        var blocks: [String] = [], current: [String]?
        for line in text.components(separatedBy: "\n") {
            if current != nil {
                if line.hasPrefix("```") { blocks.append(current!.joined(separator: "\n") + "\n"); current = nil } else { current!.append(line) }
            } else if line == "```swift" {
                current = []
            }
        }
        return blocks
    }

    /// What the installed package offers besides the guide's example, compiled with it:
    /// TABD_HOST_HAS and TABD_CANDIDATE_HAS as Swift calls, and the CTabPolicy product.
    static let probe = """
        import CTabPolicy
        import TabPolicy

        func hostHas(_ host: PolicyHost, _ table: UnsafePointer<tabd_host>, _ candidate: UnsafePointer<tabd_candidate>) -> Bool {
            host.has(\\.json_object_key)
                && tabd_host_has_function_at(table, MemoryLayout<tabd_host>.offset(of: \\.json_object_key)!) != 0
                && tabd_candidate_has_field_at(candidate, MemoryLayout<tabd_candidate>.offset(of: \\.path_count)!, MemoryLayout<Int>.size) != 0
        }

        """

    /// The guide's manifest names the prebuilt SDK, and gives the line that names the sources
    /// instead: QuietHours is built with each, its CTabPolicy product (the probe) besides.
    static func build() throws -> Built {
        let destdir = try OperationsTests.install()
        let blocks = try swiftBlocks(guide)
        guard let manifest = blocks.first(where: { $0.contains(#"name: "QuietHours""#) }),
              let source = blocks.first(where: { $0.contains("exportPolicy(QuietHours.self)") }) else {
            throw TestFailure("docs/plugins.md has no QuietHours package (its Package.swift and its source, in ```swift blocks)")
        }
        let dependency = { (directory: String) in #".package(name: "tabd", path: "/usr/local/\#(directory)")"# }
        guard manifest.components(separatedBy: dependency(prebuiltDirectory)).count == 2 else {
            throw TestFailure("the guide's Package.swift does not name \(dependency(prebuiltDirectory)) once: \(manifest)")
        }
        guard try guide.contains("`\(dependency(sdkDirectory))`") else {
            throw TestFailure("docs/plugins.md does not give `\(dependency(sdkDirectory))`, the sources' dependency")
        }
        let tabPolicy = #"[.product(name: "TabPolicy", package: "tabd")]"#
        guard manifest.contains(tabPolicy) else { throw TestFailure("the guide's Package.swift does not use \(tabPolicy)") }
        guard !manifest.contains("unsafeFlags") && !manifest.contains("Settings") else {
            throw TestFailure("the guide's Package.swift has flags of its own: \(manifest)")
        }
        func plugin(_ directory: String) throws -> Plugin {
            let sdk = destdir + "/usr/" + directory
            let package = temporaryDirectory("qh")
            try FileManager.default.createDirectory(atPath: package + "/Sources/QuietHours", withIntermediateDirectories: true)
            // The installed SDK instead of /usr/local's; the probe's CTabPolicy product besides.
            try manifest.replacingOccurrences(of: dependency(prebuiltDirectory), with: #".package(name: "tabd", path: "\#(sdk)")"#)
                .replacingOccurrences(of: tabPolicy, with: #"[.product(name: "TabPolicy", package: "tabd"), .product(name: "CTabPolicy", package: "tabd")]"#)
                .write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
            try source.write(toFile: package + "/Sources/QuietHours/QuietHours.swift", atomically: true, encoding: .utf8)
            try probe.write(toFile: package + "/Sources/QuietHours/Probe.swift", atomically: true, encoding: .utf8)
            let r = try authorsSwift(in: package, "build 2>&1")
            guard r.status == 0 else { throw TestFailure("swift build of the guide's QuietHours against \(sdk) failed:\n\(r.output)") }
            let library = try authorsSwift(in: package, "build --show-bin-path").output.trimmingCharacters(in: .whitespacesAndNewlines) + "/libQuietHours.so"
            return Plugin(sdk: sdk, package: package, library: library, buildOutput: r.output)
        }
        return Built(destdir: destdir, sources: try plugin(sdkDirectory), prebuilt: try plugin(prebuiltDirectory))
    }

    /// `swift ARGUMENTS` as an author's shell would run it: only PATH and HOME of the test's
    /// environment (none of what `swift test` sets), from the package's directory.
    static func authorsSwift(in package: String, _ arguments: String) throws -> (status: Int32, output: String) {
        let env = ProcessInfo.processInfo.environment
        return try shell("cd \(package) && env -i PATH='\(env["PATH"] ?? "/usr/bin:/bin")' HOME='\(env["HOME"] ?? "/root")' swift \(arguments)")
    }

    /// The installed SDK is TabPolicy's directory as it is (every file, so one added later is
    /// installed too), with its targets' sources; the plugin built against it without a
    /// warning, and no input of its build is a file of tabd's tree.
    @Test func theGuidesPluginBuildsAgainstTheInstalledSDKAlone() throws {
        let b = try Self.built.get().sources
        let fm = FileManager.default
        for target in ["TabPolicy", "TabJSON", "TabStrings", "CTabPolicy"] {
            let tree = try fm.subpathsOfDirectory(atPath: Build.packageRoot.appendingPathComponent("Sources/\(target)").path)
            for file in tree {
                #expect(fm.contentsEqual(atPath: Build.packageRoot.appendingPathComponent("Sources/\(target)/\(file)").path,
                                         andPath: "\(b.sdk)/Sources/\(target)/\(file)"), "Sources/\(target)/\(file) is not installed as it is")
            }
        }
        #expect(fm.fileExists(atPath: b.library), "\(b.library): \(b.buildOutput)")
        #expect(!b.buildOutput.contains("warning:"), "\(b.buildOutput)")
        // The compiler's dependency files name every input of the build.
        let root = Build.packageRoot.path
        let inputs = try shell("find \(b.package)/.build -name '*.d' -exec cat {} +").output
        #expect(inputs.contains(b.sdk + "/Sources/TabPolicy/Export.swift"), "the dependency files list the SDK's sources")
        #expect(!inputs.contains(root + "/"), "an input of the plugin's build is in tabd's tree (\(root))")
    }

    /// The prebuilt SDK: the same plugin, its manifest as the guide shows it (no flags), built
    /// from the installed modules and libraries alone — no source of the SDK compiled but
    /// InstalledToolchain.swift (the sources package's), nothing of tabd's tree read.
    @Test func theGuidesPluginBuildsAgainstThePrebuiltSDKWithoutItsSources() throws {
        let b = try Self.built.get().prebuilt
        let fm = FileManager.default
        #expect(fm.fileExists(atPath: b.library), "\(b.library): \(b.buildOutput)")
        #expect(!b.buildOutput.contains("warning:"), "\(b.buildOutput)")
        for module in ["TabStrings", "TabJSON", "TabPolicy"] {
            for file in ["modules/\(module).swiftinterface", "modules/\(module).swiftmodule", "lib/lib\(module).a"] {
                #expect(fm.fileExists(atPath: "\(b.sdk)/\(file)"), "the prebuilt SDK has no \(file)")
            }
        }
        #expect(fm.contentsEqual(atPath: "\(b.sdk)/Sources/TabdToolchain/InstalledToolchain.swift",
                                 andPath: "\(try Self.built.get().sources.sdk)/Sources/TabPolicy/InstalledToolchain.swift"))
        let root = Build.packageRoot.path
        let inputs = try shell("find \(b.package)/.build -name '*.d' -exec cat {} +").output
        #expect(inputs.contains(b.sdk + "/modules/TabPolicy.swiftmodule"), "the dependency files list the prebuilt module")
        #expect(!inputs.contains("/Sources/TabPolicy/") && !inputs.contains("/Sources/TabJSON/"), "the plugin's build compiled the SDK's sources")
        #expect(!inputs.contains(root + "/"), "an input of the plugin's build is in tabd's tree (\(root))")
        let loaded = try shell("\(Build.tabd) --check-plugin \(b.library) --settings '{\"blocked\": [\"games\"]}' 2>&1")
        #expect(loaded.status == 0 && loaded.output.contains("  name         quiet-hours\n"), "\(loaded.output)")
    }

    /// The plugin in a real tabd: its settings' list, a refused tap (the reason and message it
    /// gave, the plugin named), a tap it has no opinion on, its `status` method counting the
    /// refusal (state in the instance), an unknown method, and `unblock`, which tabd's admin
    /// (root, this test) may call and uid 65534 may not (`host.caller?.isAdmin`).
    @Test(arguments: [false, true]) func theBuiltPluginRefusesTapsAndAnswersCalls(prebuilt: Bool) throws {
        let built = try Self.built.get(), b = prebuilt ? built.prebuilt : built.sources
        let plugins = (b.library as NSString).deletingLastPathComponent
        let tabd = try AccessTests.openTabd("plugins:\n  directories: [\(plugins)]\n  load:\n    - path: libQuietHours.so\n      settings: {blocked: [games, video]}\n")
        let c = try tabd.client()
        let listed = try c.ok(#"{"cmd":"plugins"}"#)["plugins"]?.jsonString ?? ""
        #expect(listed.contains(#""name":"quiet-hours""#) && listed.contains(#""loaded":true"#), "\(listed)")
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"home"},{"id":"games"},{"id":"video"}]}"#)
        let denied = try c.error(#"{"cmd":"tap","tab":"games"}"#)
        #expect(denied.string("code") == "denied" && denied.string("plugin") == "quiet-hours", "\(denied)")
        #expect(denied.string("reason") == "quiet hours", "\(denied)")
        #expect(denied.string("message")?.contains("'games' is not available during quiet hours") == true, "\(denied)")
        try c.ok(#"{"cmd":"tap","tab":"home"}"#)
        let status = try c.ok(#"{"cmd":"plugin.call","plugin":"quiet-hours","method":"status"}"#)
        #expect(JSONValue.object(status).jsonString == #"{"plugin":"quiet-hours","value":{"blocked":["games","video"],"refused":1}}"#, "\(status)")
        let unknown = try c.error(#"{"cmd":"plugin.call","plugin":"quiet-hours","method":"grant"}"#)
        #expect(unknown.string("code") == "not_found" && unknown.string("message")?.contains("no method 'grant'") == true, "\(unknown)")
        #expect(tabd.log.contains("quiet hours: 2 tab(s) blocked"), "\(tabd.log)")

        let unblock = { (tab: String) in #"{"cmd":"plugin.call","plugin":"quiet-hours","method":"unblock","args":{"tab":"\#(tab)"}}"# }
        let theirs = try #require(try AccessTests.asOtherUser(tabd.socket, [unblock("video")]).first?.object("error"))
        #expect(theirs.string("code") == "denied" && theirs.string("reason") == "not an admin", "\(theirs)")
        #expect(theirs.string("message")?.contains("only tabd's admins may unblock a tab") == true, "\(theirs)")
        let mine = try c.ok(unblock("games"))
        #expect(JSONValue.object(mine).jsonString == #"{"plugin":"quiet-hours","value":{"blocked":["video"],"refused":1}}"#, "\(mine)")
        #expect(try c.ok(#"{"cmd":"tap","tab":"games"}"#).string("selected") == "games")
        #expect(try c.error(#"{"cmd":"tap","tab":"video"}"#).string("code") == "denied", "still blocked: the other user's unblock was refused")
    }

    /// Plugin ABI 1.6 from the out-of-tree Swift plugin: its refusal count, kept in its store,
    /// survives kill -9 and SIGTERM; a timer armed by `pause` sends `pause-over` with no
    /// request in between; every selection change reaches it with its cause (a client's select,
    /// a tap), and it tells subscribers.
    @Test func theBuiltPluginKeepsStateActsOnTimeAndSeesEverySelection() throws {
        let b = try Self.built.get().sources
        let plugins = (b.library as NSString).deletingLastPathComponent
        let tabd = try AccessTests.openTabd("plugins:\n  directories: [\(plugins)]\n  load:\n    - path: libQuietHours.so\n      settings: {blocked: [games]}\n")
        var c = try tabd.client()
        let watcher = try tabd.client()
        try watcher.ok(#"{"cmd":"subscribe","events":["plugin"]}"#)
        func next(_ event: String) throws -> JSONObject? {
            for _ in 0..<40 {
                guard let line = try watcher.readLine() else { return nil }
                if let data = try object(line).object("data")?.object("data"), data.string("event") == event { return data }
            }
            return nil
        }
        try c.ok(#"{"cmd":"set_tabs","tabs":[{"id":"home"},{"id":"games"},{"id":"news"}]}"#)
        #expect(try next("selected")?.string("cause") == "tabs")
        try c.ok(#"{"cmd":"select","tab":"news"}"#)
        let selected = try next("selected")
        #expect(selected?.string("tab") == "news" && selected?.string("cause") == "select", "\(String(describing: selected))")
        try c.ok(#"{"cmd":"tap","tab":"home"}"#)
        #expect(try next("selected")?.string("cause") == "tap")
        try c.ok(#"{"cmd":"plugin.call","plugin":"quiet-hours","method":"pause","args":{"seconds":0.05}}"#)
        #expect(try next("pause-over") != nil, "the timer's event arrives with no request")
        _ = try c.error(#"{"cmd":"tap","tab":"games"}"#)
        _ = try c.error(#"{"cmd":"tap","tab":"games"}"#)
        let refused = { () throws -> Int? in try c.ok(#"{"cmd":"plugin.call","plugin":"quiet-hours","method":"status"}"#).object("value")?.int("refused") }
        #expect(try refused() == 2)
        tabd.stop(signal: SIGKILL)
        try tabd.start()
        c = try tabd.client()
        #expect(try refused() == 2, "kept across kill -9")
        _ = try c.error(#"{"cmd":"tap","tab":"games"}"#)
        try tabd.restart()
        c = try tabd.client()
        #expect(try refused() == 3, "and across SIGTERM")
    }

    /// Settings it does not know, and a list that is not one of ids, refuse the plugin with its
    /// one sentence (what `tabd --check-plugin` prints, exit 78).
    @Test func theBuiltPluginRefusesUnknownKeysAndWrongLists() throws {
        let b = try Self.built.get().sources
        let cases = [
            (#"{"blocked": ["games"], "quiet": true}"#, "settings: unknown key 'quiet' (quiet-hours knows blocked)"),
            (#"{"blocked": "games"}"#, "settings: blocked must be a list of tab ids"),
            (#"{"blocked": ["games", 7]}"#, "settings: blocked must be a list of tab ids"),
            ("{}", "settings: blocked must be a list of tab ids"),
        ]
        for (settings, message) in cases {
            let r = try shell("\(Build.tabd) --check-plugin \(b.library) --settings '\(settings)' 2>&1 >/dev/null")
            #expect(r.status == 78, "\(settings): \(r.output)")
            #expect(r.output == "\(b.library): error: tabd would not load this plugin: init failed: \(message)\n", "\(settings): \(r.output)")
        }
        let ok = try shell("\(Build.tabd) --check-plugin \(b.library) --settings '{\"blocked\": [\"games\"]}' 2>&1")
        #expect(ok.status == 0 && ok.output.contains("  hooks        init, fini, should_select, call, selection_changed, timer\n"), "\(ok.output)")
    }

    /// The SDK's targets in tabd's Package.swift — TabPolicy and what it depends on — are the
    /// installed package's (sdk/Package.swift), with the same dependencies, none of them another
    /// package's product, and no unsafe flags (which SwiftPM refuses in a dependency by version).
    @Test func theSDKsTargetsHaveNoUnsafeFlagsAndAreTheInstalledOnes() throws {
        func targets(_ manifest: String) throws -> [String: [String: Any]] {
            let dir = temporaryDirectory("manifest")
            try FileManager.default.copyItem(atPath: manifest, toPath: dir + "/Package.swift")
            let r = try shell("cd \(dir) && swift package dump-package 2>/dev/null")
            guard r.status == 0, let dump = try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any],
                  let list = dump["targets"] as? [[String: Any]] else { throw TestFailure("dump-package of \(manifest): \(r.output)") }
            return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as! String, $0) })
        }
        func dependencies(_ target: [String: Any]) -> [String] {
            ((target["dependencies"] as? [[String: Any]]) ?? []).map { d in
                ((d["byName"] ?? d["target"] ?? d["product"]) as? [Any])?.first as? String ?? "?\(d)"
            }
        }
        let tabd = try targets(Build.packageRoot.appendingPathComponent("Package.swift").path)
        let sdk = try targets(Build.packageRoot.appendingPathComponent("sdk/Package.swift").path)
        var closure: Set<String> = [], pending = ["TabPolicy"]
        while let name = pending.popLast() {
            guard closure.insert(name).inserted else { continue }
            let target = try #require(tabd[name], "Package.swift has no target \(name)")
            #expect(((target["dependencies"] as? [[String: Any]]) ?? []).allSatisfy { $0["product"] == nil }, "\(name) depends on another package")
            let settings = String(describing: target["settings"] ?? [])
            #expect(!settings.contains("unsafeFlags"), "\(name) has unsafe flags in Package.swift: \(settings)")
            pending += dependencies(target)
        }
        #expect(Set(sdk.keys) == closure, "sdk/Package.swift's targets are not TabPolicy's closure in Package.swift")
        for (name, target) in sdk {
            #expect(Set(dependencies(target)) == Set(tabd[name].map(dependencies) ?? []), "\(name)'s dependencies differ")
            #expect(!String(describing: target["settings"] ?? []).contains("unsafeFlags"), "\(name)")
        }
    }

    /// The installed SDK names the Swift tabd was built with, from `tabd --version`: a build
    /// with another Swift stops with one error naming the one to use.
    @Test func anotherSwiftIsRefusedByName() throws {
        let dir = temporaryDirectory("tc")
        let fake = dir + "/tabd"
        try "#!/bin/sh\nprintf '9.9.9\\nplugin ABI 1.5 (tabd/policy.h); Swift 6.1 (build Swift plugins with it)\\n'\n"
            .write(toFile: fake, atomically: true, encoding: .utf8)
        chmod(fake, 0o755)
        let install = try shell("\(Build.packageRoot.path)/sdk/install.sh \(fake) \(dir)/swift")
        #expect(install.status == 0, "\(install.output)")
        let r = try shell("swiftc -typecheck \(dir)/swift/Sources/TabPolicy/InstalledToolchain.swift 2>&1")
        #expect(r.status != 0)
        #expect(r.output.contains("error: tabd 9.9.9 was built with Swift 6.1 (tabd --version): build this plugin with a Swift 6.1 toolchain"), "\(r.output)")
        #expect(try String(contentsOfFile: dir + "/swift/Package.swift", encoding: .utf8).contains("Build plugins with Swift 6.1"))
        // This tabd's own: the compiler that built it passes.
        let real = try shell("\(Build.packageRoot.path)/sdk/install.sh \(Build.tabd) \(dir)/real && swiftc -typecheck \(dir)/real/Sources/TabPolicy/InstalledToolchain.swift 2>&1")
        #expect(real.status == 0, "\(real.output)")
        // The prebuilt SDK compiles its InstalledToolchain.swift in the plugin's build, with the
        // plugin's Swift: the guide's plugin against a copy of it whose check is that 6.1's fails
        // by name (the swiftc compiling TabdToolchain being "another Swift" to it).
        let built = try Self.built.get()
        let other = dir + "/prebuilt", package = dir + "/plugin"
        #expect(try shell("cp -R \(built.prebuilt.sdk) \(other) && cp \(dir)/swift/Sources/TabPolicy/InstalledToolchain.swift \(other)/Sources/TabdToolchain/ && mkdir \(package) && cp -R \(built.prebuilt.package)/Package.swift \(built.prebuilt.package)/Sources \(package)/").status == 0)
        try String(contentsOfFile: package + "/Package.swift", encoding: .utf8).replacingOccurrences(of: built.prebuilt.sdk, with: other)
            .write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        let refused = try Self.authorsSwift(in: package, "build 2>&1")
        #expect(refused.status != 0)
        #expect(refused.output.contains("error: tabd 9.9.9 was built with Swift 6.1 (tabd --version): build this plugin with a Swift 6.1 toolchain"), "\(refused.output)")
    }

    /// What the guide says of this tabd's SDK is what it is: the error another Swift gets (as
    /// sdk/install.sh writes it from this tabd's --version) and the version to depend on.
    @Test func theGuideStatesThisTabdsSwiftAndVersion() throws {
        let dir = temporaryDirectory("tcdoc")
        #expect(try shell("\(Build.packageRoot.path)/sdk/install.sh \(Build.tabd) \(dir)").status == 0)
        let check = try String(contentsOfFile: dir + "/Sources/TabPolicy/InstalledToolchain.swift", encoding: .utf8)
        let error = try #require(check.split(separator: "\n").first { $0.hasPrefix("#error(\"") }).dropFirst(8).dropLast(2)
        // The guide's prose wraps lines: compare with its line breaks as spaces.
        let guide = try Self.guide.replacingOccurrences(of: "\n", with: " ")
        // (Booleans first: an expectation on `guide.contains` would print the whole guide.)
        let quotesTheError = guide.contains("`\(error)`")
        let dependsOnThisVersion = guide.contains(#"from: "\#(TabdVersion.string)")"#)
        #expect(quotesTheError, "docs/plugins.md does not quote the error \(error)")
        #expect(dependsOnThisVersion, "docs/plugins.md's dependency by version is not on \(TabdVersion.string)")
    }

    /// Every file that names where the SDK is installed (docs, man pages, sdk/, the Makefile,
    /// BENCHMARKS.md, tests) names the Makefile's SDKDIR: a directory named for the SDK alone (`tabd-sdk`), so
    /// that a plugin's package, named after its directory, does not share its identity.
    /// The prebuilt SDK's directory is the Makefile's SDKPREBUILTDIR wherever a file names it.
    @Test func everyFileNamesTheSDKsDirectoryAsTheMakefileDoes() throws {
        #expect(Self.sdkDirectory == "share/tabd/swift/tabd-sdk", "the Makefile's SDKDIR is \(Self.sdkDirectory)")
        #expect(Self.prebuiltDirectory == Self.sdkDirectory + "-prebuilt", "the Makefile's SDKPREBUILTDIR is \(Self.prebuiltDirectory)")
        let root = Build.packageRoot.path
        let files = try shell("cd \(root) && git ls-files -co --exclude-standard -- docs man sdk Makefile README.md BENCHMARKS.md Tests examples").output
        let parent = Self.sdkDirectory.components(separatedBy: "/").dropLast().joined(separator: "/")
        for file in files.split(separator: "\n") {
            guard let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else { continue }
            for piece in text.components(separatedBy: parent).dropFirst() {
                let named = parent + piece
                // The directory whole, not followed by more of a name.
                let names = { (directory: String) in
                    named.hasPrefix(directory)
                        && !(named.dropFirst(directory.count).first.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } ?? false)
                }
                if !names(Self.sdkDirectory) && !names(Self.prebuiltDirectory) {
                    Issue.record("\(file) names \(named.prefix(40)), not the Makefile's SDKDIR \(Self.sdkDirectory) or SDKPREBUILTDIR \(Self.prebuiltDirectory)")
                }
            }
        }
        let guide = try Self.guide
        #expect(guide.contains("name your plugin's package"), "docs/plugins.md says how to name a plugin's package")
    }
}
