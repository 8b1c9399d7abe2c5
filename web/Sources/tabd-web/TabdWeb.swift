// tabd-web: one page that draws every controller of a tabd live, and a WebSocket that
// bridges it to tabd through TabClient (docs/operations.md, "The web console").
//
// Safe by default: it listens on 127.0.0.1 (or a Unix socket), every request needs the
// random token it prints at start (kept in a cookie after the first visit), the WebSocket's
// Origin must be the page's own, the page runs under a strict Content-Security-Policy, and
// the commands only administrators may send (reload, controller.delete) are refused unless
// it was started with --allow-admin. At tabd it is a client like any other, with its own
// uid's rights (tabd reads them with SO_PEERCRED).

import ArgumentParser
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdWebSocket
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

    @Flag(help: "Pass on the commands only administrators may send (reload, controller.delete); refused otherwise.")
    var allowAdmin = false

    func run() async throws {
        let tabdSocket = socket ?? ProcessInfo.processInfo.environment["TABD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/tabd/tabd.sock"
        let token = Token.random()
        let site = try Site.load()
        let settings = Settings(tabdSocket: tabdSocket, token: token, allowAdmin: allowAdmin)

        let router = Router()
        router.add(middleware: Guard(settings: settings))
        router.get("/") { _, _ in site.response("index.html") }
        router.get("/app.js") { _, _ in site.response("app.js") }
        router.get("/app.css") { _, _ in site.response("app.css") }

        let address: BindAddress = unixSocket.map { .unixDomainSocket(path: $0) } ?? .hostname("127.0.0.1", port: port)
        let unix = unixSocket
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade { request, _, _ in
                guard request.path?.split(separator: "?").first == "/ws", settings.admits(request.headerFields),
                      Settings.sameOrigin(request) else { return .dontUpgrade }
                return .upgrade([:]) { inbound, outbound, _ in
                    try await Session(settings: settings).run(inbound: inbound, outbound: outbound)
                }
            },
            configuration: .init(address: address, serverName: "tabd-web"),
            onServerRunning: { channel in
                let place = unix.map { "unix:\($0) " } ?? "http://127.0.0.1:\(channel.localAddress?.port ?? 0)"
                let line = "tabd-web: \(place)/?token=\(token)  (tabd at \(tabdSocket)\(settings.allowAdmin ? ", admin commands passed on" : ""))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        )
        try await app.runService()
    }
}

/// What every part of the server reads.
struct Settings: Sendable {
    let tabdSocket: String
    let token: String
    let allowAdmin: Bool
    static let cookie = "tabd_web_token"

    /// Whether the request carries the token in its cookie.
    func admits(_ headers: HTTPFields) -> Bool {
        for value in headers[values: .cookie] {
            for part in value.split(separator: ";") {
                let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0] == Self.cookie, Token.equal(String(kv[1]), token) { return true }
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

/// The token check and the headers every response carries.
struct Guard<Context: RequestContext>: RouterMiddleware {
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
        if let given = request.uri.queryParameters["token"] {
            if Token.equal(String(given), settings.token) {
                // First visit: keep the token in a cookie and take it out of the address bar.
                response = Response(status: .seeOther, headers: [
                    .location: request.uri.path,
                    .setCookie: "\(Settings.cookie)=\(settings.token); Path=/; HttpOnly; SameSite=Strict",
                ])
            } else {
                response = Self.refusal("the token in the address is not this tabd-web's; open the address it printed at start")
            }
        } else if settings.admits(request.headers) {
            response = try await next(request, context)
        } else {
            response = Self.refusal("open the address tabd-web printed at start (it carries the token)")
        }
        response.headers.append(contentsOf: Self.securityHeaders)
        return response
    }

    static func refusal(_ text: String) -> Response {
        Response(status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: "tabd-web: \(text)\n")))
    }
}

/// The page's files, read once from the bundle.
struct Site: Sendable {
    let files: [String: (type: String, bytes: [UInt8])]

    static func load() throws -> Site {
        var files: [String: (String, [UInt8])] = [:]
        for (name, type) in [("index.html", "text/html; charset=utf-8"), ("app.js", "text/javascript; charset=utf-8"), ("app.css", "text/css; charset=utf-8")] {
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
