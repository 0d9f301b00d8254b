import FlagKit
import FlagStore

extension WebhookDispatcher {
    /// `submit` with the change's JSON form as the event's data (`change.*` and `request.*` events, from the
    /// change routes and the scheduler alike).
    func submit(_ type: String, change record: ChangeRecord) {
        submit(type, environment: record.environment, data: record.jsonValue.objectValue ?? [:])
    }
}
