import FlagKit
import Foundation
import FlagService

/// The writer suites' vocabulary (each job's outcome by index, a new flag's definition), for the in-process suites on
/// SQLite and the writer's suite on PostgreSQL in the cluster target.
package enum WriteQueueFixtures {
    /// What each job of a batch ended with, by the index it was given.
    package final class Outcomes: @unchecked Sendable {
        /// Guards `all`.
        package let lock = NSLock()
        package var all: [Int: WriteOutcome] = [:]
        /// Outcomes to come.
        package init() {}
        /// Records the outcome of job `index`.
        package func set(_ index: Int, _ outcome: WriteOutcome) { lock.withLock { all[index] = outcome } }
        /// The version job `index` published or found unchanged.
        package func version(_ index: Int) -> Int? {
            lock.withLock {
                switch all[index] {
                case .published(let snapshot): snapshot.version
                case .unchanged(let record): record.number
                default: nil
                }
            }
        }
        /// The HTTP status job `index` would be answered with.
        package func status(_ index: Int) -> Int? {
            lock.withLock {
                switch all[index] {
                case .published, .unchanged: 200
                case .failed(let error): error.status.code
                case .recorded: 202
                case .changeRan, .changeSkipped, .notificationStored: 200
                case nil: nil
                }
            }
        }
    }

    /// A new flag's full definition (a bare value may only change an existing flag).
    package static func define(_ type: String, _ value: JSONValue) -> FlagEdit { .definition(["type": .string(type), "default": value]) }
}
