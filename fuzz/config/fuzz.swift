// libFuzzer harness for the configuration loader (TabServer's ServerConfig.parse): YAML text
// to a configuration or a config error, as at start, `--check-config` and `reload`. The text
// may come from anything short of root (a typo, a generator, a file swapped under reload),
// and reload runs on the loop every client waits on. Build and run: make fuzz (fuzz/run.sh
// config). What must hold:
//   - never a crash, and time and memory bounded (libFuzzer's -timeout and -rss_limit_mb in
//     fuzz/run.sh; YAML aliases expanding to millions of nodes are a config error);
//   - a refusal lists at least one problem, each one line naming the file, and a line
//     inside the text when it gives one (a line as YAML counts them: CR, LF, CR LF, NEL, LS
//     and PS each end one, as libyaml's marks do);
//   - a configuration that loads loads again the same from the same text (as the effective
//     configuration `tabctl config` prints renders it).

import FuzzDriver
import TabJSON
import TabServer

func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = yamlLines(text)
    do {
        let config = try ServerConfig.parse(text, baseDirectory: "/nonexistent/fuzz", file: "fuzz.yaml")
        let again = try ServerConfig.parse(text, baseDirectory: "/nonexistent/fuzz", file: "fuzz.yaml")
        // Compared as `tabctl config` renders them (String(describing:) lists dictionaries in
        // an order that differs between two equal ones).
        require(rendered(config) == rendered(again), "the same text loads two different configurations")
    } catch let error as ConfigError {
        require(!error.problems.isEmpty, "a config error without a problem")
        for p in error.problems {
            require(!p.message.isEmpty && !p.message.contains("\n"), "a problem must be one line: \(p.message.debugDescription)")
            require(p.location.file == "fuzz.yaml", "a problem that does not name the file: \(p)")
            if let line = p.location.line { require(line >= 1 && line <= lines + 1, "line \(line) outside a text of \(lines) lines: \(p)") }
        }
    } catch {
        fatalError("the loader threw something other than a ConfigError: \(error)")
    }
    return 0
}

private func rendered(_ c: ServerConfig) -> [UInt8] {
    var w = JSONWriter()
    c.encodeEffective(&w)
    return w.bytes
}

/// How many lines YAML sees in `text`: one more than its line breaks (CR LF counts once).
private func yamlLines(_ text: String) -> Int {
    var breaks = 0, afterCR = false
    for u in text.unicodeScalars {
        switch u {
        case "\n": if !afterCR { breaks += 1 }
        case "\r", "\u{85}", "\u{2028}", "\u{2029}": breaks += 1
        default: break
        }
        afterCR = u == "\r"
    }
    return breaks + 1
}
