// `tabctl watch`'s loop on TabClient: subscribe, then print each event as the line tabd sent
// (an event's members in tabd's order: event, controller, seq, data).

import ArgumentParser
import CLinux
import Foundation
import Synchronization
import TabClient
import TabJSON
import TabProtocol
import TabSystem

extension Tabctl.Watch {
    /// Prints events until `count` were printed (exit 0) or tabd closes the connection (exit 3,
    /// TabctlExit.unreachable: with or without a count, a watch that tabd ended did not get
    /// what it asked for).
    func follow() throws {
        let probe = try common.connect()  // the message and exit 3 of every command
        Sys.close(probe.fd)
        setvbuf(tabd_stdout(), nil, _IOLBF, 0)
        let (path, names, controller, count) = (common.socketPath, events, common.controller, count)
        let outcome = Mutex<Int32>(0)
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            defer { done.signal() }
            let code: Int32
            do {
                let client = try TabClient(path: path)
                defer { client.close() }
                try await client.subscribe(events: names.isEmpty ? nil : names, controllers: controller.map { [$0] })
                var printed = 0
                for await e in client.events {
                    if let count, printed >= count { break }
                    let line = JSONObject([("event", .string(e.name)), ("controller", .string(e.controller)),
                                           ("seq", .int(Int64(e.seq))), ("data", .object(e.data))])
                    print(JSONValue.object(line).jsonString.oneLine)
                    printed += 1
                    if let count, printed >= count { break }
                }
                if Task.isCancelled {
                    code = 0  // Ctrl-C in the interactive mode (Interrupt): back to its prompt
                } else if let count, printed < count {
                    FileHandle.standardError.write(Data("tabctl: tabd closed the connection after \(printed) of \(count) events\n".utf8))
                    code = TabctlExit.unreachable.code
                } else if count == nil {
                    FileHandle.standardError.write(Data("tabctl: tabd closed the connection (it stopped or restarted) after \(printed) event\(printed == 1 ? "" : "s")\n".utf8))
                    code = TabctlExit.unreachable.code
                } else {
                    code = 0
                }
            } catch let e as TabdError {
                var text = "tabctl: \(e.codeName.oneLine): \(e.message.oneLine)"
                for (k, v) in e.object where k != "code" && k != "message" { text += "\n  \(k.oneLine): \(Common.stringValue(v))" }
                FileHandle.standardError.write(Data((text + "\n").utf8))
                code = 1
            } catch {
                FileHandle.standardError.write(Data("tabctl: \(String(describing: error).oneLine)\n".utf8))
                code = TabctlExit.unreachable.code
            }
            outcome.withLock { $0 = code }
        }
        Interrupt.stopping(with: { task.cancel() }) { done.wait() }
        let code = outcome.withLock { $0 }
        if code != 0 { throw ExitCode(code) }
    }
}
