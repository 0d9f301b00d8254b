import FlagKit

/// A proposed change as `POST /v1/environments/{env}/preview` takes it, and the answer: the semantic diff
/// (`flagctl diff`'s lines and its JSON) and the share of a sample of installs whose value changes
/// (`flagctl diff --impact`, the same FlagKit code, sample and seed, so the numbers agree).
///
/// Body: exactly one of `document` (a whole document), `value` or `definition` (with `flag`: one flag, as
/// `PUT .../flags/{key}` takes it); optional `base` (compare with that version instead of the current one,
/// 0 for the empty document), `impact` (default true), `sample` (1...100000, default 100000) and `seed`.
public struct ChangePreview: Sendable, Equatable {
    /// What is proposed.
    public enum Proposal: Sendable, Equatable {
        /// A whole document.
        case document(FlagDocument)
        /// One flag's edit, applied to the base document.
        case flag(key: String, edit: FlagEdit)
    }

    /// The largest sample a request may ask for: flagctl's default, so its percentages can be reproduced.
    public static let maximumSample = 100_000

    /// What is proposed.
    public let proposal: Proposal
    /// The version to compare with; nil: the current one; 0: the empty document.
    public let base: Int?
    /// Whether to measure the impact.
    public let impact: Bool
    /// Installs in the impact sample.
    public let sampleSize: Int
    /// The sample's seed.
    public let seed: UInt64

    /// Reads a request body; 400 or 422 (with the member's path) for what it cannot take.
    public init(body: JSONValue) throws(ServiceError) {
        guard case .object(let members) = body else {
            throw ServiceError.badRequest("invalid_body", #"expected {"document": {...}} or {"flag": "key", "value": ...}"#)
        }
        let proposals = ["document", "value", "definition"].filter { members[$0] != nil }
        guard proposals.count == 1, let kind = proposals.first, let proposed = members[kind] else {
            throw Self.invalid("/", "send exactly one of document, value (with flag) or definition (with flag)")
        }
        switch kind {
        case "document":
            guard members["flag"] == nil else { throw Self.invalid("/flag", "flag goes with value or definition, not with document") }
            do {
                proposal = .document(try FlagDocument(validating: proposed))
            } catch {
                throw ServiceError.document(error)
            }
        default:
            guard let key = members["flag"]?.stringValue, !key.isEmpty else { throw Self.invalid("/flag", "must be the flag's key") }
            let edit = kind == "value" ? FlagEdit.value(proposed) : FlagEdit(proposed)
            guard kind == "value" || edit == .definition(proposed) else {
                throw Self.invalid("/definition", "must be a flag object with a type and a default")
            }
            proposal = .flag(key: key, edit: edit)
        }
        base = try Self.integer(members, "base", 0...Int(Int32.max))
        guard members["impact"].map({ $0.boolValue != nil }) ?? true else { throw Self.invalid("/impact", "must be true or false") }
        impact = members["impact"]?.boolValue ?? true
        sampleSize = try Self.integer(members, "sample", 1...Self.maximumSample) ?? Self.maximumSample
        seed = try Self.integer(members, "seed", 0...Int(Int64.max)).map { UInt64($0) } ?? ImpactSample.defaultSeed
    }

    /// The proposed document against `base` (the document of `baseVersion`, 0 or nil for the empty one).
    public func proposedDocument(base: FlagDocument?) throws(ServiceError) -> FlagDocument {
        switch proposal {
        case .document(let document): return document
        case .flag(let key, let edit): return try edit.apply(to: base, key: key)
        }
    }

    /// The answer's members: `lines` and `diff` (as `flagctl diff` prints and its `--json`), `impact`
    /// (as `--impact --json`, with its printed `lines`), `changed`, `contentHash` and the proposed `document`.
    /// The sample comes from `samples` (the same installs `ImpactSample.generate` gives, maybe kept from before).
    public func answer(from old: FlagDocument, to new: FlagDocument, samples: ImpactSampleCache) -> [String: JSONValue] {
        var answer = Self.comparison(from: old, to: new, impact: impact, sampleSize: sampleSize, seed: seed, samples: samples)
        answer["contentHash"] = .string(new.contentHash)
        answer["document"] = new.jsonValue
        return answer
    }

    /// `lines`, `diff`, `impact` (null without `impact` or when nothing changes) and `changed` of the change
    /// from `old` to `new`: what a preview answers, and what a change request's `202` shows (with flagctl's
    /// default sample and seed, so its numbers are the ones `flagctl diff --impact` prints).
    public static func comparison(from old: FlagDocument, to new: FlagDocument, impact: Bool = true,
                                  sampleSize: Int = maximumSample, seed: UInt64 = ImpactSample.defaultSeed,
                                  samples: ImpactSampleCache) -> [String: JSONValue] {
        let diff = DocumentDiff(from: old, to: new)
        let lines: [JSONValue] = diff.lines.map { line in
            .object(["kind": .string(Self.name(of: line.kind)), "text": .string(line.text)])
        }
        var answer: [String: JSONValue] = ["changed": .bool(!diff.isEmpty), "lines": .array(lines), "diff": diff.jsonValue, "impact": .null]
        if impact, !diff.isEmpty {
            let sample = samples.sample(count: sampleSize, seed: seed, pools: ImpactSample.pools(for: [old, new]))
            let report = ImpactAnalysis.measure(from: old, to: new, sample: sample)
            if case .object(var members) = report.jsonValue {
                members["seed"] = .integer(Int64(bitPattern: seed))
                members["source"] = "generated"
                members["lines"] = .array(report.lines.map(JSONValue.string))
                answer["impact"] = .object(members)
            }
        }
        return answer
    }

    /// `added`, `removed`, `changed`, `detail`.
    static func name(of kind: DocumentDiff.Line.Kind) -> String {
        switch kind {
        case .added: "added"
        case .removed: "removed"
        case .changed: "changed"
        case .detail: "detail"
        }
    }

    /// A whole-number member in `range`, nil when absent; 422 at its path otherwise.
    static func integer(_ members: [String: JSONValue], _ name: String, _ range: ClosedRange<Int>) throws(ServiceError) -> Int? {
        guard let value = members[name] else { return nil }
        guard let number = value.integerValue, let int = Int(exactly: number), range.contains(int) else {
            throw invalid("/\(name)", "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return int
    }

    /// 422 `invalid_body` at one path of the request body.
    static func invalid(_ path: String, _ message: String) -> ServiceError {
        ServiceError(.unprocessableContent, code: "invalid_body", message: message, details: [ValidationIssue(path: path, message: message)])
    }
}
