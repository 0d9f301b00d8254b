import Foundation

/// Chains already verified to a configured root with Apple's markers, by their `x5c[0]` and `x5c[1]` as sent: Apple
/// signs every notification, transaction and renewal info with the same few leaves, so a chain is parsed and verified
/// once and each payload then costs one ES256 verification and a date comparison. Only chains that verified are
/// kept (a sender cannot fill it without Apple's keys), and few: Apple's leaves change rarely.
final class VerifiedChainCache: @unchecked Sendable {
    /// A verified chain: the leaf that signs, and the dates every certificate of the chain is valid through
    /// (seconds since 1970, inclusive).
    struct Chain {
        let leaf: X509Certificate
        let notBefore: Int64
        let notAfter: Int64
    }

    /// More distinct chains than Apple uses at once; past it the cache starts again.
    static let capacity = 16

    // Guards `chains`; the verifier is shared by the server's threads.
    private let lock = NSLock()
    private var chains: [String: Chain] = [:]

    func chain(for key: String) -> Chain? {
        lock.lock()
        defer { lock.unlock() }
        return chains[key]
    }

    /// How many chains are remembered.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return chains.count
    }

    func insert(_ chain: Chain, for key: String) {
        lock.lock()
        defer { lock.unlock() }
        if chains.count >= Self.capacity { chains.removeAll() }
        chains[key] = chain
    }
}
