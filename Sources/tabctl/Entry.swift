// How tabctl starts and ends: one `tabctl:` prefix on every error (the parser's own
// "Error:" too), usage errors exit 64 (TabctlExit.usage), and tabctl with no command is
// the interactive mode on a terminal and a usage error anywhere else.

import ArgumentParser
import Foundation
import TabProtocol

#if canImport(Glibc)
import Glibc
#endif

extension Tabctl {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if Interactive.wanted(arguments) {
            Interactive.run(arguments: arguments)
        }
        if arguments.isEmpty {
            FileHandle.standardError.write(Data("tabctl: no command given; \(usageHint)\n".utf8))
            Glibc.exit(TabctlExit.usage.code)
        }
        Glibc.exit(run(arguments))
    }

    static let usageHint = "see tabctl --help (tabctl with no command on a terminal, or tabctl -i, is interactive)"

    /// Parses and runs one command line; its exit status. Errors are printed here, once,
    /// each after one `tabctl:` (the commands print their own before they throw ExitCode).
    static func run(_ arguments: [String]) -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            return 0
        } catch {
            return report(error)
        }
    }

    /// Prints what the parser or a command threw; its exit status.
    static func report(_ error: Error) -> Int32 {
        if let code = error as? ExitCode { return code.rawValue }
        let status = exitCode(for: error).rawValue
        if status == 0 {
            // --help, --version, completion scripts and answers: what was asked for, on stdout.
            let text = fullMessage(for: error)
            if !text.isEmpty { print(text) }
            return 0
        }
        var message = message(for: error)
        for prefix in ["Error: ", "error: "] where message.hasPrefix(prefix) { message.removeFirst(prefix.count) }
        if status == TabctlExit.usage.code {
            message += message.hasSuffix(".") ? " " : "; "
            message += usageHint
        }
        FileHandle.standardError.write(Data("tabctl: \(message)\n".utf8))
        return status == TabctlExit.usage.code ? TabctlExit.usage.code : status
    }
}
