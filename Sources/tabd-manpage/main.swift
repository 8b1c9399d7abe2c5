// tabd-manpage: writes the man page of a swift-argument-parser command (tabd, tabctl) from
// what the binary itself says about its options (`TOOL --experimental-dump-help`, the
// parser's own description), so the page cannot drift from the parser. Hand-written
// sections (ENVIRONMENT, FILES, EXAMPLES, …) are appended from a roff file. `make install`
// runs it on the binaries it installs; it is not installed itself.
//
//   tabd-manpage BINARY SECTION [EXTRA.roff]   → the page on stdout (man(7) macros)

import Foundation
import TabJSON
import TabProtocol

/// What `--experimental-dump-help` prints (ArgumentParserToolInfo's ToolInfoV0), as far as a
/// man page needs it.
struct ToolInfo: Decodable {
    var command: CommandInfo
}

struct CommandInfo: Decodable {
    var commandName: String
    var superCommands: [String]?
    var shouldDisplay: Bool?
    var abstract: String?
    var discussion: String?
    var subcommands: [CommandInfo]?
    var arguments: [ArgumentInfo]?
}

struct ArgumentInfo: Decodable {
    struct Name: Decodable, Equatable {
        var kind: String
        var name: String
    }
    var kind: String
    var shouldDisplay: Bool
    var isOptional: Bool
    var isRepeating: Bool
    var names: [Name]?
    var valueName: String?
    var defaultValue: String?
    var allValues: [String]?
    var abstract: String?
    var discussion: String?

    /// --help and --version: every command has them; the page says so once.
    var isBuiltIn: Bool { names?.contains { $0.kind == "long" && ($0.name == "help" || $0.name == "version") } ?? false }

    /// `-s, --socket path` in roff: short names first, then long ones.
    var label: String {
        if kind == "positional" { return "\\fI" + Roff.escape(valueName ?? "value") + "\\fR" }
        let sorted = (names ?? []).sorted { ($0.kind == "short" ? 0 : 1) < ($1.kind == "short" ? 0 : 1) }
        let spelled = sorted.map { "\\fB" + Roff.escape(($0.kind == "long" ? "--" : "-") + $0.name) + "\\fR" }.joined(separator: ", ")
        guard kind == "option" else { return spelled }
        return spelled + " \\fI" + Roff.escape(valueName ?? "value") + "\\fR"
    }

    /// The argument in a synopsis line: `[--socket path]`, `target`, `[key=value ...]`.
    var synopsis: String {
        var text: String
        if kind == "positional" {
            text = "\\fI" + Roff.escape(valueName ?? "value") + "\\fR"
        } else {
            let name = names?.first { $0.kind == "long" } ?? names?.first
            text = "\\fB" + Roff.escape((name?.kind == "long" ? "--" : "-") + (name?.name ?? "")) + "\\fR"
            if kind == "option" { text += " \\fI" + Roff.escape(valueName ?? "value") + "\\fR" }
        }
        if isRepeating { text += " ..." }
        return isOptional ? "[" + text + "]" : text
    }

    /// What it does, its choices and its default.
    var description: [String] {
        var lines = [abstract, discussion].compactMap { $0 }
        if let allValues, !allValues.isEmpty { lines.append("One of: " + allValues.joined(separator: ", ") + ".") }
        if let defaultValue, !defaultValue.isEmpty { lines.append("Default: " + defaultValue + ".") }
        return lines
    }
}

enum Roff {
    /// Text for a roff line: backslashes and hyphen-minus escaped (options and code are
    /// copied from man pages), other than ASCII as \[uXXXX] (whatever the reader's locale),
    /// and a leading dot or quote made literal.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case _ where scalar.value > 127: out += String(format: "\\[u%04X]", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Paragraphs of help text: each line of it one paragraph, leading blanks dropped.
    static func paragraphs(_ text: String?) -> [String] {
        (text ?? "").split(separator: "\n").map { $0.drop { $0 == " " } }.filter { !$0.isEmpty }.map { line in
            let escaped = escape(String(line))
            return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
        }
    }
}

struct Page {
    let info: CommandInfo
    let section: Int
    var lines: [String] = []

    init(_ info: CommandInfo, section: Int) {
        self.info = info
        self.section = section
    }

    /// The tools' exit statuses (TabProtocol's table, which --help also prints).
    static let exitStatuses: [String: [ExitStatus]] = ["tabd": TabdExit.all, "tabctl": TabctlExit.all]

    /// A meaning as a sentence, with a full stop (not capitalised: most begin with tabd).
    static func sentence(_ meaning: String) -> String {
        meaning + (meaning.hasSuffix(".") ? "" : ".")
    }

    static func visible(_ arguments: [ArgumentInfo]?) -> [ArgumentInfo] {
        (arguments ?? []).filter { $0.shouldDisplay && !$0.isBuiltIn }
    }

    /// `.TP` entries for arguments.
    mutating func list(_ arguments: [ArgumentInfo]) {
        for a in arguments {
            lines += [".TP", a.label]
            lines += Roff.paragraphs(a.description.joined(separator: " "))
        }
    }

    mutating func paragraphs(_ text: String?) {
        // The exit statuses get their own section, from the same table.
        let text = text.map { $0.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Exit status: ") }.joined(separator: "\n") }
        for (i, p) in Roff.paragraphs(text).enumerated() {
            if i > 0 { lines.append(".PP") }
            lines.append(p)
        }
    }

    mutating func write(extra: String?) -> String {
        let name = info.commandName
        // `help` is the parser's own (tabctl help CMD); --help says the same.
        let subcommands = (info.subcommands ?? []).filter { ($0.shouldDisplay ?? true) && $0.commandName != "help" }
        let options = Self.visible(info.arguments)
        lines.append(".\\\" Generated by tabd-manpage from `\(name) --experimental-dump-help`; edit the parser, not this page.")
        lines.append(".TH \(name.uppercased()) \(section) \"\" \"tabd \(TabdVersion.string)\" \"tabd\"")
        // Options and JSON are copied from the page: no hyphenation, no stretched spaces.
        lines += [".nh", ".ad l"]
        lines += [".SH NAME", "\(Roff.escape(name)) \\- \(Roff.escape(info.abstract ?? ""))"]
        lines += [".SH SYNOPSIS", ".B \(Roff.escape(name))"]
        lines += options.map(\.synopsis)
        if !subcommands.isEmpty { lines.append("\\fIcommand\\fR [\\fIargument\\fR ...]") }
        lines += [".SH DESCRIPTION"]
        paragraphs(info.discussion ?? info.abstract)
        if !options.isEmpty {
            lines.append(".SH OPTIONS")
            list(options)
        }
        lines += [".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "Show the help and exit."]
        lines += [".TP", "\\fB\\-\\-version\\fR", name == "tabd"
            ? "Print the version (\(TabdVersion.string)) on the first line, then the plugin ABI and the Swift version plugins are built for, and exit."
            : "Print the version (\(TabdVersion.string)) and exit."]
        if !subcommands.isEmpty {
            lines.append(".SH COMMANDS")
            lines += Roff.paragraphs("The options above may come before or after the command.")
            for sub in subcommands {
                // The options the command shares with the tool are listed once, above.
                let own = Self.visible(sub.arguments).filter { a in !options.contains { $0.names != nil && $0.names == a.names } }
                lines.append(".SS \(Roff.escape(sub.commandName))")
                lines.append(".B \(Roff.escape(name + " " + sub.commandName))")
                lines += own.map(\.synopsis)
                lines.append(".PP")
                paragraphs(sub.abstract)
                if let discussion = sub.discussion {
                    lines.append(".PP")
                    paragraphs(discussion)
                }
                list(own)
            }
        }
        if let statuses = Self.exitStatuses[name] {
            lines.append(".SH EXIT STATUS")
            for status in statuses {
                lines += [".TP", "\\fB\(status.code)\\fR"]
                lines += Roff.paragraphs(Self.sentence(status.meaning))
            }
        }
        var page = lines.joined(separator: "\n") + "\n"
        if let extra { page += extra.hasSuffix("\n") ? extra : extra + "\n" }
        return page
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4, let section = Int(arguments[2]), (1...9).contains(section) else {
    FileHandle.standardError.write(Data("usage: tabd-manpage BINARY SECTION [EXTRA.roff]\n".utf8))
    exit(64)
}

func fail(_ sentence: String) -> Never {
    FileHandle.standardError.write(Data("tabd-manpage: \(sentence)\n".utf8))
    exit(1)
}

let tool = Process()
tool.executableURL = URL(fileURLWithPath: arguments[1])
tool.arguments = ["--experimental-dump-help"]
let pipe = Pipe()
tool.standardOutput = pipe
do { try tool.run() } catch { fail("cannot run \(arguments[1]): \(error)") }
let dump = pipe.fileHandleForReading.readDataToEndOfFile()
tool.waitUntilExit()
guard tool.terminationStatus == 0 else { fail("\(arguments[1]) --experimental-dump-help exited with \(tool.terminationStatus)") }
let info: ToolInfo
do { info = try JSONValueDecoder().decode(ToolInfo.self, from: dump.withUnsafeBytes { try JSONParser.parse($0, maxDepth: 512) }) } catch {
    fail("\(arguments[1]) --experimental-dump-help did not print what a swift-argument-parser tool prints: \(error)")
}
var extra: String?
if arguments.count == 4 {
    guard let bytes = FileManager.default.contents(atPath: arguments[3]) else { fail("cannot read \(arguments[3])") }
    extra = String(decoding: bytes, as: UTF8.self)
}
var page = Page(info.command, section: section)
FileHandle.standardOutput.write(Data(page.write(extra: extra).utf8))
