import Foundation
import HTTPServer

/// The ops console's files (`docs/console.md`): plain HTML, CSS and JavaScript modules read from one flat
/// directory into memory when the server starts, each with its response prebuilt.
///
/// Only files already in the table are ever served, so a request path cannot reach anything else on disk
/// (`/console/../x`, `/console/%2e%2e%2fx` find no entry), and serving never touches the disk or blocks the loop.
public struct ConsoleAssets: Sendable {
    /// Sent with every console response: nothing inline, nothing from elsewhere, never framed.
    public static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    /// The file served at `/console` and `/console/`.
    public static let indexFile = "index.html"

    /// Where the files were read from (logged at start).
    public let directory: String
    /// File name to prebuilt `200` response.
    let responses: [String: HTTPResponse]

    /// Reads every file of `directory` with a known type (see `contentType(of:)`); others are skipped.
    /// Throws when the directory cannot be read or has no `index.html`.
    public init(directory: String) throws(ConsoleAssetsError) {
        self.directory = directory
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .unreadable(path: directory, reason: error.localizedDescription)
        }
        var responses: [String: HTTPResponse] = [:]
        for name in names where Self.isServableName(name) {
            guard let type = Self.contentType(of: name) else { continue }
            let path = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "cannot read the file") }
            var headers = Self.securityHeaders
            headers.add(name: .contentType, value: type)
            // Revalidated on every load, so a new release's files are never mixed with cached old ones.
            headers.add(name: .cacheControl, value: "no-cache")
            responses[name] = HTTPResponse(status: .ok, headers: headers, body: [UInt8](data))
        }
        guard responses[Self.indexFile] != nil else { throw .noIndex(path: directory) }
        self.responses = responses
    }

    /// The names served, sorted.
    public var fileNames: [String] { responses.keys.sorted() }

    /// The response for `/console/<name>`: the file, or `404` (with the same security headers).
    public func response(for name: String) -> HTTPResponse {
        responses[name] ?? Self.notFound("no console file '\(name)'")
    }

    /// The response when no console directory was found at start.
    public static func notInstalled() -> HTTPResponse {
        notFound("the console is not installed: start flagserver with --console-dir DIR (see docs/console.md)")
    }

    /// A JSON `404` with the console's headers.
    static func notFound(_ message: String) -> HTTPResponse {
        var response = ServiceError(.notFound, code: "not_found", message: message).response
        for field in securityHeaders { response.headers.add(name: field.name, value: field.value) }
        return response
    }

    /// CSP, no MIME sniffing, no referrer (a URL never carries a token, but other people's URLs stay private).
    static var securityHeaders: HTTPHeaders {
        [.contentSecurityPolicy: contentSecurityPolicy, .xContentTypeOptions: "nosniff",
         "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"]
    }

    /// Letters, digits, `.`, `-`, `_`, not starting with a dot: no hidden files, no separators.
    static func isServableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first != "." else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    /// The media type by extension; nil for files the console does not serve.
    static func contentType(of name: String) -> String? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "ico": return "image/x-icon"
        default: return nil
        }
    }

    /// The first of `candidates` that holds an `index.html`.
    public static func locate(_ candidates: [String]) -> String? {
        candidates.first { FileManager.default.fileExists(atPath: $0 + "/" + indexFile) }
    }

    /// Where a console is looked for when no directory is given: beside an installed binary
    /// (`BIN/../share/flagserver/console`, `BIN/console`), then `console/` of the repository the binary was
    /// built in (`.build/debug/flagserver` is three levels below it), then `./console`.
    public static func defaultCandidates(executable: String, workingDirectory: String) -> [String] {
        let bin = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [bin.appendingPathComponent("../share/flagserver/console").standardized.path,
                          bin.appendingPathComponent("console").path]
        var directory = bin
        for _ in 0..<4 {
            directory = directory.deletingLastPathComponent()
            candidates.append(directory.appendingPathComponent("console").path)
        }
        candidates.append(URL(fileURLWithPath: workingDirectory).appendingPathComponent("console").path)
        return candidates
    }
}

/// Why the console's files could not be loaded.
public enum ConsoleAssetsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The directory or a file in it cannot be read.
    case unreadable(path: String, reason: String)
    /// The directory has no `index.html`.
    case noIndex(path: String)

    /// One sentence.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read console files at \(path): \(reason)"
        case .noIndex(let path): "\(path) has no \(ConsoleAssets.indexFile): not a console directory"
        }
    }
}
