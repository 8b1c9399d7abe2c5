// Putting tabd together: plugins, state, socket, loop, signals, timers, systemd.

import CLibevent
import Foundation
import Logging
import TabCore
import TabPlugins

public enum Daemon {
    public struct Options {
        public var config: ServerConfig
        public var repair = false
        public var version = TabdVersion.string
        public init(config: ServerConfig) { self.config = config }
    }

    /// `--check-config`'s plugin part: for each configured plugin, the checks tabd makes
    /// before it loads one (where the file is, every directory above it, the file itself),
    /// by the same code; nothing is loaded.
    public static func checkPlugins(_ config: ServerConfig) -> [PluginCheck] {
        PluginHost.check(config.plugins, directories: config.pluginDirectories)
    }

    /// Runs tabd until SIGTERM/SIGINT. Throws when it cannot start (the message says why).
    public static func run(_ options: Options, logger: Logger) throws {
        let config = options.config
        // First of all: one tabd per state directory. Before a plugin is loaded, a state file
        // read or the socket bound, so a second tabd touches nothing of the first one's.
        let lock = try StateDirectoryLock(directory: config.stateDir)
        defer { withExtendedLifetime(lock) {} }  // held until run returns (and then by the process)
        let notifier = SystemdNotifier()
        let loop = try EventLoop()

        let plugins = PluginHost(directories: config.pluginDirectories, logger: logger)
        plugins.maxJSONDepth = config.maxJSONDepth
        try plugins.load(config.plugins)

        let store = StateStore(directory: config.stateDir, fsync: config.fsync, compactBytes: config.compactBytes, logger: logger)
        let service = TabService(config: config, store: store, plugins: plugins, logger: logger, version: options.version)
        service.schedule = { seconds, body in _ = loop.once(after: seconds, body) }
        try service.recover(repair: options.repair)

        let listener: ListeningSocket
        if let activated = try ListeningSocket.fromSystemd() {
            listener = activated
            logger.info("using the socket passed by systemd", metadata: ["socket.fd": "\(activated.fd)"])
        } else {
            var group: gid_t?
            if let name = config.socketGroup {
                guard let g = getgrnam(name) else { throw ConfigError("socket_group '\(name)' does not exist") }
                group = g.pointee.gr_gid
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
        let server = LineServer(loop: loop, listener: listener, limits: limits, delegate: service, logger: logger)
        service.transportStatus = { [unowned server] in server.status }

        var fault = store.fault
        func status() -> String {
            if let fault {
                return "STATUS=degraded: the journal cannot be written (\(fault)); changes are refused, reads served; \(server.connectionCount) connection(s)"
            }
            return "STATUS=serving \(service.containers.controllers.count) controller(s), \(server.connectionCount) connection(s), plugins: \(plugins.plugins.filter(\.loaded).map(\.name).joined(separator: ", "))"
        }
        service.onStateFault = { reason in
            fault = reason
            notifier.notify(status())
        }
        service.onReload = { phase in
            switch phase {
            case .begin:
                notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds())\nSTATUS=reloading")
            case .end(let ok):
                notifier.notify("READY=1\n\(status())\(ok ? "" : " (last reload failed)")")
            }
        }

        var stopping = false
        let stop = {
            guard !stopping else { return }
            stopping = true
            logger.notice("stopping: answering what was received, then exiting")
            notifier.notify("STOPPING=1\nSTATUS=stopping")
            server.beginShutdown {
                service.finish()
                if !listener.activated { listener.removeSocketFile() }
                loop.stop()
            }
        }
        loop.onSignal(SIGTERM, stop)
        loop.onSignal(SIGINT, stop)
        loop.onSignal(SIGHUP) { service.reload() }
        if config.fsync == .everysec {
            loop.addTimer(every: 1.0) { service.tick { body in loop.async(body) } }
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
        logger.notice("tabd stopped")
    }

    /// Descriptors kept for what is not a client: the listener, the journal, snapshots,
    /// plugins' files, libevent's own.
    static let reservedDescriptors = 64

    /// Connections tabd can serve with its open file limit: it raises the soft limit to the
    /// hard one (what LimitNOFILE= allows), then keeps `reservedDescriptors`. A configured
    /// `limits.max_connections` above that is lowered, with a warning saying what to raise.
    static func connectionLimit(configured: Int?, logger: Logger) -> Int {
        var limit = rlimit()
        guard tabd_get_nofile(&limit) == 0 else { return configured ?? 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if tabd_set_nofile(&raised) == 0 { limit = raised }
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

    static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }
}
