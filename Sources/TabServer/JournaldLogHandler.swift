// Logs to stderr, one line per message, with the `<N>` priority prefix journald reads
// (sd-daemon(3)): under systemd the levels survive; on a terminal they are readable.

import Foundation
import Logging

public struct JournaldLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String

    public init(label: String, level: Logger.Level = .info) {
        self.label = label
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
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

    public func log(event: LogEvent) {
        var line = "<\(Self.priority(event.level))>\(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for key in merged.keys.sorted() {
            let value = "\(merged[key]!)"
            let quoted = value.contains(" ") || value.isEmpty ? "\"\(value.replacingOccurrences(of: "\"", with: "\\\""))\"" : value
            line += " \(key)=\(quoted)"
        }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
