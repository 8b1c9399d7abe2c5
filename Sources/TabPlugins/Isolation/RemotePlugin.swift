// tabd's side of an isolated plugin (`isolation: process`): the helper process, the hook
// requests with their deadline, failures (crash, timeout), restarts with backoff.
//
// The plugin looks like any other to PluginHost: its PluginCode's hooks are trampolines
// that send the request and wait for the answer. So the chains, the composition, the
// counters and `explain` treat both kinds alike. A should_select that fails here fails
// closed: it answers TABD_DENY with the reason "crashed" or "timed out".

import CTabPolicy
import Glibc
import Logging
import Synchronization
import TabCore
import TabSystem

final class RemotePlugin {
    /// How long the helper may take to start and load the plugin, and init to run: generous,
    /// as an in-process init is not bounded either (it runs at start and reload only).
    static let startupSeconds = 5.0
    static let firstBackoff = 0.1
    static let lastBackoff = 30.0

    let spec: PluginSpec
    /// The plugin's file as tabd checked it; each helper (and every restart) loads it.
    let pluginFD: Int32
    let identity: CheckedFile.Identity
    let path: String
    let logger: Logger
    /// Its code as the helper described it, with trampolines for hooks.
    private(set) var code: PluginCode!
    /// The instance it is (set once made), for its counters and for the host's effects.
    weak var owner: PluginInstance?
    /// Runs a restart later (the daemon's loop); nil: restarts wait for the next hook.
    var schedule: ((Double, @escaping () -> Void) -> Void)?

    enum Failure: Error, Equatable {
        case crashed, timedOut
        var reason: String { self == .crashed ? "crashed" : "timed out" }
    }
    private enum Phase {
        case up
        /// Spawned; waiting for its hello (stage 0) and its init's answer (stage 1).
        case starting(deadline: UInt64, stage: Int)
        case down(until: UInt64, why: Failure)
        case stopped
    }
    private var phase: Phase = .stopped
    private(set) var pid: pid_t = 0
    private var fd: Int32 = -1
    private var configJSON = "{}"
    private var backoff = RemotePlugin.firstBackoff
    private var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    private(set) var crashes: UInt64 = 0
    private(set) var timeouts: UInt64 = 0
    private(set) var restarts: UInt64 = 0
    /// Helpers gone from the socket but maybe not reaped yet. Process-wide (any host's
    /// helpers), so behind a lock, though only the loop thread takes it.
    static let unreaped = Mutex<Set<pid_t>>([])

    var deadlineNanoseconds: UInt64 { UInt64(spec.deadlineMilliseconds) * 1_000_000 }

    /// The program a helper runs (`tabd --plugin-host`): tabd itself. A process that is not
    /// tabd (TabPlugins' tests) points it at a tabd binary before loading an isolated plugin.
    nonisolated(unsafe) static var executable = "/proc/self/exe"
    var displayName: String { owner?.name ?? code?.name ?? spec.name ?? path }

    /// Starts the helper for `file` (taking its descriptor over) and waits for its hello:
    /// throws why the plugin cannot run (the helper's own words when it said them).
    init(file: CheckedFile, spec: PluginSpec, logger: Logger) throws(Refusal) {
        self.spec = spec; self.path = file.path; self.identity = file.identity; self.logger = logger
        let kept = Result { () throws(SystemError) in try Sys.duplicate(file.fd, lowest: 10) }
        Sys.close(file.fd)
        switch kept {
        case .success(let fd): pluginFD = fd
        case .failure(let error): throw Refusal("cannot keep its file open for the helper: \(error.reason)")
        }
        try spawn()
        let deadline = monotonicNanoseconds() + UInt64(Self.startupSeconds * 1e9)
        switch receive(until: deadline) {
        case .success(let n):
            if let why = readHello(n) {
                kill(); throw Refusal(why)
            }
        case .failure(let f):
            kill()
            throw Refusal(f == .timedOut ? "its helper process did not start within \(Int(Self.startupSeconds)) s"
                                         : "its helper process exited before loading it (see the log line before)")
        }
        phase = .starting(deadline: deadline, stage: 1)
    }

    deinit { buffer.deallocate() }

    // MARK: The helper process

    private func spawn() throws(Refusal) {
        let pair: (ours: Int32, theirs: Int32)
        do { pair = try Sys.socketPair(Int32(SOCK_SEQPACKET.rawValue)) } catch {
            throw Refusal("socketpair for its helper failed: \(error.reason)")
        }
        // Both above the descriptors the helper gets (3, 4): dup2 then clears close-on-exec.
        let theirs = (try? Sys.duplicate(pair.theirs, lowest: 10)) ?? -1
        Sys.close(pair.theirs)
        defer { Sys.close(theirs) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, theirs, PluginHelperProcess.socketFD)
        posix_spawn_file_actions_adddup2(&actions, pluginFD, PluginHelperProcess.pluginFD)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)  // its own process group: killed as one
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ["tabd", PluginHelperProcess.flag, "\(getpid())", spec.user ?? "", spec.name ?? (path as String).split(separator: "/").last.map(String.init) ?? path]
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        // tabd's environment, but the Swift runtime's backtracer off: on a crash it would spend
        // seconds symbolicating before the helper dies, so the crash would read as a timeout.
        var environment: [UnsafeMutablePointer<CChar>?] = []
        var e = environ
        while let entry = e.pointee {
            if strncmp(entry, "SWIFT_BACKTRACE=", 16) != 0 { environment.append(strdup(entry)) }
            e += 1
        }
        environment.append(strdup("SWIFT_BACKTRACE=enable=no"))
        environment.append(nil)
        defer { for v in environment { free(v) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, Self.executable, &actions, &attributes, cArgs, environment)
        guard rc == 0 else {
            Sys.close(pair.ours)
            throw Refusal("cannot start its helper process (\(Self.executable)): \(SystemError("posix_spawn", errno: rc).reason)")
        }
        pid = child
        fd = pair.ours
        try? Sys.setNonBlocking(fd)
    }

    /// Kills the helper's process group and forgets the socket (reaped on SIGCHLD).
    private func kill() {
        if pid > 0 {
            try? Sys.kill(-pid, SIGKILL)
            Self.unreaped.withLock { _ = $0.insert(pid) }
            Self.reap()
        }
        if fd >= 0 { Sys.close(fd) }
        fd = -1
        pid = 0
    }

    /// Reaps helpers that exited (SIGCHLD), without waiting.
    static func reap() {
        unreaped.withLock { unreaped in
            for p in unreaped {
                do throws(SystemError) {
                    if try Sys.waitpid(p, options: WNOHANG).pid == p { unreaped.remove(p) }
                } catch {
                    if error.errno == ECHILD { unreaped.remove(p) }
                }
            }
        }
    }

    private func readHello(_ n: Int) -> String? {
        switch HelperHello.read(buffer, n) {
        case .failure(let why): return why.sentence
        case .success(let hello):
            if let note = hello.note {
                logger.warning("isolated plugin's sandbox is weaker than planned: \(note)", metadata: ["plugin.name": .string(hello.name)])
            }
            if code == nil {
                do throws(Refusal) {
                    code = try makeCode(name: hello.name, version: hello.version, summary: hello.summary,
                                        major: hello.major, minor: hello.minor, hooks: hello.hooks)
                } catch {
                    return error.description
                }
            }
            return nil
        }
    }

    // MARK: Requests

    /// Sends `message` and waits for the answer until the deadline. A failure kills the
    /// helper and schedules its restart.
    func exchange(_ message: [UInt8], hook: PluginHook) -> Result<Answer, Failure> {
        let deadline = monotonicNanoseconds() &+ deadlineNanoseconds
        if let failure = ensureUp(until: deadline, hook: hook) { return .failure(failure) }
        if let error = Packets.send(fd, message, wait: { self.wait($0, until: deadline) }) {
            return .failure(fail(error.wouldBlock ? .timedOut : .crashed, hook: hook))
        }
        switch receive(until: deadline) {
        case .success(let n):
            guard let answer = Answer(buffer, n) else { return .failure(fail(.crashed, hook: hook)) }
            backoff = Self.firstBackoff
            return .success(answer)
        case .failure(let f):
            return .failure(fail(f, hook: hook))
        }
    }

    private func receive(until deadline: UInt64) -> Result<Int, Failure> {
        switch Packets.receive(fd, into: &buffer, maxBytes: Packets.maxAnswerBytes, wait: { self.wait($0, until: deadline) }) {
        case .message(let n): return .success(n)
        case .gaveUp(let error): return .failure(error.wouldBlock ? .timedOut : .crashed)
        case .end, .failed: return .failure(.crashed)
        }
    }

    /// poll until `deadline`: nil when the socket is ready (or hung up: the next call says
    /// which); EAGAIN when the deadline passed, or poll's error.
    private func wait(_ events: Int16, until deadline: UInt64) -> SystemError? {
        while true {
            let now = monotonicNanoseconds()
            guard now < deadline else { return SystemError("poll", errno: EAGAIN) }
            let ms = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            do {
                if try Sys.poll(fd, events, milliseconds: ms) != 0 { return nil }
            } catch {
                return error
            }
        }
    }

    /// nil when the helper can take a request now; else why not (right away while down).
    private func ensureUp(until deadline: UInt64, hook: PluginHook) -> Failure? {
        switch phase {
        case .up: return nil
        case .stopped: return .crashed
        case .down(let until, let why):
            guard monotonicNanoseconds() >= until else { return why }
            restart()
            return ensureUp(until: deadline, hook: hook)
        case .starting(let startup, _):
            if progress(until: min(deadline, startup)) { return nil }
            if case .starting = phase, monotonicNanoseconds() >= startup { return fail(.timedOut, hook: .initialize) }
            if case .down(_, let why) = phase { return why }
            return .timedOut
        }
    }

    /// Starts a new helper after a failure: spawned, its init sent; it is up once both
    /// answers are in (`progress`).
    private func restart() {
        do throws(Refusal) {
            try spawn()
        } catch {
            logger.error("isolated plugin's helper could not be restarted: \(error.description)", metadata: ["plugin.name": .string(displayName)])
            phase = .down(until: monotonicNanoseconds() + UInt64(backoff * 1e9), why: .crashed)
            scheduleRestart()
            return
        }
        restarts += 1
        phase = .starting(deadline: monotonicNanoseconds() + UInt64(Self.startupSeconds * 1e9), stage: 0)
        _ = Packets.send(fd, initializeMessage(), wait: Packets.noWaiting)
        scheduleProgress()
    }

    /// Reads the starting helper's hello and init answer as far as they came by `until`.
    /// True once it is up.
    @discardableResult
    private func progress(until: UInt64) -> Bool {
        while case .starting(let startup, let stage) = phase {
            switch receive(until: until) {
            case .failure(let f):
                if f == .crashed {
                    logger.error("isolated plugin's helper exited while restarting", metadata: ["plugin.name": .string(displayName)])
                    _ = fail(.crashed, hook: .initialize, quiet: true)
                }
                return false
            case .success(let n):
                if stage == 0 {
                    if let why = readHello(n) {
                        logger.error("isolated plugin could not be restarted: \(why)", metadata: ["plugin.name": .string(displayName)])
                        _ = fail(.crashed, hook: .initialize, quiet: true)
                        return false
                    }
                    phase = .starting(deadline: startup, stage: 1)
                } else {
                    guard let answer = Answer(buffer, n) else { _ = fail(.crashed, hook: .initialize); return false }
                    apply(answer.effects, controller: nil)
                    guard answer.result == TABD_OK else {
                        logger.error("isolated plugin's init failed after a restart: \(answer.message ?? "no reason given")", metadata: ["plugin.name": .string(displayName)])
                        _ = fail(.crashed, hook: .initialize, quiet: true)
                        return false
                    }
                    phase = .up
                    logger.notice("isolated plugin's helper restarted", metadata: ["plugin.name": .string(displayName), "plugin.restarts": "\(restarts)"])
                    return true
                }
            }
        }
        if case .up = phase { return true }
        return false
    }

    private func scheduleProgress() {
        schedule?(0.01) { [weak self] in
            guard let self, case .starting(let startup, _) = self.phase else { return }
            if self.progress(until: 0) { return }
            guard case .starting = self.phase else { return }
            if monotonicNanoseconds() >= startup { _ = self.fail(.timedOut, hook: .initialize); return }
            self.scheduleProgress()
        }
    }

    private func scheduleRestart() {
        guard case .down(let until, _) = phase else { return }
        let delay = Double(until &- min(until, monotonicNanoseconds())) / 1e9
        schedule?(delay) { [weak self] in
            guard let self, case .down(let until, _) = self.phase else { return }
            // The loop's timer may fire a little before the monotonic clock says it is due.
            if monotonicNanoseconds() &+ 2_000_000 < until { self.scheduleRestart(); return }
            self.phase = .down(until: 0, why: .crashed)
            self.restart()
        }
    }

    /// Counts and logs `failure`, kills the helper and plans its restart. Returns `failure`.
    private func fail(_ failure: Failure, hook: PluginHook, quiet: Bool = false) -> Failure {
        if failure == .crashed { crashes += 1 } else { timeouts += 1 }
        let pid = self.pid
        kill()
        let delay = backoff
        backoff = min(backoff * 2, Self.lastBackoff)
        phase = .down(until: monotonicNanoseconds() + UInt64(delay * 1e9), why: failure)
        if !quiet {
            let what = failure == .crashed ? "crashed in \(hook.rawValue) (its helper process, pid \(pid), went away)"
                : "timed out in \(hook.rawValue) (no answer within \(spec.deadlineMilliseconds) ms); its helper process \(pid) was killed"
            logger.error("isolated plugin \(displayName) \(what); its decisions fail closed until the helper is restarted in \(delay) s", metadata: [
                "plugin.name": .string(displayName), "plugin.hook": .string(hook.rawValue),
            ])
        }
        scheduleRestart()
        return failure
    }

    // MARK: Life

    /// Runs init in the helper (waiting as long as a start may take). nil, or why it failed.
    func initialize(configJSON: String) -> (result: tabd_result, message: String?) {
        self.configJSON = configJSON
        let message = initializeMessage()
        let deadline = monotonicNanoseconds() + UInt64(Self.startupSeconds * 1e9)
        guard case .starting = phase, Packets.send(fd, message, wait: { self.wait($0, until: deadline) }) == nil else {
            return (TABD_ERROR, "its helper process is not running")
        }
        switch receive(until: deadline) {
        case .success(let n):
            guard let answer = Answer(buffer, n) else { kill(); phase = .stopped; return (TABD_ERROR, "its helper answered init with what tabd cannot read") }
            apply(answer.effects, controller: nil)
            if answer.result == TABD_OK {
                phase = .up
            } else {
                kill(); phase = .stopped
            }
            return (answer.result, answer.message)
        case .failure(let f):
            kill(); phase = .stopped
            return (TABD_ERROR, f == .timedOut ? "init did not answer within \(Int(Self.startupSeconds)) s in its helper process"
                                               : "its helper process crashed during init")
        }
    }

    /// init's request: the settings, then the plugin's store as tabd holds it now (the helper
    /// keeps a copy: store_get answers from it).
    private func initializeMessage() -> [UInt8] {
        var w = WireWriter(.initialize)
        w.string(configJSON)
        writeStore(&w)
        writeControllers(&w)
        return w.bytes
    }

    /// The names of the controllers tabd holds now (since 1.7, `controller_at`).
    func writeControllers(_ w: inout WireWriter) {
        let names = owner?.host.controllerNames ?? []
        w.u32(UInt32(names.count))
        for n in names { w.string(n) }
    }

    /// Sends the helper the list of controllers again (one was created or deleted, and the
    /// plugin has no hook that would have carried it).
    func syncControllers() {
        guard case .up = phase else { return }
        var w = WireWriter(.controllersSync)
        writeControllers(&w)
        _ = exchange(w.bytes, hook: .initialize)
    }

    /// The plugin's store as tabd holds it now.
    private func writeStore(_ w: inout WireWriter) {
        let values = owner.map { $0.host.storeValues(of: $0.name) } ?? [:]
        w.u32(UInt32(values.count))
        for (k, v) in values { w.string(k); w.string(v) }
    }

    /// Sends the helper tabd's copy of the store again (another instance of the plugin wrote
    /// it since this helper's init: the one a reload replaced, in will_stop or fini). Should
    /// the helper fail meanwhile, its restart brings the store with init anyway.
    func syncStore() {
        guard case .up = phase else { return }
        var w = WireWriter(.storeSync)
        writeStore(&w)
        _ = exchange(w.bytes, hook: .initialize)
    }

    /// Sends the helper tabd's values of `keys` (absent ones too): its copy took writes that
    /// tabd then refused.
    func patchStore(_ keys: [String]) {
        guard case .up = phase, let owner, !keys.isEmpty else { return }
        let values = owner.host.storeValues(of: owner.name)
        var w = WireWriter(.storePatch)
        let unique = Array(Set(keys))
        w.u32(UInt32(unique.count))
        for k in unique { w.string(k); w.string(values[k]) }
        _ = exchange(w.bytes, hook: .initialize)
    }

    /// Runs fini in the helper (within the deadline), then ends it.
    func stop() {
        if case .up = phase, case .success(let a) = exchange(WireWriter(.fini).bytes, hook: .fini) {
            apply(a.effects, controller: nil)  // its log lines and store writes, as in process
        }
        kill()
        phase = .stopped
    }

    /// Applies a hook's effects in order, as the host functions would have in process.
    func apply(_ effects: [HelperEffect], controller: String?) {
        guard let owner, !effects.isEmpty else { return }
        // init's effects (no controller) are a hook call of their own: what the hook call
        // that restarted the helper may still do is not spent on them.
        defer { if controller == nil { owner.host.frame.resetCounts() } }
        var refusedStore = 0, refusedTimers = 0
        var refusedKeys: [String] = []
        defer {
            if refusedStore > 0 {
                owner.host.warnings.warn("store refused", subject: owner.name, "isolated plugin '\(owner.name)' had store writes refused by tabd after its helper took them (\(refusedStore) in one hook call); its helper's copy of the store is put right: check what store_put answers and write less", metadata: ["plugin.name": .string(owner.name)])
                // The helper answered the plugin's store_put from its own copy: put it right.
                patchStore(refusedKeys)
            }
            if refusedTimers > 0 {
                owner.host.warnings.warn("set_timer refused", subject: owner.name, "isolated plugin's set_timer refused by tabd (\(refusedTimers) in one hook call: a bad name or delay, or TABD_TIMER_MAX timers armed)", metadata: ["plugin.name": .string(owner.name)])
            }
        }
        for e in effects {
            switch e {
            case .log(let level, let message):
                if owner.admitLog() { owner.log(tabd_log_level(rawValue: level), HookCaps.text(message, limit: HookCaps.logBytes)) }
            case .emit(let json):
                if let controller { _ = json.withCString { owner.emit($0, controller: controller) } }
            case .select(let tab):
                if let controller { _ = owner.requestSelect(tab, controller: controller) }
            case .store(let key, let value):
                let status = owner.storeSet(key, value)
                if status != TABD_STORE_OK, status != TABD_STORE_MISSING {
                    refusedStore += 1
                    if refusedKeys.last != key { refusedKeys.append(key) }
                }
            case .timer(let timerController, let name, let ms):
                if let ms {
                    if !owner.host.setTimer(owner, controller: timerController, name: name, milliseconds: ms), !owner.host.timersStopped { refusedTimers += 1 }
                } else {
                    owner.host.cancelTimer(owner, controller: timerController, name: name)
                }
            }
        }
    }
}

/// One answer of the helper.
struct Answer {
    var result: tabd_result
    var mask: UInt32
    var reason: String?
    var message: String?
    var json: String?
    var effects: [HelperEffect] = []

    init?(_ buffer: UnsafeMutableRawBufferPointer, _ n: Int) {
        var r = WireReader(base: UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)), count: n)
        do throws(WireReader.Short) {
            guard try r.u8() == HelperOp.answer.rawValue else { return nil }
            result = tabd_result(rawValue: try r.u32())
            mask = try r.u32()
            reason = try r.string(); message = try r.string(); json = try r.string()
            let count = try r.u32()
            for _ in 0..<count {
                switch try r.u8() {
                case 1: effects.append(.log(level: try r.u32(), message: try r.string() ?? ""))
                case 2: effects.append(.emit(json: try r.string() ?? ""))
                case 3: effects.append(.select(tab: try r.string() ?? ""))
                case 4: effects.append(.store(key: try r.string() ?? "", value: try r.string()))
                case 5:
                    let controller = try r.string(), name = try r.string() ?? ""
                    let ms = try r.i64()
                    effects.append(.timer(controller: controller, name: name, milliseconds: ms < 0 ? nil : UInt64(ms)))
                default: return nil
                }
            }
        } catch {
            return nil
        }
    }
}

/// The helper's first message: its plugin's descriptor, or why it could not load the plugin.
struct HelperHello {
    var name = "", version = "", summary = ""
    var major: UInt32 = 0, minor: UInt32 = 0, hooks: UInt32 = 0
    /// Set when the helper's sandbox is weaker than planned (said in tabd's log).
    var note: String?

    /// Why a hello does not describe a plugin, as the sentence tabd logs.
    struct Refusal: Error, Equatable { var sentence: String }

    /// Reads the first `n` bytes of `buffer` as a hello.
    static func read(_ buffer: UnsafeMutableRawBufferPointer, _ n: Int) -> Result<HelperHello, Refusal> {
        var r = WireReader(base: UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)), count: n)
        do throws(WireReader.Short) {
            guard try r.u8() == HelperOp.hello.rawValue else { return .failure(Refusal(sentence: "its helper answered out of turn")) }
            guard try r.u8() == 1 else { return .failure(Refusal(sentence: try r.string() ?? "its helper could not load it")) }
            var h = HelperHello()
            h.name = try r.string() ?? ""; h.version = try r.string() ?? ""; h.summary = try r.string() ?? ""
            h.major = try r.u32(); h.minor = try r.u32(); h.hooks = try r.u32()
            h.note = try r.string()
            return .success(h)
        } catch {
            return .failure(Refusal(sentence: "its helper sent a hello tabd cannot read"))
        }
    }
}
