// tabd: the tab-container daemon.

import ArgumentParser
import Foundation
import Logging
import TabServer

@main
struct Tabd: ParsableCommand {
    static let version = TabdVersion.string

    static let configuration = CommandConfiguration(
        commandName: "tabd",
        abstract: "Keeps the state of headless tab containers and answers line-delimited JSON on a Unix socket.",
        discussion: """
            Settings come from --config (YAML, see tabd.example.yaml); flags given here override it.
            Under systemd, tabd uses the socket systemd passes (LISTEN_FDS) and reports READY, \
            RELOADING, STOPPING and WATCHDOG through NOTIFY_SOCKET.
            Signals: SIGTERM/SIGINT answer what was received, then exit 0; SIGHUP reloads the config.
            """,
        version: version
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

    @Flag(name: .long, help: "Check the configuration and the plugins' files, print the result and exit.")
    var checkConfig = false

    mutating func run() throws {
        var settings: ServerConfig
        do {
            settings = try config.map { try ServerConfig.load(path: $0) } ?? ServerConfig()
        } catch {
            // One sentence that names the setting (as tabd's other refusals), no usage text.
            FileHandle.standardError.write(Data("<2>\(checkConfig ? "the configuration is not valid" : "tabd cannot start"): \(error)\n".utf8))
            throw ExitCode(64)  // EX_USAGE, as before
        }
        if let socket { settings.socketPath = socket }
        if let stateDir { settings.stateDir = stateDir }
        if let fsync {
            guard let policy = FsyncPolicy(rawValue: fsync) else { throw ValidationError("--fsync must be always, everysec or no") }
            settings.fsync = policy
        }
        if let logLevel { settings.logLevel = logLevel }
        guard let level = Logger.Level(rawValue: settings.logLevel) else {
            throw ValidationError("log level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        LoggingSystem.bootstrap { JournaldLogHandler(label: $0, level: level) }
        let logger = Logger(label: "tabd")
        if checkConfig {
            // Each plugin its start would refuse, in the sentence tabd would log; a required
            // one means tabd would not start.
            let refused = Daemon.checkPlugins(settings).filter { $0.error != nil }
            for p in refused {
                let line = p.required ? "<2>the configuration is not valid: required plugin '\(p.name)' would be refused: \(p.error!)"
                    : "<4>plugin '\(p.name)' would be refused: \(p.error!)"
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
            if refused.contains(where: \.required) { throw ExitCode(1) }
            let note = refused.isEmpty ? "" : ", \(refused.count) refused"
            print("configuration OK: socket \(settings.socketPath), state \(settings.stateDir), fsync \(settings.fsync.rawValue), \(settings.plugins.count) plugin(s)\(note)")
            return
        }
        var options = Daemon.Options(config: settings)
        options.repair = repair
        options.version = Self.version
        do {
            try Daemon.run(options, logger: logger)
        } catch {
            logger.critical("tabd cannot start: \(error)")
            throw ExitCode(1)
        }
    }
}
