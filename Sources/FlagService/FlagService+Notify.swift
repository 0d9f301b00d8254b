import FlagKit
import FlagStore

/// What the webhooks hear (docs/governance.md, "Webhooks").
extension FlagService {
    /// Tells the webhooks that `type` (one of `WebhookEvent.types`) happened in `environment`, with `data` as
    /// the delivery body's `data` member. Returns at once and never fails: a webhook never delays or fails
    /// what it reports; `data` is built only when a webhook receives the event. `version.published` is not sent through here but from `WriteQueue.announce`.
    func notify(_ type: String, environment: String?, data: @autoclosure () -> [String: JSONValue]) {
        webhooks.submit(type, environment: environment, data: data())
    }

    /// `notify` with the change's JSON form as the event's data.
    func notifyChange(_ type: String, _ record: ChangeRecord) {
        webhooks.submit(type, change: record)
    }
}
