import FlagKit
import FlagStore
import Foundation

/// First start: `flags/policy/<env>.json` become the policies of the environments that never had one.
extension FlagService {
    /// For every `NAME.json` in `directory` (`flags/policy`): sets environment `NAME`'s policy when none was ever
    /// set (the store, not the directory, is the truth after that: `PUT .../policy` changes it). Every file is
    /// decoded first; an invalid one, or one naming an environment that does not exist, stops the start with
    /// nothing set. A missing directory is no policy files. Returns the environments whose policy was seeded.
    @discardableResult
    public static func seedPolicies(store: FlagStore, policyDirectory directory: String,
                                    logger: ServiceLogger = ServiceLogger()) throws(ServiceStartError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
        var policies: [(environment: String, path: String, policy: EnvironmentPolicy)] = []
        for file in try jsonFiles(in: directory) {
            do {
                policies.append((file.environment, file.path, try EnvironmentPolicy.decode(file.bytes)))
            } catch {
                throw .invalidPolicyFile(path: file.path, reason: error.description)
            }
        }
        var seeded: [String] = []
        do {
            let existing = Set(try store.environments())
            for entry in policies {
                guard existing.contains(entry.environment) else {
                    throw ServiceStartError.invalidPolicyFile(path: entry.path, reason: "there is no environment '\(entry.environment)'")
                }
                if try store.seedPolicy(environment: entry.environment, policy: entry.policy, actor: "flagserver") {
                    logger.log(.info, "policy_seeded", ["env": entry.environment, "file": entry.path])
                    seeded.append(entry.environment)
                }
            }
        } catch let error as ServiceStartError {
            throw error
        } catch {
            throw .store(error)
        }
        return seeded
    }
}
