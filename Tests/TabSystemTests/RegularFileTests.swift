// TabSystem.RegularFile.read: a regular file's bytes, at most `limit` of them, refused in one
// sentence otherwise; room made for what fstat says, not the whole limit.
import Foundation
import Testing
@testable import TabSystem

@Suite struct RegularFileTests {
    static func file(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "tabd-regularfile-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("reads a file whole, small or exactly at the limit, and refuses one past it or not a regular file")
    func readsWithinTheLimit() throws {
        let small = try Self.file(Array("user:hash\n".utf8))
        defer { unlink(small) }
        #expect(try RegularFile.read(small, what: "credentials_file", limit: 16 << 20) == Array("user:hash\n".utf8))
        let empty = try Self.file([])
        defer { unlink(empty) }
        #expect(try RegularFile.read(empty, what: "f", limit: 10) == [])
        let exact = try Self.file([UInt8](repeating: 7, count: 4097))
        defer { unlink(exact) }
        #expect(try RegularFile.read(exact, what: "f", limit: 4097).count == 4097)
        do { _ = try RegularFile.read(exact, what: "f", limit: 4096); Issue.record("read past its limit") } catch {
            #expect(error.description.contains("holds 4097 bytes, more than the 4096"))
        }
        do { _ = try RegularFile.read(NSTemporaryDirectory(), what: "f", limit: 10); Issue.record("read a directory") } catch {
            #expect(error.description.contains("is a directory"))
        }
    }
}
