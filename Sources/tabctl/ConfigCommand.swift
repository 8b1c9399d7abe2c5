// `tabctl config`: the configuration tabd runs with, as a YAML file tabd reads back (as
// `nginx -T` prints nginx's): the file's values, the flags over them, the defaults for the
// rest; plugin settings that name a secret masked. --json prints tabd's answer as it is.

import ArgumentParser
import Foundation
import TabJSON
import TabProtocol

extension Tabctl {
    struct Config: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the configuration tabd runs with, as YAML (admin only; secrets masked).",
            discussion: """
                The file's values, the command-line flags that override them, and the defaults for \\
                what neither sets; for a setting that only a restart applies, the value tabd started \\
                with. A plugin setting whose name is a password, passphrase, secret, token or key \\
                prints as ********. The output is a configuration file tabd reads.
                """)
        @OptionGroup var common: Common

        func run() throws {
            let result = try common.result(#"{"cmd":"config"}"#)
            if common.json { return print(JSONValue.object(result).jsonString.oneLine) }
            var text = "# tabd's configuration in use"
            if case .string(let file)? = result["file"] { text += ", from \(file.oneLine)" } else { text += ": the built-in defaults" }
            let flags = Completion.strings(result["flags"])
            if !flags.isEmpty { text += ", overridden by \(flags.joined(separator: " ").oneLine)" }
            text += "\n"
            if case .object(let config)? = result["config"] { YAMLText.mapping(config, indent: 0, into: &text) }
            FileHandle.standardOutput.write(Data(Output.lines(text).utf8))
        }
    }
}

/// Block YAML from JSON: mappings and lists of mappings as blocks, lists of scalars in flow
/// style, strings as JSON writes them (a JSON string is a YAML double-quoted scalar) unless
/// they are plain words YAML reads back as the same string.
enum YAMLText {
    static func scalar(_ value: JSONValue) -> String {
        guard case .string(let s) = value else { return value.jsonString }
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-".unicodeScalars.contains($0) }
            && !["true", "false", "yes", "no", "on", "off", "null", "~"].contains(s.lowercased())
            && Double(s) == nil && !s.hasPrefix("-") && !(s.first?.isNumber ?? false)
        return plain ? s : value.jsonString
    }

    static func mapping(_ object: JSONObject, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent)
        for (key, value) in object {
            switch value {
            case .object(let o) where !Array(o).isEmpty:
                out += "\(pad)\(key):\n"
                mapping(o, indent: indent + 1, into: &out)
            case .array(let items) where items.contains(where: { if case .object = $0 { return true } else { return false } }):
                out += "\(pad)\(key):\n"
                for case .object(let o) in items {
                    var item = ""
                    mapping(o, indent: indent + 2, into: &item)
                    // The first key after "- ".
                    let inner = String(repeating: "  ", count: indent + 2)
                    out += pad + "  - " + item.dropFirst(inner.count)
                }
            case .array(let items):
                out += "\(pad)\(key): [\(items.map(scalar).joined(separator: ", "))]\n"
            case .object:
                out += "\(pad)\(key): {}\n"
            default:
                out += "\(pad)\(key): \(scalar(value))\n"
            }
        }
    }
}
