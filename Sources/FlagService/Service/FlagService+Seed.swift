import FlagKit
import FlagStore
import Foundation

/// First start: `flags/*.json` become version 1 of the environment named by each file.
extension FlagService {
    /// For every `NAME.json` in `directory`: creates environment `NAME` when missing and, when it has no
    /// version yet, publishes the file as its first version. EVERY file is decoded first; if one is invalid
    /// nothing is published and `invalidFlagFile` names it with all its issues. Environments that already
    /// have versions are left alone (the store, not the directory, is the truth after the first start).
    /// Returns the environments that were seeded.
    @discardableResult
    public static func seed(store: FlagStore, flagsDirectory directory: String,
                            logger: ServiceLogger = ServiceLogger()) throws(ServiceStartError) -> [String] {
        var documents: [(environment: String, file: String, document: FlagDocument)] = []
        for file in try jsonFiles(in: directory) {
            do {
                documents.append((file.environment, file.path, try FlagDocument.decode(file.bytes)))
            } catch {
                throw .invalidFlagFile(path: file.path, error: error)
            }
        }
        var seeded: [String] = []
        do {
            let existing = Set(try store.environments())
            for entry in documents {
                // Several nodes starting at once on an empty PostgreSQL database: the first creates and seeds,
                // the others find it done (environmentExists, a conflict on version 0) and go on.
                if !existing.contains(entry.environment) {
                    do {
                        try store.createEnvironment(name: entry.environment, actor: "flagserver")
                    } catch FlagStoreError.environmentExists {}
                }
                guard try store.currentVersion(environment: entry.environment) == nil else { continue }
                // The message is public (every GET shows it): the file's name, not where the server keeps it.
                let name = entry.file.split(separator: "/").last.map(String.init) ?? entry.file
                let outcome: PublishOutcome
                do {
                    outcome = try store.publish(environment: entry.environment, document: entry.document.canonicalBytes,
                                                author: "flagserver", message: "initial import of \(name)",
                                                expectedCurrentVersion: 0)
                } catch FlagStoreError.versionConflict(_, 0, _) {
                    continue
                }
                logger.log(.info, "seeded", ["env": entry.environment, "version": "\(outcome.record.number)", "file": entry.file])
                seeded.append(entry.environment)
            }
        } catch {
            throw .store(error)
        }
        return seeded
    }

    /// Every `NAME.json` directly in `directory` (subdirectories such as `policy/` are not read), in name
    /// order, with `NAME` and its bytes: what both seeds read. `unreadable` when the directory or a file is.
    static func jsonFiles(in directory: String) throws(ServiceStartError) -> [(environment: String, path: String, bytes: [UInt8])] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            throw .unreadable(path: directory, reason: (error as NSError).localizedDescription)
        }
        return try names.map { name throws(ServiceStartError) in
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot read the file") }
            return (String(name.dropLast(5)), path, Array(data))
        }
    }
}
