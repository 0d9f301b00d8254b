import Dispatch
import FlagKit
import FlagStore
import HTTPServer

/// How a write's outcome is answered, for every route that hands a job to the writer (documents, flags,
/// rollbacks, schedules): 200 with `changed` true or false, the refusal, or (a write that touched a protected
/// flag, or a schedule) the change it was recorded as, with its impact. A final class: a write's completion
/// holds it with one reference.
final class WriteAnswer: Sendable {
    /// Where a recorded change's impact is measured (never the writer thread).
    let work: DispatchQueue
    /// How many sampled installs that impact measures (`FlagService.Options.changeImpactSample`).
    let impactSample: Int
    /// The impact sample of the last preview or recorded change, reused while the pools stay the same.
    let impactSamples: ImpactSampleCache

    init(work: DispatchQueue, impactSample: Int, impactSamples: ImpactSampleCache) {
        self.work = work
        self.impactSample = impactSample
        self.impactSamples = impactSamples
    }

    /// The completion that renders a write's outcome on `responder` (`key`: the flag a flag PUT answers with).
    func completion(_ responder: HTTPResponder, flag key: String?) -> @Sendable (WriteOutcome) -> Void {
        { [self] outcome in
            switch outcome {
            case .published(let published):
                var body = Self.versionMembers(published)
                if let key, let flag = published.document.flags[key] { body["flag"] = flag.jsonValue }
                responder.respond(DocumentsController.json(body, headers: [.eTag: published.etag]))
            case .unchanged(let record):
                var body = VersionMetadata(record).members
                let etag = VersionMetadata.entityTag(version: record.number, contentHash: record.contentHash)
                body["changed"] = false
                body["etag"] = .string(etag)
                responder.respond(DocumentsController.json(body, headers: [.eTag: etag]))
            case .failed(let error):
                responder.respond(error.response)
            case .recorded(let recorded):
                answerRecorded(recorded, responder)
            case .changeRan(let record, _), .changeSkipped(let record):
                // Only change jobs end so, and they are not submitted with this completion.
                responder.respond(DocumentsController.json(["change": record.jsonValue]))
            case .notificationStored:
                // Only notification jobs end so, and they are not submitted with this completion.
                responder.respond(ServiceError(.internalServerError, code: "internal", message: "internal error").response)
            }
        }
    }

    /// A published version as a write answers it: its metadata, `changed: true` and its `etag`.
    static func versionMembers(_ published: CommittedVersion) -> [String: JSONValue] {
        var body = VersionMetadata(published.record).members
        body["changed"] = true
        body["etag"] = .string(published.etag)
        return body
    }

    /// 201 (a schedule) or 202 (a change request) with the change, its diff and its impact. The impact of a
    /// sample of installs costs real CPU, so it is computed on the work queue, never on the writer thread.
    func answerRecorded(_ recorded: RecordedChange, _ responder: HTTPResponder) {
        let record = recorded.record
        work.async { [self] in
            var body = ChangePreview.comparison(from: recorded.base, to: recorded.proposed,
                                                sampleSize: impactSample, samples: impactSamples)
            body["change"] = record.jsonValue
            responder.respond(ChangesController.json(body, status: record.status == .pending ? .accepted : .created,
                                                     headers: [.location: "/v1/changes/\(record.id)", .cacheControl: "no-store"]))
        }
    }
}
