// What every fuzz target's main.swift calls: libFuzzer's driver with the process's arguments
// (-max_total_time, -dict, corpus directories …, as libFuzzer documents them).
import CFuzzDriver

public enum Fuzz {
    /// Runs libFuzzer over `testOneInput` and returns its exit status.
    public static func run(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv, testOneInput)
    }
}

/// A property of the input that must hold: a crash with `message` when it does not.
/// (precondition's message is compiled out of the -O builds the fuzzers run; fatalError's
/// is kept, so a crash file comes with its reason.)
@inline(__always)
public func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError(message(), file: file, line: line) }
}
