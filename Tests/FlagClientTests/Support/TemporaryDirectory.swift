import Foundation

/// A fresh directory under the system temp directory, removed by ``remove()``.
struct TemporaryDirectory {
    /// The directory.
    let url: URL

    /// Creates a uniquely named directory.
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("flagclient-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Deletes the directory and everything in it.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Names of the entries in the directory, sorted.
    func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    /// Makes the directory refuse new entries, even for root (who ignores permission bits):
    /// `chattr +i` when running as root, mode 0500 otherwise. Returns the undo action.
    func makeReadOnly() throws -> () -> Void {
        if geteuid() == 0 {
            try Self.run("/usr/bin/chattr", ["+i", url.path])
            return { try? Self.run("/usr/bin/chattr", ["-i", url.path]) }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: url.path)
        return { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path) }
    }

    private struct CommandFailed: Error { var command: String; var status: Int32 }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailed(command: ([executable] + arguments).joined(separator: " "), status: process.terminationStatus)
        }
    }
}
