import FlagKit

/// Which flags a proposed change touches and which of those the environment's policy protects
/// (`docs/governance.md`, "A second approver for protected flags"): a change that touches a protected flag
/// is not published but becomes a change request.
public struct ProtectionDecision: Sendable, Equatable {
    /// `ChangeSet.touchedFlags(base:proposed:)`.
    public let touchedFlags: [String]
    /// The protected flags among them (`EnvironmentPolicy.protectedFlags(in:)`).
    public let protectedFlags: [String]

    /// A second person must approve the change.
    public var needsApproval: Bool { !protectedFlags.isEmpty }

    /// The decision for the change `changeSet` from `base` to `proposed` under `policy`.
    public init(policy: EnvironmentPolicy, changeSet: ChangeSet, base: FlagDocument, proposed: FlagDocument) {
        touchedFlags = changeSet.touchedFlags(base: base, proposed: proposed)
        protectedFlags = policy.protectedFlags(in: touchedFlags)
    }

    /// The fast question the writer asks for a write of ONE flag (`PUT .../flags/{key}`, the most frequent
    /// write): does changing only flag `key` from `base` to `proposed` touch a protected flag? The same
    /// answer as `needsApproval` of the full decision (the tests compare them), without building a change
    /// set: cohorts do not change, so the touched flags are `key` and the flags that require it, and only
    /// the few protected flags need looking at. A policy that protects nothing costs nothing.
    public static func flagEditNeedsApproval(_ entry: PolicyTable.Entry, key: String, base: FlagDocument?,
                                             proposed: FlagDocument) -> Bool {
        guard entry.protectsAnything else { return false }
        if entry.policy.isProtected { return true }
        for protected in entry.protectedKeys {
            if protected == key || requires(protected, reaching: key, base: base, proposed: proposed) { return true }
        }
        return false
    }

    /// Whether flag `start` requires `target`, directly or through other flags, in either document (a
    /// prerequisite only one of them has counts, as in `ChangeSet.touchedFlags`). Each flag is expanded once,
    /// so a document of many shared prerequisites costs linear time, not one walk per path.
    static func requires(_ start: String, reaching target: String, base: FlagDocument?, proposed: FlagDocument) -> Bool {
        var visited: Set<String> = [start]
        var stack = [start]
        while let key = stack.popLast() {
            for document in [base, proposed] {
                guard let flag = document?.flags[key] else { continue }
                for required in flag.requires.keys {
                    if required == target { return true }
                    if visited.insert(required).inserted { stack.append(required) }
                }
            }
        }
        return false
    }
}
