import FlagKit
import FlagStore
import HTTPServer

/// `POST /v1/environments/{env}/preview`: what a proposed change would change and for how many installs,
/// before it is published (the console shows it before asking for the message). Publishes nothing.
///
/// Any token (reader included), like `?dryRun=true`: it only reads, but a 100,000-install sample costs
/// real CPU, so it is not open to anyone who can reach the server. Runs on the work queue.
extension ChangesController {
    func addPreview(to routes: inout ServiceRoutes) {
        routes.deferred(.POST, "/v1/environments/{env}/preview", access: .token(.reader),
                        audit: .exempt("a preview publishes nothing (like a dry run)")) { [self] request, context, _, _ in
            let name = try snapshots.requestedEnvironment(context)
            try Self.requireJSONContentType(request)
            let preview = try ChangePreview(body: try Self.parseJSON(request.body))
            let current = snapshots.snapshot(name)
            let baseVersion: Int?
            let baseDocument: FlagDocument?
            switch preview.base {
            case nil:
                (baseVersion, baseDocument) = (current?.version, current?.document)
            case 0?:
                (baseVersion, baseDocument) = (0, nil)
            case let number?:
                baseVersion = number
                baseDocument = try storedDocument(environment: name, number: number)
            }
            let proposed = try preview.proposedDocument(base: baseDocument)
            guard let old = baseDocument ?? FlagService.emptyDocument else {
                throw ServiceError(.internalServerError, code: "internal", message: "internal error")
            }
            var body = preview.answer(from: old, to: proposed, samples: impactSamples)
            body["environment"] = .string(name)
            body["baseVersion"] = baseVersion.map { .integer(Int64($0)) } ?? .null
            // The tag to send as If-Match when publishing what was previewed against the current version.
            body["baseEtag"] = preview.base == nil ? current.map { .string($0.etag) } ?? .null : .null
            return Self.json(body, headers: [.cacheControl: "no-store"])
        }
    }

    /// The document of a stored version: 404 `version_not_found` when there is none.
    func storedDocument(environment name: String, number: Int) throws(ServiceError) -> FlagDocument {
        let record: VersionRecord
        do {
            record = try store.version(environment: name, number: number)
        } catch {
            throw ServiceError.store(error)
        }
        do {
            return try FlagDocument.decode(record.document)
        } catch {
            throw ServiceError(.internalServerError, code: "stored_document_unreadable",
                               message: "version \(number) is stored but no longer decodes: \(error)")
        }
    }
}
