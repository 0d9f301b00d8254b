import FlagKit
import HTTPServer

/// The OFREP answers (protocol 0.3.0, `docs/specs/ofrep-openapi.yaml`), computed without any I/O
/// from a snapshot and a request body. The route handlers only add authentication and rate limits.
public enum OFREPEvaluator {
    /// `POST /ofrep/v1/evaluate/flags/{key}`:
    /// - 200 `{"key","value","reason","variant","metadata"}` (`serverEvaluationSuccess`);
    /// - 404 `{"key","errorCode":"FLAG_NOT_FOUND","errorDetails"}` (`flagNotFound`);
    /// - 400 `{"key","errorCode","errorDetails"}` for `PARSE_ERROR`, `INVALID_CONTEXT` and
    ///   `TARGETING_KEY_MISSING` (`evaluationFailure`).
    /// Every body carries `metadata` with the document version and environment.
    ///
    /// The body is read by `OFREPContextScanner` when it is a plain context and by
    /// `OFREPRequest.parse` otherwise (every refusal comes from there); a success is one of the
    /// answers prepared in the snapshot, returned by reference.
    public static func evaluateFlag(key: String, body: [UInt8], snapshot: OFREPSnapshot) -> HTTPResponse {
        let context: EvaluationContext
        if let scanned = OFREPContextScanner.context(in: body) {
            context = scanned
        } else {
            switch OFREPRequest.parse(body) {
            case .success(let parsed): context = parsed.context
            case .failure(let failure): return flagFailure(key: key, failure, snapshot: snapshot)
            }
        }
        switch answer(key: key, context: context, snapshot: snapshot) {
        case .success(let answer): return answer.response
        case .failure(let failure): return flagFailure(key: key, failure, snapshot: snapshot)
        }
    }

    /// `POST /ofrep/v1/evaluate/flags`: every flag of the snapshot, in key order.
    /// - 200 `{"flags":[...],"metadata":{...}}` with an `ETag`; a flag that cannot be evaluated for this
    ///   context (`TARGETING_KEY_MISSING`) is an inline `evaluationFailure` item, the others still succeed;
    /// - 304 with the same `ETag` and no body when `ifNoneMatch` (the `If-None-Match` field lines) matches it by
    ///   weak comparison (`HTTPEntityTagList`, accepting a bare unquoted tag: some providers echo the value
    ///   without its quotes);
    /// - 400 `{"errorCode","errorDetails"}` (`bulkEvaluationFailure`) for an unusable body.
    public static func evaluateAll(body: [UInt8], ifNoneMatch: [String] = [], snapshot: OFREPSnapshot,
                                   eventStream: OFREPEventStream? = nil) -> HTTPResponse {
        let request: OFREPRequest
        if let scanned = OFREPContextScanner.request(in: body) {
            request = scanned
        } else {
            switch OFREPRequest.parse(body) {
            case .success(let parsed): request = parsed
            case .failure(let failure): return bulkFailure(failure)
            }
        }
        let tag = etag(snapshot: snapshot, canonicalContext: request.canonicalContext)
        let headers: HTTPHeaders = [.eTag: tag]
        if !ifNoneMatch.isEmpty, HTTPEntityTagList.ifNoneMatch(ifNoneMatch, matches: tag, acceptingBareTags: true) {
            return .empty(.notModified, headers: headers)
        }
        var writer = OFREPJSONWriter(capacity: 128 * snapshot.sortedFlagKeys.count + 64)
        writer.beginObject()
        writer.beginArray("flags")
        for answers in snapshot.sortedAnswers {
            switch answer(answers, context: request.context, snapshot: snapshot) {
            case .success(let answer): writer.raw(answer.body)
            case .failure(let failure): writeFailure(key: answers.key, failure, snapshot: snapshot, into: &writer)
            }
        }
        writer.endArray()
        if let eventStream { writer.eventStreams(eventStream) }
        writer.metadata(snapshot)
        writer.endObject()
        return .json(writer.bytes, headers: headers)
    }

    /// One flag for one context, or why not: `FLAG_NOT_FOUND`, or `TARGETING_KEY_MISSING` when the
    /// context has no targeting key and the answer would depend on one (see `needsTargetingKey`).
    public static func evaluate(key: String, context: EvaluationContext, snapshot: OFREPSnapshot)
        -> Result<EvaluationResult, OFREPFailure>
    {
        guard snapshot.document.flags[key] != nil else {
            return .failure(OFREPFailure(.flagNotFound, "flag '\(key)' was not found in environment '\(snapshot.environment)'"))
        }
        if context.installId == nil && needsTargetingKey(key, context: context, document: snapshot.document) {
            return .failure(OFREPFailure(
                .targetingKeyMissing,
                "flag '\(key)' has a percentage rollout for this context; send the install id as context.targetingKey"))
        }
        return .success(snapshot.document.evaluate(key, context: context, version: snapshot.version))
    }

    /// The prepared answer for one flag, or why not: the same decisions as `evaluate`, in one lookup.
    static func answer(key: String, context: EvaluationContext, snapshot: OFREPSnapshot)
        -> Result<(body: [UInt8], response: HTTPResponse), OFREPFailure>
    {
        guard let answers = snapshot.answers[key] else {
            return .failure(OFREPFailure(.flagNotFound, "flag '\(key)' was not found in environment '\(snapshot.environment)'"))
        }
        return answer(answers, context: context, snapshot: snapshot)
    }

    private static func answer(_ answers: OFREPFlagAnswers, context: EvaluationContext, snapshot: OFREPSnapshot)
        -> Result<(body: [UInt8], response: HTTPResponse), OFREPFailure>
    {
        let key = answers.key
        if context.installId == nil && needsTargetingKey(key, context: context, document: snapshot.document) {
            return .failure(OFREPFailure(
                .targetingKeyMissing,
                "flag '\(key)' has a percentage rollout for this context; send the install id as context.targetingKey"))
        }
        let outcome = snapshot.document.outcome(key: key, flag: answers.flag, context: context)
        if let prepared = answers.answer(outcome) { return .success(prepared) }
        // Not reached while FlagKit gives only the outcomes prepared; written afresh rather than wrong.
        var writer = OFREPJSONWriter()
        writeSuccess(key: key, value: outcome.value(of: answers.flag), reason: outcome.reason, variant: outcome.variant,
                     isFloat: answers.flag.type == .number, environment: snapshot.environment,
                     version: snapshot.version, into: &writer)
        return .success((writer.bytes, .json(writer.bytes)))
    }

    /// Whether evaluating `key` for `context` would reach a rule with a rollout (its cohort matches,
    /// no earlier rule decided), here or in a prerequisite. Only then does the answer depend on the
    /// install id; every other flag is answered without one.
    public static func needsTargetingKey(_ key: String, context: EvaluationContext, document: FlagDocument) -> Bool {
        needsTargetingKey(key, context: context, document: document, depth: 0)
    }

    private static func needsTargetingKey(_ key: String, context: EvaluationContext, document: FlagDocument, depth: Int) -> Bool {
        // Validated documents have no prerequisite cycles; the bound guards against any that slip through.
        guard depth < 64, let flag = document.flags[key] else { return false }
        for requiredKey in flag.requires.keys.sorted() where needsTargetingKey(requiredKey, context: context, document: document, depth: depth + 1) {
            return true
        }
        for rule in flag.rules {
            if let cohort = rule.cohort, !document.isMember(context, of: cohort) { continue }
            return rule.rollout != nil
        }
        return false
    }

    /// The bulk `ETag`: a strong validator (RFC 9110 §8.8.3) over what determines the answer: the
    /// environment, the version, the document content and the canonical context.
    public static func etag(snapshot: OFREPSnapshot, canonicalContext: [UInt8]) -> String {
        var hash = SHA256()
        hash.update(snapshot.environment.utf8)
        hash.update([0])
        hash.update(String(snapshot.version).utf8)
        hash.update([0])
        hash.update(snapshot.contentHash.utf8)
        hash.update([0])
        hash.update(canonicalContext)
        return "\"" + SHA256.hex(Array(hash.finalize().prefix(16))) + "\""
    }

    /// One `serverEvaluationSuccess` object: `{"key","value","reason","variant","metadata"}`.
    static func writeSuccess(key: String, value: JSONValue, reason: EvaluationReason, variant: String, isFloat: Bool,
                             environment: String, version: Int, into writer: inout OFREPJSONWriter) {
        writer.beginObject()
        writer.string("key", key)
        writer.value("value", value, asFloat: isFloat)
        writer.string("reason", reason.rawValue)
        writer.string("variant", variant)
        writer.metadata(environment: environment, version: version)
        writer.endObject()
    }

    private static func writeFailure(key: String?, _ failure: OFREPFailure, snapshot: OFREPSnapshot?,
                                     into writer: inout OFREPJSONWriter) {
        writer.beginObject()
        if let key { writer.string("key", key) }
        writer.string("errorCode", failure.code.rawValue)
        writer.string("errorDetails", failure.details)
        if let snapshot { writer.metadata(snapshot) }
        writer.endObject()
    }

    private static func flagFailure(key: String, _ failure: OFREPFailure, snapshot: OFREPSnapshot) -> HTTPResponse {
        var writer = OFREPJSONWriter()
        writeFailure(key: key, failure, snapshot: snapshot, into: &writer)
        return .json(writer.bytes, status: HTTPStatus(code: failure.status))
    }

    /// A bulk request refused as a whole: `{"errorCode","errorDetails"}` (`bulkEvaluationFailure`).
    static func bulkFailure(_ failure: OFREPFailure) -> HTTPResponse {
        var writer = OFREPJSONWriter()
        writeFailure(key: nil, failure, snapshot: nil, into: &writer)
        return .json(writer.bytes, status: HTTPStatus(code: failure.status))
    }
}
