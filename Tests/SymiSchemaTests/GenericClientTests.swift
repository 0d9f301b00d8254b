import FlagKit
import Foundation
import SymiSchema
import Testing

/// FlagKit and the client stay generic: their code names none of Symi's flags or schema types, so another app could
/// link FlagClient without a word of Symi in it. Comments may still use Symi's flags as examples.
@Suite struct GenericClientTests {
    /// The modules an app links to read flags (FlagClient and what it stands on).
    static let genericModules = ["FlagKit", "ClientHTTP", "FlagClient"]

    /// Every Swift file of `module` with its comment lines and trailing `//` comments removed.
    static func code(of module: String) throws -> [(file: String, code: String)] {
        let directory = Documents.packageRoot.appendingPathComponent("Sources/\(module)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }.sorted()
        return try files.map { file in
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> Substring? in
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { return nil }
                // A trailing comment starts at " // "; URLs in literals ("https://") have no space before the slashes.
                return line.range(of: " // ").map { line[..<$0.lowerBound] } ?? line
            }
            return ("\(module)/\(file)", lines.joined(separator: "\n"))
        }
    }

    /// The first line of `code` that `pattern` matches, so a failure names the line rather than the whole file.
    static func line(matching pattern: Regex<AnyRegexOutput>, in code: String) -> String? {
        code.split(separator: "\n").first { $0.firstMatch(of: pattern) != nil }.map(String.init)
    }

    @Test func theGenericModulesNameNoSymiFlag() throws {
        let keys = try #require(SymiSafeDefaults.document).flags.keys.sorted()
        #expect(keys.contains(SymiFlags.Key.premiumFeaturesLocked) && keys.contains(SymiFlags.Key.monetizationEnabled))
        for module in Self.genericModules {
            let sources = try Self.code(of: module)
            #expect(!sources.isEmpty, "\(module) was read")
            for (file, code) in sources {
                for key in keys {
                    let line = Self.line(matching: try Regex("\\b\(key)\\b"), in: code)
                    #expect(line == nil, "\(file) names Symi's flag \(key)")
                }
            }
        }
    }

    @Test func theGenericModulesNameNoSymiType() throws {
        // `Symi-Webhook-Id` and its siblings (the server's HTTP headers) and `SYMI-FLAG-CACHE` (the cache file's magic) are
        // formats on the wire and on disk, not the app's schema; the match is case-sensitive and needs a name character.
        let symiName = try Regex(#"\bSymi[A-Za-z0-9_]"#)
        let schemaTypes = ["SubscriptionScreenCopy", "SubscriptionPaidCopy", "LegalLinks"]
        for module in Self.genericModules {
            for (file, code) in try Self.code(of: module) {
                let line = Self.line(matching: symiName, in: code)
                #expect(line == nil, "\(file) names a Symi type or module")
                for type in schemaTypes {
                    let named = code.contains(type)
                    #expect(!named, "\(file) names \(type)")
                }
            }
        }
    }
}
