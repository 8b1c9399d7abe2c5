// A strict reader of the OpenMetrics 1.0.0 text format (its ABNF and the rules the
// specification states in words), further restricted to what the Prometheus text format
// 0.0.4 parser of node_exporter's textfile collector also reads: types counter, gauge and
// histogram only, no timestamps, no exemplars. No such parser ships with Swift or Python's
// standard library, so the tests check `metrics` with this one.

import Foundation

struct OpenMetricsExposition {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "line \(line): \(message)" }
    }

    /// Family name → type.
    private(set) var types: [String: String] = [:]
    private(set) var samples: [Sample] = []

    /// The value of the one sample called `name` with exactly `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    func samples(named name: String) -> [Sample] { samples.filter { $0.name == name } }

    // Regex is not Sendable (it may hold closures); these hold none and are only matched.
    nonisolated(unsafe) static let metricName = #/[a-zA-Z_:][a-zA-Z0-9_:]*/#
    nonisolated(unsafe) static let labelName = #/[a-zA-Z_][a-zA-Z0-9_]*/#
    nonisolated(unsafe) static let realNumber = #/[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/#

    static func number(_ text: Substring) -> Double? {
        switch text.lowercased() {
        case "+inf", "inf", "+infinity", "infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        case "nan": return .nan
        default: return text.wholeMatch(of: realNumber) != nil ? Double(text) : nil
        }
    }

    /// Reads `text`, or throws the first line that breaks a rule.
    init(_ text: String) throws {
        guard text.hasSuffix("# EOF\n") else { throw Failure(line: 0, message: "the exposition does not end with '# EOF\\n'") }
        guard !text.contains("\r") else { throw Failure(line: 0, message: "a carriage return") }
        var lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()  // # EOF
        var family: (name: String, type: String, metadata: Set<String>, hasSamples: Bool)?
        var seenSeries = Set<String>()
        // The metric point being read (its labels without `le`) and what it has had so far.
        var pointKey: String?
        var finishedPoints = Set<String>()
        var buckets: [(le: Double, count: Double)] = []
        var pointCount: Double?, pointSum: Double?
        var pointLine = 0

        func finishPoint() throws {
            guard let key = pointKey, family?.type == "histogram" else { pointKey = nil; return }
            guard let last = buckets.last, last.le == .infinity else { throw Failure(line: pointLine, message: "histogram \(key) has no +Inf bucket") }
            for (a, b) in zip(buckets, buckets.dropFirst()) {
                guard a.le < b.le else { throw Failure(line: pointLine, message: "histogram \(key): le \(b.le) does not increase") }
                guard a.count <= b.count else { throw Failure(line: pointLine, message: "histogram \(key): buckets are not cumulative (\(a.count) then \(b.count))") }
            }
            guard let count = pointCount, let sum = pointSum else { throw Failure(line: pointLine, message: "histogram \(key) lacks _count or _sum") }
            guard count == last.count else { throw Failure(line: pointLine, message: "histogram \(key): +Inf bucket \(last.count) is not _count \(count)") }
            guard sum >= 0 else { throw Failure(line: pointLine, message: "histogram \(key): negative _sum") }
            finishedPoints.insert(key)
            pointKey = nil
            buckets = []; pointCount = nil; pointSum = nil
        }

        for (index, line) in lines.enumerated() {
            let n = index + 1
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 3, parts[0] == "#", ["TYPE", "UNIT", "HELP"].contains(parts[1]) else {
                    throw Failure(line: n, message: "a line starting with # that is not TYPE, UNIT or HELP (or the final EOF): \(line)")
                }
                let name = String(parts[2])
                guard name.wholeMatch(of: Self.metricName) != nil else { throw Failure(line: n, message: "bad metric name '\(name)'") }
                let rest = parts.count > 3 ? String(parts[3]) : ""
                switch parts[1] {
                case "TYPE":
                    try finishPoint()
                    guard types[name] == nil else { throw Failure(line: n, message: "a second TYPE for \(name) (families must be unique and not interleaved)") }
                    guard ["counter", "gauge", "histogram"].contains(rest) else {
                        throw Failure(line: n, message: "type '\(rest)' (only counter, gauge and histogram are read by both formats)")
                    }
                    for other in types.keys where Self.samplesClash(name, rest, other, types[other]!) {
                        throw Failure(line: n, message: "family \(name) could produce the sample names of family \(other)")
                    }
                    types[name] = rest
                    family = (name, rest, ["TYPE"], false)
                case let kind:
                    guard var f = family, f.name == name, !f.hasSamples else {
                        throw Failure(line: n, message: "\(kind) for \(name) must follow its TYPE, before its samples")
                    }
                    guard !f.metadata.contains(String(kind)) else { throw Failure(line: n, message: "a second \(kind) for \(name)") }
                    if kind == "UNIT" {
                        guard !f.metadata.contains("HELP") else { throw Failure(line: n, message: "UNIT after HELP (the order is TYPE, UNIT, HELP)") }
                        guard rest.isEmpty || name.hasSuffix("_" + rest) else { throw Failure(line: n, message: "unit '\(rest)' is not the suffix of \(name)") }
                    } else {
                        try Self.checkEscapes(rest, line: n, allowingQuote: true)
                    }
                    f.metadata.insert(String(kind))
                    family = f
                }
                continue
            }
            // A sample: name[{labels}] value
            guard let nameMatch = line.prefixMatch(of: Self.metricName) else { throw Failure(line: n, message: "not a sample: \(line)") }
            let name = String(nameMatch.output)
            var rest = line[nameMatch.range.upperBound...]
            var labels: [String: String] = [:]
            if rest.first == "{" {
                rest = rest.dropFirst()
                while rest.first != "}" {
                    guard let key = rest.prefixMatch(of: Self.labelName) else { throw Failure(line: n, message: "bad label name in \(line)") }
                    let label = String(key.output)
                    rest = rest[key.range.upperBound...]
                    guard rest.hasPrefix("=\"") else { throw Failure(line: n, message: "expected =\" after \(label)") }
                    rest = rest.dropFirst(2)
                    var value = ""
                    while true {
                        guard let c = rest.first else { throw Failure(line: n, message: "unterminated label value") }
                        rest = rest.dropFirst()
                        if c == "\"" { break }
                        if c == "\\" {
                            switch rest.first {
                            case "\\": value.append("\\")
                            case "\"": value.append("\"")
                            case "n": value.append("\n")
                            default: throw Failure(line: n, message: "escape \\\(rest.first.map(String.init) ?? "") in a label value (only \\\\, \\\" and \\n are read by both formats)")
                            }
                            rest = rest.dropFirst()
                        } else {
                            value.append(c)
                        }
                    }
                    guard labels[label] == nil else { throw Failure(line: n, message: "label \(label) twice") }
                    labels[label] = value
                    if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { throw Failure(line: n, message: "expected , or } in \(line)") }
                }
                rest = rest.dropFirst()
            }
            guard rest.first == " " else { throw Failure(line: n, message: "expected one space before the value: \(line)") }
            let fields = rest.dropFirst().split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 1 else { throw Failure(line: n, message: "a timestamp, exemplar or extra text (the textfile collector refuses timestamps): \(line)") }
            guard let value = Self.number(fields[0]) else { throw Failure(line: n, message: "bad number '\(fields[0])'") }

            guard var f = family else { throw Failure(line: n, message: "sample \(name) before any TYPE") }
            let suffixes: [String] = switch f.type {
            case "counter": ["_total", "_created"]
            case "gauge": [""]
            default: ["_bucket", "_count", "_sum", "_created"]
            }
            guard let suffix = suffixes.first(where: { name == f.name + $0 }) else {
                throw Failure(line: n, message: "sample \(name) is not one of family \(f.name)'s (\(f.type): \(suffixes.map { f.name + $0 }))")
            }
            f.hasSamples = true
            family = f
            let series = name + "{" + labels.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
            guard seenSeries.insert(series).inserted else { throw Failure(line: n, message: "series \(series) twice") }
            if f.type == "counter" || f.type == "histogram" {
                guard !value.isNaN, value >= 0 else { throw Failure(line: n, message: "\(name) is \(value): counters and histogram values are never negative or NaN") }
            }
            if f.type == "histogram" {
                var pointLabels = labels
                let le = pointLabels.removeValue(forKey: "le")
                let key = f.name + "{" + pointLabels.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
                if key != pointKey {
                    try finishPoint()
                    guard !finishedPoints.contains(key) else { throw Failure(line: n, message: "metric point \(key) interleaved with another") }
                    pointKey = key
                    pointLine = n
                }
                switch suffix {
                case "_bucket":
                    guard let le, let bound = Self.number(Substring(le)), !bound.isNaN else { throw Failure(line: n, message: "bucket without a numeric le") }
                    guard pointCount == nil, pointSum == nil else { throw Failure(line: n, message: "bucket after _count or _sum") }
                    guard value == value.rounded() else { throw Failure(line: n, message: "bucket value \(value) is not an integer") }
                    buckets.append((bound, value))
                case "_count":
                    guard le == nil else { throw Failure(line: n, message: "le on _count") }
                    guard value == value.rounded() else { throw Failure(line: n, message: "_count \(value) is not an integer") }
                    pointCount = value
                case "_sum":
                    guard le == nil else { throw Failure(line: n, message: "le on _sum") }
                    pointSum = value
                default: break
                }
            } else if labels["le"] != nil, f.type != "histogram" {
                // Allowed by the format, but nothing here should carry one.
                throw Failure(line: n, message: "le on a \(f.type)")
            }
            samples.append(Sample(name: name, labels: labels, value: value))
        }
        try finishPoint()
    }

    /// HELP text: only the escapes both formats read.
    static func checkEscapes(_ text: String, line: Int, allowingQuote: Bool) throws {
        var escaped = false
        for c in text {
            if escaped {
                guard c == "\\" || c == "n" || (allowingQuote && c == "\"") else { throw Failure(line: line, message: "escape \\\(c) in HELP") }
                escaped = false
            } else if c == "\\" {
                escaped = true
            }
        }
        guard !escaped else { throw Failure(line: line, message: "a lone backslash at the end of HELP") }
    }

    /// Whether two families could write a sample of the same name (OpenMetrics, "Suffixes").
    static func samplesClash(_ a: String, _ aType: String, _ b: String, _ bType: String) -> Bool {
        func names(_ f: String, _ t: String) -> Set<String> {
            switch t {
            case "counter": [f + "_total", f + "_created"]
            case "gauge": [f]
            default: [f + "_bucket", f + "_count", f + "_sum", f + "_created"]
            }
        }
        return !names(a, aType).isDisjoint(with: names(b, bType))
    }
}
