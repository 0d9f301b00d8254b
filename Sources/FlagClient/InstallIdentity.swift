import Foundation

/// The install's stable random id: the targeting key of every rollout, generated once and kept in the app's
/// directory, so the same install lands in the same rollout bucket at every launch.
///
/// Kept in `<directory>/install-id` as an uppercase UUID and a newline. Written atomically (temporary file and
/// rename); a file that does not hold a UUID (damaged, truncated, foreign) is replaced by a new id, because an id
/// that cannot be read back would otherwise change at every launch. It is random and says nothing about the user.
public struct InstallIdentity: Sendable, Equatable {
    /// How the id was obtained at this launch, for diagnostics.
    public enum Origin: Sendable, Equatable {
        /// Read from the file.
        case loaded
        /// No file yet: generated and written.
        case created
        /// The file held no valid id (reason given): a new id was generated and written over it.
        case replaced(reason: String)
        /// Given by the app in ``FlagClientConfiguration/installId``; nothing was read or written.
        case configured
        /// Generated, but it could not be written (the error); the next launch will generate another.
        case unpersisted(FlagCacheError)
    }

    /// The id (an uppercase UUID string).
    public let id: String
    /// How it was obtained.
    public let origin: Origin

    /// Creates an identity (an id the app supplies comes with origin `.configured`).
    public init(id: String, origin: Origin) {
        self.id = id
        self.origin = origin
    }

    /// The name of the id file in the directory.
    public static let fileName = "install-id"

    /// Reads the id from `directory`, or generates, stores and returns a new one. Never throws: an install always
    /// gets an id, persisted when the file system allows it.
    public static func loadOrCreate(in directory: URL) -> InstallIdentity {
        let path = directory.appendingPathComponent(fileName, isDirectory: false).path
        let replacedReason: String?
        switch POSIXFile.read(path: path, limit: 256) {
        case .success(let bytes):
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if let uuid = UUID(uuidString: text) { return InstallIdentity(id: uuid.uuidString, origin: .loaded) }
            replacedReason = bytes.isEmpty ? "empty file" : "not a UUID"
        case .failure(.missing):
            replacedReason = nil
        case .failure(.notARegularFile):
            replacedReason = "not a regular file"
        case .failure(.tooLarge(let size)):
            replacedReason = "file of \(size) bytes"
        case .failure(.failed(let call, let code)):
            replacedReason = "\(call) failed: \(POSIXFile.describe(code)) (errno \(code))"
        }
        let id = UUID().uuidString
        if let error = store(id, in: directory) { return InstallIdentity(id: id, origin: .unpersisted(error)) }
        return InstallIdentity(id: id, origin: replacedReason.map { .replaced(reason: $0) } ?? .created)
    }

    private static func store(_ id: String, in directory: URL) -> FlagCacheError? {
        if let (call, code) = POSIXFile.makeDirectories(directory.path) {
            return FlagCacheError(operation: call, path: directory.path, errno: code, message: POSIXFile.describe(code))
        }
        // A directory squatting on the name cannot be renamed over; remove it only if empty (rmdir), never recursively.
        if case .failure(.notARegularFile) = POSIXFile.read(path: directory.appendingPathComponent(fileName).path, limit: 0) {
            _ = POSIXFile.removeEmptyDirectory(path: directory.appendingPathComponent(fileName).path)
        }
        if let (call, code) = POSIXFile.replaceAtomically(directory: directory.path, name: fileName,
                                                          bytes: Array((id + "\n").utf8)) {
            return FlagCacheError(operation: call, path: directory.appendingPathComponent(fileName).path, errno: code,
                                  message: POSIXFile.describe(code))
        }
        return nil
    }
}
