import CommandLineKit
import FlagKit

/// Where a document for `diff` or `eval` comes from: a file, what the server serves now for an
/// environment (`production`), or a published version (`production@41`).
///
/// An argument that is an environment name (lowercase letters, digits and `-`, as the server allows),
/// optionally with `@N`, names the server; anything else is a file. A file whose name looks like an
/// environment is reached as `./production`.
public enum DocumentOperand: Sendable, Equatable, CustomStringConvertible {
    /// A JSON file on disk (`-` for standard input).
    case file(String)
    /// The environment's current version on the server.
    case environment(String)
    /// A published version of an environment.
    case version(String, Int)

    /// The operand an argument names; `production@0` or `production@x` is a usage error.
    public init(_ argument: String) throws(UsageError) {
        if let at = argument.firstIndex(of: "@"), Self.isEnvironmentName(argument[..<at]) {
            let text = argument[argument.index(after: at)...]
            guard let number = Int(text), number >= 1, text.allSatisfy(\.isASCII) else {
                throw UsageError("'\(argument)': the version after @ must be a positive whole number")
            }
            self = .version(String(argument[..<at]), number)
        } else if Self.isEnvironmentName(argument[...]) {
            self = .environment(argument)
        } else {
            self = .file(argument)
        }
    }

    /// The server's rule for environment names: 1 to 63 of `a-z`, `0-9`, `-`, not starting with `-`.
    static func isEnvironmentName(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, first != UInt8(ascii: "-"), text.utf8.count <= 63 else { return false }
        return text.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") }
    }

    /// The argument as the user wrote it.
    public var description: String {
        switch self {
        case .file(let path): path
        case .environment(let name): name
        case .version(let name, let number): "\(name)@\(number)"
        }
    }

    /// Whether loading needs the server.
    public var needsServer: Bool {
        if case .file = self { return false }
        return true
    }

    /// Reads and validates the document (from the server for `ENV` and `ENV@N`).
    public func load(_ globals: GlobalOptions) throws(CommandFailure) -> LoadedDocument {
        switch self {
        case .file(let path):
            let bytes: [UInt8]
            do {
                bytes = try FileReader.read(path)
            } catch {
                throw .unreadable(error)
            }
            do {
                return LoadedDocument(document: try FlagDocument.decode(bytes), label: path, published: nil)
            } catch {
                throw .invalidDocument(source: path, error)
            }
        case .environment(let name):
            let client: ServerClient
            let current: PublishedVersion?
            do throws(ServerError) {
                client = try ServerClient(globals: globals)
                current = try client.current(name)
            } catch {
                throw .server(error)
            }
            guard let current, let document = current.document else { throw .noVersion(name) }
            return LoadedDocument(document: document, label: "\(name) (version \(current.version) on \(client.serverName))",
                                  published: current)
        case .version(let name, let number):
            do throws(ServerError) {
                let client = try ServerClient(globals: globals)
                let published = try client.version(name, number)
                guard let document = published.document else {
                    throw ServerError.unreadableReply(url: client.serverName, reason: "/document: missing")
                }
                return LoadedDocument(document: document, label: "\(name)@\(number) (on \(client.serverName))", published: published)
            } catch {
                throw .server(error)
            }
        }
    }
}

/// A document with where it came from.
public struct LoadedDocument: Sendable {
    /// The validated document.
    public var document: FlagDocument
    /// How diff headers name it: the path, or `production (version 5 on http://...)`.
    public var label: String
    /// The server's version metadata, for server operands.
    public var published: PublishedVersion?
}

/// Why a command could not do its work (exit 2), keeping the cause.
public enum CommandFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file could not be read (with its errno).
    case unreadable(FileReadError)
    /// A document is not valid where a valid one is needed (every problem with its JSON path).
    case invalidDocument(source: String, FlagDocumentError)
    /// A contexts file line is not a JSON object.
    case badContext(source: String, line: Int, message: String)
    /// A flag asked for is not in the document.
    case unknownFlag(source: String, key: String)
    /// The server could not be reached or refused.
    case server(ServerError)
    /// The environment exists on the server but has no published version.
    case noVersion(String)
    /// A value typed for a flag is not of the flag's type (`'yes'` for a boolean).
    case wrongType(key: String, type: FlagType, text: String, got: String)
    /// A guard file is not valid (docs/guards.md): where in it and the rule's own error.
    case invalidGuard(source: String, GuardFileError)

    /// One line per problem, for standard error.
    public var description: String {
        switch self {
        case .unreadable(let error):
            return error.description
        case .invalidDocument(let source, let error):
            return "\(source) is not a valid flag document:\n" + error.issues.map { "  \(source): \($0)" }.joined(separator: "\n")
        case .badContext(let source, let line, let message):
            return "\(source):\(line): \(message)"
        case .unknownFlag(let source, let key):
            return "flag \"\(key)\" is not in \(source)"
        case .server(let error):
            return error.description
        case .noVersion(let name):
            return "\(name) has no published version on the server yet"
        case .wrongType(let key, let type, let text, let got):
            return "flag \(key) is \(type.rawValue); '\(text)' is \(got)"
        case .invalidGuard(let source, let error):
            return "\(source) is not a valid guard file: \(error); nothing was sent"
        }
    }
}
