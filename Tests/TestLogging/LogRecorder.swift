// The test targets' one log recorder: what a component logged, for tests that check a refusal
// or a fault is explained. swift-log's in-memory handler keeps the entries; this reads them.

import InMemoryLogging
import Logging

/// Everything logged through `logger` (every level), kept in order.
public final class LogRecorder: Sendable {
    private let handler: InMemoryLogHandler
    private let label: String

    public init(label: String = "tabd.test") {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        self.handler = handler
        self.label = label
    }

    /// A logger whose every entry is recorded here.
    public var logger: Logger {
        let handler = handler
        return Logger(label: label) { _ in handler }
    }

    /// Each entry's level and its message with its metadata, "message key=value …" (sorted
    /// by key).
    public var entries: [(level: Logger.Level, line: String)] {
        handler.entries.map { entry in
            let meta = entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return (entry.level, "\(entry.message) \(meta)")
        }
    }

    /// Each entry's level and message alone.
    public var messages: [(Logger.Level, String)] { handler.entries.map { ($0.level, $0.message.description) } }

    /// Each entry as one line: "level message key=value …".
    public var all: [String] { entries.map { "\($0.level) \($0.line)" } }

    /// Whether a line of `all` contains `text`.
    public func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }
}
