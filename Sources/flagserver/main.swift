import CommandLineKit
import FlagServerCLI
import Foundation

// Before any thread exists, so every thread inherits the blocked mask (see SignalWaiter).
SignalWaiter.blockTerminationSignals()

exit(FlagServer.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
                     stdout: FileDescriptorOutput.standardOutput(), stderr: FileDescriptorOutput.standardError()))
