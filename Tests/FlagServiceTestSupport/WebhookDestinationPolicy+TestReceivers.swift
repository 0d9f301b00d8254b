import FlagService
import HTTPServer

extension WebhookDestinationPolicy {
    /// 127.0.0.0/8, where every test's webhook receiver listens (`WebhookReceiver`, port 0 on 127.0.0.1).
    package static let testReceiverNetwork: IPNetwork = {
        do {
            return try IPNetwork("127.0.0.0/8")
        } catch {
            preconditionFailure("\(error)")
        }
    }()

    /// The default policy with the tests' receivers allowed explicitly, as a deployment with an internal receiver
    /// allows its network (`--webhook-allow-network 127.0.0.0/8`); everything else inside stays refused.
    package static var testReceivers: WebhookDestinationPolicy {
        WebhookDestinationPolicy(allowedNetworks: [testReceiverNetwork])
    }
}
