// libFuzzer harness for the state directory reader (StateStore.recover): the input becomes
// the files of a state directory, which is then recovered as tabd would — without --repair,
// and after a refusal with --repair, as an operator would. It must never crash, and:
//   - a refusal is one sentence that names the directory's file;
//   - --repair refuses only a format newer than this tabd's;
//   - whatever loaded reloads (without --repair) to the same state, with nothing left to
//     cut off or set aside; a directory that loads without --repair loads the same with it;
//   - after a load, a record written goes where the records end and reads back.
// Build and run: make fuzz (fuzz/run.sh journal).
//
// The input: sections, each starting with a line "=== <file>\n" (file: "snapshot" or
// "journal-<n>.log", n < 1000) at the start of the input or after a newline; what comes
// before the first such line is journal-0.log. Checksums are hard to guess, so the harness
// fills them in where the input asks: a journal line starting "________ " gets the CRC-32 of
// the rest of its line there, and in a snapshot's header line the field "________" becomes
// the CRC-32 of the body and the field "_" its length. Lines with a real checksum stay as
// they are.

import Foundation
import Logging
import TabCore
import TabState

private let quiet = Logger(label: "tabd.fuzz") { _ in SwiftLogNoOpLogHandler() }

/// A scratch directory per process, on tmpfs when there is one (recovery fsyncs).
private let scratch: String = {
    let env = ProcessInfo.processInfo.environment
    let base = env["TABD_FUZZ_DIR"] ?? (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
    let path = "\(base)/tabd-journal-fuzz-\(getpid())"
    try? FileManager.default.removeItem(atPath: path)
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

/// TABD_FUZZ_VERBOSE=1: say what became of each input (to check a seed corpus).
private let verbose = ProcessInfo.processInfo.environment["TABD_FUZZ_VERBOSE"] == "1"

func fuzzJournal(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let files = sections(Array(UnsafeBufferPointer(start: data, count: size)))
    let dir = "\(scratch)/d"

    // Without --repair.
    write(files, to: dir)
    let plain = recover(dir, repair: false)
    if verbose {
        switch plain {
        case .success(let state): print("fuzz-journal: \(files.map(\.name)) loads: \(state.names.map { "\($0) (\(state[$0]!.tabs.count) tabs)" })")
        case .failure(let refusal): print("fuzz-journal: \(files.map(\.name)) refused: \(refusal)")
        }
    }
    switch plain {
    case .success(let state):
        reloads(dir, to: state, "after a load without --repair")
        writingGoesOn(dir, after: state)
        // --repair on a directory that loads without it changes nothing.
        write(files, to: dir)
        guard case .success(let repaired) = recover(dir, repair: true) else {
            fatalError("--repair refuses a directory that loads without it")
        }
        check(repaired == state, "--repair loads another state than a load without it")
    case .failure(let refusal):
        check(!refusal.description.isEmpty && refusal.description.contains(dir), "a refusal that names no file: \(refusal)")
        // The operator follows the sentence: --repair, on the same directory.
        switch recover(dir, repair: true) {
        case .success(let state):
            reloads(dir, to: state, "after --repair")
            writingGoesOn(dir, after: state)
        case .failure(let again):
            check(again.description.contains("written by a newer tabd"), "--repair refuses: \(again)")
        }
    }
    return 0
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

/// Applies records to a TabContainers with tabd's own replay (TabContainers.replay).
private final class Replayed {
    var containers = TabContainers.withDefault()
    var replay: StateStore.Replay {
        StateStore.Replay(
            start: { [unowned self] in containers = $0 ?? .withDefault() },
            apply: { [unowned self] record, semantics in
                do throws(TabError) { try containers.replay(record, semantics: semantics) } catch { return error.message }
                return nil
            },
            state: { [unowned self] in containers }
        )
    }

    /// The state as tabd serves it once recovery ends: the replayed changes kept.
    var recovered: TabContainers {
        var c = containers
        c.keepChanges()
        return c
    }
}

private func store(_ dir: String) -> StateStore {
    StateStore(directory: dir, fsync: .no, compactBytes: 64 << 10, logger: quiet)
}

private func recover(_ dir: String, repair: Bool) -> Result<TabContainers, StateError> {
    let replayed = Replayed()
    do {
        _ = try store(dir).recover(repair: repair, replayed.replay)
    } catch {
        return .failure(error)
    }
    return .success(replayed.recovered)
}

/// A second start finds the same state, and nothing to repair.
private func reloads(_ dir: String, to state: TabContainers, _ when: String) {
    let replayed = Replayed()
    let report: Recovery
    do {
        report = try store(dir).recover(repair: false, replayed.replay)
    } catch {
        fatalError("\(when), the directory does not load again: \(error)")
    }
    check(replayed.recovered == state, "\(when), the directory loads again as another state")
    check(report.tornBytes == 0 && report.setAside.isEmpty && report.formatRead == JournalCodec.version,
          "\(when), a second load still repairs: \(report)")
}

/// A record written after a load lands where the records end: the next load has it.
private func writingGoesOn(_ dir: String, after state: TabContainers) {
    let replayed = Replayed()
    let s = store(dir)
    do {
        _ = try s.recover(repair: false, replayed.replay)
    } catch {
        fatalError("the directory does not load for writing: \(error)")
    }
    let probe = "fuzz-probe"
    var expected = state
    let record: JournalRecord
    if expected[probe] == nil {
        record = .createController(name: probe, idiom: .pad, maxVisible: nil)
        try! expected.create(probe, idiom: .pad)
    } else {
        record = .deleteController(name: probe)
        try! expected.delete(probe)
    }
    s.append(record)
    do { try s.commit() } catch { fatalError("writing after a load fails: \(error)") }
    expected.keepChanges()  // committed: as tabd keeps a turn's changes
    reloads(dir, to: expected, "after a record written after a load")
}

// MARK: The input as files

private func sections(_ input: [UInt8]) -> [(name: String, bytes: [UInt8])] {
    var out: [(String, [UInt8])] = []
    var name = "journal-0.log"
    var start = 0
    var i = 0
    while i < input.count {
        if i == 0 || input[i - 1] == UInt8(ascii: "\n"), let (next, end) = marker(input, at: i) {
            out.append((name, Array(input[start..<i])))
            name = next
            start = end
            i = end
            continue
        }
        i += 1
    }
    out.append((name, Array(input[start...])))
    // An empty leading journal-0.log section is no file; a name given twice keeps the last.
    var files: [String: [UInt8]] = [:]
    for (n, (name, bytes)) in out.enumerated() where !(n == 0 && bytes.isEmpty && name == "journal-0.log" && out.count > 1) {
        files[name] = name == "snapshot" ? fixSnapshot(bytes) : fixJournal(bytes)
    }
    return files.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
}

/// "=== <file>\n" at `at`: the file's name and where its content starts.
private func marker(_ input: [UInt8], at: Int) -> (String, Int)? {
    let prefix = Array("=== ".utf8)
    guard input.count - at > prefix.count, Array(input[at..<(at + prefix.count)]) == prefix,
          let nl = input[(at + prefix.count)...].prefix(20).firstIndex(of: UInt8(ascii: "\n")) else { return nil }
    let name = String(decoding: input[(at + prefix.count)..<nl], as: UTF8.self)
    if name == "snapshot" { return (name, nl + 1) }
    guard name.hasPrefix("journal-"), name.hasSuffix(".log") else { return nil }
    let digits = name.dropFirst("journal-".count).dropLast(".log".count)
    guard (1...3).contains(digits.count), digits.allSatisfy(\.isASCII), UInt64(digits) != nil else { return nil }
    return (name, nl + 1)
}

private let placeholder = Array("________".utf8)

private func fixJournal(_ bytes: [UInt8]) -> [UInt8] {
    var out = bytes
    var lineStart = 0
    while lineStart < out.count {
        let end = out[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? out.count
        if end - lineStart >= 9, Array(out[lineStart..<(lineStart + 8)]) == placeholder, out[lineStart + 8] == UInt8(ascii: " ") {
            out.replaceSubrange(lineStart..<(lineStart + 8), with: hex(crc32(out[(lineStart + 9)..<end])))
        }
        lineStart = end + 1
    }
    return out
}

private func fixSnapshot(_ bytes: [UInt8]) -> [UInt8] {
    guard let nl = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return bytes }
    let body = bytes[(nl + 1)...]
    let fields = bytes[..<nl].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false).map { field -> [UInt8] in
        if Array(field) == placeholder { return hex(crc32(body)) }
        if Array(field) == [UInt8(ascii: "_")] { return Array("\(body.count)".utf8) }
        return Array(field)
    }
    return Array(fields.joined(separator: [UInt8(ascii: " ")])) + [UInt8(ascii: "\n")] + body
}

private func write(_ files: [(name: String, bytes: [UInt8])], to dir: String) {
    try? FileManager.default.removeItem(atPath: dir)
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for f in files {
        guard FileManager.default.createFile(atPath: "\(dir)/\(f.name)", contents: Data(f.bytes)) else {
            fatalError("cannot write \(dir)/\(f.name)")
        }
    }
}

// MARK: CRC-32 (IEEE), bit by bit: the harness's own, not the one under test

private let crcTable: [UInt32] = (0..<256).map { i -> UInt32 in
    var c = UInt32(i)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
}

private func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes { crc = crcTable[Int((crc ^ UInt32(b)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
}

private func hex(_ v: UInt32) -> [UInt8] {
    let s = String(v, radix: 16)
    return Array((String(repeating: "0", count: 8 - s.count) + s).utf8)
}
