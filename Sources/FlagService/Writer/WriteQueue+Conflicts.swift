import FlagKit
import FlagStore

extension WriteQueue {
    /// The items of `change` that someone changed since its base, to something else, in `current`: what makes
    /// a pending request stale (the scheduler's pass) and refuses its approval (`ChangesController`).
    func conflicts(of change: ChangeRecord, current: Base) throws -> [ChangeSet.Item] {
        let base = try baseDocument(of: change, current: current)
        return change.changeSet.conflicts(base: base, current: current.document ?? base)
    }
}
