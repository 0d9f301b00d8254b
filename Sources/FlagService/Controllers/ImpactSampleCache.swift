import FlagKit
import ServerLock

/// The last generated impact sample, kept for the next preview.
///
/// Generating 100,000 installs costs far more than evaluating one changed flag for them, and successive
/// previews of one environment almost always draw from the same pools (the pools change only with the
/// cohorts' conditions), so each preview would otherwise spend most of its time rebuilding the same sample.
/// One entry only: a sample of 100,000 installs is tens of megabytes.
public final class ImpactSampleCache: Sendable {
    /// What a sample is a function of.
    struct Key: Equatable, Sendable {
        let count: Int
        let seed: UInt64
        let pools: [ImpactSample.AttributePool]
    }

    private let last = PThreadMutex<(key: Key, sample: [EvaluationContext])?>(nil)

    /// An empty cache.
    public init() {}

    /// The sample `ImpactSample.generate(count:seed:pools:)` gives, from the cache when it holds that one.
    public func sample(count: Int, seed: UInt64, pools: [ImpactSample.AttributePool]) -> [EvaluationContext] {
        let key = Key(count: count, seed: seed, pools: pools)
        if let hit = last.withLock({ $0?.key == key ? $0?.sample : nil }) { return hit }
        // Generated outside the lock: two previews with different keys do not wait for each other.
        let sample = ImpactSample.generate(count: count, seed: seed, pools: pools)
        last.withLock { $0 = (key, sample) }
        return sample
    }
}
