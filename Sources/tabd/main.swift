// tabd: the tab-container daemon.

import ArgumentParser
import Foundation
import Logging
import TabPlugins
import TabProtocol
import TabServer
import TabState
import TabStrings

@main
struct Tabd: ParsableCommand {
    static let version = TabdVersion.string

    static let configuration = CommandConfiguration(
        commandName: "tabd",
        abstract: "Keeps the state of headless tab containers and answers line-delimited JSON on a Unix socket.",
        discussion: """
            Settings come from --config (YAML, described in tabd.yaml(5); tabd.example.yaml in \
            tabd's documentation directory is a commented example); flags given here override it.
            Under systemd, tabd uses the socket systemd passes (LISTEN_FDS) and reports READY, \
            RELOADING, STOPPING and WATCHDOG through NOTIFY_SOCKET.
            Signals: SIGTERM/SIGINT answer what was received, then exit 0; SIGHUP reloads the config.

            \(ExitStatus.summary(TabdExit.all))
            """,
        version: BuildDescription.versionText
    )

    @Option(name: .long, help: "The configuration file (YAML).")
    var config: String?

    @Option(name: .long, help: "The Unix socket to listen on (default /run/tabd/tabd.sock).")
    var socket: String?

    @Option(name: .long, help: "The directory for the snapshot and journal (default /var/lib/tabd).")
    var stateDir: String?

    @Option(name: .long, help: "When the journal is fsynced: always, everysec (default) or no.")
    var fsync: String?

    @Option(name: .long, help: "trace, debug, info (default), notice, warning, error or critical.")
    var logLevel: String?

    @Flag(name: .long, help: "Keep a damaged snapshot or journal aside and start from what can be trusted, instead of refusing to start.")
    var repair = false

    @Flag(name: .long, help: "Check everything a start would — every setting, the socket group, the state directory, and each plugin's files, loading and init with its settings (then fini; the timers init arms are checked and counted, none runs) — print what was found, and exit: 0 when tabd can start, 78 when it cannot.")
    var checkConfig = false

    @Option(name: .long, help: ArgumentHelp("Check one plugin file as a start would — its file and directories, loading, its descriptor, and init with --settings (then fini; the timers init arms are checked and counted, none runs) — print its name, version, ABI, hooks and those timers, and exit: 0 when tabd would load it, 78 when it would not.", valueName: "file"))
    var checkPlugin: String?

    @Option(name: .long, help: ArgumentHelp("With --check-plugin: the plugin's settings, a JSON object (default {}).", valueName: "json"))
    var settings: String?

    /// EX_CONFIG (sysexits.h): the configuration is what is wrong; the unit does not restart on it.
    static let configExit = TabdExit.config.code

    /// `tabd --plugin-host …` is an isolated plugin's helper process, started by tabd itself
    /// (never by people: it is not among the options above); anything else is tabd.
    static func main() {
        refuseAnotherStringLayout()
        let arguments = CommandLine.arguments
        if arguments.count > 1, arguments[1] == PluginHelperProcess.flag {
            PluginHelperProcess.main(Array(arguments.dropFirst(2)))
        }
        main(nil)
    }

    /// tabd makes short strings from their words (SmallASCII): on a Swift runtime that lays
    /// strings out otherwise it would make invalid ones, silently. So before anything else
    /// (an isolated plugin's helper too) it checks the layout, and refuses to start in one
    /// line (exit 1) where it is not the one this build expects.
    /// TABD_TEST_STRING_LAYOUT=other: the layout read as another one's (the tests' way to
    /// see the refusal); unset in production.
    static func refuseAnotherStringLayout() {
        let other = ProcessInfo.processInfo.environment["TABD_TEST_STRING_LAYOUT"] == "other"
        guard let why = other ? SmallASCII.layoutRefusal(reading: { _ in (0, 0) }) : SmallASCII.layoutRefusal() else { return }
        let line = JournaldLogHandler(label: "tabd").line(.critical, "tabd cannot start: \(why); build tabd with the Swift toolchain whose runtime it runs with", nil)
        FileHandle.standardError.write(Data(line.utf8))
        Foundation.exit(TabdExit.failed.code)
    }

    mutating func run() throws {
        if let checkPlugin {
            guard !checkConfig else { throw ValidationError("--check-plugin and --check-config check different things; give one of them") }
            try Self.check(plugin: checkPlugin, settings: settings ?? "{}")
            return
        }
        guard settings == nil else { throw ValidationError("--settings goes with --check-plugin: the settings of a configured plugin are in the configuration file") }
        var settings: ServerConfig
        do {
            settings = try config.map { try ServerConfig.load(path: $0) } ?? ServerConfig()
        } catch {
            // Every problem, one line each, naming the file, line and column; no usage text.
            Self.report(error, checking: checkConfig)
            throw ExitCode(Self.configExit)
        }
        var overrides = ServerConfig.Overrides()
        overrides.socketPath = socket
        overrides.stateDir = stateDir
        if let fsync {
            guard let policy = FsyncPolicy(rawValue: fsync) else { throw ValidationError("--fsync must be always, everysec or no") }
            overrides.fsync = policy
        }
        if let logLevel {
            guard Logger.Level(rawValue: logLevel) != nil else {
                throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            overrides.logLevel = logLevel
        }
        settings.overrides = overrides
        let level = Logger.Level(rawValue: settings.logLevel) ?? .info
        LoggingSystem.bootstrap { JournaldLogHandler(label: $0, level: level) }
        let logger = Logger(label: "tabd")
        if checkConfig {
            let check = Daemon.check(settings)
            for p in check.errors { Self.printProblem(p, "error") }
            for p in check.warnings { Self.printProblem(p, "warning") }
            let source = settings.path ?? "the built-in defaults"
            guard check.errors.isEmpty else {
                let n = check.errors.count, w = check.warnings.count
                FileHandle.standardError.write(Data("tabd: \(source) cannot start: \(n) error\(n == 1 ? "" : "s")\(w > 0 ? ", \(w) warning\(w == 1 ? "" : "s")" : "")\n".utf8))
                throw ExitCode(Self.configExit)
            }
            let w = check.warnings.count
            print("configuration OK\(w > 0 ? " with \(w) warning\(w == 1 ? "" : "s")" : ""): \(source)")
            print("  socket \(settings.socketPath) (mode 0\(String(settings.socketMode, radix: 8))), state \(settings.stateDir), fsync \(settings.fsync.rawValue)")
            for p in check.plugins {
                let timers = check.timers[p.name] ?? 0
                print("  plugin \(p.name) \(p.version ?? "") (\(p.path)): loaded, init and fini ran\(timers > 0 ? "; " + Self.timersChecked(timers) : "")\(p.required ? "; required" : "")")
            }
            if settings.plugins.isEmpty { print("  no plugins") }
            return
        }
        var options = Daemon.Options(config: settings)
        options.repair = repair
        options.version = Self.version
        do {
            try Daemon.run(options, logger: logger)
        } catch let error as ConfigError {
            for p in error.problems { logger.critical("tabd cannot start: \(p)") }
            throw ExitCode(Self.configExit)
        } catch {
            logger.critical("tabd cannot start: \(error)")
            throw ExitCode(TabdExit.failed.code)
        }
    }

    /// `--check-plugin`: the plugin's descriptor on stdout, or one line saying why tabd would
    /// refuse it (exit 78). The plugin's own log lines go to stderr as tabd would log them.
    static func check(plugin file: String, settings: String) throws {
        LoggingSystem.bootstrap { JournaldLogHandler(label: $0, level: .info) }
        let checked = Daemon.checkPlugin(file, settingsJSON: settings, logger: Logger(label: "tabd"))
        let p = checked.status
        if let error = p.error {
            FileHandle.standardError.write(Data("\(p.path): error: tabd would not load this plugin: \(error)\n".utf8))
            throw ExitCode(Self.configExit)
        }
        print("plugin OK: \(p.path): loaded, init ran with settings \(settings) and fini ran")
        print("  name         \(p.name)")
        print("  version      \(p.version ?? "")")
        print("  abi          \(p.abi ?? "")")
        print("  description  \(p.description ?? "")")
        print("  hooks        \(p.hooks.joined(separator: ", "))")
        if checked.timers > 0 { print("  timers       \(Self.timersChecked(checked.timers))") }
    }

    /// What a check did with the `n` timers a plugin's init armed: nothing runs during a
    /// check, so they were checked as a start checks them and none was armed.
    static func timersChecked(_ n: Int) -> String {
        "init armed \(n) timer\(n == 1 ? "" : "s"), checked (name, delay, at most TABD_TIMER_MAX) and not run"
    }

    /// A configuration that cannot be read, before logging is set up: each problem on its
    /// own line, as the log would write it.
    static func report(_ error: Error, checking: Bool) {
        let problems = (error as? ConfigError)?.problems ?? [ConfigProblem(ConfigLocation(file: nil), "\(error)")]
        let handler = JournaldLogHandler(label: "tabd")
        for p in problems {
            if checking { printProblem(p, "error") } else {
                FileHandle.standardError.write(Data(handler.line(.critical, "tabd cannot start: \(p)", nil).utf8))
            }
        }
        if checking {
            FileHandle.standardError.write(Data("tabd: the configuration is not valid: \(problems.count) error\(problems.count == 1 ? "" : "s")\n".utf8))
        }
    }

    /// One line of --check-config's findings: `file:line:column: error: sentence`.
    static func printProblem(_ p: ConfigProblem, _ severity: String) {
        let at = p.location.description
        FileHandle.standardError.write(Data("\(at.isEmpty ? "" : at + ": ")\(severity): \(p.message)\n".utf8))
    }
}
