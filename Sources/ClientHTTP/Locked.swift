import Foundation

/// A value behind a lock, for state shared between threads and tasks: the one lock type of the client modules
/// (ClientHTTP, FlagClient, FlagCtlKit; an app-side module on the main actor needs none).
///
/// `NSLock` rather than `Synchronization.Mutex`: the package still deploys to macOS 13 / iOS 16, where `Mutex`
/// does not exist. Critical sections here only copy references and small structs, never wait on I/O.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Wraps `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
