import FlagKit

/// Where a document for `diff` or `eval` comes from.
///
/// Today only files; the server phase adds `ENV` (what the server serves now) and `ENV@N`
/// (a published version), resolved through the libcurl transport. Commands only ever call
/// `load()`, so adding those cases changes no command.
public enum DocumentOperand: Sendable, Equatable, CustomStringConvertible {
    /// A JSON file on disk (`-` for standard input).
    case file(String)

    /// The operand an argument names.
    public init(_ argument: String) {
        self = .file(argument)
    }

    /// The argument as the user wrote it.
    public var description: String {
        switch self {
        case .file(let path): path
        }
    }

    /// Reads and validates the document.
    public func load() throws(CommandFailure) -> FlagDocument {
        switch self {
        case .file(let path):
            let bytes: [UInt8]
            do {
                bytes = try FileReader.read(path)
            } catch {
                throw .unreadable(error)
            }
            do {
                return try FlagDocument.decode(bytes)
            } catch {
                throw .invalidDocument(source: path, error)
            }
        }
    }
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
        }
    }
}
