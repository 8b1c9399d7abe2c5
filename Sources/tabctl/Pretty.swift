// How tabctl prints a result: on a terminal, indented JSON, coloured as jq colours it
// (unless NO_COLOR); elsewhere, or with --json, one line — what scripts read.

import Foundation
import TabJSON
import TabSystem

#if canImport(Glibc)
import Glibc
#endif

enum Output {
    /// A text of many lines from tabd (metrics, config) with the control characters of each
    /// line escaped (`oneLine`); the line breaks stay.
    static func lines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).oneLine }.joined(separator: "\n")
    }

    /// The result as tabctl prints it: pretty on a terminal unless `oneLine`.
    static func text(_ value: JSONValue, oneLine: Bool) -> String {
        // JSON escapes C0 in strings; `oneLine` escapes DEL and C1 too (they are in strings
        // only, so the text stays JSON): nothing from tabd reaches the terminal raw.
        guard !oneLine, Sys.isTerminal(1) else { return value.jsonString.oneLine }
        var out = ""
        Pretty(colour: ColorMode.auto.enabled).write(value, indent: 0, into: &out)
        return out
    }
}

/// Indented JSON, two spaces a level; with colour, ANSI SGR: keys bold blue, strings green,
/// numbers cyan, true and false yellow, null grey. Empty arrays and objects stay `[]`, `{}`.
struct Pretty {
    let colour: Bool

    private func paint(_ text: String, _ sgr: String) -> String {
        colour ? "\u{1B}[\(sgr)m\(text)\u{1B}[0m" : text
    }

    func write(_ value: JSONValue, indent: Int, into out: inout String) {
        let inner = String(repeating: "  ", count: indent + 1), closing = String(repeating: "  ", count: indent)
        switch value {
        case .null: out += paint("null", "90")
        case .bool(let b): out += paint(b ? "true" : "false", "33")
        case .int, .double: out += paint(value.jsonString, "36")
        case .string: out += paint(value.jsonString.oneLine, "32")
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += inner
                write(item, indent: indent + 1, into: &out)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += closing + "]"
        case .object(let object):
            let members = Array(object)
            guard !members.isEmpty else { out += "{}"; return }
            out += "{\n"
            for (i, (key, item)) in members.enumerated() {
                out += inner + paint(JSONValue.string(key).jsonString.oneLine, "1;34") + ": "
                write(item, indent: indent + 1, into: &out)
                out += i == members.count - 1 ? "\n" : ",\n"
            }
            out += closing + "}"
        }
    }
}
