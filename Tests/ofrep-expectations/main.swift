// Prints what FlagKit evaluates for a document and generated contexts, one JSON object per line:
// {"context": {...}, "flags": {"key": {"type": "number", "value": ..., "variant": "...", "reason": "..."}}}.
// The first lines are contexts WITHOUT a targetingKey (one per locale), where a flag that would need
// bucketing is expected as {"type": ..., "errorCode": "TARGETING_KEY_MISSING"} (OFREPEvaluator's rule);
// then COUNT contexts with generated install ids. Tests/interop/ofrep_interop.py sends each context
// through the OpenFeature SDK and compares.
//
// usage: ofrep-expectations DOCUMENT.json COUNT
import FlagKit
import FlagOFREP
import Foundation

/// Why the tool stopped, printed on stderr with exit status 2.
struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// The i-th install's id: the two internal testers' ids of flags/production.json first, then UUID-shaped ids.
func installId(_ index: Int) -> String {
    if index < 2 { return "9F1C2D7E-0000-4000-8000-00000000000\(index + 1)" }
    let hex = String(index, radix: 16, uppercase: true)
    return "0FEE0000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
}

/// The i-th context: attributes cycle so that every cohort of Symi's documents is hit.
func context(_ index: Int) -> [String: JSONValue] {
    let locales = ["de-DE", "en-US", "en-GB", "fr-FR", "de-AT"]
    let versions = ["2.3.0", "2.4.0", "2.5.1", "2.4", "3.0.0-beta.1"]
    let channels = ["appstore", "testflight", "debug"]
    // The install date as an app sends it (RFC 3339), unknown (absent) for every fourth install.
    let installDates = ["2026-11-20T08:15:00Z", "2027-03-01T00:00:00Z", "2027-06-01T12:00:00.250+02:00"]
    var attributes: [String: JSONValue] = [
        "targetingKey": .string(installId(index)),
        "locale": .string(locales[index % locales.count]),
        "appVersion": .string(versions[(index / 5) % versions.count]),
        "channel": .string(channels[(index / 25) % channels.count]),
        "platform": "ios",
    ]
    if index % 4 != 0 { attributes["firstInstallDate"] = .string(installDates[index % 3]) }
    return attributes
}

func run() throws -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.count == 2, let path = arguments.first, let count = Int(arguments.last ?? ""), count >= 0 else {
        throw Failure(description: "usage: ofrep-expectations DOCUMENT.json COUNT")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw Failure(description: "cannot read \(path)")
    }
    let document: FlagDocument
    do { document = try FlagDocument.decode(Array(data)) } catch {
        throw Failure(description: "\(path): \(error)")
    }
    var out: [UInt8] = []
    out.reserveCapacity(1 << 16)
    let snapshot = OFREPSnapshot(document: document, version: 0, environment: "expectations")
    let keyless: [[String: JSONValue]] = ["de-DE", "en-US", "fr-FR"].map { ["locale": .string($0), "platform": "ios"] }
    for attributes in keyless {
        var flags: [String: JSONValue] = [:]
        for key in snapshot.sortedFlagKeys {
            let type = JSONValue.string(document.flags[key]?.type.rawValue ?? "json")
            switch OFREPEvaluator.evaluate(key: key, context: EvaluationContext(attributes: attributes), snapshot: snapshot) {
            case .success(let result):
                flags[key] = ["value": result.value, "variant": .string(result.variant), "reason": .string(result.reason.rawValue), "type": type]
            case .failure(let failure):
                flags[key] = ["errorCode": .string(failure.code.rawValue), "type": type]
            }
        }
        out.append(contentsOf: (["context": .object(attributes), "flags": .object(flags)] as JSONValue).canonicalBytes)
        out.append(0x0A)
    }
    for index in 0..<count {
        let attributes = context(index)
        let results = document.evaluateAll(context: EvaluationContext(attributes: attributes))
        var flags: [String: JSONValue] = [:]
        for (key, result) in results {
            flags[key] = [
                "value": result.value, "variant": .string(result.variant), "reason": .string(result.reason.rawValue),
                "type": .string(document.flags[key]?.type.rawValue ?? "json"),
            ]
        }
        let line: JSONValue = ["context": .object(attributes), "flags": .object(flags)]
        out.append(contentsOf: line.canonicalBytes)
        out.append(0x0A)
        if out.count > 1 << 16 {
            FileHandle.standardOutput.write(Data(out))
            out.removeAll(keepingCapacity: true)
        }
    }
    FileHandle.standardOutput.write(Data(out))
    return 0
}

do {
    exit(try run())
} catch {
    FileHandle.standardError.write(Data("ofrep-expectations: \(error)\n".utf8))
    exit(2)
}
