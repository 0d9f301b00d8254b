import Foundation
import Glibc

/// A child process started with `posix_spawn`, for the tests that run `flagserver`, `sqlite3` or `mount`.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to close every descriptor in the child,
/// copying each `dirent` whole, which reads past glibc's readdir buffer and crashes (SIGSEGV in memcpy) once the test
/// process holds about 1,300 descriptors; this suite's parallel in-process servers get there (fixed upstream in
/// swift-corelibs-foundation, not yet in the toolchain here). `posix_spawn_file_actions_addclosefrom_np` closes them
/// in the child without listing anything.
package final class SpawnedProcess: @unchecked Sendable {
    /// How the process ended.
    package enum TerminationReason: Equatable { case exit, uncaughtSignal }

    /// The child's process id.
    package let processIdentifier: pid_t
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `executable arguments` in `directory` (or this process's), with stdout and stderr appended to the files
    /// given (or `/dev/null`), the standard input `/dev/null`, and this process's environment, or
    /// exactly `environment` when it is given (`flagctl` with its server and token).
    package init(_ executable: String, _ arguments: [String], directory: String? = nil, stdout: String? = nil, stderr: String? = nil,
                 environment: [String: String]? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_APPEND | O_CREAT, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", O_WRONLY | O_APPEND | O_CREAT, 0o644)
        // glibc's GNU extensions (2.29, 2.34), not in Swift's Glibc module: looked up by name.
        if let directory {
            guard let chdir = Self.symbol("posix_spawn_file_actions_addchdir_np", as: AddChdir.self) else {
                throw TestFailure("posix_spawn_file_actions_addchdir_np is missing (glibc < 2.29)")
            }
            _ = directory.withCString { chdir(&actions, $0) }
        }
        if let closeFrom = Self.symbol("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self) {
            _ = closeFrom(&actions, 3)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { variables in
            variables.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { envp?.forEach { free($0) } }
        var pid = pid_t()
        let result = envp.map { posix_spawn(&pid, executable, &actions, nil, argv, $0) } ?? posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard result == 0 else { throw TestFailure("posix_spawn \(executable): \(String(cString: strerror(result)))") }
        processIdentifier = pid
    }

    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: type)
    }

    /// Runs `executable arguments` to its end: the exit status (a signal counts as 128 + its number).
    package static func run(_ executable: String, _ arguments: [String], directory: String? = nil, stdout: String? = nil) throws -> Int32 {
        let process = try SpawnedProcess(executable, arguments, directory: directory, stdout: stdout)
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// Whether it still runs (reaps it when it ended).
    package var isRunning: Bool { reap(blocking: false) == nil }

    /// Sends SIGTERM (as `Process.terminate()`).
    package func terminate() { if isRunning { kill(processIdentifier, SIGTERM) } }

    /// Waits for the end.
    package func waitUntilExit() { _ = reap(blocking: true) }

    /// The exit status, or the signal that ended it; 0 while it runs.
    package var terminationStatus: Int32 {
        guard let status = reap(blocking: false) else { return 0 }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Exit or signal; `.exit` while it runs.
    package var terminationReason: TerminationReason {
        guard let status = reap(blocking: false) else { return .exit }
        return status & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    /// The raw wait status once the child was reaped (once only: a pid is waited for by one caller).
    private func reap(blocking: Bool) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        while true {
            let result = waitpid(processIdentifier, &raw, blocking ? 0 : WNOHANG)
            if result == processIdentifier {
                status = raw
                return raw
            }
            if result == -1 && errno == EINTR { continue }
            return nil
        }
    }
}
