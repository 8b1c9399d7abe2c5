// Where plugins may live: every directory from / down to a plugin must be root's or tabd's
// and writable by no one else (a sticky directory such as /tmp excepted); the file is
// opened without following a link and loaded from the descriptor that was checked. The
// last two tests are the race of issue 13: directories swapped while plugins load.

import Foundation
import Glibc
import TabPlugins
import Testing

extension PluginTests {
    @Suite struct Directories {
        static let other: uid_t = 65534

        /// The sentence for a directory writable by `who`.
        static func writable(_ dir: String, _ who: String, _ mode: String) -> String {
            "\(dir) is writable by \(who) (mode \(mode)); run chmod go-w \(dir) or move the plugins to a directory only root can write"
        }

        /// The sentence for a directory owned by uid 65534 (the tests run as root).
        static func owned(_ dir: String) -> String {
            "\(dir) is owned by uid \(other); every directory above a plugin must be owned by root or by tabd's user (uid \(geteuid())): run chown root \(dir) or move the plugins to a directory only root can write"
        }

        /// gate.so in a plugin directory (0755) inside `parent`, loaded after `change(parent)`
        /// (a chmod or chown, which must succeed): what `plugins` says of it.
        static func gateUnder(_ parent: String, after change: (String) -> Int32) throws -> PluginStatus? {
            let dir = parent + "/plugins"
            if access(dir, F_OK) != 0 {
                #expect(mkdir(dir, 0o755) == 0)
                try compilePlugin(gatePlugin(name: "gate", result: "TABD_DENY"), named: "gate.so", in: dir)
            }
            #expect(change(parent) == 0)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "gate.so")])
            return host.plugins.first
        }

        @Test func pluginDirectoryWritableByOthersIsRefused() throws {
            let dir = try temporaryDirectory()
            try compilePlugin(gatePlugin(name: "open", result: "TABD_ALLOW"), named: "open.so", in: dir)
            #expect(chmod(dir, 0o777) == 0)
            let (host, log) = makeHost([dir])
            try host.load([PluginSpec(path: "open.so")])
            #expect(host.status("open.so")?.error == Self.writable(dir, "group and others", "777"))
            #expect(log.contains("plugin refused: \(Self.writable(dir, "group and others", "777"))"))
        }

        @Test func pluginDirectoryOwnedByAnotherUserIsRefused() throws {
            try #require(geteuid() == 0, "chown to uid 65534 needs root")
            let dir = try temporaryDirectory()
            try compilePlugin(gatePlugin(name: "theirs", result: "TABD_ALLOW"), named: "theirs.so", in: dir)
            #expect(chown(dir, Self.other, Self.other) == 0)
            let (host, _) = makeHost([dir])
            // A path names the same file: refused the same way.
            try host.load([PluginSpec(path: "theirs.so"), PluginSpec(name: "by-path", path: dir + "/theirs.so")])
            #expect(host.status("theirs.so")?.error == Self.owned(dir))
            #expect(host.status("by-path")?.error == Self.owned(dir))
        }

        /// The directory above the plugin directory counts as much as the plugin directory.
        @Test func parentWritableByGroupIsRefused() throws {
            let parent = try temporaryDirectory()
            #expect(try Self.gateUnder(parent) { chmod($0, 0o775) }?.error == Self.writable(parent, "group", "775"))
        }

        @Test func parentOwnedByAnotherUserIsRefused() throws {
            try #require(geteuid() == 0, "chown to uid 65534 needs root")
            let parent = try temporaryDirectory()
            #expect(try Self.gateUnder(parent) { chown($0, Self.other, Self.other) }?.error == Self.owned(parent))
        }

        /// A world-writable parent is fine when it is sticky (like /tmp, 1777): others may
        /// add entries there but not rename or remove root's plugin directory.
        @Test func worldWritableParentIsAllowedOnlyWhenSticky() throws {
            let parent = try temporaryDirectory()
            let sticky = try Self.gateUnder(parent) { chmod($0, 0o1777) }
            #expect(sticky?.loaded == true && sticky?.name == "gate", "\(String(describing: sticky))")
            #expect(try Self.gateUnder(parent) { chmod($0, 0o777) }?.error == Self.writable(parent, "group and others", "777"))
        }

        /// A symbolic link is never followed, even to a plugin in the same directory; the
        /// sentence says where it leads.
        @Test func symlinkedPluginFileIsRefused() throws {
            let dir = try temporaryDirectory()
            let real = try compilePlugin(gatePlugin(name: "real", result: "TABD_ALLOW"), named: "real.so", in: dir)
            try FileManager.default.createSymbolicLink(atPath: dir + "/link.so", withDestinationPath: "real.so")
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "link.so"), PluginSpec(path: "real.so")])
            #expect(host.status("link.so")?.error == "\(dir)/link.so is a symbolic link to \(real); plugins are opened without following links: list \(real) in plugins.load instead")
            #expect(host.status("real")?.loaded == true)
        }

        /// A FIFO is refused at once (opening it does not wait for a writer), and says what it is.
        @Test func fifoIsRefusedWithoutWaiting() throws {
            let dir = try temporaryDirectory()
            #expect(mkfifo(dir + "/pipe.so", 0o644) == 0)
            let (host, _) = makeHost([dir])
            try host.load([PluginSpec(path: "pipe.so")])
            #expect(host.status("pipe.so")?.error == "\(dir)/pipe.so is a FIFO, not a regular file; put the plugin's shared object there")
        }

        /// The race of issue 13 as it was reported: the plugin directory sits in a directory
        /// another user owns, and that user swaps it, as fast as it can, with one holding
        /// their own library. Before, the check (stat) and the load (dlopen by name) could
        /// see different files; now that directory is refused before anything is opened.
        @Test func swappingByTheOwnerOfAParentNeverLoadsTheirLibrary() throws {
            try #require(geteuid() == 0, "needs root: the attacker runs as uid 65534")
            let base = try temporaryDirectory()
            #expect(chmod(base, 0o755) == 0)
            let theirs = base + "/attacker"
            #expect(mkdir(theirs, 0o755) == 0)
            let race = try Race(base: base, plugins: theirs + "/plugins", foreign: theirs + "/foreign")
            #expect(chown(race.foreign, Self.other, Self.other) == 0)
            #expect(chown(theirs, Self.other, Self.other) == 0)
            let statuses = try race.loads(swappingAs: Self.other)
            #expect(!FileManager.default.fileExists(atPath: race.marker), "the foreign library ran")
            let foreign = statuses.filter { $0.name == "foreign" }.count
            #expect(foreign == 0, "the foreign library was loaded in \(foreign) of \(statuses.count) loads")
            let wrong = statuses.filter { $0.error != Self.owned(theirs) }
            #expect(wrong.count == 0, "not refused for \(theirs): \(wrong.first.map { "\($0.name): \($0.error ?? "loaded")" } ?? "")")
        }

        /// The same swap between two directories that pass every check (root's, 0755), of
        /// which one holds a library of uid 65534: each load either runs the good plugin or
        /// refuses the foreign file — what is loaded is the file that was checked.
        @Test func swappingCheckedDirectoriesLoadsOnlyTheFileThatWasChecked() throws {
            let base = try temporaryDirectory()
            let race = try Race(base: base, plugins: base + "/plugins", foreign: base + "/other")
            let statuses = try race.loads(swappingAs: nil)
            #expect(!FileManager.default.fileExists(atPath: race.marker), "the foreign library ran")
            let foreign = statuses.filter { $0.name == "foreign" }.count
            #expect(foreign == 0, "the foreign library was loaded in \(foreign) of \(statuses.count) loads")
            let refusal = { (i: Int) in
                "\(race.plugins)/p\(i).so is owned by uid \(Self.other); plugins must be owned by root or by tabd's user (uid \(geteuid())): run chown root \(race.plugins)/p\(i).so"
            }
            let wrong = statuses.indices.filter { i in !(statuses[i].name == "good" && statuses[i].loaded) && statuses[i].error != refusal(i) }
            #expect(wrong.count == 0, "neither loaded nor refused as foreign: \(wrong.first.map { "p\($0).so: \(statuses[$0].error ?? "loaded")" } ?? "")")
        }
    }
}

/// Two directories, `plugins` (the configured one, holding p0.so… linked to a good plugin)
/// and `foreign` (the same names linked to a library whose constructor creates `marker`,
/// owned by uid 65534), exchanged over and over by a swapper process while hosts load.
struct Race {
    static let rounds = 300
    let plugins: String
    let foreign: String
    let marker: String
    let swapper: String

    init(base: String, plugins: String, foreign: String) throws {
        self.plugins = plugins
        self.foreign = foreign
        marker = base + "/foreign-ran"
        swapper = base + "/swap"
        #expect(mkdir(plugins, 0o755) == 0 && mkdir(foreign, 0o755) == 0)
        let good = try compilePlugin(gatePlugin(name: "good", result: "TABD_ALLOW"), named: "good.so", in: base)
        let bad = try compilePlugin(cPlugin(name: "foreign", hooks: """
            #include <fcntl.h>
            #include <unistd.h>
            __attribute__((constructor)) static void planted(void) {
                int fd = open("\(marker)", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                if (fd >= 0) close(fd);
            }
            """), named: "foreign.so", in: base)
        #expect(chown(bad, 65534, 65534) == 0)
        for i in 0..<Self.rounds {
            // Copies (a hard-linked plugin is refused for its links): a name per round, so no
            // load finds a library already known by that name.
            try FileManager.default.copyItem(atPath: good, toPath: "\(plugins)/p\(i).so")
            try FileManager.default.copyItem(atPath: bad, toPath: "\(foreign)/p\(i).so")
            #expect(chown("\(foreign)/p\(i).so", 65534, 65534) == 0)
        }
        try """
            #define _GNU_SOURCE
            #include <fcntl.h>
            #include <stdio.h>
            int main(int argc, char **argv) {
                (void)argc;
                for (;;) if (renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) != 0) { perror("renameat2"); return 1; }
            }
            """.write(toFile: swapper + ".c", atomically: true, encoding: .utf8)
        try run(["cc", "-O2", "-o", swapper, swapper + ".c"])
    }

    /// Starts the swapper (as `uid`, with no groups, when given), waits until it has swapped,
    /// and loads p<i>.so from `plugins` with a fresh host each round; the status of each.
    func loads(swappingAs uid: uid_t?) throws -> [PluginStatus] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: uid == nil ? swapper : "/usr/bin/setpriv")
        p.arguments = (uid.map { ["--reuid=\($0)", "--regid=\($0)", "--clear-groups", swapper] } ?? []) + [plugins, foreign]
        try p.run()
        // SIGKILL: the test runner's threads block SIGTERM, and its children inherit that.
        defer { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        var st = stat()
        stat(plugins + "/p0.so", &st)
        let first = st.st_ino
        let deadline = Date().addingTimeInterval(60)
        while stat(plugins + "/p0.so", &st) == 0, st.st_ino == first, Date() < deadline, p.isRunning { usleep(1000) }
        try #require(p.isRunning && st.st_ino != first, "the swapper did not swap")
        return try (0..<Self.rounds).map { i in
            let (host, _) = makeHost([plugins])
            try host.load([PluginSpec(path: "p\(i).so")])
            return host.plugins[0]
        }
    }
}
