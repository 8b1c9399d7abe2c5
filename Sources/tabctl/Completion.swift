// Completions that ask tabd: the tab ids of the controller named on the line (or main),
// the controllers, the event names and the commands it has. The shells' scripts
// (--generate-completion-script) call tabctl for these; the interactive mode asks the same
// functions. When tabd cannot be reached in a second, nothing is offered.

import Foundation
import TabJSON
import TabProtocol
import TabSystem

#if canImport(Glibc)
import Glibc
#endif

enum Completion {
    /// The value after `-s`/`--socket` (or `--socket=…`) on the line, else $TABD_SOCKET, else
    /// the system socket: where the command being typed would go.
    static func socket(_ words: [String]) -> String {
        if let v = value(of: ["-s", "--socket"], in: words) { return v }
        if let env = ProcessInfo.processInfo.environment["TABD_SOCKET"], !env.isEmpty { return env }
        return Common.systemSocket
    }

    static func value(of names: [String], in words: [String]) -> String? {
        var found: String?
        for (i, w) in words.enumerated() {
            if names.contains(w), i + 1 < words.count { found = words[i + 1] }
            for n in names where n.hasPrefix("--") && w.hasPrefix(n + "=") { found = String(w.dropFirst(n.count + 1)) }
        }
        return found
    }

    /// The result of one request, or nil (no tabd, an error, more than a second).
    static func ask(_ socket: String, _ request: String) -> JSONObject? {
        guard var conn = try? Connection(path: socket) else { return nil }
        defer { Sys.close(conn.fd) }
        conn.timeout = 1
        guard (try? conn.send(request)) != nil, let line = try? conn.readLine(),
              case .object(let reply)? = try? JSONParser.parse(line), case .object(let result)? = reply["result"] else { return nil }
        return result
    }

    static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
    }

    /// The candidates that start with `prefix`, as they may be printed: what tabd sent with
    /// control characters escaped (`oneLine`), so that a tab id cannot drive the terminal
    /// that lists it (the interactive mode's list, a shell's completion menu).
    static func matching(_ candidates: [String], _ prefix: String) -> [String] {
        candidates.filter { $0.hasPrefix(prefix) }.map(\.oneLine)
    }

    /// The tab ids of the controller on the line (every tab of a tree, groups' children too).
    static func tabs(_ words: [String], _ prefix: String, more: Bool) -> [String] {
        var fields: [(String, JSONValue)] = [("cmd", "state")]
        if let c = value(of: ["-c", "--controller"], in: words) { fields.append(("controller", .string(c))) }
        var w = JSONWriter()
        w.write(.object(JSONObject(fields)))
        guard let state = ask(socket(words), String(decoding: w.bytes, as: UTF8.self)) else { return [] }
        var ids: [String] = []
        func collect(_ value: JSONValue?) {
            guard case .array(let tabs)? = value else { return }
            for case .object(let tab) in tabs {
                if case .string(let id)? = tab["id"] { ids.append(id) }
                collect(tab["children"])
            }
        }
        collect(state["tabs"])
        return matching(ids + (more ? ["more"] : []), prefix)
    }

    static func controllers(_ words: [String], _ prefix: String) -> [String] {
        guard let result = ask(socket(words), #"{"cmd":"controllers"}"#), case .array(let list)? = result["controllers"] else { return [] }
        let names = list.compactMap { item -> String? in
            if case .object(let o) = item, case .string(let name)? = o["name"] { return name }
            if case .string(let name) = item { return name }
            return nil
        }
        return matching(names, prefix)
    }

    static func events(_ words: [String], _ prefix: String) -> [String] {
        matching(strings(ask(socket(words), #"{"cmd":"hello"}"#)?["events"]), prefix)
    }

    static func commands(_ words: [String], _ prefix: String) -> [String] {
        matching(strings(ask(socket(words), #"{"cmd":"hello"}"#)?["commands"]), prefix)
    }
}
