// Putting tabd together: plugins, state, socket, loop, signals, timers, systemd.

import CLinux
import Foundation
import Logging
import TabCore
import TabPlugins
import TabSystem
import TabSystemd
import TabTransport
import TabState
import TabProtocol

public enum Daemon {
    public struct Options {
        public var config: ServerConfig
        public var repair = false
        public var version = TabdVersion.string
        public init(config: ServerConfig) { self.config = config }
    }

    /// What `--check-config` found: problems that stop a start (`errors`), plugins a start
    /// would run without (`warnings`), and each plugin that loaded and initialised.
    public struct Check {
        public var errors: [ConfigProblem] = []
        public var warnings: [ConfigProblem] = []
        public var plugins: [PluginStatus] = []
        /// How many timers each plugin's init armed, by plugin name: checked as a start
        /// checks them, none armed (nothing runs during a check).
        public var timers: [String: Int] = [:]
    }

    /// What `--check-plugin` found: the plugin's status, and how many timers its init armed
    /// (checked as a start checks them, none armed).
    public struct PluginCheckResult {
        public var status: PluginStatus
        public var timers: Int
    }

    /// `tabd --check-config`: what a start would do with `config` short of serving: the
    /// socket group and path, the state directory, and every plugin checked, loaded and
    /// initialised with its settings (then stopped) by the code a start runs.
    public static func check(_ config: ServerConfig) -> Check {
        var check = Check()
        if let name = config.socketGroup, groupID(named: name) == nil {
            check.errors.append(ConfigProblem(config.location(of: "socket_group"), "socket_group '\(name)' does not exist; create it (groupadd \(name)) or change socket_group"))
        }
        if let problem = socketProblem(config.socketPath) { check.errors.append(ConfigProblem(config.location(of: "socket"), problem)) }
        if let problem = stateDirectoryProblem(config.stateDir) { check.errors.append(ConfigProblem(config.location(of: "state_dir"), problem)) }
        // What the start would lower, with the warning it would log.
        if let configured = config.maxConnections, let limit = try? Sys.openFileLimit(),
           configured > max(1, Int(clamping: limit.rlim_max) - reservedDescriptors) {
            check.warnings.append(ConfigProblem(config.location(of: "limits.max_connections"),
                "limits.max_connections (\(configured)) is more than the open file limit allows (\(limit.rlim_max) descriptors, \(reservedDescriptors) kept for tabd); tabd would serve \(max(1, Int(clamping: limit.rlim_max) - reservedDescriptors)): raise LimitNOFILE (or ulimit -n)"))
        }
        // What the plugins log at warning or above while they start (a login gate's empty
        // credentials file) is what a start would log: a warning here.
        let said = PluginSayings()
        let host = PluginHost(directories: config.pluginDirectories, logger: Logger(label: "tabd.check", factory: { _ in said }))
        host.maxJSONDepth = config.maxJSONDepth
        // How long an init took on this machine now says nothing of the configuration (a
        // loaded machine made the login gate's 10 ms init a warning): a check times nothing.
        host.slowHookNanoseconds = .max
        host.checkTimersOnly()
        let prepared = host.prepare(config.plugins)
        check.timers = host.armedTimers(of: prepared)
        host.discard(prepared)
        for d in prepared.missingDirectories {
            check.warnings.append(ConfigProblem(config.location(of: "plugins.directories"), "plugin directory \(d) does not exist; it is ignored"))
        }
        check.errors += config.problems(requiredFailures: prepared.failures)
        for r in prepared.refused {
            check.warnings.append(ConfigProblem(config.pluginLocation(r.index), "plugin '\(r.plugin)' (\(r.path)) would not run: \(r.message)"))
        }
        for (plugin, message) in said.box.lines {
            let index = prepared.plugins.firstIndex { $0.name == plugin } ?? -1
            check.warnings.append(ConfigProblem(config.pluginLocation(index), "plugin '\(plugin)' warns: \(message)"))
        }
        check.plugins = prepared.plugins.filter(\.loaded)
        return check
    }

    /// The gid of the group `name` (nil: there is none, or the group database could not say).
    static func groupID(named name: String) -> gid_t? {
        (try? Sys.groupID(named: name)) ?? nil
    }

    /// Why tabd could not bind `path` (nil: it can, as far as can be known before binding).
    /// Not asked when systemd passes the socket (LISTEN_FDS): then systemd made it.
    static func socketProblem(_ path: String) -> String? {
        if UnixAddress.isTooLong(path) {
            return "socket \(path) is \(path.utf8.count) bytes long; a Unix socket path has at most \(UnixAddress.capacity - 1): choose a shorter one"
        }
        if ProcessInfo.processInfo.environment["LISTEN_FDS"] != nil { return nil }
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        guard let st = try? Sys.fileStatus(directory) else {
            return "the directory of socket \(path), \(directory), does not exist; create it (under systemd, tabd.socket or RuntimeDirectory=tabd does) or choose another socket"
        }
        guard st.st_mode & S_IFMT == S_IFDIR else { return "the directory of socket \(path), \(directory), is not a directory; choose another socket" }
        guard (try? Sys.access(directory, W_OK | X_OK)) != nil else {
            return "uid \(Sys.effectiveUserID()) cannot create socket \(path) in \(directory); chown the directory to tabd's user or choose another socket"
        }
        return nil
    }

    /// `tabd --check-plugin FILE`: the plugin file checked, loaded and initialised with
    /// `settingsJSON` (then stopped) by the code a start runs, as if FILE's directory were the
    /// one plugin directory and FILE the one, required, plugin. Its status: `error` says why
    /// tabd would refuse it.
    public static func checkPlugin(_ file: String, settingsJSON: String, maxJSONDepth: Int = 64, logger: Logger) -> PluginCheckResult {
        let real = URL(fileURLWithPath: file).standardizedFileURL.path
        let directory = (real as NSString).deletingLastPathComponent
        let host = PluginHost(directories: [directory.isEmpty ? "/" : directory], logger: logger)
        host.maxJSONDepth = maxJSONDepth
        // As --check-config: how long init took on this machine now says nothing of the plugin
        // (a loaded machine made a 10 ms init a slow-hook warning in the check's output).
        host.slowHookNanoseconds = .max
        host.checkTimersOnly()
        let prepared = host.prepare([PluginSpec(path: real, required: true, configJSON: settingsJSON)])
        let timers = host.armedTimers(of: prepared).values.reduce(0, +)
        host.discard(prepared)
        return PluginCheckResult(status: prepared.plugins[0], timers: timers)  // one spec, one entry
    }

    /// Why tabd could not use `directory` for its state (nil: it can, or can create it).
    static func stateDirectoryProblem(_ directory: String) -> String? {
        if let st = try? Sys.fileStatus(directory) {
            guard st.st_mode & S_IFMT == S_IFDIR else { return "state_dir \(directory) is not a directory" }
            guard (try? Sys.access(directory, W_OK | X_OK)) != nil else {
                return "state_dir \(directory) is not writable by uid \(Sys.effectiveUserID()); chown it to tabd's user or choose another state_dir"
            }
            return nil
        }
        var parent = (directory as NSString).deletingLastPathComponent
        while !parent.isEmpty, (try? Sys.fileStatus(parent)) == nil { parent = (parent as NSString).deletingLastPathComponent }
        if parent.isEmpty { parent = "." }
        guard (try? Sys.access(parent, W_OK | X_OK)) != nil else {
            return "state_dir \(directory) does not exist and uid \(Sys.effectiveUserID()) cannot create it in \(parent); create it (systemd-tmpfiles --create) or choose another state_dir"
        }
        return nil
    }

    /// The state directory's files a start creates before it may still be refused (the lock,
    /// the plugin watch's page), and the directories up to it, as they were before: `remove`
    /// takes away those that were not there.
    final class Created {
        private let missing: [String]
        private let stateDir: String
        /// What the state directory held before (nil: it did not exist). The state is recovered
        /// before plugins start (their init reads their store), so a start refused for a plugin
        /// may have written a first journal: every file not there before goes.
        private let before: Set<String>?
        init(stateDir: String) {
            self.stateDir = stateDir
            before = (try? FileManager.default.contentsOfDirectory(atPath: stateDir)).map(Set.init)
            var paths = [stateDir + "/" + StateDirectoryLock.fileName, stateDir + "/plugin-in-hook"]
            var dir = stateDir
            while !dir.isEmpty, dir != "/", !FileManager.default.fileExists(atPath: dir) {
                paths.append(dir)
                dir = (dir as NSString).deletingLastPathComponent
            }
            missing = paths.filter { !FileManager.default.fileExists(atPath: $0) }
        }
        /// Files first, then the directories, deepest first (each only when empty).
        func remove() {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: stateDir)) ?? [] where !(before?.contains(name) ?? false) {
                if let st = try? Sys.linkStatus(stateDir + "/" + name), st.st_mode & S_IFMT == S_IFREG { try? Sys.unlink(stateDir + "/" + name) }
            }
            for path in missing {
                if (try? Sys.unlink(path)) == nil { try? Sys.rmdir(path) }
            }
        }
    }

    /// What plugins log at warning or above, by plugin (what `check` reports).
    final class SaidLines: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [(String, String)] = []
        func append(_ plugin: String, _ message: String) { lock.withLock { list.append((plugin, message)) } }
        var lines: [(String, String)] { lock.withLock { list } }
    }

    struct PluginSayings: LogHandler {
        let box = SaidLines()
        var logLevel: Logger.Level = .warning
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            guard event.level >= .warning, case .string(let plugin)? = event.metadata?["plugin.name"] else { return }
            box.append(plugin, "\(event.message)")
        }
    }

    /// Runs tabd until SIGTERM/SIGINT. Throws when it cannot start (the message says why).
    public static func run(_ options: Options, logger: Logger) throws {
        let config = options.config
        // A socket group that does not exist is a configuration problem found before
        // anything is created.
        if let name = config.socketGroup, groupID(named: name) == nil {
            throw ConfigError([ConfigProblem(config.location(of: "socket_group"), "socket_group '\(name)' does not exist; create it (groupadd \(name)) or change socket_group")])
        }
        // What a start refused for its configuration must not leave behind: the files (and
        // directories) of the state directory that are not there yet.
        let created = Created(stateDir: config.stateDir)
        // First of all: one tabd per state directory. Before a plugin is loaded, a state file
        // read or the socket bound, so a second tabd touches nothing of the first one's.
        let lock: StateDirectoryLock
        do { lock = try StateDirectoryLock(directory: config.stateDir) } catch {
            created.remove()
            throw error
        }
        defer { withExtendedLifetime(lock) {} }  // held until run returns (and then by the process)
        let notifier = SystemdNotifier()
        let loop = try EventLoop()

        let plugins = PluginHost(directories: config.pluginDirectories, logger: logger)
        plugins.maxJSONDepth = config.maxJSONDepth
        plugins.schedule = { seconds, body in _ = loop.once(after: seconds, body) }
        plugins.slowHookNanoseconds = UInt64(config.slowHookMilliseconds) * 1_000_000
        plugins.warnings.period = config.warningPeriod
        plugins.storeBudget = config.storeBudget
        plugins.explainHistory = config.explainHistory
        // Names a plugin that was in a hook when the last run died, and quarantines repeat offenders.
        let watch = PluginWatch(directory: config.stateDir, quarantineAfter: config.quarantineAfter, logger: logger)
        plugins.watch = watch
        // A plugin that crashes tabd: one line naming it (priority crit for the journal).
        watch?.writeOneLineOnCrash(linePrefix: JournaldLogHandler.stderrIsJournal ? "<2>" : "tabd: ")
        // Isolated plugins' helpers that exit are reaped here (and restarted by the host).
        loop.onSignal(SIGCHLD) { plugins.reapHelpers() }
        // The state first: plugins' init reads what they keep in their store (plugin ABI 1.6).
        let store = StateStore(directory: config.stateDir, fsync: config.fsync, compactBytes: config.compactBytes, logger: logger)
        // Who tabd runs as, read once: its own user is an admin (the engine asks no kernel).
        let service = TabService(config: config, store: store, plugins: plugins, logger: logger, version: options.version,
                                 ownUID: Sys.effectiveUserID())
        service.hooks.schedule = { seconds, body in _ = loop.once(after: seconds, body) }
        plugins.scheduleTimer = { seconds, body in
            let timer = loop.once(after: seconds, body)
            return { timer.cancel() }
        }
        let stateDoor = loop.door
        service.hooks.onLoop = { body in stateDoor.async(body) }
        try service.recoverState(repair: options.repair)

        let prepared = plugins.prepare(config.plugins)
        guard prepared.isUsable else {
            plugins.discard(prepared)
            watch?.cleanStop()
            created.remove()
            // A configuration problem: restarting will not help (exit 78).
            throw ConfigError(config.problems(requiredFailures: prepared.failures))
        }
        plugins.commit(prepared, controllers: [])
        service.finishRecovery()

        let listener: ListeningSocket
        if let activated = try ListeningSocket.fromSystemd() {
            listener = activated
            logger.info("using the socket passed by systemd", metadata: ["socket.fd": "\(activated.fd)"])
        } else {
            var group: gid_t?
            if let name = config.socketGroup {
                guard let g = groupID(named: name) else { throw ConfigError([ConfigProblem(config.location(of: "socket_group"), "socket_group '\(name)' does not exist")]) }
                group = g
            }
            listener = try ListeningSocket.bind(path: config.socketPath, mode: config.socketMode, group: group)
        }

        // Blocks up to 32 MiB (a 1 MiB line, its parse, a big reply) are reused from the heap:
        // mapping each afresh cost a 1 MiB request a quarter of its time in page faults. The
        // heap is given back by tabd itself (LineServer trims once clients freed 16 MiB)
        // and by glibc past 64 MiB free at its top; bigger blocks are unmapped when freed.
        tabd_malloc_tune(32 << 20, 64 << 20)
        var limits = TransportLimits()
        limits.maxLineBytes = config.maxLineBytes
        limits.maxOutputBytes = config.maxOutputBytes
        limits.outputTimeout = config.outputTimeout
        limits.pauseInputBytes = min(config.maxOutputBytes, 1 << 20)
        limits.memoryBudget = config.memoryBudgetBytes
        limits.lineTimeout = config.lineTimeout
        limits.maxConnections = connectionLimit(configured: config.maxConnections, logger: logger)
        (limits.adminReservedConnections, limits.maxConnectionsPerUID) = Self.slots(config, maxConnections: limits.maxConnections, logger: logger)
        limits.idleTimeout = config.idleTimeout
        let server = LineServer(loop: loop, listener: listener, limits: limits, delegate: service, logger: logger)
        server.isPrivileged = { [unowned service] in service.isAdmin($0) }
        service.hooks.transportStatus = { [unowned server] in server.status }

        var fault = store.fault
        func status() -> String {
            if let fault {
                return "STATUS=degraded: the journal cannot be written (\(fault)); changes are refused, reads served; \(server.connectionCount) connection(s)"
            }
            let loaded = plugins.plugins.filter(\.loaded).map(\.name)
            if let failed = service.stats.reloads.failed {
                // Until a reload succeeds: the file on disk is the refused one, and a restart would refuse it too.
                let n = failed.problems.count
                return "STATUS=serving with the previous configuration: the reload at \(RFC3339.string(failed.at)) was refused (\(n) problem\(n == 1 ? "" : "s"), see tabctl stats or the log); fix \(config.path ?? "the configuration") before a restart; \(service.containers.count) controller(s), \(server.connectionCount) connection(s), plugins: \(loaded.isEmpty ? "none" : loaded.joined(separator: ", "))"
            }
            return "STATUS=serving \(service.containers.count) controller(s), \(server.connectionCount) connection(s), journal \(byteCount(store.journalBytes)) (\(store.records) records), plugins: \(loaded.isEmpty ? "none" : loaded.joined(separator: ", "))"
        }
        service.hooks.stateFault = { reason in
            fault = reason
            notifier.notify(status())
        }
        service.hooks.reload = { phase in
            switch phase {
            case .begin:
                notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds())\nSTATUS=reloading")
            case .end(let ok):
                _ = ok  // status() says whether the last reload failed, until one succeeds
                notifier.notify("READY=1\n\(status())")
            }
        }

        var stopping = false
        let stop = {
            guard !stopping else { return }
            stopping = true
            logger.notice("stopping: answering what was received, then exiting")
            notifier.notify("STOPPING=1\nSTATUS=stopping")
            // No plugin timer fires from now on (a plugin's timers could keep the loop busy
            // for ever); the plugins' hooks for what is still answered, and their fini, run.
            plugins.stopTimers()
            server.beginShutdown {
                service.stopPlugins()
                service.finish()
                if !listener.activated { listener.removeSocketFile() }
                loop.stop()
            }
        }
        loop.onSignal(SIGTERM, stop)
        loop.onSignal(SIGINT, stop)
        loop.onSignal(SIGHUP) { _ = service.reload() }
        if config.fsync == .everysec {
            let door = loop.door
            loop.addTimer(every: 1.0) { service.tick { body in door.async(body) } }
        }
        if let interval = notifier.watchdogInterval {
            loop.addTimer(every: interval) { notifier.notify("WATCHDOG=1") }
        }
        loop.addTimer(every: 10.0) {
            service.calibrateClock()
            notifier.notify(status())
        }

        server.start()
        logger.notice("tabd ready", metadata: [
            "socket": "\(listener.path ?? "fd \(listener.fd)")", "state_dir": "\(config.stateDir)",
            "fsync": "\(config.fsync.rawValue)", "version": "\(options.version)",
        ])
        notifier.notify("READY=1\n\(status())")
        try loop.run()
        watch?.cleanStop()
        logger.notice("tabd stopped")
    }

    /// Descriptors kept for what is not a client: the listener, the journal, snapshots,
    /// plugins' files, libevent's own.
    static let reservedDescriptors = 64

    /// Connections tabd can serve with its open file limit: it raises the soft limit to the
    /// hard one (what LimitNOFILE= allows), then keeps `reservedDescriptors`. A configured
    /// `limits.max_connections` above that is lowered, with a warning saying what to raise.
    static func connectionLimit(configured: Int?, logger: Logger) -> Int {
        guard var limit = try? Sys.openFileLimit() else { return configured ?? 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if (try? Sys.setOpenFileLimit(raised)) != nil { limit = raised }
        }
        let fits = max(1, Int(clamping: limit.rlim_cur) - reservedDescriptors)
        guard let configured else { return min(fits, ServerConfig.Limits.maxConnections.upperBound) }
        if configured > fits {
            logger.warning("limits.max_connections is more than the open file limit allows; raise LimitNOFILE (or ulimit -n) to serve that many", metadata: [
                "limits.max_connections": "\(configured)", "connections.served": "\(fits)",
                "rlimit.nofile": "\(limit.rlim_cur)",
            ])
            return fits
        }
        return configured
    }

    /// The slots kept for admins (configured, else a tenth of `maxConnections`, at most 10,
    /// and never all of them) and what one uid may hold (configured, else half of
    /// `maxConnections`, at least 1).
    static func slots(_ config: ServerConfig, maxConnections: Int, logger: Logger) -> (reserved: Int, perUID: Int) {
        var reserved = config.adminReservedConnections ?? min(10, maxConnections / 10)
        if reserved >= maxConnections {
            logger.warning("limits.admin_reserved_connections leaves no connection for anyone else; one slot stays ordinary", metadata: [
                "limits.admin_reserved_connections": "\(reserved)", "limits.max_connections": "\(maxConnections)",
            ])
            reserved = maxConnections - 1
        }
        return (reserved, config.maxConnectionsPerUID ?? max(1, maxConnections / 2))
    }

    /// A size as a status line shows it: 512 B, 4.2 KiB, 63.9 MiB.
    static func byteCount(_ n: Int) -> String {
        if n < 1024 { return "\(n) B" }
        var v = Double(n) / 1024
        for unit in ["KiB", "MiB", "GiB"] {
            if v < 1024 || unit == "GiB" { return "\((v * 10).rounded() / 10) \(unit)" }
            v /= 1024
        }
        return "\(n) B"
    }
}
