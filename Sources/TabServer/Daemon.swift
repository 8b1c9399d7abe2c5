// Putting tabd together: plugins, state, socket, loop, signals, timers, systemd.

import Foundation
import Logging
import TabCore
import TabPlugins

public enum Daemon {
    public struct Options {
        public var config: ServerConfig
        public var repair = false
        public var version = "0.1.0"
        public init(config: ServerConfig) { self.config = config }
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

        var limits = TransportLimits()
        limits.maxLineBytes = config.maxLineBytes
        limits.maxOutputBytes = config.maxOutputBytes
        limits.maxConnections = config.maxConnections
        let server = LineServer(loop: loop, listener: listener, limits: limits, delegate: service, logger: logger)
        service.connectionCount = { [unowned server] in server.connectionCount }

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

    static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }
}
