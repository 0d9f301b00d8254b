import CommandLineKit
import FlagCtlKit
import Foundation

let standardOutput = FileDescriptorOutput.standardOutput()
exit(FlagCtl.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
                  stdout: standardOutput, stderr: FileDescriptorOutput.standardError(), stdoutIsTerminal: standardOutput.isTerminal,
                  input: FileDescriptorInput.standardInput()))
