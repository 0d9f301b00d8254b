import FlagClient
import FlagKit
import Foundation

/// Fetches an environment's document the way the app does — `FlagClient.refresh()` over libcurl with
/// certificate checks, validation and the disk cache — and prints the envelope it now holds, re-encoded
/// canonically (byte for byte what the server sends). For deploy checks through a TLS front:
///
///     flagclient-fetch https://127.0.0.1:8443/v1/environments/production/document --ca ca.pem
///
/// Exit 0 with the envelope on stdout; 1 with the refresh's error on stderr; 64 for a usage error.
let usage = "usage: flagclient-fetch DOCUMENT-URL [--ca FILE] [--cache DIR]"

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

var arguments = CommandLine.arguments.dropFirst()
var documentURL: URL?
var caFile: String?
var cacheDirectory: URL?
while let argument = arguments.popFirst() {
    switch argument {
    case "--ca":
        guard let value = arguments.popFirst() else { fail(usage, code: 64) }
        caFile = value
    case "--cache":
        guard let value = arguments.popFirst() else { fail(usage, code: 64) }
        cacheDirectory = URL(fileURLWithPath: value, isDirectory: true)
    default:
        guard documentURL == nil, let url = URL(string: argument) else { fail(usage, code: 64) }
        documentURL = url
    }
}
// The path is {base}/v1/environments/{environment}/document; the client builds it back from the parts.
guard let documentURL, documentURL.pathComponents.suffix(4).dropLast(2) == ["v1", "environments"],
      documentURL.lastPathComponent == "document",
      var base = URLComponents(url: documentURL, resolvingAgainstBaseURL: false) else {
    fail("\(usage)\n(the URL must end in /v1/environments/ENV/document)", code: 64)
}
let environment = documentURL.pathComponents[documentURL.pathComponents.count - 2]
base.path = String(base.path.dropLast("/v1/environments/\(environment)/document".count))
guard let baseURL = base.url else { fail("cannot derive the base URL from \(documentURL)", code: 64) }

let directory = cacheDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("flagclient-fetch-\(UUID().uuidString)")
var options = TransportOptions()
options.caFile = caFile
let client = FlagClient(configuration: FlagClientConfiguration(environment: environment, baseURL: baseURL, cacheDirectory: directory,
                                                              transportOptions: options))
let outcome = await client.refresh(force: true)
if cacheDirectory == nil { try? FileManager.default.removeItem(at: directory) }
switch outcome {
case .updated, .notModified:
    guard let envelope = client.snapshot.envelope else { fail("refresh succeeded but no envelope is held", code: 1) }
    // The wire contract's own encoding (VersionMetadata), so every member the server sends comes back out.
    var object = envelope.metadata.members
    object["document"] = envelope.document.jsonValue
    FileHandle.standardOutput.write(Data(JSONValue.object(object).canonicalBytes + [0x0A]))
case .skipped(let until, let reason):
    fail("refresh skipped until \(until): \(reason)", code: 1)
case .failed(let error):
    fail("refresh failed: \(error)", code: 1)
}
