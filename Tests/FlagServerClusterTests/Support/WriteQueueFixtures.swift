import FlagKit
import Foundation
@testable import FlagService

/// The vocabulary of FlagServiceTests' `WriteQueueTests` (each job's outcome by index, a new flag's definition) for
/// the writer's suite on PostgreSQL, which runs in this target with the other suites that start PostgreSQL.
enum WriteQueueFixtures {
    /// What each job of a batch ended with, by the index it was given.
    final class Outcomes: @unchecked Sendable {
        let lock = NSLock()
        var all: [Int: WriteOutcome] = [:]
        func set(_ index: Int, _ outcome: WriteOutcome) { lock.withLock { all[index] = outcome } }
        func version(_ index: Int) -> Int? {
            lock.withLock {
                switch all[index] {
                case .published(let snapshot): snapshot.version
                case .unchanged(let record): record.number
                default: nil
                }
            }
        }
        func status(_ index: Int) -> Int? {
            lock.withLock {
                switch all[index] {
                case .published, .unchanged: 200
                case .failed(let error): error.status.code
                case .recorded: 202
                case .changeRan, .changeSkipped: 200
                case nil: nil
                }
            }
        }
    }

    /// A new flag's full definition (a bare value may only change an existing flag).
    static func define(_ type: String, _ value: JSONValue) -> FlagEdit { .definition(["type": .string(type), "default": value]) }
}
