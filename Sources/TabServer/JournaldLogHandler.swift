// Logs to stderr, one line per message. When stderr is the journal (systemd sets
// JOURNAL_STREAM to its device and inode, systemd.exec(5)), each line starts with the
// `<N>` priority prefix journald reads (sd-daemon(3)) and journald adds the time; anywhere
// else (a terminal, a file, a pipe) with an RFC 3339 timestamp (UTC) and the level's name.
// A newline in a message or a value is written as `\n`, so one message is always one line
// (and one journal entry with its priority). A list value is written as a JSON array:
// `plugins=["login-gate","orientation-rules"]`.

import Foundation
import Logging
import TabSystem
import TabJSON

public struct JournaldLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    /// `<N>` prefixes (stderr is the journal) or level names.
    private let prefixes: Bool

    /// `journal`: whether stderr is the journal; nil finds out (`stderrIsJournal`).
    public init(label: String, level: Logger.Level = .info, journal: Bool? = nil) {
        self.label = label
        self.logLevel = level
        self.prefixes = journal ?? Self.stderrIsJournal
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Whether stderr is the stream systemd connected to the journal: JOURNAL_STREAM names
    /// its device and inode ("8:12345"); a stderr redirected elsewhere (tabd run by hand from
    /// a unit's shell, `2>file`) has another.
    public static let stderrIsJournal: Bool = journalStream(ProcessInfo.processInfo.environment["JOURNAL_STREAM"], fd: 2)

    /// Whether `fd` is the stream `value` ("device:inode") names.
    static func journalStream(_ value: String?, fd: Int32) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        guard let st = try? Sys.fstat(fd) else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// The level as a terminal shows it.
    static func name(_ level: Logger.Level) -> String {
        level == .trace ? "debug" : level.rawValue
    }

    public func log(event: LogEvent) {
        FileHandle.standardError.write(Data(line(event.level, "\(event.message)", event.metadata).utf8))
    }

    /// One log line, ending in "\n".
    public func line(_ level: Logger.Level, _ message: String, _ extra: Logger.Metadata?, at date: Date = Date()) -> String {
        var line = prefixes ? "<\(Self.priority(level))>" : "\(RFC3339.string(date)) \(Self.name(level)): "
        line += Self.escaped(message)
        let merged = metadata.merging(extra ?? [:]) { _, new in new }
        for key in merged.keys.sorted() {
            line += " \(key)=\(Self.value(merged[key]!))"
        }
        return line + "\n"
    }

    /// A metadata value: a list as a JSON array (each element a JSON string), anything else
    /// as `value(_: String)` writes it.
    static func value(_ v: Logger.Metadata.Value) -> String {
        guard case .array(let list) = v else { return value("\(v)") }
        var w = JSONWriter()
        w.beginArray()
        for element in list {
            if case .string(let s) = element { w.string(s) } else { w.string("\(element)") }
        }
        w.endArray()
        return escaped(String(decoding: w.bytes, as: UTF8.self))
    }

    /// Control characters as escapes: a message stays one line.
    static func escaped(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{7f}" }) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20 || u == "\u{7f}": out += String(format: "\\x%02x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// A metadata value: quoted when it has a space, a quote or nothing, escaped always.
    static func value(_ raw: String) -> String {
        let v = escaped(raw)
        guard v.isEmpty || v.contains(" ") || v.contains("\"") else { return v }
        return "\"\(v.replacingOccurrences(of: "\"", with: "\\\""))\""
    }
}
