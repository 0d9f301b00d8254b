import CommandLineKit
import Foundation
@testable import FlagServerCLI

/// A small document that differs for each `tag`.
func document(_ tag: String) -> [UInt8] {
    Array("{\"flags\":{},\"cohorts\":{},\"tag\":\"\(tag)\"}".utf8)
}

/// What `FlagServer.main` wrote and returned for one command line.
struct MainResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs `flagserver` in this process (never the default command: that one serves until a signal).
func runMain(_ arguments: [String], environment: [String: String] = [:]) -> MainResult {
    let out = BufferOutput()
    let err = BufferOutput()
    let status = FlagServer.main(arguments: arguments, environment: environment, stdout: out, stderr: err)
    return MainResult(status: status, stdout: out.text, stderr: err.text)
}

/// The command a command line names, or nil for help and usage errors.
func parsedCommand(_ arguments: [String], environment: [String: String] = [:]) -> (any ParsableCommand<FlagServerContext>)? {
    guard case .run(let command, _) = FlagServer.tool.parse(arguments, environment: environment) else { return nil }
    return command
}

/// The usage error a command line gives, or nil.
func usageError(_ arguments: [String]) -> UsageError? {
    guard case .usageError(let error) = FlagServer.tool.parse(arguments) else { return nil }
    return error
}
