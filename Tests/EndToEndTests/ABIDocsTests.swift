// The plugin ABI's version as the docs state it is the header's (policy.h): the ABI rules'
// "now 1.N" sentence, and every `abi` in an example (plugins' JSON, --check-plugin's table).
// Stale ABI text was a finding of issue 29 ("plugins.md still says 1.1").

import Foundation
import Testing

@Suite struct ABIDocsTests {
    /// Each doc, and each place in it that names the ABI a plugin reports or tabd speaks.
    @Test func docsStateTheHeadersABI() throws {
        let abi = Build.headerABI
        #expect(abi.range(of: #"^\d+\.\d+$"#, options: .regularExpression) != nil, "policy.h's version: \(abi)")
        let patterns = [#""abi":"(\d+\.\d+)""#, #"abi {2,}(\d+\.\d+)"#, #"plugin ABI (\d+\.\d+) \(tabd/policy.h\)"#, #"TABD_POLICY_ABI_MINOR` \(now (\d+\.\d+)"#]
        var found = 0
        for file in ["README.md", "docs/plugins.md", "docs/protocol.md", "docs/operations.md", "man/tabd.8.roff"] {
            let url = Build.packageRoot.appendingPathComponent(file)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            for pattern in patterns {
                let re = try NSRegularExpression(pattern: pattern)
                for m in re.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let stated = (text as NSString).substring(with: m.range(at: 1))
                    found += 1
                    #expect(stated == abi, "\(file) says ABI \(stated) where policy.h says \(abi): \((text as NSString).substring(with: m.range))")
                }
            }
        }
        #expect(found >= 3, "the ABI is stated in plugins.md's rules and in the examples")
    }

    /// The store's and the timers' limits as plugins.md's table and text state them are the
    /// header's #defines (which tabd's code reads: PluginStoreData, PluginTimer).
    @Test func docsStateTheHeadersStoreAndTimerLimits() throws {
        let header = try String(contentsOf: Build.packageRoot.appendingPathComponent("Sources/CTabPolicy/include/tabd/policy.h"), encoding: .utf8)
        let docs = try String(contentsOf: Build.packageRoot.appendingPathComponent("docs/plugins.md"), encoding: .utf8)
        func define(_ name: String) -> Int? {
            header.split(separator: "\n").first { $0.hasPrefix("#define \(name) ") }
                .flatMap { Int($0.split(separator: " ")[2].trimmingCharacters(in: CharacterSet(charactersIn: "u"))) }
        }
        for name in ["TABD_STORE_MAX_KEY_BYTES", "TABD_STORE_MAX_VALUE_BYTES", "TABD_STORE_MAX_KEYS", "TABD_STORE_MAX_TOTAL_BYTES", "TABD_STORE_WRITE_COST_BYTES"] {
            let value = try #require(define(name), "policy.h defines \(name)")
            #expect(docs.contains("| `\(name)` | \(value) "), "plugins.md's store table gives \(name) as \(value)")
        }
        let timers = try #require(define("TABD_TIMER_MAX"))
        #expect(docs.contains("`TABD_TIMER_MAX` (\(timers))"), "plugins.md gives TABD_TIMER_MAX as \(timers)")
        let ms = try #require(define("TABD_TIMER_MAX_MS"))
        #expect(ms == 86_400_000 && docs.contains("`TABD_TIMER_MAX_MS`, 24 hours"), "plugins.md says the longest delay is 24 hours")
    }
}
