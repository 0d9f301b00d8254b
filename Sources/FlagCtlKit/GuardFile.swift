import AppStoreNotifications
import FlagKit
import Foundation
import OutcomeAnalysis

/// One guard as flagctl asks the server for it: the rule (validated by `OutcomeAnalysis`, the module the server reads
/// it with too) and which stored notifications it reads.
public struct GuardRequest: Sendable, Equatable {
    /// The App Store environments a guard may read (the receiver's names, as `flagctl outcomes --environment`).
    public static let appStoreEnvironments = AppStoreEnvironment.allCases.map(\.rawValue)

    /// The rule, every field present once encoded.
    public var rule: GuardRule
    /// Only this product's notifications; nil: every product.
    public var product: String?
    /// Which App Store environment's notifications; nil: the server's default (`Production`).
    public var appStoreEnvironment: String?

    /// A request as given.
    public init(rule: GuardRule, product: String? = nil, appStoreEnvironment: String? = nil) {
        self.rule = rule
        self.product = product
        self.appStoreEnvironment = appStoreEnvironment
    }

    /// The rule as the API's JSON (`GuardRule`'s encoding: every field, defaults written out).
    public var ruleJSON: JSONValue {
        // The encoder of a validated rule cannot fail (numbers are finite, names fixed); an empty object would be refused
        // by the server with its field, never published silently.
        guard let bytes = try? JSONEncoder().encode(rule), let value = try? JSONParser.parse([UInt8](bytes)).value else {
            return .object([:])
        }
        return value
    }

    /// `POST .../guards`'s body without its target (`change` or `version`).
    var body: [String: JSONValue] {
        var body: [String: JSONValue] = ["rule": ruleJSON]
        if let product { body["product"] = .string(product) }
        if let appStoreEnvironment { body["appStoreEnvironment"] = .string(appStoreEnvironment) }
        return body
    }
}

/// A guard file that cannot be used: where in it (a JSON pointer, `/guards/1`) and the rule's own error (`threshold: a
/// ceiling needs a threshold`), the words the API answers with in its 422 `invalid_guard`.
public struct GuardFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON pointer of the guard at fault ("" for the file's top level).
    public var path: String
    /// The field and what is wrong with it.
    public var message: String

    /// `/guards/1: threshold: a ceiling needs a threshold` (the path left out at the top).
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// The guard files `flagctl guard add --file`, `publish --guard`, `set --guard` and `schedule --guard` read
/// (docs/flagctl.md, "guard"): one rule object (`GuardRule`'s JSON, docs/guards.md), or `{"guards": [rule, ...]}`; each
/// rule may also carry `product` and `appStoreEnvironment`.
public enum GuardFile {
    /// The members a rule object may have: `GuardRule`'s fields and the two that say what it reads. Anything else is
    /// refused, so a misspelt `minimumcount` is never silently the default.
    static let ruleMembers: Set<String> = ["metric", "measure", "baseline", "threshold", "minimumCount", "windowHours", "action", "alpha",
                                           "minimumRelativeChange", "product", "appStoreEnvironment"]

    /// The guards of `bytes`, each validated as the server validates it; the first problem is thrown.
    public static func parse(_ bytes: [UInt8]) throws(GuardFileError) -> [GuardRequest] {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes).value
        } catch {
            throw GuardFileError(path: "", message: "not JSON: \(error)")
        }
        guard let object = value.objectValue else { throw GuardFileError(path: "", message: "expected an object, got \(value.typeName)") }
        guard let list = object["guards"] else { return [try request(object, path: "")] }
        guard object.count == 1 else {
            throw GuardFileError(path: "", message: "a file with \"guards\" has no other members (\(object.keys.filter { $0 != "guards" }.sorted().joined(separator: ", ")))")
        }
        guard let rules = list.arrayValue, !rules.isEmpty else { throw GuardFileError(path: "/guards", message: "expected a non-empty array of guards") }
        var requests: [GuardRequest] = []
        for (index, rule) in rules.enumerated() {
            guard let ruleObject = rule.objectValue else {
                throw GuardFileError(path: "/guards/\(index)", message: "expected an object, got \(rule.typeName)")
            }
            requests.append(try request(ruleObject, path: "/guards/\(index)"))
        }
        return requests
    }

    /// Reads and parses the file at `path` (`-`: standard input); unreadable or invalid is a `CommandFailure` naming it.
    public static func load(_ path: String) throws(CommandFailure) -> [GuardRequest] {
        let bytes: [UInt8]
        do {
            bytes = try FileReader.read(path)
        } catch {
            throw .unreadable(error)
        }
        do {
            return try parse(bytes)
        } catch {
            throw .invalidGuard(source: path, error)
        }
    }

    /// One rule object: its own members checked, then `GuardRule`'s decoder (which validates every field).
    static func request(_ object: [String: JSONValue], path: String) throws(GuardFileError) -> GuardRequest {
        if let unknown = object.keys.sorted().first(where: { !ruleMembers.contains($0) }) {
            throw GuardFileError(path: path, message: "\(unknown): not a guard field (\(ruleMembers.sorted().joined(separator: ", ")))")
        }
        var ruleObject = object
        ruleObject["product"] = nil
        ruleObject["appStoreEnvironment"] = nil
        let rule: GuardRule
        do {
            rule = try JSONDecoder().decode(GuardRule.self, from: Data(JSONValue.object(ruleObject).canonicalBytes))
        } catch let error as GuardRuleError {
            throw GuardFileError(path: path, message: error.description)
        } catch {
            throw GuardFileError(path: path, message: "not a guard rule: \(error)")
        }
        let product = try text(object["product"], "product", path: path)
        if let product, product.isEmpty || product.utf8.count > 200 {
            throw GuardFileError(path: path, message: "product: must be a product id of 1 to 200 bytes, or null for every product")
        }
        let environment = try text(object["appStoreEnvironment"], "appStoreEnvironment", path: path)
        if let environment, !GuardRequest.appStoreEnvironments.contains(environment) {
            throw GuardFileError(path: path, message: "appStoreEnvironment: must be one of \(GuardRequest.appStoreEnvironments.joined(separator: ", "))")
        }
        return GuardRequest(rule: rule, product: product, appStoreEnvironment: environment)
    }

    /// A member that is a string, absent or null (the server's words for anything else).
    private static func text(_ value: JSONValue?, _ name: String, path: String) throws(GuardFileError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case _?:
            throw GuardFileError(path: path, message: name == "product" ? "product: must be a product id of 1 to 200 bytes, or null for every product"
                                                                        : "\(name): must be a string")
        }
    }
}
