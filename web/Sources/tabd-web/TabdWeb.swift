// tabd-web: one page that draws every controller of a tabd live, and a WebSocket that
// bridges it to tabd through TabClient (docs/operations.md, "The web console").
//
// Safe by default: it listens on 127.0.0.1 (or a Unix socket) and answers only for its own
// Host names, every request needs the random token it prints at start (kept in a cookie
// named for this instance after the first visit), the WebSocket's Origin must be the page's
// own, the page runs under a strict Content-Security-Policy, connections before login and
// WebSocket sessions are bounded (Gate.swift), and web users are no administrators unless it
// was started with --allow-admin: it tells tabd so in `hello` ("via": "tabd-web"), and tabd
// then counts its connection as no admin, whatever its uid.

import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdCore
import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization
import TabClient
import TabProtocol

@main
struct TabdWeb: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tabd-web",
        abstract: "A live console for tabd in the browser, on 127.0.0.1 with a token.",
        discussion: """
            Prints the address to open (with its token) at start. The page draws every controller, \
            taps through the policy plugins, logs in through the login gate and follows tabd live, \
            reconnecting after tabd restarts.
            """)

    @Option(name: .shortAndLong, help: ArgumentHelp("tabd's socket (default: $TABD_SOCKET, else /run/tabd/tabd.sock).", valueName: "path"))
    var socket: String?

    @Option(help: "The TCP port on 127.0.0.1 (0: any free port; the address printed says which).")
    var port = 8765

    @Option(help: ArgumentHelp("Listen on this Unix socket instead of 127.0.0.1 (for a reverse proxy).", valueName: "path"))
    var unixSocket: String?

    @Option(help: ArgumentHelp("Also answer requests whose Host is this (a reverse proxy's name, with its port unless 80); repeatable. Others get 421.", valueName: "host[:port]"))
    var allowHost: [String] = []

    @Option(help: ArgumentHelp("Seconds a connection has to send a request with the token; closed after.", valueName: "seconds"))
    var loginTimeout = 5

    @Option(help: ArgumentHelp("Connections that have not sent the token yet, at most; more are refused with 503.", valueName: "count"))
    var maxPending = 64

    @Option(help: ArgumentHelp("WebSocket sessions (open pages), at most; more are closed with 1013 (try again later).", valueName: "count"))
    var maxSessions = 32

    @Flag(help: "Web users act with tabd-web's own rights at tabd: it passes on the commands only administrators may send (reload, controller.delete), and plugins count them as admins if tabd-web's uid is one. Without it they are no administrators.")
    var allowAdmin = false

    func validate() throws {
        guard loginTimeout >= 1, maxPending >= 1, maxSessions >= 1 else {
            throw ValidationError("--login-timeout, --max-pending and --max-sessions must each be 1 or more")
        }
    }

    func run() async throws {
        let tabdSocket = socket ?? ProcessInfo.processInfo.environment["TABD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/tabd/tabd.sock"
        let token = Token.random()
        let site = try Site.load()
        let settings = Settings(tabdSocket: tabdSocket, token: token, allowAdmin: allowAdmin, allowHosts: allowHost)
        let gate = Gate(maxPending: maxPending, loginTimeout: loginTimeout, maxSessions: maxSessions)

        let router = Router(context: WebContext.self)
        router.add(middleware: Guard(settings: settings))
        router.get("/") { _, _ in site.response("index.html") }
        router.get("/app.js") { _, _ in site.response("app.js") }
        router.get("/app.css") { _, _ in site.response("app.css") }
        // The icon the page names (index.html), also where a browser looks without being told.
        router.get("/favicon.svg") { _, _ in site.response("favicon.svg") }
        router.get("/favicon.ico") { _, _ in site.response("favicon.svg") }

        let address: BindAddress = unixSocket.map { .unixDomainSocket(path: $0) } ?? .hostname("127.0.0.1", port: port)
        let unix = unixSocket
        let decide: @Sendable (HTTPRequest, any Channel, Logger) throws -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> = { request, channel, _ in
            guard request.path?.split(separator: "?").first == "/ws", settings.answers(request.authority),
                  settings.admits(request.headerFields), Settings.sameOrigin(request) else { return .dontUpgrade }
            channel.pipeline.fireUserInboundEventTriggered(LoggedIn())
            return .upgrade([:]) { inbound, outbound, _ in
                guard gate.sessions.take() else {
                    try await outbound.close(.unknown(1013), reason: "tabd-web has \(gate.sessions.limit) pages open, its --max-sessions; close one and reload")
                    return
                }
                defer { gate.sessions.give() }
                try await Session(settings: settings).run(inbound: inbound, outbound: outbound)
            }
        }
        let app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                GatedChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(), shouldUpgrade: decide), gate: gate)
            },
            configuration: .init(address: address, serverName: "tabd-web"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port
                settings.listening(unixSocket: unix, port: port ?? 0)
                let place = unix.map { "unix:\($0) " } ?? "http://127.0.0.1:\(port ?? 0)"
                let line = "tabd-web: \(place)/?token=\(token)  (tabd at \(tabdSocket)\(settings.allowAdmin ? ", admin commands passed on" : ""))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        )
        try await app.runService()
    }
}

/// What every part of the server reads. The cookie's name and the Hosts it answers for are
/// known once it listens (the port of --port 0).
final class Settings: Sendable {
    let tabdSocket: String
    let token: String
    let allowAdmin: Bool
    private let allowHosts: [String]
    private let bound = Mutex<(cookie: String, hosts: Set<String>)>(("", []))

    init(tabdSocket: String, token: String, allowAdmin: Bool, allowHosts: [String]) {
        self.tabdSocket = tabdSocket; self.token = token; self.allowAdmin = allowAdmin
        self.allowHosts = allowHosts.map { $0.lowercased() }
    }

    /// The cookie is named for this instance: a browser sends 127.0.0.1's cookies to every
    /// port of it (RFC 6265 §8.5), so a name of its own keeps another tabd-web's from
    /// replacing it. The Hosts: the loopback names with its port, and --allow-host's.
    func listening(unixSocket: String?, port: Int) {
        let cookie: String, loopback: [String]
        if let path = unixSocket {
            // FNV-1a of the socket's path: the same name at every start on that socket.
            let hash = path.utf8.reduce(UInt32(2166136261)) { ($0 ^ UInt32($1)) &* 16777619 }
            cookie = "tabd_web_token_unix_" + String(hash, radix: 16)
            loopback = ["127.0.0.1", "localhost", "[::1]"]
        } else {
            cookie = "tabd_web_token_\(port)"
            loopback = ["127.0.0.1", "localhost", "[::1]"].flatMap { port == 80 ? [$0, "\($0):80"] : ["\($0):\(port)"] }
        }
        bound.withLock { $0 = (cookie, Set(loopback + allowHosts)) }
    }

    var cookie: String { bound.withLock { $0.cookie } }

    /// Whether `host` (the request's Host) is one tabd-web answers for: a page of another
    /// name that resolves to 127.0.0.1 (DNS rebinding) is not served.
    func answers(_ host: String?) -> Bool {
        guard let host else { return false }
        return bound.withLock { $0.hosts.contains(host.lowercased()) }
    }

    var hostList: String { bound.withLock { $0.hosts.sorted().joined(separator: ", ") } }

    /// Whether the request carries the token in its cookie.
    func admits(_ headers: HTTPFields) -> Bool {
        let name = cookie
        for value in headers[values: .cookie] {
            for part in value.split(separator: ";") {
                let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0] == name, Token.equal(String(kv[1]), token) { return true }
            }
        }
        return false
    }

    /// The WebSocket's Origin is the page's own (http://HOST, HOST as the browser asked for
    /// it): another site's page cannot open the console's socket with the user's cookie.
    static func sameOrigin(_ request: HTTPRequest) -> Bool {
        guard let origin = request.headerFields[HTTPField.Name("Origin")!], let host = request.authority else { return false }
        return origin == "http://\(host)"
    }
}

/// A request's context: the router's, with the connection, which a request that carries
/// the token marks as logged in (GateHandler).
struct WebContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

enum Token {
    /// 128 random bits in hex, from the system's generator (getrandom).
    static func random() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(format: "%016llx", g.next() as UInt64) }.joined()
    }

    /// Compares in time that does not depend on where they differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The Host and token checks, and the headers every response carries.
struct Guard: RouterMiddleware {
    typealias Context = WebContext
    let settings: Settings

    /// No inline script or style, nothing from elsewhere, no framing, no forms posted away.
    static var securityHeaders: HTTPFields {
        [
            HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("X-Frame-Options")!: "DENY",
            .cacheControl: "no-store",
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if !settings.answers(request.head.authority) {
            response = Self.refusal("it answers for \(settings.hostList) only; open the address it printed at start", status: .misdirectedRequest)
        } else if let given = request.uri.queryParameters["token"] {
            if Token.equal(String(given), settings.token) {
                // First visit: keep the token in a cookie and take it out of the address bar.
                context.channel.pipeline.fireUserInboundEventTriggered(LoggedIn())
                response = Response(status: .seeOther, headers: [
                    .location: request.uri.path,
                    .setCookie: "\(settings.cookie)=\(settings.token); Path=/; HttpOnly; SameSite=Strict",
                ])
            } else {
                response = Self.refusal("the token in the address is not this tabd-web's; open the address it printed at start")
            }
        } else if settings.admits(request.headers) {
            context.channel.pipeline.fireUserInboundEventTriggered(LoggedIn())
            response = try await next(request, context)
        } else {
            response = Self.refusal("open the address tabd-web printed at start (it carries the token)")
        }
        response.headers.append(contentsOf: Self.securityHeaders)
        return response
    }

    static func refusal(_ text: String, status: HTTPResponse.Status = .forbidden) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: "tabd-web: \(text)\n")))
    }
}

/// The page's files, read once from the bundle.
struct Site: Sendable {
    let files: [String: (type: String, bytes: [UInt8])]

    static func load() throws -> Site {
        var files: [String: (String, [UInt8])] = [:]
        for (name, type) in [("index.html", "text/html; charset=utf-8"), ("app.js", "text/javascript; charset=utf-8"), ("app.css", "text/css; charset=utf-8"),
                             ("favicon.svg", "image/svg+xml")] {
            guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Resources") else {
                throw ValidationError("tabd-web's bundle has no Resources/\(name); reinstall it")
            }
            files[name] = (type, Array(try Data(contentsOf: url)))
        }
        return Site(files: files)
    }

    func response(_ name: String) -> Response {
        let f = files[name]!
        return Response(status: .ok, headers: [.contentType: f.type], body: .init(byteBuffer: ByteBuffer(bytes: f.bytes)))
    }
}
