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
}
