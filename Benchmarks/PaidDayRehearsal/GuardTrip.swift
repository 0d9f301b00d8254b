import FlagStore
import Foundation
import Synchronization

/// A refund spike inside a guarded change's window, through the real receiver and the service's own job: production's
/// `showIntroFreeSubscriptionBanner` is switched off (the watched version) with a guard on refunds per hour, rollback,
/// the defaults otherwise; a subscriber population with its own product sends its notifications hour by hour (the week
/// before publication first, refunds at 1 an hour with the users' day), its refunds multiplied from the second hour
/// after publication; after each hour the job's clock steps to the next hour and the job runs a pass. The guard must
/// trip and the job roll back through the writer: production's head is version 1's content again, by `guard`. The
/// same population without the spike (`factor` 1) must hold through the whole window.
public enum GuardTrip {
    /// What happened.
    public struct Figures: Sendable, Equatable {
        /// The refunds' factor from the spike on.
        public var factor = 4.0
        /// Notifications posted (every one answered 200).
        public var notifications = 0
        /// The guard's status at the end (`tripped`, or `closed` without a trip).
        public var status = "not run"
        /// Hours after the spike began at the pass that tripped it.
        public var hoursAfterSpike: Int?
        /// The trip's decision message (as audited and in the rollback's publish message).
        public var message = ""
        /// The rollback's version and its author.
        public var rollbackVersion: Int?
        /// The rollback version's author.
        public var rollbackAuthor = ""
        /// Whether the guard tripped and the environment's head became the previous content, by `guard`, with the
        /// decision's message.
        public var rolledBack = false
        /// Passes of the job.
        public var passes = 0
        /// The first pass at or after the end of the guard's window (the rule's default, 72 hours after publication):
        /// the pass that closes a guard that held. Passes run a minute after each hour, so it is the 72nd when the change
        /// was published in its hour's first minute and the 73rd otherwise.
        public var closingPass = 0

        /// One line for the report.
        public var summary: String {
            guard factor != 1 else {
                return "the same population without a spike: guard \(status) after \(passes) hourly passes of the job, \(notifications) notifications"
            }
            guard let hoursAfterSpike, let rollbackVersion else {
                return "guard trip on refunds x\(factor): NOT TRIPPED (status \(status) after \(passes) passes, \(notifications) notifications)"
            }
            return "guard trip on refunds x\(Int(factor)) from the 2nd hour after publication: tripped \(hoursAfterSpike) hours after the spike began "
                + "(\(passes) hourly passes of the service's job, \(notifications) notifications through the receiver); "
                + "rolled back as version \(rollbackVersion) by \(rollbackAuthor), production's head = version 1's content: \(rolledBack)\n  \(message)"
        }
    }

    /// The spike's first hour after the hour of publication.
    public static let spikeHour = 2

    /// The first pass (one minute after each hour from the publication's hour) at or after `published` + 72 hours.
    public static func closingPass(published: Int64) -> Int {
        let hour = NotificationWeek.hour
        let hourStart = published / hour * hour
        // The smallest k with hourStart + k hours + 1 minute >= published + 72 hours.
        return Int((published + 72 * hour - hourStart - 60_000 + hour - 1) / hour)
    }

    /// Runs the guarded change with refunds multiplied by `factor` on a fresh server whose guards read a clock of its own.
    public static func run(flagsDirectory: String, factor: Double = 4, seed: UInt64 = 7_200) throws -> Figures {
        let hour = NotificationWeek.hour
        let clock = Mutex(Int64(Date().timeIntervalSince1970 * 1000))
        let server = try ReceiverServer(flagsDirectory: flagsDirectory) { options in
            options.guardClock = { clock.withLock { $0 } }
        }
        defer { server.stop() }
        var figures = Figures()
        figures.factor = factor
        let before = try server.store.version(environment: "production", number: 1)
        let write = try server.send("PUT", "/v1/environments/production/flags/showIntroFreeSubscriptionBanner", json: "false",
                                    message: "banner off (the guarded change)")
        guard write.status == 200, let version = write.body["version"] as? Int else {
            throw ReceiverServer.Failure(description: "publishing the guarded change: \(write.status) \(write.body)")
        }
        let published = try server.store.version(environment: "production", number: version).createdAtMilliseconds
        let hourStart = published / hour * hour
        figures.closingPass = closingPass(published: published)
        clock.withLock { $0 = published }

        // The week before publication and the window, from the population of GuardWeeks at 1 refund an hour.
        var (week, _) = GuardWeeks.week(1, GuardWeeks.Settings(), start: hourStart - 7 * NotificationWeek.day)
        var truth = week.truth
        truth.arms[0].product = "rehearsal.trip"
        truth.refundSpikeFrom = hourStart + Int64(spikeHour) * hour
        truth.refundFactor = factor
        week = NotificationWeek(truth: truth, start: week.start, tag: "trip", seed: seed)
        let notifications = week.notifications
        func signed(before end: Int64, from start: Int64) -> [SimulatedNotification] {
            notifications.filter { $0.signedDate >= start && $0.signedDate < end }
        }
        let history = signed(before: published, from: .min)
        try server.post(history)
        figures.notifications += history.count

        let rule = #"{"version": \#(version), "product": "rehearsal.trip", "rule": {"metric": "refunds", "action": "rollback"}}"#
        let added = try server.send("POST", "/v1/environments/production/guards", json: rule)
        guard added.status == 201, let id = (added.body["guard"] as? [String: Any])?["id"] as? Int else {
            throw ReceiverServer.Failure(description: "adding the guard: \(added.status) \(added.body)")
        }
        var guardJSON = added.body["guard"] as? [String: Any] ?? [:]
        func show() throws -> [String: Any] { try server.getJSON("/v1/guards/\(id)")["guard"] as? [String: Any] ?? [:] }
        var sent = published
        for hours in 1...73 {
            let now = hourStart + Int64(hours) * hour + 60_000
            let batch = signed(before: now, from: sent)
            sent = now
            if !batch.isEmpty { try server.post(batch) }
            figures.notifications += batch.count
            clock.withLock { $0 = now }
            server.service.runGuards()
            figures.passes += 1
            guardJSON = try show()
            let status = guardJSON["status"] as? String ?? "?"
            if status != "watching" {
                if status == "tripped" { figures.hoursAfterSpike = hours - spikeHour }
                break
            }
        }
        // The rollback is the writer's job after the pass: its outcome is on the guard once the writer is done.
        let deadline = Date().addingTimeInterval(30)
        while guardJSON["status"] as? String == "tripped", guardJSON["action"] is NSNull || guardJSON["action"] == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            guardJSON = try show()
        }
        figures.status = guardJSON["status"] as? String ?? "?"
        figures.message = (guardJSON["lastDecision"] as? [String: Any])?["message"] as? String ?? ""
        if figures.status == "tripped", let action = guardJSON["action"] as? [String: Any], let rollback = action["version"] as? Int {
            // The writer publishes the rollback after the pass; its version is in the store once the job is done.
            let record = try server.store.version(environment: "production", number: rollback)
            let head = try server.store.latestVersions()["production"]
            figures.rollbackVersion = rollback
            figures.rollbackAuthor = record.author
            figures.rolledBack = action["outcome"] as? String == "done" && record.author == "guard"
                && record.message.hasPrefix("guard \(id) on refunds tripped")
                && head?.number == rollback && record.contentHash == before.contentHash
        }
        return figures
    }
}
