import Dispatch
import FlagKit
import FlagStore
import OutcomeAnalysis
import ServerLock

/// What a tripped guard does (docs/guards.md, "The service"): `notify` nothing more than its audit line and event;
/// `pauseSchedules` holds the environment's scheduled changes; `rollback` publishes the version before the watched one
/// through the writer, an ordinary audited publish by `guard` whose message names the guard and its figures. Then the
/// `guard.acted` line and event say what was done.
extension GuardRunner {
    /// The action's outcome, as `GuardRecord.action` keeps it.
    struct ActionOutcome {
        var done: Bool
        var version: Int?
        var changes: [Int64] = []
        var reason: String?
        /// The second person whose approval of the guarded change covers its rollback (`preApproval`).
        var approvedBy: String?
    }

    /// Runs the rule's action for a guard that just tripped, then records and announces what it did.
    func act(_ record: GuardRecord, rule: GuardRule, decision: GuardDecision, at now: Int64) {
        let message = decision.message(for: rule, id: record.id)
        let outcome: ActionOutcome
        switch rule.action {
        case .notify:
            outcome = ActionOutcome(done: true)
        case .pauseSchedules:
            do {
                outcome = ActionOutcome(done: true, changes: try store.holdScheduledChanges(environment: record.environment, guardID: record.id))
            } catch {
                outcome = ActionOutcome(done: false, reason: "the schedules could not be held: \(error)")
            }
        case .rollback:
            outcome = rollback(record, message: message)
        }
        let action: JSONValue = .object([
            "kind": .string(rule.action.rawValue), "outcome": .string(outcome.done ? "done" : "failed"),
            "version": outcome.version.map { .integer(Int64($0)) } ?? .null,
            "changes": .array(outcome.changes.map(JSONValue.integer)), "reason": outcome.reason.map(JSONValue.string) ?? .null,
            "approvedBy": outcome.approvedBy.map(JSONValue.string) ?? .null,
        ])
        do {
            let transition = try store.recordGuardAction(
                id: record.id, action: action,
                audit: audit(record, "guard.acted", action, at: now, outcome: outcome.done ? .ok : .failed, reason: outcome.reason))
            logger.log(outcome.done ? .info : .warning, "guard_acted",
                       ["guard": "\(record.id)", "kind": rule.action.rawValue, "outcome": outcome.done ? "done" : "failed",
                        "reason": outcome.reason ?? ""])
            webhooks.submit("guard.acted", guard: transition.record, decision: decision.jsonValue(rule: rule, at: now))
        } catch {
            logger.log(.error, "guard_action_unrecorded", ["guard": "\(record.id)", "error": "\(error)"])
        }
    }

    /// Publishes the previous version's content again. When the head is still the watched version, that is a rollback
    /// to it (`If-Match` the watched version, so a publish in between refuses it). When later versions came since, only
    /// the items the watched version changed are set back, on the current document, and only when none of them was
    /// changed since: someone else's later change is never undone silently (`failed`, naming them).
    func rollback(_ record: GuardRecord, message: String) -> ActionOutcome {
        guard let watched = record.version, let previous = record.previousVersion else {
            return ActionOutcome(done: false, reason: "there is no version before the watched one to roll back to")
        }
        let head = writer.current(record.environment)
        let kind: WriteJob.Kind
        if head.version == watched {
            kind = .rollback(number: previous)
        } else {
            do {
                let watchedDocument = try FlagDocument.decode(try store.version(environment: record.environment, number: watched).document)
                let previousDocument = try FlagDocument.decode(try store.version(environment: record.environment, number: previous).document)
                guard let current = head.document else { return ActionOutcome(done: false, reason: "the environment has no version") }
                let undo = ChangeSet(base: watchedDocument, proposed: previousDocument)
                let changed = undo.items.filter { $0.definition(in: current) != $0.definition(in: watchedDocument) }
                guard changed.isEmpty else {
                    return ActionOutcome(done: false, reason: "head_moved: since version \(watched), version \(head.version) changed "
                        + changed.sorted().map(\.pointer).joined(separator: ", ") + "; not rolled back")
                }
                kind = .document(try undo.apply(to: current))
            } catch {
                return ActionOutcome(done: false, reason: "the rollback could not be built: \(error)")
            }
        }
        let preconditions = head.etag.map { WriteJob.Precondition.ifMatch([$0]) } ?? .none
        let approvedBy = preApproval(record)
        let answer = PThreadMutex<WriteOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        writer.submit(WriteJob(environment: record.environment, kind: kind, precondition: preconditions, author: "guard",
                               message: message, approvedBy: approvedBy) { outcome in
            answer.withLock { $0 = outcome }
            done.signal()
        })
        done.wait()
        switch answer.withLock({ $0 }) {
        case .published(let committed)?:
            return ActionOutcome(done: true, version: committed.version, approvedBy: approvedBy)
        case .unchanged?:
            return ActionOutcome(done: true, reason: "the previous content is current already")
        case .recorded(let change)?:
            return ActionOutcome(done: false, changes: [change.record.id],
                                 reason: "the rollback touches protected flags: change request \(change.record.id) waits for a second person")
        case .failed(let error)?:
            return ActionOutcome(done: false, reason: error.code == "precondition_failed" ? "head_moved: \(error.message)" : "\(error.code): \(error.message)")
        case .changeRan?, .changeSkipped?, .notificationStored?, nil:
            return ActionOutcome(done: false, reason: "internal: unexpected writer outcome")
        }
    }

    /// Who already approved this guard's rollback: the second person who approved its change request while the guard
    /// was on it. They approved the change together with the guard's undo, so a protected flag (the paid day's lock)
    /// is rolled back at once instead of waiting for a second approval when it hurts. A guard added after the
    /// approval, or on a change nobody had to approve, gets none: its rollback of a protected flag is a change
    /// request like any rollback.
    func preApproval(_ record: GuardRecord) -> String? {
        guard let id = record.changeID, let change = try? store.change(id: id), change.needsApproval, change.status == .applied,
              let approver = change.approvedBy, let decided = change.decidedAtMilliseconds,
              record.createdAtMilliseconds <= decided, approver != record.createdBy else { return nil }
        return approver
    }
}
