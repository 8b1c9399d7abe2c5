// The engine's own path for open_drawer and close_drawer (`RequestCommand.drawer`,
// `ServiceEngine.runDrawer`, issue 42) against the general one (the request boxed as
// `.boxed(.node(…))`, which `handleOther` hands to `runNode`): over generated drawers and
// moves, with a subscriber and without, the same replies byte for byte, the same events to
// the same clients, the same journal lines and the same state.

import Testing
import TestRandom
import TabCore
@testable import TabProtocol
@testable import TabServer

extension EmbeddedEngine {
    /// `request` run as the general decoder's path runs it: the reply line and the events
    /// delivered, as `send` gives them.
    func sendGeneral(_ request: Request, from client: Client = EmbeddedEngine.user) -> (reply: String, events: [(client: UInt64, line: String)]) {
        step.reset()
        step.plain = false
        step.requestID = request.id
        engine.run(request, from: { client }, into: &step)
        let reply = step.withReplyBytes { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: .newlines)
        var events: [(client: UInt64, line: String)] = []
        for d in step.deliveries {
            let line = step.withBytes(of: d) { String(decoding: $0, as: UTF8.self) }.trimmingCharacters(in: .newlines)
            for client in step.recipients[d.recipients] { events.append((client, line)) }
        }
        return (reply, events)
    }
}

@Suite struct DrawerDispatchTests {
    @Test("R15.25 open_drawer and close_drawer on the engine's own path answer, send and journal what the general path does")
    func sameAsTheGeneralPath() throws {
        var fastMoves = 0, refusals = 0, heard = 0
        for seed in UInt64(1)...40 {
            var rng = SplitMix64(seed: seed)
            let fast = EmbeddedEngine(), general = EmbeddedEngine()
            let subscribed = seed % 2 == 0
            let gestures = DrawerGesture.allCases.filter { $0.opens && $0 != .panNavigationBar && $0 != .tapNavigationBar && Bool.random(using: &rng) }.map { "\"\($0.rawValue)\"" }
            let closing = DrawerGesture.allCases.filter { $0 != .panNavigationBar && $0 != .tapNavigationBar && Bool.random(using: &rng) }.map { "\"\($0.rawValue)\"" }
            let window = Bool.random(using: &rng)
            let setup = [#"{"cmd":"controller.create","controller":"d","kind":"drawer","window":\#(window),"center":{"id":"c"},"left":{"id":"l"},"right":{"id":"r"},"#
                         + #""open_gestures":[\#(gestures.joined(separator: ","))],"close_gestures":[\#(closing.joined(separator: ","))]}"#]
            for e in [fast, general] {
                if subscribed { _ = e.send(#"{"cmd":"subscribe","events":["*"]}"#, from: EmbeddedEngine.watcher) }
                for line in setup { #expect(e.send(line).reply.contains(#""ok":true"#), "\(line)") }
                _ = e.commit()
            }
            for k in 0..<30 {
                let side: DrawerSide? = Int.random(in: 0..<3, using: &rng) == 0 ? nil : (Bool.random(using: &rng) ? .left : .right)
                let gesture: DrawerGesture? = Bool.random(using: &rng) ? nil : DrawerGesture.allCases.randomElement(using: &rng)
                let command: NodeCommand = side.map { .openDrawer($0, gesture: gesture, animated: false) } ?? .closeDrawer(gesture: gesture, animated: false)
                var line = #"{"id":\#(k),"cmd":"\#(side == nil ? "close_drawer" : "open_drawer")","controller":"d""#
                if let side { line += #","side":"\#(side.rawValue)""# }
                if let gesture { line += #","gesture":"\#(gesture.rawValue)""# }
                line += "}"
                let a = fast.send(line)
                let id = Array("\(k)".utf8).withUnsafeBytes { RequestID(token: $0) }
                let b = general.sendGeneral(Request(id: id, controller: "d", command: .boxed(.node(command))))
                let context = "seed \(seed), move \(k): \(line)"
                #expect(a.reply == b.reply, "\(context)")
                #expect(a.events.map(\.client) == b.events.map(\.client) && a.events.map(\.line) == b.events.map(\.line), "\(context)")
                #expect(fast.commit() == general.commit(), "\(context)")
                #expect(fast.engine.containers == general.engine.containers, "\(context)")
                if a.reply.contains(#""ok":true"#) { fastMoves += 1 } else { refusals += 1 }
                if !a.events.isEmpty { heard += 1 }
            }
        }
        #expect(fastMoves > 300 && refusals > 100 && heard > 100, "moves \(fastMoves), refusals \(refusals), heard \(heard)")
    }
}
