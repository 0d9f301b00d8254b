import FlagStore
import Foundation
import HTTPServer
import ServerLock

/// Whether writes can commit, for `/readyz`: the last commit's failure (cleared by the next commit that
/// succeeds, or, when the commit failed because the database could not take it, by the readiness probe once the
/// write connection reaches a database that takes writes) and what the store's filesystem says now (read-only, full).
///
/// A server whose reads work but whose writes cannot commit is not healthy: a flip would be refused with
/// 500 while the readiness probe said all was well.
public final class WriteHealth: Sendable {
    /// The last failed commit: when (milliseconds since 1970) and why.
    public struct Failure: Sendable, Equatable {
        /// The failure's time.
        public let atMilliseconds: Int64
        /// The store's error, as logged.
        public let message: String
        /// The commit failed because the database could not take it (`FlagStoreError.unavailable`: sessions
        /// lost, a standby or read-only server, a server shutting down). The readiness probe checks the write
        /// connection again for these (``FlagStore/checkWriter()``); any other failure (I/O, a full disk, a
        /// lock) is shown gone only by a commit that succeeds.
        public let databaseUnavailable: Bool
    }

    private let lastFailure = PThreadMutex<Failure?>(nil)

    /// No failure recorded.
    public init() {}

    /// The last commit failed with `error` (a refusal such as a version conflict is not a failure).
    package func recordFailure(_ error: any Error) {
        guard Self.isCommitFailure(error) else { return }
        var unavailable = false
        if case .unavailable? = error as? FlagStoreError { unavailable = true }
        let failure = Failure(atMilliseconds: Int64(Date().timeIntervalSince1970 * 1000), message: "\(error)",
                              databaseUnavailable: unavailable)
        lastFailure.withLock { $0 = failure }
    }

    /// A commit succeeded: writes work again.
    package func recordSuccess() {
        lastFailure.withLock { if $0 != nil { $0 = nil } }
    }

    /// For the readiness probe: when the last commit failed because the database could not take it, runs `check`
    /// (which throws unless the write connection reaches a database that takes writes) and clears that failure
    /// if it passes: otherwise a node that gets no writes would stay `503 writes_failing` after the database came
    /// back, until a commit of its own succeeded. A failure recorded while `check` ran is kept.
    package func recheck(_ check: () throws -> Void) throws {
        guard let failure, failure.databaseUnavailable else { return }
        try check()
        lastFailure.withLock { if $0 == failure { $0 = nil } }
    }

    /// The last failed commit, unless a commit succeeded since.
    public var failure: Failure? { lastFailure.withLock { $0 } }

    /// Whether `error` means the database could not commit (I/O, full disk, read-only, locked), as opposed
    /// to a refusal of this one write.
    package static func isCommitFailure(_ error: any Error) -> Bool {
        switch error as? FlagStoreError {
        case .database?, .busy?, .unavailable?, nil: true
        default: false
        }
    }

    /// Why writes would fail now, or nil: the last commit's failure, else the filesystem's state.
    public func problem(store: FlagStore) -> (reason: String, failure: Failure?)? {
        if let failure { return (failure.message, failure) }
        if let reason = store.writeProblem() { return (reason, nil) }
        return nil
    }
}
