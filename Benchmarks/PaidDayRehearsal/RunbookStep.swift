import FlagKit
import Foundation

/// One flag step of the paid-day runbook (docs/monetization.md): a change set applied to the document of the step
/// before, as `flagctl publish` would publish it.
public struct RunbookStep: Sendable {
    /// The step's name (its file name without the number and `.changes.json`).
    public var name: String
    /// The document once the step is published.
    public var document: FlagDocument

    /// A step from its parts.
    public init(name: String, document: FlagDocument) {
        self.name = name
        self.document = document
    }

    /// What went wrong reading the runbook.
    public struct LoadError: Error, CustomStringConvertible {
        /// The file.
        public var path: String
        /// Why.
        public var reason: String
        /// `path: reason`.
        public var description: String { "\(path): \(reason)" }
    }

    /// The document `base` (step "today"), then each `*.changes.json` of `directory` in file-name order applied to the
    /// step before it (`1-free-period-over.changes.json`, `2-...`).
    public static func load(base path: String, runbook directory: String) throws(LoadError) -> [RunbookStep] {
        var steps = [RunbookStep(name: "today", document: try document(at: path))]
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".changes.json") }.sorted {
                $0.localizedStandardCompare($1) == .orderedAscending
            }
        } catch {
            throw LoadError(path: directory, reason: "cannot be listed: \(error)")
        }
        guard !names.isEmpty else { throw LoadError(path: directory, reason: "holds no *.changes.json") }
        for name in names {
            let file = (directory as NSString).appendingPathComponent(name)
            let changes: ChangeSet
            do {
                changes = try ChangeSet.decode(try bytes(file))
            } catch let error as LoadError {
                throw error
            } catch {
                throw LoadError(path: file, reason: "\(error)")
            }
            guard let previous = steps.last?.document else { break }
            do {
                steps.append(RunbookStep(name: stepName(name), document: try changes.apply(to: previous)))
            } catch {
                throw LoadError(path: file, reason: "does not apply to the step before: \(error)")
            }
        }
        return steps
    }

    /// `3-early-user-cohorts.changes.json` -> `early user cohorts`.
    static func stepName(_ file: String) -> String {
        var name = String(file.dropLast(".changes.json".count))
        if let dash = name.firstIndex(of: "-"), name[..<dash].allSatisfy(\.isNumber) { name = String(name[name.index(after: dash)...]) }
        return name.replacingOccurrences(of: "-", with: " ")
    }

    /// A validated flag document from `path`.
    static func document(at path: String) throws(LoadError) -> FlagDocument {
        do {
            return try FlagDocument.decode(try bytes(path))
        } catch let error as LoadError {
            throw error
        } catch {
            throw LoadError(path: path, reason: "\(error)")
        }
    }

    static func bytes(_ path: String) throws(LoadError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw LoadError(path: path, reason: "cannot be read") }
        return [UInt8](data)
    }
}
