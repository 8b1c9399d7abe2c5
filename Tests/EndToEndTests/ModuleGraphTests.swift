// The module graph is stated three times — by the imports in the sources, by Package.swift's
// target dependencies, and by docs/architecture.md's module table — and this test holds them
// to one another (issue 31: "Package.swift's dependencies are the real ones; the module table
// matches the imports"). An import of another of this package's modules that Package.swift does
// not declare, a declared dependency nothing imports, or a table row that says otherwise fails.
// No module re-exports another (`@_exported import`): an edge hidden that way is not in any of
// the three, and the README's layout names every module.

import Foundation
import Testing

@Suite struct ModuleGraphTests {
    /// Package.swift's targets (from `swift package dump-package`): name → (path, local target
    /// dependencies).
    static func declared() throws -> [String: (path: String, dependencies: Set<String>)] {
        let dir = temporaryDirectory("graph")
        try FileManager.default.copyItem(atPath: Build.packageRoot.appendingPathComponent("Package.swift").path, toPath: dir + "/Package.swift")
        let r = try shell("cd \(dir) && swift package dump-package 2>/dev/null")
        guard r.status == 0, let dump = try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any],
              let list = dump["targets"] as? [[String: Any]] else { throw TestFailure("dump-package: \(r.output)") }
        var out: [String: (String, Set<String>)] = [:]
        for t in list {
            let name = t["name"] as! String
            let kind = t["type"] as? String ?? ""
            let path = t["path"] as? String ?? (kind == "test" ? "Tests/\(name)" : "Sources/\(name)")
            let deps = ((t["dependencies"] as? [[String: Any]]) ?? []).compactMap { d -> String? in
                if d["product"] != nil { return nil }
                return ((d["byName"] ?? d["target"]) as? [Any])?.first as? String
            }
            out[name] = (path, Set(deps))
        }
        return out
    }

    /// The modules of this package a target's Swift files import (`import X`, `@testable import X`,
    /// `import struct X.Y`), X among `locals`.
    static func imports(under path: String, locals: Set<String>) throws -> Set<String> {
        let root = Build.packageRoot.appendingPathComponent(path).path
        var found = Set<String>()
        let files = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                var words = line.split(separator: " ").map(String.init)
                while let first = words.first, first.hasPrefix("@") { words.removeFirst() }
                guard words.first == "import", words.count >= 2 else { continue }
                let module = String((words.count >= 3 && ["struct", "enum", "class", "func", "protocol", "typealias", "var", "let"].contains(words[1]) ? words[2] : words[1])
                    .split(separator: ".")[0])
                if locals.contains(module) { found.insert(module) }
            }
        }
        return found
    }

    @Test func packageSwiftDeclaresExactlyWhatEachModuleImports() throws {
        let targets = try Self.declared()
        let locals = Set(targets.keys)
        for (name, t) in targets.sorted(by: { $0.key < $1.key }) {
            let imported = try Self.imports(under: t.path, locals: locals)
            // A C target imports nothing; a test target may use what it declares through macros
            // or fixtures, but must declare what it imports.
            #expect(imported.subtracting(t.dependencies).isEmpty,
                    "\(name) imports \(imported.subtracting(t.dependencies).sorted()) without declaring it in Package.swift")
            if !name.hasSuffix("Tests") {
                #expect(t.dependencies.subtracting(imported).isEmpty,
                        "\(name) declares \(t.dependencies.subtracting(imported).sorted()) in Package.swift but imports none of it")
            }
        }
    }

    /// The Swift files of the repository (this package, the SDK, tabd-web, the fuzzers), but
    /// what SwiftPM fetched or built.
    static func swiftFiles() -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: Build.packageRoot.path) else { return [] }
        var files: [String] = []
        while let file = walk.nextObject() as? String {
            let name = (file as NSString).lastPathComponent
            if name.hasPrefix(".") || name == "node_modules" { walk.skipDescendants(); continue }
            if name.hasSuffix(".swift") { files.append(file) }
        }
        return files
    }

    /// The one deliberate re-export, with its reason: a client library whose results are
    /// another module's values hands them over whole (issue 45, item 3).
    static let reExports = [
        "Sources/TabClient/TabClient.swift": "TabClient's results and events are TabJSON's values: `import TabClient` alone reads them",
    ]

    @Test func noModuleReExportsAnother() throws {
        let files = Self.swiftFiles()
        #expect(files.count > 100, "the repository's Swift files were found")
        var exporting: [String] = []
        for file in files where Self.reExports[file] == nil {
            let text = try String(contentsOfFile: Build.packageRoot.path + "/" + file, encoding: .utf8)
            if text.split(separator: "\n").contains(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("@_exported") }) {
                exporting.append(file)
            }
        }
        #expect(exporting.isEmpty, "\(exporting) re-export a module (@_exported import): import it where it is used instead")
        for file in Self.reExports.keys.sorted() {
            let text = try String(contentsOfFile: Build.packageRoot.path + "/" + file, encoding: .utf8)
            #expect(text.contains("@_exported import"), "\(file) is listed as re-exporting a module and does not: take it off the list")
        }
    }

    /// The README's "Layout" block names every target of Package.swift.
    @Test func theReadmeLayoutNamesEveryModule() throws {
        let readme = try String(contentsOf: Build.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "## Layout\n"), let block = readme[start.upperBound...].split(separator: "```").dropFirst().first
        else { throw TestFailure("README.md has no Layout block") }
        let words = Set(block.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "-" }).map(String.init))
        for name in try Self.declared().keys.sorted() where !name.hasSuffix("Tests") {
            #expect(words.contains(name), "README.md's layout does not name the module \(name)")
        }
    }

    /// Each row of docs/architecture.md's module table ("imports (of this package)") names what
    /// the module's sources import (TabServer's "all of the above" included).
    @Test func theArchitectureTableNamesEachModulesImports() throws {
        let targets = try Self.declared()
        let locals = Set(targets.keys)
        let doc = try String(contentsOf: Build.packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var rows = 0
        var above = Set<String>()
        for line in doc.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let modules = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            var stated = cells[3]
            // "TabPolicy: CTabPolicy, …": the row's second module's imports.
            var module = modules.last!
            if let colon = stated.firstIndex(of: ":") {
                module = String(stated[..<colon])
                stated = String(stated[stated.index(after: colon)...])
            }
            guard let t = targets[module] else { continue }
            rows += 1
            let imported = try Self.imports(under: t.path, locals: locals)
            let named: Set<String>
            switch stated.trimmingCharacters(in: .whitespaces) {
            case "none": named = []
            case "all of the above": named = above
            default: named = Set(stated.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            }
            if stated.trimmingCharacters(in: .whitespaces) == "all of the above" {
                #expect(imported.isSubset(of: above), "\(module) imports \(imported.subtracting(above).sorted()), which the table lists after it")
            } else {
                #expect(named == imported, "docs/architecture.md says \(module) imports \(named.sorted()); its sources import \(imported.sorted())")
            }
            above.formUnion(modules)
        }
        #expect(rows >= 15, "the module table has a row per module")
    }
}
